//! Intrinsics recovered from rendered chessboard photos of a camera with known focal
//! lengths, principal point and radial distortion.

mod common;

use alhambra_calibration::{
    BoardSize, CalibrationError, CameraFile, IntrinsicsOptions, IntrinsicsReport, View,
    calibrate_photos, calibrate_views, detect,
};
use common::{Board, Cam, RayMap, blank, render_with, temp_dir, twelve_poses};
use opencv::core::Vector;
use opencv::imgcodecs;

fn recover(cam: &Cam, board: &Board) -> IntrinsicsReport {
    let poses = twelve_poses(cam, board);
    let opts = IntrinsicsOptions::chessboard(BoardSize::new(board.cols, board.rows), board.sq);
    let map = RayMap::new(cam);
    let mut views = Vec::new();
    for (i, pose) in poses.iter().enumerate() {
        let img = render_with(&map, board, pose, i as u64 + 1);
        match detect(&img, &opts).expect("detect") {
            Some(detection) => views.push(View {
                name: format!("view{i:02}").into(),
                detection,
            }),
            None => eprintln!("view{i:02}: board not found"),
        }
    }
    assert!(views.len() >= 10, "only {} of 12 views found", views.len());
    let report = calibrate_views(&views, (cam.w as u32, cam.h as u32), &opts, poses.len())
        .expect("calibrate");
    let (fx, fy, cx, cy) = report.camera.intrinsics();
    let d = report.camera.distortion;
    println!(
        "{}x{} truth fx {} fy {} cx {} cy {} k1 {} k2 {}",
        cam.w, cam.h, cam.fx, cam.fy, cam.cx, cam.cy, cam.k1, cam.k2
    );
    println!(
        "{}x{} found fx {fx:.2} fy {fy:.2} cx {cx:.2} cy {cy:.2} k1 {:.4} k2 {:.4} p1 {:.5} p2 {:.5} k3 {:.4}  rms {:.3} px  views {}  coverage {:.0}%  tilt {:.0} deg",
        cam.w,
        cam.h,
        d[0],
        d[1],
        d[2],
        d[3],
        d[4],
        report.camera.rms_px,
        views.len(),
        report.coverage * 100.0,
        report.tilt_spread_deg
    );
    for p in &report.used {
        println!("  {} rms {:.3}", p.name.display(), p.rms_px);
    }
    assert!((fx / cam.fx - 1.0).abs() < 0.01, "fx {fx} vs {}", cam.fx);
    assert!((fy / cam.fy - 1.0).abs() < 0.01, "fy {fy} vs {}", cam.fy);
    assert!((cx - cam.cx).abs() < 2.0, "cx {cx} vs {}", cam.cx);
    assert!((cy - cam.cy).abs() < 2.0, "cy {cy} vs {}", cam.cy);
    assert!(report.camera.rms_px < 0.5, "rms {}", report.camera.rms_px);
    assert!(d[0] < 0.0, "k1 {} should be negative (barrel)", d[0]);
    assert!(
        (d[0] / cam.k1 - 1.0).abs() < 0.35,
        "k1 {} vs {} (rough magnitude)",
        d[0],
        cam.k1
    );
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    report
}

#[test]
fn recovers_known_intrinsics_640x480() {
    let cam = Cam {
        w: 640,
        h: 480,
        fx: 620.0,
        fy: 615.0,
        cx: 322.0,
        cy: 236.0,
        k1: -0.25,
        k2: 0.08,
        p1: 0.0,
        p2: 0.0,
    };
    let board = Board {
        cols: 9,
        rows: 6,
        sq: 25.0,
    };
    let report = recover(&cam, &board);
    assert_eq!(report.camera.board, "9x6");
    assert_eq!(report.camera.image_size, [640, 480]);
}

#[test]
fn recovers_known_intrinsics_1280x720() {
    let cam = Cam {
        w: 1280,
        h: 720,
        fx: 1000.0,
        fy: 990.0,
        cx: 645.0,
        cy: 355.0,
        k1: -0.18,
        k2: 0.04,
        p1: 0.0,
        p2: 0.0,
    };
    let board = Board {
        cols: 9,
        rows: 6,
        sq: 20.0,
    };
    recover(&cam, &board);
}

fn small_cam() -> Cam {
    Cam {
        w: 640,
        h: 480,
        fx: 600.0,
        fy: 600.0,
        cx: 320.0,
        cy: 240.0,
        k1: -0.2,
        k2: 0.05,
        p1: 0.0,
        p2: 0.0,
    }
}

const BOARD: Board = Board {
    cols: 9,
    rows: 6,
    sq: 25.0,
};

fn write_png(path: &std::path::Path, img: &opencv::core::Mat) {
    assert!(imgcodecs::imwrite(path, img, &Vector::new()).expect("imwrite"));
}

#[test]
fn photo_files_skip_those_without_a_board_and_save_the_camera_file() {
    let dir = temp_dir("photos");
    let cam = small_cam();
    let map = RayMap::new(&cam);
    let mut paths = Vec::new();
    for (i, pose) in twelve_poses(&cam, &BOARD).iter().take(6).enumerate() {
        let p = dir.join(format!("photo{i}.png"));
        write_png(&p, &render_with(&map, &BOARD, pose, 40 + i as u64));
        paths.push(p);
    }
    let empty = dir.join("table-only.png");
    write_png(&empty, &blank(640, 480));
    paths.insert(2, empty.clone());
    let not_image = dir.join("notes.png");
    std::fs::write(&not_image, b"not a png").expect("write");
    paths.push(not_image.clone());

    let opts = IntrinsicsOptions::chessboard(BoardSize::new(9, 6), 25.0);
    let report = calibrate_photos(&paths, &opts).expect("calibrate");
    assert_eq!(report.used.len(), 6);
    let skipped: Vec<_> = report.skipped.iter().map(|s| s.name.clone()).collect();
    assert_eq!(skipped, vec![empty, not_image]);
    assert!(
        report.skipped[0].reason.contains("9x6 chessboard"),
        "{:?}",
        report.skipped[0]
    );

    let out = dir.join("camera.json");
    report.camera.save(&out).expect("save");
    let back = CameraFile::load(&out).expect("load");
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(1.0);
    let flat = |c: &CameraFile| -> Vec<f64> {
        c.camera_matrix
            .iter()
            .flatten()
            .chain(&c.distortion)
            .chain([&c.rms_px, &c.square_mm])
            .copied()
            .collect()
    };
    assert!(
        flat(&back)
            .iter()
            .zip(flat(&report.camera))
            .all(|(a, b)| close(*a, b))
    );
    assert_eq!(
        (
            &back.board,
            back.photos_used,
            back.image_size,
            &back.created
        ),
        (&report.camera.board, 6, [640, 480], &report.camera.created)
    );
    let text = std::fs::read_to_string(&out).expect("read");
    for key in [
        "\"version\": 1",
        "\"image_size\"",
        "\"camera_matrix\"",
        "\"distortion\"",
        "\"rms_px\"",
        "\"board\": \"9x6\"",
        "\"square_mm\": 25.0",
        "\"photos_used\": 6",
        "\"created\"",
    ] {
        assert!(text.contains(key), "{key} missing from {text}");
    }
    // No temporary file left beside it.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(left.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn too_few_boards_and_mixed_sizes_are_refused() {
    let dir = temp_dir("refused");
    let cam = small_cam();
    let poses = twelve_poses(&cam, &BOARD);
    let map = RayMap::new(&cam);
    let mut paths = Vec::new();
    for (i, pose) in poses.iter().take(2).enumerate() {
        let p = dir.join(format!("p{i}.png"));
        write_png(&p, &render_with(&map, &BOARD, pose, i as u64));
        paths.push(p);
    }
    let blank_path = dir.join("blank.png");
    write_png(&blank_path, &blank(640, 480));
    paths.push(blank_path);
    let opts = IntrinsicsOptions::chessboard(BoardSize::new(9, 6), 25.0);
    match calibrate_photos(&paths, &opts) {
        Err(
            e @ CalibrationError::TooFewPhotos {
                used: 2, given: 3, ..
            },
        ) => {
            let msg = e.to_string();
            assert!(
                msg.contains("only 2 of 3") && msg.contains("at least 3"),
                "{msg}"
            );
            assert!(
                msg.contains("not used: ")
                    && msg.contains("blank.png (no whole 9x6 chessboard found)"),
                "{msg}"
            );
        }
        other => panic!("expected too few photos, got {other:?}"),
    }

    let big = dir.join("big.png");
    write_png(&big, &blank(1280, 720));
    paths.push(big.clone());
    match calibrate_photos(&paths, &opts) {
        Err(e @ CalibrationError::MixedSizes { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("big.png is 1280x720") && msg.contains("640x480"),
                "{msg}"
            );
        }
        other => panic!("expected mixed sizes, got {other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Not a check: writes the twelve rendered 640x480 photos (and a board-less one) as PNG to
/// `$ALHAMBRA_DUMP_DIR`, to try `alhambra calibrate intrinsics` by hand:
/// `ALHAMBRA_DUMP_DIR=/tmp/x cargo test -p alhambra-calibration --test intrinsics_rendered -- --ignored`
#[test]
#[ignore = "writes sample photos for trying the command by hand"]
fn dump_rendered_photos() {
    let Some(dir) = std::env::var_os("ALHAMBRA_DUMP_DIR") else {
        println!("set ALHAMBRA_DUMP_DIR to a folder");
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let cam = Cam {
        w: 640,
        h: 480,
        fx: 620.0,
        fy: 615.0,
        cx: 322.0,
        cy: 236.0,
        k1: -0.25,
        k2: 0.08,
        p1: 0.0,
        p2: 0.0,
    };
    let map = RayMap::new(&cam);
    for (i, pose) in twelve_poses(&cam, &BOARD).iter().enumerate() {
        write_png(
            &dir.join(format!("view{i:02}.png")),
            &render_with(&map, &BOARD, pose, i as u64 + 1),
        );
    }
    write_png(&dir.join("view99-no-board.png"), &blank(640, 480));
    println!("wrote 13 photos to {}", dir.display());
}
