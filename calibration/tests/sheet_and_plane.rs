//! The marker sheet, drawn and written as PNG and PDF, then photographed (a perspective warp
//! onto a table-coloured background with a little blur): the markers are found again and
//! the table plane measures the distances between their centres as laid out on the sheet.

mod common;

use alhambra_calibration::printfile::png_dpi;
use alhambra_calibration::sheet::sidecar_path;
use alhambra_calibration::{
    MarkerSheet, Paper, PlaneTracker, PlaneUpdate, SheetInfo, SheetOptions, TablePlane,
    detect_markers,
};
use common::temp_dir;
use opencv::core::{Mat, Point2f, Scalar, Size, Vector};
use opencv::prelude::*;
use opencv::{imgcodecs, imgproc};

/// The sheet page photographed: warped so the page's corners land on `quad` (TL, TR, BR,
/// BL) in a `w` x `h` colour photo of a wooden table, then blurred.
fn photograph(page: &Mat, quad: [[f32; 2]; 4], w: i32, h: i32) -> Mat {
    let (pw, ph) = (page.cols() as f32, page.rows() as f32);
    let src: Vector<Point2f> = [[0.0, 0.0], [pw, 0.0], [pw, ph], [0.0, ph]]
        .iter()
        .map(|p| Point2f::new(p[0], p[1]))
        .collect();
    let dst: Vector<Point2f> = quad.iter().map(|p| Point2f::new(p[0], p[1])).collect();
    let m = imgproc::get_perspective_transform(&src, &dst, opencv::core::DECOMP_LU).expect("m");
    let mut page_bgr = Mat::default();
    imgproc::cvt_color(page, &mut page_bgr, imgproc::COLOR_GRAY2BGR, 0).expect("bgr");
    // A sheet is not quite white under table light.
    let mut dim = Mat::default();
    page_bgr.convert_to(&mut dim, -1, 0.85, 10.0).expect("dim");
    let mut photo = Mat::new_rows_cols_with_default(
        h,
        w,
        opencv::core::CV_8UC3,
        Scalar::new(60.0, 105.0, 150.0, 0.0),
    )
    .expect("table");
    imgproc::warp_perspective(
        &dim,
        &mut photo,
        &m,
        Size::new(w, h),
        imgproc::INTER_AREA,
        opencv::core::BORDER_TRANSPARENT,
        Scalar::all(0.0),
    )
    .expect("warp");
    let mut blurred = Mat::default();
    imgproc::gaussian_blur(
        &photo,
        &mut blurred,
        Size::new(0, 0),
        1.0,
        1.0,
        opencv::core::BORDER_REFLECT,
    )
    .expect("blur");
    blurred
}

fn render_sheet(dpi: u32) -> MarkerSheet {
    MarkerSheet::render(&SheetOptions {
        paper: Paper::A4,
        marker_mm: 40.0,
        dpi,
    })
    .expect("sheet")
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

#[test]
fn sheet_files_are_true_to_scale() {
    let dir = temp_dir("sheet");
    let sheet = render_sheet(300);
    assert_eq!((sheet.image.cols(), sheet.image.rows()), (2480, 3508));
    let info = &sheet.info;
    assert_eq!(info.dictionary, "DICT_4X4_50");
    assert_eq!(info.marker_mm, 40.0);
    assert!(info.marker_ids.len() >= 3);
    let mut ids = info.marker_ids.clone();
    ids.dedup();
    assert_eq!(ids.len(), info.marker_ids.len(), "ids must be distinct");
    assert_eq!(info.chessboard, "9x6");
    assert!(
        info.square_mm >= 15.0 && info.square_mm <= 25.0,
        "{}",
        info.square_mm
    );

    let png = dir.join("sheet.png");
    let sidecar = sheet.write(&png).expect("png");
    assert_eq!(sidecar, dir.join("sheet.json"));
    let bytes = std::fs::read(&png).expect("read png");
    let dpi = png_dpi(&bytes).expect("pHYs");
    assert!((dpi - 300.0).abs() < 0.01, "{dpi}");
    let back = imgcodecs::imread(&png, imgcodecs::IMREAD_GRAYSCALE).expect("decode");
    assert_eq!((back.cols(), back.rows()), (2480, 3508));
    let json: SheetInfo =
        serde_json::from_str(&std::fs::read_to_string(&sidecar).expect("json")).expect("parse");
    assert_eq!(&json, info);
    let raw: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sidecar).expect("json")).expect("parse");
    for key in [
        "version",
        "dictionary",
        "marker_mm",
        "marker_ids",
        "chessboard",
        "square_mm",
        "paper",
        "dpi",
    ] {
        assert!(raw.get(key).is_some(), "{key}");
    }

    let pdf_path = dir.join("sheet.pdf");
    sheet.write(&pdf_path).expect("pdf");
    let pdf = std::fs::read(&pdf_path).expect("read pdf");
    assert!(pdf.starts_with(b"%PDF-1."));
    assert!(pdf.ends_with(b"%%EOF\n"));
    let text = String::from_utf8_lossy(&pdf);
    assert!(
        text.contains("/MediaBox [0 0 595.2756 841.8898]"),
        "A4 in points"
    );
    assert!(text.contains("/Width 2480 /Height 3508"));
    // Every xref entry points at its object.
    let tail = String::from_utf8_lossy(&pdf[pdf.len() - 40..]).into_owned();
    let xref_at: usize = tail
        .rsplit("startxref\n")
        .next()
        .and_then(|t| t.lines().next())
        .and_then(|l| l.trim().parse().ok())
        .expect("startxref");
    let xref = std::str::from_utf8(&pdf[xref_at..]).expect("ascii xref");
    assert!(xref.starts_with("xref\n0 6\n"), "{xref}");
    for (n, line) in xref.lines().skip(3).take(5).enumerate() {
        let off: usize = line[..10].parse().expect("offset");
        assert!(
            pdf[off..].starts_with(format!("{} 0 obj", n + 1).as_bytes()),
            "object {}",
            n + 1
        );
    }
    assert_eq!(sidecar_path(&pdf_path), dir.join("sheet.json"));

    // Bad requests are refused with a sentence.
    assert!(sheet.write(&dir.join("sheet.jpg")).is_err());
    for (marker_mm, dpi) in [(0.0, 300), (f64::NAN, 300), (500.0, 300), (40.0, 10)] {
        let r = MarkerSheet::render(&SheetOptions {
            paper: Paper::Letter,
            marker_mm,
            dpi,
        });
        assert!(r.is_err(), "{marker_mm} mm at {dpi} dpi");
    }
    let letter = MarkerSheet::render(&SheetOptions {
        paper: Paper::Letter,
        marker_mm: 30.0,
        dpi: 100,
    })
    .expect("letter");
    assert_eq!(letter.info.paper, "letter");
    assert_eq!((letter.image.cols(), letter.image.rows()), (850, 1100));
    let _ = std::fs::remove_dir_all(&dir);
}

const QUAD: [[f32; 2]; 4] = [
    [600.0, 50.0],
    [1340.0, 95.0],
    [1430.0, 1045.0],
    [515.0, 1010.0],
];

#[test]
fn photographed_sheet_gives_the_table_plane_in_mm() {
    let sheet = render_sheet(200);
    let photo = photograph(&sheet.image, QUAD, 1920, 1080);
    let plane = TablePlane::from_markers(&photo, sheet.info.marker_mm)
        .expect("detect")
        .expect("a plane");
    let found: Vec<i32> = plane.markers().iter().map(|m| m.id).collect();
    assert_eq!(
        found, sheet.info.marker_ids,
        "every marker of the sheet is found"
    );
    assert_eq!(plane.anchor_id(), 0);

    let centres: Vec<[f64; 2]> = plane
        .markers()
        .iter()
        .map(|m| plane.marker_centre_mm(m))
        .collect();
    let truth = &sheet.info.marker_centres_mm;
    for i in 0..centres.len() {
        for j in i + 1..centres.len() {
            let (d, t) = (dist(centres[i], centres[j]), dist(truth[i], truth[j]));
            println!("markers {i}-{j}: {d:.2} mm measured, {t:.2} mm on the sheet");
            assert!(
                (d / t - 1.0).abs() < 0.01,
                "markers {i}-{j}: {d} mm vs {t} mm"
            );
        }
    }
    // Each marker measures its printed size.
    for m in plane.markers() {
        let c: Vec<[f64; 2]> = m.corners.iter().map(|p| plane.image_to_table(*p)).collect();
        for k in 0..4 {
            let side = dist(c[k], c[(k + 1) % 4]);
            assert!(
                (side / 40.0 - 1.0).abs() < 0.01,
                "marker {} side {side}",
                m.id
            );
        }
    }
    // The anchor's centre is the origin; image <-> table round trip.
    assert!(dist(centres[0], [0.0, 0.0]) < 0.3, "{:?}", centres[0]);
    let p = plane.table_to_image([30.0, 80.0]);
    let q = plane.image_to_table(p);
    assert!(dist(q, [30.0, 80.0]) < 1e-6);
}

#[test]
fn small_frames_are_searched_at_full_resolution() {
    let sheet = render_sheet(150);
    let quad = QUAD.map(|p| [p[0] / 2.0 - 100.0, p[1] / 2.0 + 10.0]);
    let photo = photograph(&sheet.image, quad, 640, 560);
    let markers = detect_markers(&photo).expect("detect");
    assert_eq!(markers.len(), sheet.info.marker_ids.len());
}

#[test]
fn tracker_keeps_the_plane_until_the_markers_move() {
    let sheet = render_sheet(200);
    let photo = photograph(&sheet.image, QUAD, 1920, 1080);
    let mut tracker = PlaneTracker::new(40.0);
    assert_eq!(
        tracker.update(&photo).expect("update"),
        PlaneUpdate::Estimated
    );
    let first = tracker.plane().cloned().expect("plane");
    assert_eq!(tracker.update(&photo).expect("update"), PlaneUpdate::Kept);
    assert_eq!(tracker.plane(), Some(&first));

    // A hand over the sheet (or an empty table): the plane stays.
    let empty =
        Mat::new_rows_cols_with_default(1080, 1920, opencv::core::CV_8UC3, Scalar::all(90.0))
            .expect("empty");
    assert_eq!(
        tracker.update(&empty).expect("update"),
        PlaneUpdate::NotSeen
    );
    assert_eq!(tracker.plane(), Some(&first));

    // The sheet slid 12 px: re-estimated.
    let moved = photograph(
        &sheet.image,
        QUAD.map(|p| [p[0] + 12.0, p[1] + 4.0]),
        1920,
        1080,
    );
    assert_eq!(
        tracker.update(&moved).expect("update"),
        PlaneUpdate::Estimated
    );
    let second = tracker.plane().cloned().expect("plane");
    assert_ne!(second, first);
    let shift = second.table_to_image([0.0, 0.0]);
    let before = first.table_to_image([0.0, 0.0]);
    assert!(
        (shift[0] - before[0] - 12.0).abs() < 1.5,
        "{shift:?} vs {before:?}"
    );
}

#[test]
fn markers_too_small_for_half_resolution_are_found_at_full() {
    // The sheet an eighth of the size it has in QUAD: markers about 20 px across in a 1080p
    // photo, lost at half resolution (where every 1080p frame is searched first).
    let sheet = render_sheet(150);
    let quad = QUAD.map(|p| [p[0] / 8.0 + 700.0, p[1] / 8.0 + 400.0]);
    let photo = photograph(&sheet.image, quad, 1920, 1080);
    let markers = detect_markers(&photo).expect("detect");
    assert!(
        !markers.is_empty(),
        "small markers found at full resolution"
    );
}
