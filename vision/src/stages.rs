//! The pictures of a scan's stages, for `scan --debug`: the table rectified through the
//! markers, the fountain candidates with the Alhambras they grew into, each Alhambra's
//! lattice, and what was read (the overlay). When a photo reads wrong, they show which
//! stage went wrong.

use crate::geometry::{Homography, Point};
use crate::labels::ScanResult;
use crate::overlay;
use crate::scanner::Scan;
use opencv::core::{Mat, Point as CvPoint, Rect, Scalar, Size, Vector};
use opencv::imgproc;
use opencv::prelude::*;

/// The longer side of the rectified table picture, in pixels.
const RECTIFIED_PX: f64 = 1600.0;
/// The most of the table the rectified picture shows, in millimetres either way of the
/// photo's centre (a steep photo's far corners lie near the horizon, metres away).
const RECTIFIED_REACH_MM: f64 = 1500.0;

/// Colours told apart by eye, one per Alhambra (BGR).
const PALETTE: [(f64, f64, f64); 6] = [
    (60.0, 200.0, 255.0),
    (255.0, 120.0, 60.0),
    (90.0, 230.0, 90.0),
    (220.0, 90.0, 230.0),
    (60.0, 90.0, 240.0),
    (230.0, 230.0, 80.0),
];

fn colour(k: usize) -> Scalar {
    let (b, g, r) = PALETTE[k % PALETTE.len()];
    Scalar::new(b, g, r, 0.0)
}

fn pt(p: Point) -> CvPoint {
    CvPoint::new(p[0].round() as i32, p[1].round() as i32)
}

/// Every stage's picture with its name, in the order the scanner goes: `rectified`,
/// `clusters`, `lattice`, `overlay`.
pub fn stages(
    frame: &Mat,
    scan: &Scan,
    result: &ScanResult,
) -> opencv::Result<Vec<(&'static str, Mat)>> {
    Ok(vec![
        ("rectified", rectified(frame, scan)?),
        ("clusters", clusters(frame, scan)?),
        ("lattice", lattices(frame, scan)?),
        ("overlay", overlay::draw(frame, result, None)?),
    ])
}

/// The table seen from above through the markers' plane (tiles are squares here when the
/// plane is right), the tiles read outlined; without markers, the photo as it is.
pub fn rectified(frame: &Mat, scan: &Scan) -> opencv::Result<Mat> {
    let Some(to_table) = scan.trace.image_to_table else {
        let mut out = dimmed(frame)?;
        caption(
            &mut out,
            "no marker in view: the plane is the tiles' own lattice, nothing to rectify",
        )?;
        return Ok(out);
    };
    let (w, h) = (f64::from(frame.cols()), f64::from(frame.rows()));
    // The table under the photo, from a grid of image points (those past the horizon
    // have no table point), kept within reach of the table under the photo's centre.
    let Some(centre) = to_table.apply([w / 2.0, h / 2.0]) else {
        return dimmed(frame);
    };
    let (mut lo, mut hi) = ([f64::MAX; 2], [f64::MIN; 2]);
    for i in 0..=8 {
        for j in 0..=8 {
            let p = [w * f64::from(i) / 8.0, h * f64::from(j) / 8.0];
            let Some(t) = to_table.apply(p) else { continue };
            for k in 0..2 {
                let t = t[k].clamp(
                    centre[k] - RECTIFIED_REACH_MM,
                    centre[k] + RECTIFIED_REACH_MM,
                );
                lo[k] = lo[k].min(t);
                hi[k] = hi[k].max(t);
            }
        }
    }
    let (bw, bh) = (hi[0] - lo[0], hi[1] - lo[1]);
    if !(bw > 1.0 && bh > 1.0) {
        return dimmed(frame);
    }
    let s = RECTIFIED_PX / bw.max(bh);
    let to_picture =
        Homography([[s, 0.0, -s * lo[0]], [0.0, s, -s * lo[1]], [0.0, 0.0, 1.0]]).after(&to_table);
    let m = Mat::from_slice_2d(&to_picture.0)?;
    let size = Size::new((bw * s).ceil() as i32, (bh * s).ceil() as i32);
    let mut out = Mat::default();
    imgproc::warp_perspective(
        frame,
        &mut out,
        &m,
        size,
        imgproc::INTER_LINEAR,
        opencv::core::BORDER_CONSTANT,
        Scalar::all(0.0),
    )?;
    for (k, a) in scan.alhambras.iter().enumerate() {
        for t in &a.tiles {
            let corners: Option<Vec<Point>> =
                t.corners_px.iter().map(|p| to_picture.apply(*p)).collect();
            if let Some(c) = corners {
                outline(&mut out, &c, colour(k), 2)?;
            }
        }
    }
    caption(
        &mut out,
        &format!(
            "rectified through the markers: {:.1} px per mm, tiles read outlined",
            s
        ),
    )?;
    Ok(out)
}

/// The fountain candidates (filled: a fountain was anchored there; hollow: none was),
/// and the cells each Alhambra grew over, one colour each.
pub fn clusters(frame: &Mat, scan: &Scan) -> opencv::Result<Mat> {
    let mut out = dimmed(frame)?;
    let mut fills = out.try_clone()?;
    for (k, a) in scan.alhambras.iter().enumerate() {
        for t in &a.tiles {
            let poly: Vector<CvPoint> = t.corners_px.iter().map(|p| pt(*p)).collect();
            imgproc::fill_convex_poly(&mut fills, &poly, colour(k), imgproc::LINE_AA, 0)?;
        }
    }
    let mut blended = Mat::default();
    opencv::core::add_weighted(&out, 0.45, &fills, 0.55, 0.0, &mut blended, -1)?;
    out = blended;
    let strongest = scan
        .trace
        .candidates
        .iter()
        .map(|c| c.strength)
        .fold(f32::MIN_POSITIVE, f32::max);
    let k = ink_scale(&out);
    for (n, c) in scan.trace.candidates.iter().enumerate() {
        let radius =
            (k * (5.0 + 10.0 * f64::from((c.strength / strongest).clamp(0.0, 1.0)))).round() as i32;
        let (ink, fill) = if c.anchored {
            (Scalar::new(0.0, 255.0, 0.0, 0.0), -1)
        } else {
            (Scalar::new(0.0, 0.0, 255.0, 0.0), (2.0 * k).round() as i32)
        };
        imgproc::circle(&mut out, pt(c.px), radius, ink, fill, imgproc::LINE_AA, 0)?;
        white_text(
            &mut out,
            &format!("{} {:.1}", n + 1, c.strength),
            pt([c.px[0] + f64::from(radius) + 2.0, c.px[1] + 4.0]),
            0.4 * k,
        )?;
    }
    caption(
        &mut out,
        &format!(
            "{} fountain candidates (green: anchored, red: not), {} Alhambras grown",
            scan.trace.candidates.len(),
            scan.alhambras.len()
        ),
    )?;
    Ok(out)
}

/// Each Alhambra's lattice, a cell beyond its tiles all round, its fountain cell thick.
pub fn lattices(frame: &Mat, scan: &Scan) -> opencv::Result<Mat> {
    let mut out = dimmed(frame)?;
    for (k, a) in scan.alhambras.iter().enumerate() {
        let Some(to_grid) = a.grid.inverse() else {
            continue;
        };
        // The tiles' cells in the lattice's own frame (the tiles' positions are in the
        // Alhambra's upright frame, which may be turned against it).
        let (mut lo, mut hi) = ([i32::MAX; 2], [i32::MIN; 2]);
        for t in &a.tiles {
            let c = [
                t.corners_px.iter().map(|p| p[0]).sum::<f64>() / 4.0,
                t.corners_px.iter().map(|p| p[1]).sum::<f64>() / 4.0,
            ];
            let Some(g) = to_grid.apply(c) else { continue };
            let cell = [g[0].round() as i32, g[1].round() as i32];
            for d in 0..2 {
                lo[d] = lo[d].min(cell[d]);
                hi[d] = hi[d].max(cell[d]);
            }
        }
        if lo[0] > hi[0] {
            continue;
        }
        let (x0, x1) = (f64::from(lo[0]) - 1.5, f64::from(hi[0]) + 1.5);
        let (y0, y1) = (f64::from(lo[1]) - 1.5, f64::from(hi[1]) + 1.5);
        let line = |from: Point, to: Point, out: &mut Mat| -> opencv::Result<()> {
            if let (Some(p), Some(q)) = (a.grid.apply(from), a.grid.apply(to)) {
                imgproc::line(out, pt(p), pt(q), colour(k), 1, imgproc::LINE_AA, 0)?;
            }
            Ok(())
        };
        for i in lo[0] - 1..=hi[0] + 2 {
            let x = f64::from(i) - 0.5;
            line([x, y0], [x, y1], &mut out)?;
        }
        for j in lo[1] - 1..=hi[1] + 2 {
            let y = f64::from(j) - 0.5;
            line([x0, y], [x1, y], &mut out)?;
        }
        let fountain: Option<Vec<Point>> = [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]
            .iter()
            .map(|c| a.grid.apply(*c))
            .collect();
        if let Some(f) = fountain {
            outline(&mut out, &f, colour(k), 3)?;
        }
    }
    caption(
        &mut out,
        "each Alhambra's lattice, a cell beyond its tiles; its fountain's cell thick",
    )?;
    Ok(out)
}

/// The photo at half brightness, so that what is drawn on it stands out.
fn dimmed(frame: &Mat) -> opencv::Result<Mat> {
    let mut out = Mat::default();
    frame.convert_to(&mut out, -1, 0.5, 0.0)?;
    Ok(out)
}

fn outline(out: &mut Mat, corners: &[Point], ink: Scalar, thickness: i32) -> opencv::Result<()> {
    for k in 0..corners.len() {
        let next = corners[(k + 1) % corners.len()];
        imgproc::line(
            out,
            pt(corners[k]),
            pt(next),
            ink,
            thickness,
            imgproc::LINE_AA,
            0,
        )?;
    }
    Ok(())
}

/// How much larger than on a 1080p picture text and marks are drawn (a 4K photo's
/// would be unreadable at the 1080p size).
fn ink_scale(out: &Mat) -> f64 {
    (f64::from(out.cols()) / 1920.0).max(1.0)
}

/// A line of white text on a black band across the top of the picture.
fn caption(out: &mut Mat, text: &str) -> opencv::Result<()> {
    let k = ink_scale(out);
    let band = Rect::new(0, 0, out.cols(), ((28.0 * k) as i32).min(out.rows()));
    imgproc::rectangle(out, band, Scalar::all(0.0), -1, imgproc::LINE_8, 0)?;
    white_text(
        out,
        text,
        CvPoint::new((8.0 * k) as i32, (19.0 * k) as i32),
        0.55 * k,
    )
}

/// White text of the given font size, its stroke as thick as the picture's ink scale.
fn white_text(out: &mut Mat, text: &str, at: CvPoint, size: f64) -> opencv::Result<()> {
    let thickness = ink_scale(out).round() as i32;
    imgproc::put_text(
        out,
        text,
        at,
        imgproc::FONT_HERSHEY_SIMPLEX,
        size,
        Scalar::all(255.0),
        thickness,
        imgproc::LINE_AA,
        false,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scanner::{FoundAlhambra, PlaneSource, Trace, TracedCandidate};
    use opencv::core::CV_8UC3;

    fn blank() -> Mat {
        Mat::new_rows_cols_with_default(480, 640, CV_8UC3, Scalar::all(200.0))
            .expect("a blank frame")
    }

    fn one_fountain(image_to_table: Option<Homography>) -> Scan {
        Scan {
            plane: if image_to_table.is_some() {
                PlaneSource::Markers
            } else {
                PlaneSource::Lattice
            },
            alhambras: vec![FoundAlhambra {
                fountain_px: [320.0, 240.0],
                grid: Homography([[40.0, 0.0, 320.0], [0.0, 40.0, 240.0], [0.0, 0.0, 1.0]]),
                tiles: Vec::new(),
                light: [1.0; 3],
                looked_across: Vec::new(),
            }],
            trace: Trace {
                image_to_table,
                marker_plane: None,
                candidates: vec![
                    TracedCandidate {
                        px: [320.0, 240.0],
                        strength: 9.0,
                        anchored: true,
                    },
                    TracedCandidate {
                        px: [100.0, 100.0],
                        strength: 3.0,
                        anchored: false,
                    },
                ],
            },
            presence_limit: 0.0,
        }
    }

    #[test]
    fn the_rectified_table_is_as_large_as_the_table_under_the_photo() {
        // 2 px per mm: the photo shows 320 x 240 mm, drawn at 1600 x 1200.
        let scan = one_fountain(Some(Homography::scale(0.5)));
        let out = rectified(&blank(), &scan).expect("draws");
        assert_eq!((out.cols(), out.rows()), (1600, 1200));
        let out = rectified(&blank(), &one_fountain(None)).expect("draws");
        assert_eq!((out.cols(), out.rows()), (640, 480));
    }

    #[test]
    fn every_stage_draws_on_a_frame_of_the_photos_size() {
        let scan = one_fountain(None);
        let result = scan.to_result("p.jpg");
        let all = stages(&blank(), &scan, &result).expect("draws");
        let names: Vec<&str> = all.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["rectified", "clusters", "lattice", "overlay"]);
        for (_, picture) in &all[1..] {
            assert_eq!((picture.cols(), picture.rows()), (640, 480));
        }
    }
}
