//! Frame in, Alhambras out: the scan-result format, the synthetic table renderer, and
//! (to come) the scanner and the frame sources.

pub mod labels;

pub use labels::{LabelError, ScanResult, ScannedAlhambra, ScannedTile};

/// The OpenCV version this build links (shown by `alhambra --version`).
pub fn opencv_version() -> String {
    opencv::core::get_version_string().unwrap_or_default()
}
