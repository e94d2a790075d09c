//! The table plane as the scanner sees it: the homography from image pixels to table
//! millimetres given by the ArUco markers lying on the table, and the white balance read
//! off the markers' white paper.

use crate::appearance::WhiteBalance;
use crate::geometry::{Homography, Point};
use opencv::core::{Mat, Point2f, Size, TermCriteria, Vector};
use opencv::prelude::*;
use opencv::{aruco, imgproc};

/// The table plane found in a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Plane {
    /// Image pixels to table millimetres (the frame of the largest marker).
    pub image_to_table: Homography,
    /// The markers seen: id and corners in image pixels.
    pub markers: Vec<(i32, [Point; 4])>,
    /// Gains that make the markers' paper neutral.
    pub white: WhiteBalance,
}

/// Frames wider than this are searched for markers at half size (ArUco's cost grows with
/// the pixels), then refined at full size.
const DETECT_WIDTH: i32 = 1280;

/// Finds the ArUco markers (DICT_4X4_50) of `marker_mm` and the table plane they give;
/// `None` when no marker is seen.
pub fn find_plane(frame: &Mat, marker_mm: f64) -> opencv::Result<Option<Plane>> {
    let mut grey = Mat::default();
    imgproc::cvt_color(frame, &mut grey, imgproc::COLOR_BGR2GRAY, 0)?;
    let scale = if grey.cols() > DETECT_WIDTH { 0.5 } else { 1.0 };
    let small = if scale < 1.0 {
        let mut s = Mat::default();
        imgproc::resize(
            &grey,
            &mut s,
            Size::new(0, 0),
            scale,
            scale,
            imgproc::INTER_AREA,
        )?;
        s
    } else {
        grey.clone()
    };
    let dictionary =
        aruco::get_predefined_dictionary(aruco::PREDEFINED_DICTIONARY_NAME::DICT_4X4_50)?;
    let parameters = aruco::DetectorParameters::create()?;
    let mut corners: Vector<Vector<Point2f>> = Vector::new();
    let mut ids: Vector<i32> = Vector::new();
    let mut rejected: Vector<Vector<Point2f>> = Vector::new();
    aruco::detect_markers(
        &small,
        &dictionary,
        &mut corners,
        &mut ids,
        &parameters,
        &mut rejected,
    )?;
    if ids.is_empty() {
        return Ok(None);
    }
    let mut markers = Vec::new();
    for (id, quad) in ids.iter().zip(corners.iter()) {
        let mut pts: Vector<Point2f> = quad
            .iter()
            .map(|p| Point2f::new(p.x / scale as f32, p.y / scale as f32))
            .collect();
        let side = (pts.get(0)?.x - pts.get(1)?.x).hypot(pts.get(0)?.y - pts.get(1)?.y);
        let win = ((side / 12.0).round() as i32).clamp(2, 8);
        imgproc::corner_sub_pix(
            &grey,
            &mut pts,
            Size::new(win, win),
            Size::new(-1, -1),
            TermCriteria::new(
                opencv::core::TermCriteria_COUNT + opencv::core::TermCriteria_EPS,
                20,
                0.03,
            )?,
        )?;
        let mut q = [[0.0; 2]; 4];
        for (i, p) in pts.iter().enumerate().take(4) {
            q[i] = [f64::from(p.x), f64::from(p.y)];
        }
        markers.push((id, q));
    }
    // The largest marker gives the most precise frame.
    let area = |q: &[Point; 4]| {
        let mut a = 0.0;
        for i in 0..4 {
            let (p, r) = (q[i], q[(i + 1) % 4]);
            a += p[0] * r[1] - r[0] * p[1];
        }
        a.abs() / 2.0
    };
    let Some(best) = markers
        .iter()
        .max_by(|a, b| area(&a.1).total_cmp(&area(&b.1)))
    else {
        return Ok(None);
    };
    let square = [
        [0.0, 0.0],
        [marker_mm, 0.0],
        [marker_mm, marker_mm],
        [0.0, marker_mm],
    ];
    let Some(image_to_table) = Homography::from_quads(&best.1, &square) else {
        return Ok(None);
    };
    let white = paper_white(frame, &markers)?;
    Ok(Some(Plane {
        image_to_table,
        markers,
        white,
    }))
}

/// White balance from the paper just around each marker (the brighter half of a ring
/// beyond the marker's border).
fn paper_white(frame: &Mat, markers: &[(i32, [Point; 4])]) -> opencv::Result<WhiteBalance> {
    let bytes = frame.data_bytes()?;
    let (w, h) = (frame.cols(), frame.rows());
    let mut samples: Vec<[f32; 3]> = Vec::new();
    for (_, q) in markers {
        let unit = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let Some(to_image) = Homography::from_quads(&unit, q) else {
            continue;
        };
        for k in 0..64 {
            let t = f64::from(k) / 64.0;
            // A square ring at 1.15 marker sizes around the centre.
            let (a, b) = match k % 4 {
                0 => (t, -0.15),
                1 => (1.15, t),
                2 => (1.0 - t, 1.15),
                _ => (-0.15, 1.0 - t),
            };
            let Some([x, y]) = to_image.apply([a, b]) else {
                continue;
            };
            let (x, y) = (x.round() as i32, y.round() as i32);
            if x >= 0 && y >= 0 && x < w && y < h {
                let i = ((y * w + x) * 3) as usize;
                samples.push([
                    f32::from(bytes[i]),
                    f32::from(bytes[i + 1]),
                    f32::from(bytes[i + 2]),
                ]);
            }
        }
    }
    if samples.len() < 8 {
        return Ok([1.0; 3]);
    }
    samples.sort_by(|a, b| (b[0] + b[1] + b[2]).total_cmp(&(a[0] + a[1] + a[2])));
    let top = &samples[..samples.len() / 2];
    let mut mean = [0f32; 3];
    for s in top {
        for c in 0..3 {
            mean[c] += s[c] / top.len() as f32;
        }
    }
    let grey = (mean[0] + mean[1] + mean[2]) / 3.0;
    if mean.iter().any(|&m| m < 20.0) {
        return Ok([1.0; 3]);
    }
    Ok([grey / mean[0], grey / mean[1], grey / mean[2]])
}
