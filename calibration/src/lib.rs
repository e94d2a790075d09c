//! Calibration.
pub use alhambra_vision::opencv_version;
