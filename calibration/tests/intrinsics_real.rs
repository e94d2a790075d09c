//! Intrinsics from real webcam photos: OpenCV's classic sample photos left01..left14.jpg
//! (640x480, a 9x6 chessboard), kept in fixtures/chessboard. Compared with
//! OpenCV's own recipe on the same photos (classic detector, 11x11 `cornerSubPix`,
//! `calibrateCamera` with default flags) and with the calibration OpenCV ships for them.

use alhambra_calibration::{BoardSize, IntrinsicsOptions, calibrate_photos};
use opencv::core::{Point2f, Point3f, Size, TermCriteria, TermCriteria_Type, Vector};
use opencv::prelude::*;
use opencv::{calib3d, imgcodecs, imgproc};
use std::path::{Path, PathBuf};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/chessboard");

fn photos() -> Option<Vec<PathBuf>> {
    let paths: Vec<PathBuf> = (1..=14)
        .map(|i| Path::new(DATA).join(format!("left{i:02}.jpg")))
        .filter(|p| p.is_file())
        .collect();
    assert_eq!(paths.len(), 13, "the 13 photos left01..14.jpg of {DATA}");
    Some(paths)
}

/// OpenCV's own recipe, independent of this crate's detection.
fn opencv_reference(paths: &[PathBuf]) -> (f64, f64, f64, f64, f64) {
    let pattern = Size::new(9, 6);
    let mut object: Vector<Vector<Point3f>> = Vector::new();
    let mut image: Vector<Vector<Point2f>> = Vector::new();
    let board: Vector<Point3f> = (0..6)
        .flat_map(|r| (0..9).map(move |c| Point3f::new(c as f32 * 25.0, r as f32 * 25.0, 0.0)))
        .collect();
    for p in paths {
        let gray = imgcodecs::imread(p, imgcodecs::IMREAD_GRAYSCALE).expect("imread");
        let mut corners: Vector<Point2f> = Vector::new();
        let flags = calib3d::CALIB_CB_ADAPTIVE_THRESH | calib3d::CALIB_CB_NORMALIZE_IMAGE;
        if !calib3d::find_chessboard_corners(&gray, pattern, &mut corners, flags).expect("find") {
            continue;
        }
        imgproc::corner_sub_pix(
            &gray,
            &mut corners,
            Size::new(11, 11),
            Size::new(-1, -1),
            TermCriteria::new(
                TermCriteria_Type::COUNT as i32 + TermCriteria_Type::EPS as i32,
                30,
                0.0001,
            )
            .expect("criteria"),
        )
        .expect("subpix");
        object.push(board.clone());
        image.push(corners);
    }
    let mut k = Mat::default();
    let mut d = Mat::default();
    let mut rvecs: Vector<Mat> = Vector::new();
    let mut tvecs: Vector<Mat> = Vector::new();
    let rms = calib3d::calibrate_camera_def(
        &object,
        &image,
        Size::new(640, 480),
        &mut k,
        &mut d,
        &mut rvecs,
        &mut tvecs,
    )
    .expect("calibrate");
    let at = |r, c| *k.at_2d::<f64>(r, c).expect("k");
    println!("opencv recipe: {} views", object.len());
    (at(0, 0), at(1, 1), at(0, 2), at(1, 2), rms)
}

/// fx as saved in OpenCV's own `left_intrinsics.yml` for these photos.
fn shipped_fx() -> Option<f64> {
    let text = std::fs::read_to_string(Path::new(DATA).join("left_intrinsics.yml")).ok()?;
    let after = &text[text.find("camera_matrix")?..];
    let data = &after[after.find("data: [")? + 7..];
    data.split(',').next()?.trim().parse().ok()
}

#[test]
fn real_webcam_photos_calibrate_like_opencv() {
    let Some(paths) = photos() else { return };
    let opts = IntrinsicsOptions::chessboard(BoardSize::new(9, 6), 25.0);
    let report = calibrate_photos(&paths, &opts).expect("calibrate");
    let (fx, fy, cx, cy) = report.camera.intrinsics();
    let d = report.camera.distortion;
    println!(
        "ours: {} of {} photos, fx {fx:.2} fy {fy:.2} cx {cx:.2} cy {cy:.2} k1 {:.4} k2 {:.4} p1 {:.5} p2 {:.5} k3 {:.4} rms {:.3} px, coverage {:.0}%, tilt {:.0} deg",
        report.used.len(),
        paths.len(),
        d[0],
        d[1],
        d[2],
        d[3],
        d[4],
        report.camera.rms_px,
        report.coverage * 100.0,
        report.tilt_spread_deg
    );
    for p in &report.used {
        println!("  {} rms {:.3}", p.name.display(), p.rms_px);
    }
    for s in &report.skipped {
        println!("  {} skipped: {}", s.name.display(), s.reason);
    }
    assert!(
        report.used.len() >= 12,
        "board found in only {} photos",
        report.used.len()
    );
    assert!(report.camera.rms_px < 0.5, "rms {}", report.camera.rms_px);

    let (rfx, rfy, rcx, rcy, rrms) = opencv_reference(&paths);
    println!("opencv recipe: fx {rfx:.2} fy {rfy:.2} cx {rcx:.2} cy {rcy:.2} rms {rrms:.3}");
    assert!((fx / rfx - 1.0).abs() < 0.02, "fx {fx} vs OpenCV {rfx}");
    assert!((fy / rfy - 1.0).abs() < 0.02, "fy {fy} vs OpenCV {rfy}");
    if let Some(sfx) = shipped_fx() {
        println!("OpenCV's left_intrinsics.yml: fx = fy = {sfx:.2} (fixed aspect ratio)");
        assert!((fx / sfx - 1.0).abs() < 0.02, "fx {fx} vs shipped {sfx}");
        assert!((fy / sfx - 1.0).abs() < 0.02, "fy {fy} vs shipped {sfx}");
    }
}
