//! Where a tile's outer side really lies. A cell's quad comes from its Alhambra's lattice
//! and may sit a few percent of a tile off the tile itself (a small Alhambra's lattice is
//! loosely held; a tile is laid askew). The side models were learned from quads on the
//! tile's edge: a quad side that falls inside the tile cuts its wall band, which then
//! reads as an open side with a thick rim, with full confidence. A side facing the bare
//! table can be put back on the tile's edge: walking in from the table, the tile begins at
//! the first strong step in brightness or colour, not counting the step into the shadow
//! a tile casts on the table around it.

use crate::appearance::{WhiteBalance, sample_square};
use crate::geometry::{Homography, Point, UNIT_CELL};
use alhambra_engine::Side;
use opencv::core::Mat;
use opencv::prelude::*;

/// The strip looked along runs from this far outside the quad's side (share of a cell)...
const OUTSIDE: f64 = 0.16;
/// ... to this far inside it.
const INSIDE: f64 = 0.10;
/// Rows across the strip (depth resolution: a quarter of a percent of a cell).
const ROWS: i32 = 104;
/// Columns along it.
const COLUMNS: i32 = 24;
/// The part of the side looked along (its middle, clear of the corners, where the
/// neighbouring sides' walls and the seams meet).
const ALONG: f64 = 0.35;
/// The rows furthest out stand for the table.
const TABLE_ROWS: usize = 8;
/// What lies outside is the table when its chromaticity is within this of the table's
/// (either coordinate)...
const TABLE_CHROMA: f32 = 0.025;
/// ... and its brightness within this ratio either way.
const TABLE_BRIGHTNESS: f32 = 1.25;
/// Rows either side of a row over which its step is measured.
const SPAN: usize = 2;
/// A step counts as the tile's edge from this share of the strongest one on.
const STEP_SHARE: f32 = 0.35;
/// A chromaticity step counts this many times a relative brightness step.
const CHROMA_WEIGHT: f32 = 4.0;
/// A darkening step whose chromaticity moves less than this is a shadow.
const SHADOW_CHROMA: f32 = 0.02;
/// No edge at all when the strongest step is below this.
const WEAKEST_EDGE: f32 = 0.15;
/// Furthest a side is moved (share of a cell).
pub const REACH: f64 = 0.12;

/// How far the tile's edge lies outside the side `side` of cell quad `q` (share of a cell;
/// negative: inside): `None` when what lies outside does not look like the table of colour
/// `table` (chromaticity r, g and brightness; not checked when `None`), as another tile, a
/// card or a hand do, or no edge shows within [`REACH`].
pub fn outer_edge_offset(
    frame: &Mat,
    q: &[Point; 4],
    side: Side,
    white: WhiteBalance,
    table: Option<[f32; 3]>,
) -> Option<f64> {
    let to_image = Homography::from_quads(&UNIT_CELL, q)?;
    // Cell coordinates of (along, depth) on this side: depth -0.5 is the side, lower is
    // further out.
    let cell = |a: f64, d: f64| -> Point {
        match side {
            Side::North => [a, d],
            Side::East => [-d, a],
            Side::South => [-a, -d],
            Side::West => [d, -a],
        }
    };
    let (d0, d1) = (-0.5 - OUTSIDE, -0.5 + INSIDE);
    let strip = [
        to_image.apply(cell(-ALONG, d0))?,
        to_image.apply(cell(ALONG, d0))?,
        to_image.apply(cell(ALONG, d1))?,
        to_image.apply(cell(-ALONG, d1))?,
    ];
    // A square sample stretched over the strip: rows run from the table in.
    let patch = sample_square(frame, &strip, ROWS).ok()?;
    let bytes = patch.data_bytes().ok()?;
    let n = ROWS as usize;
    let step = n / COLUMNS as usize;
    let rows: Vec<[f32; 3]> = (0..n)
        .map(|y| {
            let mut acc = [0f32; 3];
            let mut k = 0f32;
            for x in (0..n).step_by(step.max(1)) {
                let i = 3 * (y * n + x);
                let b = f32::from(bytes[i]) * white[0];
                let g = f32::from(bytes[i + 1]) * white[1];
                let r = f32::from(bytes[i + 2]) * white[2];
                if b + g + r <= 0.0 {
                    continue; // outside the photo
                }
                let s = r + g + b + 3.0;
                acc[0] += r / s;
                acc[1] += g / s;
                acc[2] += s / 3.0;
                k += 1.0;
            }
            acc.map(|v| v / k.max(1.0))
        })
        .collect();
    // What lies just outside must be the table the photo shows.
    let mut outside = [0f32; 3];
    for r in &rows[..TABLE_ROWS] {
        for c in 0..3 {
            outside[c] += r[c] / TABLE_ROWS as f32;
        }
    }
    let like = |r: &[f32; 3], t: &[f32; 3]| {
        (r[0] - t[0]).abs() < TABLE_CHROMA
            && (r[1] - t[1]).abs() < TABLE_CHROMA
            && r[2] < t[2] * TABLE_BRIGHTNESS
            && r[2] * TABLE_BRIGHTNESS > t[2]
    };
    if table.is_some_and(|t| !like(&outside, &t)) {
        return None;
    }
    // The tile begins at the first strong step in from the table: in brightness (its
    // face against the table's shadowed margin) or in colour (a wall band against a table
    // as dark as it). Steps are measured over a few rows (an edge is blurred) and counted
    // from a share of the strongest on: the art's and a wall's inner edges lie further in,
    // a table's grain is weaker. (Where a wall's colour is the table's, its inner edge is
    // the first step: the edge is then found inside, and the caller only moves sides out.)
    let lref = rows.iter().map(|r| r[2]).sum::<f32>() / n as f32;
    // Brightness relative to the strip's, chromaticity weighted to count alike.
    let at = |k: usize| -> [f32; 3] {
        [
            rows[k][2] / lref.max(1.0),
            CHROMA_WEIGHT * rows[k][0],
            CHROMA_WEIGHT * rows[k][1],
        ]
    };
    // A step into shadow (darker, the same colour) is the table's, not the tile's.
    let step = |k: usize| -> f32 {
        let (a, b) = (at(k - SPAN), at(k + SPAN));
        let colour = ((a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
        if b[0] < a[0] && colour < CHROMA_WEIGHT * SHADOW_CHROMA {
            return 0.0;
        }
        ((a[0] - b[0]).powi(2) + colour * colour).sqrt()
    };
    let steps: Vec<f32> = (SPAN..n - SPAN).map(step).collect();
    let strongest = steps.iter().copied().fold(0f32, f32::max);
    if strongest < WEAKEST_EDGE {
        return None;
    }
    for k in 1..steps.len() - 1 {
        let peak = steps[k] >= steps[k - 1] && steps[k] >= steps[k + 1];
        if peak && steps[k] >= STEP_SHARE * strongest {
            let row = (k + SPAN) as f64 + 0.5;
            let depth = d0 + row * (d1 - d0) / n as f64;
            let offset = -0.5 - depth;
            return (offset.abs() <= REACH).then_some(offset);
        }
    }
    None
}

/// Two opposite sides' edges found off the quad tell that the tile lies off it as a whole
/// when their offsets (one out, one in) agree within this (share of a cell).
const SHIFT_AGREEMENT: f64 = 0.02;

/// Which sides to move onto the edges `found` (per side facing the table, its
/// [`outer_edge_offset`]), and by how much: every side whose edge lies more than `cut`
/// outside; a side whose edge lies more than `cut` inside only when the opposite side's
/// lies as far outside (the tile sits off its quad as a whole, as a tile laid askew of its
/// Alhambra's lattice does). Alone, an edge found inside is mostly a wall's inner edge
/// (the step from the table into a dark wall passes for a shadow's), and moving in would
/// cut the wall off: on loosely laid dev photos, wall errors 0.3 -> 2.2%.
pub fn sides_to_move(found: &[(Side, Option<f64>)], cut: f64) -> Vec<(Side, f64)> {
    let on = |side: Side| found.iter().find(|(s, _)| *s == side).and_then(|f| f.1);
    found
        .iter()
        .filter_map(|&(side, offset)| {
            let o = offset?;
            let whole =
                || on(side.opposite()).is_some_and(|p| p > cut && (o + p).abs() <= SHIFT_AGREEMENT);
            (o > cut || (o < -cut && whole())).then_some((side, o))
        })
        .collect()
}

/// Cell quad `q` with side `side` moved out by `offset` (share of a cell; in when
/// negative), its other sides kept.
pub fn side_moved(q: &[Point; 4], side: Side, offset: f64) -> Option<[Point; 4]> {
    let to_image = Homography::from_quads(&UNIT_CELL, q)?;
    let mut unit = UNIT_CELL;
    // Corners on each side, clockwise from the north-west one.
    let (a, b) = match side {
        Side::North => (0, 1),
        Side::East => (1, 2),
        Side::South => (2, 3),
        Side::West => (3, 0),
    };
    let (dx, dy) = match side {
        Side::North => (0.0, -offset),
        Side::East => (offset, 0.0),
        Side::South => (0.0, offset),
        Side::West => (-offset, 0.0),
    };
    for k in [a, b] {
        unit[k][0] += dx;
        unit[k][1] += dy;
    }
    Some([
        to_image.apply(unit[0])?,
        to_image.apply(unit[1])?,
        to_image.apply(unit[2])?,
        to_image.apply(unit[3])?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{CV_8UC3, Scalar};
    use opencv::imgproc;

    /// A 200 px table (grey-green) with a 100 px tile (sand, a dark rim) from (50, 50).
    fn table_with_tile() -> Mat {
        let mut img =
            Mat::new_rows_cols_with_default(200, 200, CV_8UC3, Scalar::new(90.0, 120.0, 80.0, 0.0))
                .unwrap_or_default();
        let tile = opencv::core::Rect::new(50, 50, 100, 100);
        imgproc::rectangle(&mut img, tile, Scalar::new(60.0, 60.0, 70.0, 0.0), -1, 8, 0)
            .unwrap_or_default();
        let face = opencv::core::Rect::new(52, 52, 96, 96);
        imgproc::rectangle(
            &mut img,
            face,
            Scalar::new(120.0, 190.0, 220.0, 0.0),
            -1,
            8,
            0,
        )
        .unwrap_or_default();
        img
    }

    fn table_of(img: &Mat) -> [f32; 3] {
        let p = img
            .at_2d::<opencv::core::Vec3b>(5, 5)
            .copied()
            .unwrap_or_default();
        let (b, g, r) = (f32::from(p[0]), f32::from(p[1]), f32::from(p[2]));
        let s = r + g + b + 3.0;
        [r / s, g / s, s / 3.0]
    }

    #[test]
    fn a_side_inside_the_tile_is_found_on_its_edge() {
        let img = table_with_tile();
        let table = table_of(&img);
        // The quad's east side 6 px (6%) inside the tile, its west side on the edge.
        let q = [[50.0, 50.0], [144.0, 50.0], [144.0, 150.0], [50.0, 150.0]];
        let east = outer_edge_offset(&img, &q, Side::East, [1.0; 3], Some(table));
        let off = east.unwrap_or(f64::NAN) * 94.0;
        assert!((off - 6.0).abs() < 1.0, "east edge found {off} px out");
        let west = outer_edge_offset(&img, &q, Side::West, [1.0; 3], Some(table));
        let off = west.unwrap_or(f64::NAN) * 94.0;
        assert!(off.abs() < 1.0, "west edge found {off} px out");
    }

    #[test]
    fn the_shadow_a_tile_casts_is_not_its_edge() {
        let mut img = table_with_tile();
        let table = table_of(&img);
        // A shadow, the table darkened, 8 px wide beyond the tile's east edge.
        let shadow = opencv::core::Rect::new(150, 40, 8, 120);
        imgproc::rectangle(
            &mut img,
            shadow,
            Scalar::new(54.0, 72.0, 48.0, 0.0),
            -1,
            8,
            0,
        )
        .unwrap_or_default();
        let q = [[50.0, 50.0], [144.0, 50.0], [144.0, 150.0], [50.0, 150.0]];
        let east = outer_edge_offset(&img, &q, Side::East, [1.0; 3], Some(table));
        let off = east.unwrap_or(f64::NAN) * 94.0;
        assert!((off - 6.0).abs() < 1.0, "east edge found {off} px out");
    }

    #[test]
    fn a_side_facing_no_table_is_left_alone() {
        let img = table_with_tile();
        // A table of another colour than the one outside.
        let q = [[50.0, 50.0], [144.0, 50.0], [144.0, 150.0], [50.0, 150.0]];
        let other = [0.2, 0.3, 200.0];
        assert_eq!(
            outer_edge_offset(&img, &q, Side::East, [1.0; 3], Some(other)),
            None
        );
    }

    #[test]
    fn moving_a_side_keeps_the_others() {
        let q = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]];
        let m = side_moved(&q, Side::East, 0.1).unwrap_or(q);
        let close = |a: Point, b: Point| (a[0] - b[0]).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9;
        assert!(close(m[0], [0.0, 0.0]) && close(m[3], [0.0, 10.0]));
        assert!(close(m[1], [11.0, 0.0]) && close(m[2], [11.0, 10.0]));
    }

    #[test]
    fn a_side_moves_in_only_when_the_opposite_side_shows_the_tile_moved_as_a_whole() {
        let cut = 0.015;
        // Out: always; in: alone, never (a wall's inner edge may be what was found).
        assert_eq!(
            sides_to_move(&[(Side::North, Some(0.03)), (Side::East, Some(-0.05))], cut),
            vec![(Side::North, 0.03)]
        );
        // The opposite side as far out: the tile lies off its quad, both sides move.
        assert_eq!(
            sides_to_move(&[(Side::East, Some(-0.05)), (Side::West, Some(0.04))], cut),
            vec![(Side::East, -0.05), (Side::West, 0.04)]
        );
        // Out by much less than the other side is in: no whole move, the out side alone.
        assert_eq!(
            sides_to_move(
                &[(Side::South, Some(-0.07)), (Side::North, Some(0.02))],
                cut
            ),
            vec![(Side::North, 0.02)]
        );
        // Within the cut, or no edge found: nothing moves.
        assert_eq!(
            sides_to_move(
                &[
                    (Side::South, Some(-0.01)),
                    (Side::North, Some(0.01)),
                    (Side::East, None)
                ],
                cut
            ),
            vec![]
        );
    }
}
