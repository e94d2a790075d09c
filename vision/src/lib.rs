//! Frame in, Alhambras out: the scan-result format, cell appearance and profiles, plane
//! geometry, the scanner, and the synthetic table renderer.

pub mod appearance;
pub mod assignment;
pub mod default_profile;
pub mod eval;
pub mod geometry;
pub mod identity;
pub mod labels;
pub mod outer_edge;
pub mod overlay;
pub mod plane;
pub mod scanner;
pub mod source;
pub mod stages;
pub mod synth;
pub mod tone;
pub mod tracker;
pub mod training;

pub use labels::{LabelError, ScanResult, ScannedAlhambra, ScannedTile};

/// The OpenCV version this build links (shown by `alhambra --version`).
pub fn opencv_version() -> String {
    opencv::core::get_version_string().unwrap_or_default()
}
