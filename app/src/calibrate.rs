//! `alhambra calibrate intrinsics`: the camera matrix and lens distortion from photos of
//! a chessboard (or ChArUco board), saved as the camera file of CONTRACTS.md.

use crate::Outcome;
use crate::output::say;
use alhambra_calibration::{BoardSize, IntrinsicsOptions, Pattern, calibrate_photos};
use anyhow::Result;
use std::path::PathBuf;

/// `alhambra calibrate intrinsics IMAGES... --board 9x6 --square-mm 25 --out camera.json`
#[derive(Debug, clap::Args)]
pub struct IntrinsicsArgs {
    /// Photos of the board from this camera at one resolution: 10-20, with the board tilted
    /// in several directions and reaching the edges and corners of the frame.
    #[arg(required = true, value_name = "IMAGES")]
    pub images: Vec<PathBuf>,
    /// The board's inner corners, WxH (the printed sheet's is 9x6).
    #[arg(long, default_value = "9x6", value_parser = parse_board)]
    pub board: BoardSize,
    /// Side of one square as printed, millimetres (measure it; the sheet states it).
    #[arg(long)]
    pub square_mm: f64,
    /// Where to write the camera file (JSON).
    #[arg(long)]
    pub out: PathBuf,
    /// The photos show a ChArUco board (DICT_4X4_50) instead of a plain chessboard.
    #[arg(long)]
    pub charuco: bool,
    /// Side of the ChArUco board's markers, millimetres (default: 0.75 of a square).
    #[arg(long, requires = "charuco")]
    pub charuco_marker_mm: Option<f64>,
}

fn parse_board(s: &str) -> Result<BoardSize, String> {
    s.parse()
        .map_err(|e: alhambra_calibration::CalibrationError| e.to_string())
}

/// Calibrates, prints the per-photo and overall errors and the advice, saves the file.
pub fn run(args: &IntrinsicsArgs) -> Result<Outcome> {
    let pattern = if args.charuco {
        Pattern::Charuco {
            marker_mm: args.charuco_marker_mm.unwrap_or(args.square_mm * 0.75),
        }
    } else {
        Pattern::Chessboard
    };
    let opts = IntrinsicsOptions {
        board: args.board,
        square_mm: args.square_mm,
        pattern,
    };
    let report = calibrate_photos(&args.images, &opts)?;
    let width = report
        .used
        .iter()
        .map(|p| p.name.display().to_string().chars().count())
        .chain(
            report
                .skipped
                .iter()
                .map(|s| s.name.display().to_string().chars().count()),
        )
        .max()
        .unwrap_or(0);
    for p in &report.used {
        say!(
            "{:<width$}  rms {:.3} px  ({} corners)",
            p.name.display().to_string(),
            p.rms_px,
            p.corners
        )?;
    }
    for s in &report.skipped {
        say!(
            "{:<width$}  skipped: {}",
            s.name.display().to_string(),
            s.reason
        )?;
    }
    let cam = &report.camera;
    let (fx, fy, cx, cy) = cam.intrinsics();
    let d = cam.distortion;
    say!(
        "calibrated from {} of {} photos at {}x{}",
        report.used.len(),
        args.images.len(),
        cam.image_size[0],
        cam.image_size[1]
    )?;
    say!("fx {fx:.2}  fy {fy:.2}  cx {cx:.2}  cy {cy:.2}  (pixels)")?;
    say!(
        "distortion k1 {:.4}  k2 {:.4}  p1 {:.5}  p2 {:.5}  k3 {:.4}",
        d[0],
        d[1],
        d[2],
        d[3],
        d[4]
    )?;
    say!(
        "board coverage {:.0}% of the frame, tilt spread {:.0} degrees",
        report.coverage * 100.0,
        report.tilt_spread_deg
    )?;
    say!("RMS reprojection error {:.3} px", cam.rms_px)?;
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    cam.save(&args.out)?;
    say!("wrote {}", args.out.display())?;
    Ok(Outcome::Done)
}
