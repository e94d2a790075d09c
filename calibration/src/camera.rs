//! The camera file of CONTRACTS.md (`calibrate intrinsics --out`): intrinsics and
//! distortion of one camera at one resolution, loaded and checked before use, and the
//! undistortion the scanner applies to each frame.

use crate::error::{CalibrationError, Result};
use opencv::core::{Mat, Point2f, Scalar, Size, Vector};
use opencv::prelude::*;
use opencv::{calib3d, imgproc};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The camera file version this program writes and reads.
pub const CAMERA_FILE_VERSION: u32 = 1;

/// A camera's intrinsics as saved by `alhambra calibrate intrinsics`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CameraFile {
    /// Always [`CAMERA_FILE_VERSION`].
    pub version: u32,
    /// Width and height of the frames the calibration holds for.
    pub image_size: [u32; 2],
    /// `[[fx, 0, cx], [0, fy, cy], [0, 0, 1]]` in pixels.
    pub camera_matrix: [[f64; 3]; 3],
    /// OpenCV's `[k1, k2, p1, p2, k3]`.
    pub distortion: [f64; 5],
    /// Overall RMS reprojection error of the calibration, pixels.
    pub rms_px: f64,
    /// The board's inner corners, `"9x6"`.
    pub board: String,
    /// The board's square size, millimetres.
    pub square_mm: f64,
    /// How many photos the calibration used.
    pub photos_used: u32,
    /// When it was made, RFC 3339 UTC.
    pub created: String,
    /// `"chessboard"` or `"charuco"` (optional; chessboard when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

impl CameraFile {
    /// Focal lengths and principal point `(fx, fy, cx, cy)`, pixels.
    pub fn intrinsics(&self) -> (f64, f64, f64, f64) {
        let k = &self.camera_matrix;
        (k[0][0], k[1][1], k[0][2], k[1][2])
    }

    /// Loads and checks a camera file. A file of another version, or one that is truncated,
    /// not JSON or missing a field, is refused with an error naming the file.
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|error| CalibrationError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        Self::from_slice(&bytes, path)
    }

    /// Parses and checks a camera file's bytes; `path` is only used in messages.
    pub fn from_slice(bytes: &[u8], path: &Path) -> Result<Self> {
        let corrupt = |reason: String| CalibrationError::Corrupt {
            path: path.to_path_buf(),
            reason,
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(corrupt("the file is empty".into()));
        }
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| corrupt(format!("{e} (truncated?)")))?;
        match value.get("version") {
            None => return Err(corrupt("it has no \"version\" field".into())),
            Some(v) if v.as_u64() == Some(u64::from(CAMERA_FILE_VERSION)) => {}
            Some(v) => {
                return Err(CalibrationError::Version {
                    path: path.to_path_buf(),
                    found: v.to_string(),
                    expected: CAMERA_FILE_VERSION,
                });
            }
        }
        let file: CameraFile = serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))?;
        file.validate().map_err(corrupt)?;
        Ok(file)
    }

    /// Checks the numbers make a usable camera; the reason when not.
    fn validate(&self) -> std::result::Result<(), String> {
        let [w, h] = self.image_size;
        if w == 0 || h == 0 {
            return Err(format!("image_size {w}x{h} is empty"));
        }
        let k = &self.camera_matrix;
        if k.iter()
            .flatten()
            .chain(&self.distortion)
            .any(|v| !v.is_finite())
        {
            return Err("camera_matrix or distortion holds a value that is not a number".into());
        }
        if k[0][0] <= 0.0 || k[1][1] <= 0.0 {
            return Err("the focal lengths (camera_matrix[0][0], [1][1]) must be positive".into());
        }
        if k[2] != [0.0, 0.0, 1.0] || k[1][0] != 0.0 {
            return Err("camera_matrix is not of the form [[fx,0,cx],[0,fy,cy],[0,0,1]]".into());
        }
        Ok(())
    }

    /// Writes the file: to a temporary file beside it, then renamed over it, so a crash
    /// never leaves half a camera file.
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = to_json_lines(self).map_err(|e| {
            CalibrationError::Invalid(format!("cannot encode the camera file: {e}"))
        })?;
        write_atomically(path, text.as_bytes())
    }

    /// Refuses a frame of another size than the calibration's (another camera or mode).
    pub fn check_image_size(&self, width: u32, height: u32) -> Result<()> {
        let [cal_width, cal_height] = self.image_size;
        if (width, height) == (cal_width, cal_height) {
            Ok(())
        } else {
            Err(CalibrationError::ImageSize {
                width,
                height,
                cal_width,
                cal_height,
            })
        }
    }

    /// The camera matrix as a 3x3 `CV_64F` Mat.
    pub fn camera_mat(&self) -> Result<Mat> {
        Ok(Mat::from_slice_2d(&self.camera_matrix)?)
    }

    /// The distortion coefficients as a 1x5 `CV_64F` Mat.
    pub fn distortion_mat(&self) -> Result<Mat> {
        Ok(Mat::from_slice_2d(&[self.distortion])?)
    }

    /// Maps distorted pixel positions to where an ideal pinhole camera with the same camera
    /// matrix would see them (what [`Undistorter::undistort`] does to whole frames).
    pub fn undistort_points(&self, points: &[Point2f]) -> Result<Vec<Point2f>> {
        if points.is_empty() {
            return Ok(Vec::new());
        }
        let src: Vector<Point2f> = points.iter().copied().collect();
        let mut dst: Vector<Point2f> = Vector::new();
        let k = self.camera_mat()?;
        calib3d::undistort_points(
            &src,
            &mut dst,
            &k,
            &self.distortion_mat()?,
            &Mat::default(),
            &k,
        )?;
        Ok(dst.to_vec())
    }

    /// The undistortion maps for this camera, computed once.
    pub fn undistorter(&self) -> Result<Undistorter> {
        Undistorter::new(self)
    }
}

/// Undistorts frames of one camera: the remap tables are computed once (at construction)
/// and reused for every frame. The output keeps the camera matrix, so pixel scale and
/// principal point are unchanged (corners of the frame may come out black).
#[derive(Debug)]
pub struct Undistorter {
    map1: Mat,
    map2: Mat,
    size: [u32; 2],
}

impl Undistorter {
    /// Builds the remap tables for `camera`.
    pub fn new(camera: &CameraFile) -> Result<Self> {
        let [w, h] = camera.image_size;
        let size = Size::new(to_i32(w)?, to_i32(h)?);
        let k = camera.camera_mat()?;
        let mut map1 = Mat::default();
        let mut map2 = Mat::default();
        calib3d::init_undistort_rectify_map(
            &k,
            &camera.distortion_mat()?,
            &Mat::default(),
            &k,
            size,
            opencv::core::CV_16SC2,
            &mut map1,
            &mut map2,
        )?;
        Ok(Self {
            map1,
            map2,
            size: camera.image_size,
        })
    }

    /// The undistorted frame; a frame of another size than the calibration's is refused.
    pub fn undistort(&self, frame: &Mat) -> Result<Mat> {
        let mut out = Mat::default();
        self.undistort_into(frame, &mut out)?;
        Ok(out)
    }

    /// Like [`Undistorter::undistort`], into a reused output Mat.
    pub fn undistort_into(&self, frame: &Mat, out: &mut Mat) -> Result<()> {
        let (w, h) = (frame.cols().max(0) as u32, frame.rows().max(0) as u32);
        if [w, h] != self.size {
            return Err(CalibrationError::ImageSize {
                width: w,
                height: h,
                cal_width: self.size[0],
                cal_height: self.size[1],
            });
        }
        imgproc::remap(
            frame,
            out,
            &self.map1,
            &self.map2,
            imgproc::INTER_LINEAR,
            opencv::core::BORDER_CONSTANT,
            Scalar::all(0.0),
        )?;
        Ok(())
    }
}

fn to_i32(v: u32) -> Result<i32> {
    i32::try_from(v).map_err(|_| CalibrationError::Invalid(format!("image size {v} is too large")))
}

/// JSON with one top-level field per line and the arrays kept on that line, as in
/// CONTRACTS.md (`"camera_matrix": [[fx, 0.0, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]]`).
pub fn to_json_lines<T: Serialize>(value: &T) -> serde_json::Result<String> {
    let compact = serde_json::to_string(value)?;
    let mut out = String::with_capacity(compact.len() + 64);
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for ch in compact.chars() {
        if in_string {
            out.push(ch);
            match (escaped, ch) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match ch {
            '"' => {
                in_string = true;
                out.push(ch);
            }
            '{' | '[' => {
                depth += 1;
                out.push(ch);
                if depth == 1 && ch == '{' {
                    out.push_str("\n  ");
                }
            }
            '}' | ']' => {
                if depth == 1 && ch == '}' {
                    out.push('\n');
                }
                depth = depth.saturating_sub(1);
                out.push(ch);
            }
            ',' if depth == 1 => out.push_str(",\n  "),
            ',' => out.push_str(", "),
            ':' => out.push_str(": "),
            _ => out.push(ch),
        }
    }
    out.push('\n');
    Ok(out)
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let write_err = |error| CalibrationError::Write {
        path: path.to_path_buf(),
        error,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp: PathBuf = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(write_err(e));
    }
    Ok(())
}

/// The current time as RFC 3339 UTC, `2026-11-30T12:00:00Z`.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    rfc3339_from_unix(secs)
}

/// Seconds since 1970 as RFC 3339 UTC (proleptic Gregorian calendar).
pub fn rfc3339_from_unix(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_layout() {
        #[derive(Serialize)]
        struct T {
            a: u32,
            b: [[f64; 2]; 2],
            s: String,
        }
        let t = T {
            a: 1,
            b: [[0.5, 0.0], [1.0, 2.0]],
            s: "x, y: {z}\"q".into(),
        };
        let text = to_json_lines(&t).expect("json");
        assert_eq!(
            text,
            "{\n  \"a\": 1,\n  \"b\": [[0.5, 0.0], [1.0, 2.0]],\n  \"s\": \"x, y: {z}\\\"q\"\n}\n"
        );
        let back: serde_json::Value = serde_json::from_str(&text).expect("valid");
        assert_eq!(back["s"], "x, y: {z}\"q");
    }

    #[test]
    fn rfc3339_known_dates() {
        assert_eq!(rfc3339_from_unix(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_from_unix(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_from_unix(1_796_040_000), "2026-11-30T12:00:00Z");
    }
}
