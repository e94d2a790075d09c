//! What `scan`, `calibrate appearance` and `eval` share: reading a photo with errors that
//! name the file, choosing the appearance profile, and the marker size a labels file gives.

use alhambra_vision::ScanResult;
use alhambra_vision::appearance::Profile;
use anyhow::{Context, Result, bail};
use opencv::core::{Mat, Vector};
use opencv::imgcodecs;
use opencv::prelude::*;
use std::path::Path;

/// The smallest and largest photo sides the scanner works on (as `Scanner::scan` checks).
const MIN_SIZE: (i32, i32) = (160, 120);
const MAX_SIDE: i32 = 10_000;

/// Larger files are not table photos (and would take memory for nothing).
const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// The printed marker size when neither the labels nor the command line say.
pub const DEFAULT_MARKER_MM: f64 = 40.0;

/// Keeps OpenCV's own warnings off stderr: a bad file is reported in one line of ours.
pub fn quiet_opencv() {
    let _ = opencv::core::set_log_level(opencv::core::LogLevel::LOG_LEVEL_SILENT);
}

/// Reads a photo as 8-bit BGR; the error names the file and says what is wrong with it
/// (missing, empty, not an image, a size no table photo has).
pub fn read_image(path: &Path) -> Result<Mat> {
    let shown = path.display();
    let meta = std::fs::metadata(path).with_context(|| format!("{shown}: cannot read"))?;
    if meta.is_dir() {
        bail!("{shown}: is a folder, not an image");
    }
    if meta.len() == 0 {
        bail!("{shown}: the file is empty");
    }
    if meta.len() > MAX_FILE_BYTES {
        bail!(
            "{shown}: {} MB is too large for a table photo",
            meta.len() / 1_000_000
        );
    }
    let bytes = std::fs::read(path).with_context(|| format!("{shown}: cannot read"))?;
    // Refuse absurd sizes from the header, before the decoder allocates for them.
    if let Some((w, h)) = header_size(&bytes) {
        check_size(path, w, h)?;
    }
    let buf = Vector::<u8>::from_slice(&bytes);
    let image = match imgcodecs::imdecode(&buf, imgcodecs::IMREAD_COLOR) {
        Ok(m) if !m.empty() => m,
        _ => bail!("{shown}: not an image that can be read (PNG, JPEG, BMP, TIFF or WebP)"),
    };
    check_size(path, i64::from(image.cols()), i64::from(image.rows()))?;
    Ok(image)
}

/// Whether a (BGR) photo shows no colour at all: a greyscale file, or a camera set to
/// black and white. The tiles are told apart by their colours: such a photo reads few
/// or none, and the user should be told why.
pub fn without_colour(frame: &Mat) -> bool {
    let Ok(bytes) = frame.data_bytes() else {
        return false;
    };
    // Every 97th pixel: enough to tell, cheap on 4K.
    bytes
        .chunks_exact(3)
        .step_by(97)
        .all(|p| p[0].abs_diff(p[1]) <= 2 && p[1].abs_diff(p[2]) <= 2)
}

fn check_size(path: &Path, w: i64, h: i64) -> Result<()> {
    let (min_w, min_h) = MIN_SIZE;
    if w < i64::from(min_w)
        || h < i64::from(min_h)
        || w > i64::from(MAX_SIDE)
        || h > i64::from(MAX_SIDE)
    {
        bail!(
            "{}: {w}x{h} pixels is not a table photo size ({min_w}x{min_h} to {MAX_SIDE}x{MAX_SIDE})",
            path.display()
        );
    }
    Ok(())
}

/// Width and height from a PNG or JPEG header, when the bytes are one.
fn header_size(bytes: &[u8]) -> Option<(i64, i64)> {
    let be16 = |i: usize| -> Option<i64> {
        Some(i64::from(u16::from_be_bytes([
            *bytes.get(i)?,
            *bytes.get(i + 1)?,
        ])))
    };
    let be32 = |i: usize| -> Option<i64> {
        let b = bytes.get(i..i + 4)?;
        Some(i64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
    };
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.get(12..16) == Some(b"IHDR") {
        return Some((be32(16)?, be32(20)?));
    }
    if bytes.starts_with(&[0xff, 0xd8]) {
        // Walk the segments to the first start-of-frame.
        let mut i = 2;
        while i + 4 <= bytes.len() {
            if bytes[i] != 0xff {
                return None;
            }
            let marker = bytes[i + 1];
            if marker == 0xff {
                i += 1;
                continue;
            }
            let len = usize::try_from(be16(i + 2)?).ok()?;
            let sof = (0xc0..=0xcf).contains(&marker) && ![0xc4, 0xc8, 0xcc].contains(&marker);
            if sof {
                return Some((be16(i + 7)?, be16(i + 5)?));
            }
            i += 2 + len;
        }
    }
    None
}

/// The error as one message: the vision errors already put their cause in their own text,
/// so the cause is not repeated after it.
pub fn flat(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("{e}")
}

/// Reads a labels (scan-result) file; the error names the file.
pub fn load_labels(path: &Path) -> Result<ScanResult> {
    ScanResult::load(path).map_err(flat)
}

/// The profile in `path`, or the built-in default learned from the bundled labelled photo.
pub fn load_profile(path: Option<&Path>) -> Result<Profile> {
    match path {
        Some(p) => Profile::load(p).map_err(flat),
        None => alhambra_vision::default_profile::default_profile().map_err(flat),
    }
}

/// The file name shown in results (`image` of the scan result).
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A marker size from the command line: positive millimetres.
pub fn parse_marker_mm(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(mm) if mm.is_finite() && mm > 0.0 && mm < 1000.0 => Ok(mm),
        _ => Err(format!(
            "{s:?} is not a marker size in millimetres (e.g. 40)"
        )),
    }
}

/// Whether a frame source names photos (a folder of them, or one): each shows a table's
/// state once, where a video's frames follow one another.
pub fn names_photos(spec: &str) -> bool {
    let path = Path::new(spec);
    path.is_dir()
        || path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
            ["jpg", "jpeg", "png", "bmp", "tif", "tiff", "webp"]
                .contains(&e.to_ascii_lowercase().as_str())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_sizes_of_png_and_jpeg() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend(50_000u32.to_be_bytes());
        png.extend(20u32.to_be_bytes());
        assert_eq!(header_size(&png), Some((50_000, 20)));
        // SOI, an APP0 segment of 4 bytes, then SOF0: length, precision, height, width.
        let jpeg = [
            0xff, 0xd8, 0xff, 0xe0, 0, 4, 1, 2, 0xff, 0xc0, 0, 17, 8, 0x01, 0xe0, 0x02, 0x80,
        ];
        assert_eq!(header_size(&jpeg), Some((640, 480)));
        assert_eq!(header_size(b"hello"), None);
    }

    #[test]
    fn marker_sizes_are_positive_millimetres() {
        assert_eq!(parse_marker_mm("40"), Ok(40.0));
        assert!(parse_marker_mm("0").is_err());
        assert!(parse_marker_mm("-3").is_err());
        assert!(parse_marker_mm("NaN").is_err());
    }
}
