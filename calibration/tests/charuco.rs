//! ChArUco calibration: a drawn DICT_4X4_50 ChArUco board seen through a pinhole camera of
//! known focal length from twelve poses is found and calibrated.

mod common;

use alhambra_calibration::intrinsics::charuco_board;
use alhambra_calibration::{BoardSize, IntrinsicsOptions, Pattern, View, calibrate_views, detect};
use common::{Board, Cam, twelve_poses};
use opencv::core::{Mat, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;

#[test]
fn charuco_board_calibrates() {
    let cam = Cam {
        w: 640,
        h: 480,
        fx: 610.0,
        fy: 605.0,
        cx: 318.0,
        cy: 243.0,
        k1: 0.0,
        k2: 0.0,
        p1: 0.0,
        p2: 0.0,
    };
    let (sq, marker) = (20.0, 15.0);
    let size = BoardSize::new(9, 6);
    let mut board = charuco_board(size, sq, marker).expect("board");
    let (px_per_sq, margin) = (60, 60);
    let mut drawn = Mat::default();
    board
        .draw(
            Size::new(10 * px_per_sq + 2 * margin, 7 * px_per_sq + 2 * margin),
            &mut drawn,
            margin,
            1,
        )
        .expect("draw");
    let mut smooth = Mat::default();
    imgproc::gaussian_blur(
        &drawn,
        &mut smooth,
        Size::new(0, 0),
        0.8,
        0.8,
        opencv::core::BORDER_REPLICATE,
    )
    .expect("blur");

    let geometry = Board {
        cols: 9,
        rows: 6,
        sq,
    };
    let opts = IntrinsicsOptions {
        board: size,
        square_mm: sq,
        pattern: Pattern::Charuco { marker_mm: marker },
    };
    let k = sq / f64::from(px_per_sq);
    let o = -f64::from(margin + px_per_sq) * k;
    let mut views = Vec::new();
    for (i, pose) in twelve_poses(&cam, &geometry).iter().enumerate() {
        // Drawn pixel -> board mm (inner corner 0 at the origin) -> camera -> image.
        let r = &pose.r;
        let g = [
            [r[0][0], r[0][1], pose.t[0]],
            [r[1][0], r[1][1], pose.t[1]],
            [r[2][0], r[2][1], pose.t[2]],
        ];
        let s = [[k, 0.0, o], [0.0, k, o], [0.0, 0.0, 1.0]];
        let kk = [
            [cam.fx, 0.0, cam.cx],
            [0.0, cam.fy, cam.cy],
            [0.0, 0.0, 1.0],
        ];
        let h = common::mul(&kk, &common::mul(&g, &s));
        let hm = Mat::from_slice_2d(&h).expect("h");
        let mut img = Mat::default();
        imgproc::warp_perspective(
            &smooth,
            &mut img,
            &hm,
            Size::new(cam.w, cam.h),
            imgproc::INTER_LINEAR,
            opencv::core::BORDER_CONSTANT,
            Scalar::all(90.0),
        )
        .expect("warp");
        match detect(&img, &opts).expect("detect") {
            Some(detection) => views.push(View {
                name: format!("charuco{i:02}").into(),
                detection,
            }),
            None => println!("charuco{i:02}: not found"),
        }
    }
    assert!(views.len() >= 10, "found in {} views", views.len());
    assert!(views.iter().all(|v| v.detection.image_points.len() >= 40));
    let report = calibrate_views(&views, (640, 480), &opts, 12).expect("calibrate");
    let (fx, fy, cx, cy) = report.camera.intrinsics();
    println!(
        "charuco: fx {fx:.2} fy {fy:.2} cx {cx:.2} cy {cy:.2} rms {:.3} ({} views)",
        report.camera.rms_px,
        views.len()
    );
    assert!((fx / cam.fx - 1.0).abs() < 0.01, "fx {fx}");
    assert!((fy / cam.fy - 1.0).abs() < 0.01, "fy {fy}");
    assert!(
        (cx - cam.cx).abs() < 3.0 && (cy - cam.cy).abs() < 3.0,
        "{cx} {cy}"
    );
    assert_eq!(report.camera.pattern.as_deref(), Some("charuco"));
}
