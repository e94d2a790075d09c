//! The camera file: round trip, refusal of other versions and damaged files (naming the
//! file), refusal of frames of another size, and undistortion straightening a rendered
//! distorted board.

mod common;

use alhambra_calibration::{CalibrationError, CameraFile, Undistorter};
use common::{Board, Cam, render, temp_dir, twelve_poses};
use opencv::calib3d;
use opencv::core::{Mat, Point2f, Size, Vector};

fn sample() -> CameraFile {
    CameraFile {
        version: 1,
        image_size: [640, 480],
        camera_matrix: [[600.0, 0.0, 320.0], [0.0, 600.0, 240.0], [0.0, 0.0, 1.0]],
        distortion: [-0.2, 0.05, 0.0, 0.0, 0.0],
        rms_px: 0.21,
        board: "9x6".into(),
        square_mm: 25.0,
        photos_used: 12,
        created: "2026-11-30T12:00:00Z".into(),
        pattern: None,
    }
}

#[test]
fn round_trip() {
    let dir = temp_dir("roundtrip");
    let path = dir.join("camera.json");
    let cam = sample();
    cam.save(&path).expect("save");
    assert_eq!(CameraFile::load(&path).expect("load"), cam);
    // The contract's example document loads too (and unknown fields are ignored).
    let doc = r#"{"version": 1, "image_size": [640, 480], "camera_matrix": [[536.1, 0, 342.4], [0, 536.0, 235.5], [0, 0, 1]],
 "distortion": [-0.27, 0.05, 0.001, 0.0, 0.1], "rms_px": 0.39, "board": "9x6", "square_mm": 25.0,
 "photos_used": 13, "created": "2026-11-30T12:00:00Z", "note": "from the future"}"#;
    let c = CameraFile::from_slice(doc.as_bytes(), &path).expect("contract example");
    assert_eq!(c.intrinsics(), (536.1, 536.0, 342.4, 235.5));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn another_version_is_refused() {
    let dir = temp_dir("version");
    let path = dir.join("cam-v2.json");
    let text = serde_json::to_string(&sample())
        .expect("json")
        .replace("\"version\":1", "\"version\":2");
    std::fs::write(&path, text).expect("write");
    let err = CameraFile::load(&path).expect_err("v2 must be refused");
    assert!(matches!(err, CalibrationError::Version { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("cam-v2.json") && msg.contains("version 2"),
        "{msg}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_files_are_refused_naming_the_file() {
    let dir = temp_dir("damaged");
    let full = serde_json::to_string(&sample()).expect("json");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated.json", full.as_bytes()[..full.len() / 2].to_vec()),
        ("empty.json", Vec::new()),
        ("binary.json", vec![0xff, 0x00, 0x13, 0x37]),
        (
            "no-version.json",
            full.replace("\"version\":1,", "").into_bytes(),
        ),
        (
            "missing-field.json",
            full.replace("\"rms_px\":0.21,", "").into_bytes(),
        ),
        (
            "zero-focal.json",
            full.replace("[600.0,0.0,320.0]", "[0.0,0.0,320.0]")
                .into_bytes(),
        ),
    ];
    for (name, bytes) in cases {
        let path = dir.join(name);
        std::fs::write(&path, &bytes).expect("write");
        let err = CameraFile::load(&path).expect_err(name);
        let msg = err.to_string();
        assert!(msg.contains(name), "{name}: {msg}");
        assert!(
            matches!(err, CalibrationError::Corrupt { .. }),
            "{name}: {err:?}"
        );
    }
    let missing = dir.join("absent.json");
    let msg = CameraFile::load(&missing).expect_err("absent").to_string();
    assert!(
        msg.contains("absent.json") && msg.contains("cannot read"),
        "{msg}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn frames_of_another_size_are_refused() {
    let cam = sample();
    assert!(cam.check_image_size(640, 480).is_ok());
    let err = cam.check_image_size(1280, 720).expect_err("other size");
    let msg = err.to_string();
    assert!(msg.contains("1280x720") && msg.contains("640x480"), "{msg}");
    let und = Undistorter::new(&cam).expect("maps");
    let frame = Mat::new_rows_cols_with_default(
        720,
        1280,
        opencv::core::CV_8UC1,
        opencv::core::Scalar::all(0.0),
    )
    .expect("mat");
    assert!(matches!(
        und.undistort(&frame),
        Err(CalibrationError::ImageSize {
            width: 1280,
            height: 720,
            ..
        })
    ));
}

/// Homography fit error (RMS px) of detected board corners: near zero for a pinhole
/// image, large for a distorted one.
fn line_error(img: &Mat, board: &Board) -> f64 {
    let mut corners: Vector<Point2f> = Vector::new();
    let found = calib3d::find_chessboard_corners(
        img,
        Size::new(board.cols as i32, board.rows as i32),
        &mut corners,
        calib3d::CALIB_CB_ADAPTIVE_THRESH | calib3d::CALIB_CB_NORMALIZE_IMAGE,
    )
    .expect("find");
    assert!(found);
    let obj: Vector<Point2f> = (0..board.rows)
        .flat_map(|r| (0..board.cols).map(move |c| Point2f::new(c as f32, r as f32)))
        .collect();
    let h = calib3d::find_homography(&obj, &corners, &mut Mat::default(), 0, 3.0).expect("h");
    let mut proj: Vector<Point2f> = Vector::new();
    opencv::core::perspective_transform(&obj, &mut proj, &h).expect("proj");
    let sq: f32 = proj
        .iter()
        .zip(corners.iter())
        .map(|(a, b)| (a.x - b.x).powi(2) + (a.y - b.y).powi(2))
        .sum();
    (f64::from(sq) / corners.len() as f64).sqrt()
}

#[test]
fn undistortion_straightens_a_distorted_board() {
    let truth = Cam {
        w: 640,
        h: 480,
        fx: 600.0,
        fy: 600.0,
        cx: 320.0,
        cy: 240.0,
        k1: -0.3,
        k2: 0.09,
        p1: 0.0,
        p2: 0.0,
    };
    let board = Board {
        cols: 9,
        rows: 6,
        sq: 25.0,
    };
    let pose = twelve_poses(&truth, &board)[0];
    let distorted = render(&truth, &board, &pose, 7);
    let mut camera = sample();
    camera.distortion = [truth.k1, truth.k2, 0.0, 0.0, 0.0];
    let und = camera.undistorter().expect("maps");
    let straight = und.undistort(&distorted).expect("undistort");
    let (before, after) = (
        line_error(&distorted, &board),
        line_error(&straight, &board),
    );
    println!("homography fit RMS: distorted {before:.3} px, undistorted {after:.3} px");
    assert!(before > 1.0, "{before}");
    assert!(after < 0.3, "{after}");
    // Points undistort to the same place as frames.
    let p = camera
        .undistort_points(&[Point2f::new(600.0, 440.0)])
        .expect("points");
    let (x, y) = truth.undistort((600.0 - 320.0) / 600.0, (440.0 - 240.0) / 600.0);
    assert!(
        (f64::from(p[0].x) - (x * 600.0 + 320.0)).abs() < 0.05,
        "{p:?}"
    );
    assert!(
        (f64::from(p[0].y) - (y * 600.0 + 240.0)).abs() < 0.05,
        "{p:?}"
    );
}
