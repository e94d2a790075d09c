//! Calibration: camera intrinsics from chessboard (or ChArUco) photos and the camera file
//! that holds them, undistortion, the table plane from ArUco markers, and the printable
//! marker sheet. Everything saved is versioned JSON that the app and scanner reload.

pub mod camera;
pub mod error;
pub mod intrinsics;
mod marker_reading;
pub mod plane;
pub mod printfile;
pub mod sheet;

pub use camera::{CAMERA_FILE_VERSION, CameraFile, Undistorter};
pub use error::CalibrationError;
pub use intrinsics::{
    BoardSize, Detection, IntrinsicsOptions, IntrinsicsReport, Pattern, PhotoResult, Skipped, View,
    calibrate_photos, calibrate_views, detect,
};
pub use plane::{DetectedMarker, PlaneTracker, PlaneUpdate, TablePlane, detect_markers};
pub use sheet::{MarkerSheet, Paper, SheetInfo, SheetOptions};
