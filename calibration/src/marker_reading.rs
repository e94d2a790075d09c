//! Reading the markers ArUco finds but cannot read. Its detector finds a marker's dark
//! square well, then reads each bit by a hard threshold on the square's pixels; on a small
//! or soft marker (20-30 px across in a blurred 1080p photo, seen at a slant) a white bit
//! between black ones blurs below the threshold and the marker is rejected. Here each such
//! square is compared whole with every marker of the dictionary, drawn and blurred as a
//! camera would see it, and read only when one marker matches it clearly better than any
//! other.

use crate::error::Result;
use opencv::core::{self, Mat, Point2f, Ptr, Size, Vector};
use opencv::prelude::*;
use opencv::{aruco, imgproc};
use std::sync::OnceLock;

/// Pixels per marker cell in the drawn markers and in the squares warped to match them
/// (6 read no more markers, at twice the time).
const CELL_PX: i32 = 4;
/// Cells across a DICT_4X4 marker: 4 bits and a black border each side.
const CELLS: i32 = 6;
/// White margin drawn around each marker (pixels; half a cell): the paper every printed
/// marker lies on, which the blur mixes into its black border.
const MARGIN_PX: i32 = 2;
/// Side of a drawn marker with its margin.
const PATCH_PX: i32 = CELLS * CELL_PX + 2 * MARGIN_PX;
/// Blurs the markers are drawn at (Gaussian sigma, pixels of [`CELL_PX`]-pixel cells): a
/// little to half a cell.
const BLURS: [f64; 4] = [0.47, 0.93, 1.47, 2.0];
/// The bits of a marker in its drawing: inset from the drawing's edges past the margin and
/// half the border (pixels), where the markers differ.
const BITS: i32 = MARGIN_PX + CELL_PX / 2;
/// A marker ArUco read is kept only when its bits match its drawing at least this well:
/// its reading corrects a wrong bit, and wood grain in a dark gap between tiles passed for
/// a marker (varied art 9156, a match of 0.27). Of 540 markers ArUco read in 400 rendered
/// photos, the least alike matched at 0.78.
const LEAST_LIKE_READ: f32 = 0.6;
/// Markers in DICT_4X4_50.
const MARKERS: i32 = 50;
/// A square is read as a marker only when its bits match that marker's drawing at least
/// this well (normalised cross-correlation, 1 a perfect match)...
const MIN_MATCH: f32 = 0.85;
/// ... and differ from it this many times less than from any other marker's (one minus the
/// match). Of 14,000 squares ArUco rejected in 600 rendered photos, none off a marker
/// passed both (the nearest: 0.86 and 1.5, 0.78 and 1.7); 45 of the 75 on markers did,
/// none as a wrong marker.
const MIN_LEAD: f32 = 2.0;

/// One marker drawn at one turn and blur, zero-mean and of unit norm.
struct Drawing {
    id: i32,
    /// Quarter turns clockwise.
    turn: usize,
    /// Its pixels over the bits (see [`BITS`]).
    bits: Vec<f32>,
    /// All its pixels, border and margin too: where its outline lies.
    whole: Vec<f32>,
}

/// A marker read from a square ArUco rejected.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReadMarker {
    pub id: i32,
    /// Its corners clockwise from the marker's own top-left one (image pixels).
    pub corners: [Point2f; 4],
    /// How well it matched its drawing.
    pub matched: f32,
}

/// Every marker at every turn and blur, drawn once.
fn drawings() -> Result<&'static [Drawing]> {
    static DRAWINGS: OnceLock<Vec<Drawing>> = OnceLock::new();
    if let Some(d) = DRAWINGS.get() {
        return Ok(d);
    }
    let dict: Ptr<aruco::Dictionary> =
        aruco::get_predefined_dictionary(aruco::PREDEFINED_DICTIONARY_NAME::DICT_4X4_50)?;
    let mut out = Vec::new();
    for id in 0..MARKERS {
        let mut marker = Mat::default();
        aruco::draw_marker(&dict, id, CELLS * CELL_PX, &mut marker, 1)?;
        let mut framed = Mat::default();
        core::copy_make_border(
            &marker,
            &mut framed,
            MARGIN_PX,
            MARGIN_PX,
            MARGIN_PX,
            MARGIN_PX,
            core::BORDER_CONSTANT,
            core::Scalar::all(255.0),
        )?;
        let mut turned = framed;
        for turn in 0..4 {
            if turn > 0 {
                let mut next = Mat::default();
                core::rotate(&turned, &mut next, core::ROTATE_90_CLOCKWISE)?;
                turned = next;
            }
            for sigma in BLURS {
                let mut soft = Mat::default();
                imgproc::gaussian_blur(
                    &turned,
                    &mut soft,
                    Size::new(0, 0),
                    sigma,
                    sigma,
                    core::BORDER_REPLICATE,
                )?;
                if let (Some(bits), Some(whole)) = (normalised(&soft, BITS)?, normalised(&soft, 0)?)
                {
                    out.push(Drawing {
                        id,
                        turn,
                        bits,
                        whole,
                    });
                }
            }
        }
    }
    Ok(DRAWINGS.get_or_init(|| out))
}

/// The pixels of an 8-bit grey image, zero-mean and of unit norm; `None` when flat. With
/// `inset`, those that far in from each edge only.
fn normalised(image: &Mat, inset: i32) -> Result<Option<Vec<f32>>> {
    let mut values = Vec::with_capacity((PATCH_PX * PATCH_PX) as usize);
    for row in inset..image.rows() - inset {
        for col in inset..image.cols() - inset {
            values.push(f32::from(*image.at_2d::<u8>(row, col)?));
        }
    }
    let mean = values.iter().sum::<f32>() / values.len().max(1) as f32;
    let norm = values
        .iter()
        .map(|v| (v - mean).powi(2))
        .sum::<f32>()
        .sqrt();
    if norm < 1e-3 {
        return Ok(None);
    }
    Ok(Some(values.iter().map(|v| (v - mean) / norm).collect()))
}

/// The square with corners `quad` (image pixels of `grey`) warped onto a drawing's frame.
fn warped(grey: &Mat, quad: &[Point2f; 4]) -> Result<Mat> {
    let lo = MARGIN_PX as f32 - 0.5;
    let hi = (PATCH_PX - MARGIN_PX) as f32 - 0.5;
    let to: Vector<Point2f> = Vector::from_iter([
        Point2f::new(lo, lo),
        Point2f::new(hi, lo),
        Point2f::new(hi, hi),
        Point2f::new(lo, hi),
    ]);
    let from: Vector<Point2f> = Vector::from_iter(quad.iter().copied());
    let h = imgproc::get_perspective_transform(&from, &to, core::DECOMP_LU)?;
    let mut patch = Mat::default();
    imgproc::warp_perspective(
        grey,
        &mut patch,
        &h,
        Size::new(PATCH_PX, PATCH_PX),
        imgproc::INTER_LINEAR,
        core::BORDER_REPLICATE,
        core::Scalar::default(),
    )?;
    Ok(patch)
}

/// Steps (image pixels) by which [`fit_corners`] moves a corner, coarse to fine.
const CORNER_STEPS: [f32; 4] = [1.0, 0.5, 0.25, 0.125];

/// The corners of marker `id` (image pixels of `grey`, clockwise from its own top-left
/// one) moved to where the marker's drawing, at the blur it is seen with, matches the
/// image best: each corner in turn a step either way along either axis while that helps,
/// the steps ever finer. A blurred corner has no sharp point for `corner_sub_pix` to find
/// (it wandered 3-4 px on markers 25 px across); the whole outline, border and bits
/// together, places it.
pub(crate) fn fit_corners(grey: &Mat, corners: [Point2f; 4], id: i32) -> Result<[Point2f; 4]> {
    let own: Vec<&Drawing> = drawings()?
        .iter()
        .filter(|d| d.id == id && d.turn == 0)
        .collect();
    let score = |q: &[Point2f; 4]| -> Result<f32> {
        let patch = warped(grey, q)?;
        let Some(pixels) = normalised(&patch, 0)? else {
            return Ok(f32::NEG_INFINITY);
        };
        Ok(own
            .iter()
            .map(|d| d.whole.iter().zip(&pixels).map(|(a, b)| a * b).sum::<f32>())
            .fold(f32::NEG_INFINITY, f32::max))
    };
    let mut best = corners;
    let mut best_score = score(&best)?;
    for step in CORNER_STEPS {
        for _ in 0..4 {
            let mut moved = false;
            for k in 0..4 {
                for (dx, dy) in [(step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step)] {
                    let mut q = best;
                    q[k].x += dx;
                    q[k].y += dy;
                    let s = score(&q)?;
                    if s > best_score {
                        (best, best_score) = (q, s);
                        moved = true;
                    }
                }
            }
            if !moved {
                break;
            }
        }
    }
    Ok(best)
}

/// How well the bits of the square with corners `quad` (image pixels of `grey`, clockwise
/// as ArUco gives them) match each marker's drawing (marker `only`'s alone when given), at
/// its best turn and blur: (match, quarter turns clockwise) by id, minus infinity for
/// markers not compared; `None` when the square is flat.
fn matches(
    grey: &Mat,
    quad: &[Point2f; 4],
    only: Option<i32>,
) -> Result<Option<Vec<(f32, usize)>>> {
    let patch = warped(grey, quad)?;
    let Some(bits) = normalised(&patch, BITS)? else {
        return Ok(None);
    };
    let mut best: Vec<(f32, usize)> = vec![(f32::NEG_INFINITY, 0); MARKERS as usize];
    for d in drawings()?
        .iter()
        .filter(|d| only.is_none_or(|id| d.id == id))
    {
        let m: f32 = d.bits.iter().zip(&bits).map(|(a, b)| a * b).sum();
        let b = &mut best[d.id as usize];
        if m > b.0 {
            *b = (m, d.turn);
        }
    }
    Ok(Some(best))
}

/// Reads the square with corners `quad` (image pixels of `grey`, clockwise as ArUco gives
/// them) as a marker: the marker whose drawing matches its bits best, when that one
/// matches well and clearly better than any other (see [`MIN_MATCH`], [`MIN_LEAD`]). Only
/// the bits are compared: every marker's border and margin look alike, and a dark blob
/// matches them as well as a marker blurred past reading does.
pub(crate) fn read_square(grey: &Mat, quad: &[Point2f; 4]) -> Result<Option<ReadMarker>> {
    let Some(best) = matches(grey, quad, None)? else {
        return Ok(None);
    };
    let mut order: Vec<usize> = (0..best.len()).collect();
    order.sort_by(|&a, &b| best[b].0.total_cmp(&best[a].0));
    let (Some(&first), Some(&second)) = (order.first(), order.get(1)) else {
        return Ok(None);
    };
    let (matched, turn) = best[first];
    if matched < MIN_MATCH || (1.0 - best[second].0) < MIN_LEAD * (1.0 - matched) {
        return Ok(None);
    }
    // Turned a quarter clockwise, the marker's own top-left corner lies where the square's
    // top-right one is: it starts the corners `turn` places on.
    let corners = [0, 1, 2, 3].map(|k| quad[(k + turn) % 4]);
    Ok(Some(ReadMarker {
        id: first as i32,
        corners,
        matched,
    }))
}

/// Whether the square with corners `quad`, which ArUco read as marker `id`, looks like that
/// marker's drawing at all (see [`LEAST_LIKE_READ`]).
pub(crate) fn confirms(grey: &Mat, quad: &[Point2f; 4], id: i32) -> Result<bool> {
    let Some(best) = matches(grey, quad, Some(id))? else {
        return Ok(false);
    };
    let matched = usize::try_from(id)
        .ok()
        .and_then(|k| best.get(k))
        .map_or(f32::NEG_INFINITY, |b| b.0);
    Ok(matched >= LEAST_LIKE_READ)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plane::detect_markers;

    /// A grey table (`table`) with marker `id` printed on white paper (a margin of a cell)
    /// laid with its corners at `quad`, blurred by `sigma` pixels.
    fn table_with_marker(id: i32, quad: [Point2f; 4], sigma: f64, table: f64) -> Mat {
        let dict = aruco::get_predefined_dictionary(aruco::PREDEFINED_DICTIONARY_NAME::DICT_4X4_50)
            .expect("dictionary");
        let mut marker = Mat::default();
        aruco::draw_marker(&dict, id, 120, &mut marker, 1).expect("marker");
        let mut paper = Mat::default();
        core::copy_make_border(
            &marker,
            &mut paper,
            20,
            20,
            20,
            20,
            core::BORDER_CONSTANT,
            core::Scalar::all(255.0),
        )
        .expect("paper");
        // The marker's corners at 20 and 140 px of the paper; the paper's own at 0 and 160.
        let from: Vector<Point2f> = Vector::from_iter([
            Point2f::new(19.5, 19.5),
            Point2f::new(139.5, 19.5),
            Point2f::new(139.5, 139.5),
            Point2f::new(19.5, 139.5),
        ]);
        let to: Vector<Point2f> = Vector::from_iter(quad);
        let h = imgproc::get_perspective_transform(&from, &to, core::DECOMP_LU).expect("h");
        let mut laid =
            Mat::new_rows_cols_with_default(240, 320, core::CV_8UC1, core::Scalar::all(table))
                .expect("table");
        imgproc::warp_perspective(
            &paper,
            &mut laid,
            &h,
            Size::new(320, 240),
            imgproc::INTER_AREA,
            core::BORDER_TRANSPARENT,
            core::Scalar::default(),
        )
        .expect("warp");
        let mut soft = Mat::default();
        imgproc::gaussian_blur(
            &laid,
            &mut soft,
            Size::new(0, 0),
            sigma,
            sigma,
            core::BORDER_REPLICATE,
        )
        .expect("blur");
        soft
    }

    /// A marker 26 px across seen at a slant.
    const SLANTED: [Point2f; 4] = [
        Point2f { x: 150.0, y: 100.0 },
        Point2f { x: 177.0, y: 108.0 },
        Point2f { x: 170.0, y: 126.0 },
        Point2f { x: 143.0, y: 118.0 },
    ];

    /// What ArUco alone reads in a grey image.
    fn aruco_reads(grey: &Mat) -> Vec<i32> {
        let dict = aruco::get_predefined_dictionary(aruco::PREDEFINED_DICTIONARY_NAME::DICT_4X4_50)
            .expect("dictionary");
        let params = aruco::DetectorParameters::create().expect("parameters");
        let mut corners: Vector<Vector<Point2f>> = Vector::new();
        let mut ids: Vector<i32> = Vector::new();
        let mut rejected: Vector<Vector<Point2f>> = Vector::new();
        aruco::detect_markers(grey, &dict, &mut corners, &mut ids, &params, &mut rejected)
            .expect("detection");
        ids.to_vec()
    }

    #[test]
    fn a_small_blurred_marker_arucos_threshold_cannot_read_is_read_at_any_turn() {
        for turn in 0..4 {
            let quad = [0, 1, 2, 3].map(|k| SLANTED[(k + turn) % 4]);
            let image = table_with_marker(23, quad, 2.2, 110.0);
            assert!(
                aruco_reads(&image).is_empty(),
                "turn {turn}: ArUco reads it itself"
            );
            let found = detect_markers(&image).expect("detection");
            assert_eq!(found.len(), 1, "turn {turn}: {found:?}");
            assert_eq!(found[0].id, 23);
            // Its own top-left corner first, wherever the marker is turned, each corner
            // within a pixel (the blur moved `corner_sub_pix` 4 px off).
            for (got, want) in found[0].corners.iter().zip(quad) {
                let off = (got[0] - f64::from(want.x)).hypot(got[1] - f64::from(want.y));
                assert!(
                    off < 1.0,
                    "turn {turn}: {:?} against {quad:?}",
                    found[0].corners
                );
            }
        }
    }

    #[test]
    fn a_dark_square_on_white_is_no_marker() {
        // A black square on white paper, blurred: ArUco finds the square, and it matches
        // every blurred marker's border and margin; its bits match none.
        let image = table_with_marker(23, SLANTED, 2.2, 110.0);
        let mut blank = image.clone();
        let inner: Vector<core::Point> = Vector::from_iter(
            [
                (152.0, 104.0),
                (173.0, 110.0),
                (168.0, 122.0),
                (147.0, 116.0),
            ]
            .map(|(x, y)| core::Point::new(x as i32, y as i32)),
        );
        imgproc::fill_convex_poly(
            &mut blank,
            &inner,
            core::Scalar::all(20.0),
            imgproc::LINE_8,
            0,
        )
        .expect("fill");
        let found = detect_markers(&blank).expect("detection");
        assert!(found.is_empty(), "{found:?}");
    }
}
