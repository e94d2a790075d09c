//! The table plane as the scanner sees it: the homography from image pixels to table
//! millimetres given by the ArUco markers lying on the table, and the white balance read
//! off the markers' white paper.

use crate::appearance::WhiteBalance;
use crate::geometry::{Homography, Point};
use alhambra_calibration::TablePlane;
use opencv::core::Mat;
use opencv::prelude::*;

/// The table plane found in a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Plane {
    /// Image pixels to table millimetres (the frame of the lowest-numbered marker).
    pub image_to_table: Homography,
    /// The markers seen: id and corners in image pixels.
    pub markers: Vec<(i32, [Point; 4])>,
    /// Gains that make the markers' paper neutral.
    pub white: WhiteBalance,
}

/// Finds the ArUco markers (DICT_4X4_50) of `marker_mm` and the table plane they give
/// (all markers fitted jointly, see `alhambra_calibration::TablePlane`); `None` when no
/// marker is seen.
pub fn find_plane(frame: &Mat, marker_mm: f64) -> opencv::Result<Option<Plane>> {
    let table = TablePlane::from_markers(frame, marker_mm)
        .map_err(|e| opencv::Error::new(opencv::core::StsError, e.to_string()))?;
    let Some(table) = table else { return Ok(None) };
    let markers: Vec<(i32, [Point; 4])> =
        table.markers().iter().map(|m| (m.id, m.corners)).collect();
    let white = paper_white(frame, &markers)?;
    // Only the affine part: a marker is small, and a few tenths of a pixel on its corners
    // swing the perspective terms enough to misjudge tiles a metre away by 20%. Each
    // Alhambra's own lattice supplies the perspective (the scanner refits it per grid).
    let anchor = table.markers().iter().find(|m| m.id == table.anchor_id());
    let Some(corners) = anchor.map(|m| m.corners) else {
        return Ok(None);
    };
    let s = marker_mm;
    let square = [[0.0, 0.0], [s, 0.0], [s, s], [0.0, s]];
    let Some(image_to_table) = Homography::affine_fit(&corners, &square) else {
        return Ok(None);
    };
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
            // A square ring a fourteenth of the marker beyond its border: inside the
            // quiet zone every printed marker has (a wider ring left narrow margins around
            // larger markers and sampled the table).
            let (a, b) = match k % 4 {
                0 => (t, -0.07),
                1 => (1.07, t),
                2 => (1.0 - t, 1.07),
                _ => (-0.07, 1.0 - t),
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
