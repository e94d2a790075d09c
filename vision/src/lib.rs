//! Frame in, Alhambras out.
/// OpenCV version string (build smoke check).
pub fn opencv_version() -> String { opencv::core::get_version_string().unwrap_or_default() }
