//! How `scan` and `watch` read the table: the appearance profile, the markers' printed
//! size (given, or from the marker sheet's description) and the camera file that frames
//! are undistorted with, from the same options.

use crate::images::{DEFAULT_MARKER_MM, load_profile, parse_marker_mm};
use alhambra_calibration::{CameraFile, Undistorter};
use alhambra_vision::scanner::{ScanOptions, Scanner};
use anyhow::{Context, Result};
use opencv::core::Mat;
use opencv::prelude::*;
use std::path::{Path, PathBuf};

/// The options that say how the table is read.
#[derive(Debug, clap::Args)]
pub struct ReadingArgs {
    /// Appearance profile from `alhambra calibrate appearance` (default: the built-in one).
    #[arg(long, value_name = "P.json")]
    pub profile: Option<PathBuf>,
    /// Camera file from `alhambra calibrate intrinsics`: frames are undistorted first (they
    /// must have the size it was calibrated at).
    #[arg(long, value_name = "C.json")]
    pub camera: Option<PathBuf>,
    /// Printed width of the ArUco markers on the table, millimetres.
    #[arg(long, default_value_t = DEFAULT_MARKER_MM, value_parser = parse_marker_mm)]
    pub marker_mm: f64,
    /// The `sheet.json` that `alhambra markers` wrote beside the printed sheet: the markers'
    /// size is read from it (instead of --marker-mm).
    #[arg(long, value_name = "SHEET.json", conflicts_with = "marker_mm")]
    pub sheet: Option<PathBuf>,
}

/// A scanner set up as the options say, with the camera's undistortion if any.
pub struct Reader {
    pub scanner: Scanner,
    camera: Option<(PathBuf, CameraFile, Undistorter)>,
}

impl ReadingArgs {
    /// Loads the profile, the marker size and the camera file; errors name the file.
    pub fn reader(&self) -> Result<Reader> {
        let profile = load_profile(self.profile.as_deref())?;
        let marker_mm = match &self.sheet {
            Some(path) => sheet_marker_mm(path)?,
            None => self.marker_mm,
        };
        let camera = match &self.camera {
            Some(path) => {
                let file = CameraFile::load(path)?;
                let undistorter = file
                    .undistorter()
                    .with_context(|| format!("{}: cannot undistort with it", path.display()))?;
                Some((path.clone(), file, undistorter))
            }
            None => None,
        };
        let scanner = Scanner::new(
            profile,
            ScanOptions {
                marker_mm,
                ..ScanOptions::default()
            },
        );
        Ok(Reader { scanner, camera })
    }
}

impl Reader {
    /// `frame` undistorted with the camera file, when one was given (it must have the
    /// size the camera was calibrated at); errors name `what` (the photo or the frame).
    pub fn undistorted(&self, frame: Mat, what: &str) -> Result<Mat> {
        let Some((camera_path, file, undistorter)) = &self.camera else {
            return Ok(frame);
        };
        let (w, h) = (frame.cols() as u32, frame.rows() as u32);
        file.check_image_size(w, h)
            .with_context(|| format!("{what}: camera file {}", camera_path.display()))?;
        undistorter
            .undistort(&frame)
            .with_context(|| format!("{what}: cannot undistort"))
    }
}

/// The marker size recorded in a marker sheet's `sheet.json`.
fn sheet_marker_mm(path: &Path) -> Result<f64> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("{shown}: cannot read"))?;
    let sheet: alhambra_calibration::SheetInfo = serde_json::from_str(&text)
        .with_context(|| format!("{shown}: not a marker sheet description (sheet.json)"))?;
    if sheet.version != alhambra_calibration::sheet::SHEET_VERSION {
        anyhow::bail!(
            "{shown}: marker sheet version {}, this build reads version {}; print the sheet again with `alhambra markers`",
            sheet.version,
            alhambra_calibration::sheet::SHEET_VERSION
        );
    }
    if !(sheet.marker_mm.is_finite() && sheet.marker_mm > 1.0 && sheet.marker_mm < 1000.0) {
        anyhow::bail!(
            "{shown}: marker size {} mm is not plausible",
            sheet.marker_mm
        );
    }
    Ok(sheet.marker_mm)
}
