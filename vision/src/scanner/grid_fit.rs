//! Moving a cell's quad or an Alhambra's grid to where its tiles lie: a quad reshaped
//! (turned, sheared, stretched) to look most like a tile, a grid settled on the dark seams
//! between tiles, and a small Alhambra's grid fitted on the table plane a large one shows.

use super::{EdgeMap, cell_quad, debugging, dist, quad_centre, quad_size};
use crate::geometry::{Homography, Point, UNIT_CELL};
use std::collections::{BTreeMap, BTreeSet};

/// A small Alhambra is read on the largest one's plane unless its tiles lie further than
/// this (cells, root mean square) from that plane's lattice.
const PLANE_MISFIT: f64 = 0.05;

/// `q` reshaped to score best: its centre, and each of its two axes' direction and
/// length, moved a little at a time while `score` grows. Translation alone (see
/// `align`) cannot follow a cell the lattice turned or sheared wrongly, as on a
/// steeply tilted table far from the markers, where the plane's affine part no
/// longer holds. Stops once the score reaches `enough`, or after `looks` scorings (each
/// a cell look, typically). Returns the quad and its score; `None` when `score` has
/// none for `q`. `score` may refuse a quad (`None`, e.g. out of the picture): it is not
/// moved there.
pub(super) fn reshape(
    q: &[Point; 4],
    reach: f64,
    (enough, budget): (f32, usize),
    score: impl Fn(&[Point; 4]) -> Option<f32>,
) -> Option<([Point; 4], f32)> {
    // Centre and half-axes of the parallelogram nearest the quad.
    let half = |a: Point, b: Point, d: Point, e: Point| {
        [
            (a[0] + b[0] - d[0] - e[0]) / 4.0,
            (a[1] + b[1] - d[1] - e[1]) / 4.0,
        ]
    };
    let (mut c, mut u, mut v) = (
        quad_centre(q),
        half(q[1], q[2], q[0], q[3]),
        half(q[2], q[3], q[0], q[1]),
    );
    let quad = |c: Point, u: Point, v: Point| -> [Point; 4] {
        [
            [c[0] - u[0] - v[0], c[1] - u[1] - v[1]],
            [c[0] + u[0] - v[0], c[1] + u[1] - v[1]],
            [c[0] + u[0] + v[0], c[1] + u[1] + v[1]],
            [c[0] - u[0] + v[0], c[1] - u[1] + v[1]],
        ]
    };
    let turn = |a: Point, t: f64, s: f64| -> Point {
        let (sn, cs) = t.sin_cos();
        [s * (a[0] * cs - a[1] * sn), s * (a[0] * sn + a[1] * cs)]
    };
    // Never far from the start: a quarter of a cell, a seventh of a turn, a fifth of
    // the size (beyond, a neighbour or a loose tile may fit better).
    let (c0, u0, v0) = (c, u, v);
    let len = |a: Point| a[0].hypot(a[1]);
    let angle_between = |a: Point, b: Point| {
        (a[0] * b[1] - a[1] * b[0])
            .atan2(a[0] * b[0] + a[1] * b[1])
            .abs()
    };
    let near = |tc: Point, tu: Point, tv: Point| {
        let cell = 2.0 * len(u0).max(len(v0));
        dist(tc, c0) <= reach * cell
            && angle_between(tu, u0) <= 0.25
            && angle_between(tv, v0) <= 0.25
            && (len(tu) / len(u0) - 1.0).abs() <= 0.2
            && (len(tv) / len(v0) - 1.0).abs() <= 0.2
    };
    let mut best = score(&quad(c, u, v))?;
    let mut looks = 1;
    // Steps: a turn of each axis, a change of its length, a shift along it; halved
    // when no move helps.
    let (mut angle, mut scale, mut shift) = (0.08, 0.04, 0.06);
    for _ in 0..3 {
        let mut moved = true;
        let mut rounds = 0;
        while moved && rounds < 8 {
            moved = false;
            rounds += 1;
            // Each move from where the last accepted one left the cell.
            for k in 0..12 {
                let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                let (tc, tu, tv) = match k / 2 {
                    0 => (c, turn(u, sign * angle, 1.0), v),
                    1 => (c, u, turn(v, sign * angle, 1.0)),
                    2 => (c, turn(u, 0.0, 1.0 + sign * scale), v),
                    3 => (c, u, turn(v, 0.0, 1.0 + sign * scale)),
                    4 => (
                        [c[0] + sign * shift * u[0], c[1] + sign * shift * u[1]],
                        u,
                        v,
                    ),
                    _ => (
                        [c[0] + sign * shift * v[0], c[1] + sign * shift * v[1]],
                        u,
                        v,
                    ),
                };
                if best >= enough || looks >= budget {
                    return Some((quad(c, u, v), best));
                }
                if !near(tc, tu, tv) {
                    continue;
                }
                looks += 1;
                if let Some(s) = score(&quad(tc, tu, tv))
                    && s > best
                {
                    (best, c, u, v, moved) = (s, tc, tu, tv, true);
                }
            }
        }
        angle /= 2.0;
        scale /= 2.0;
        shift /= 2.0;
    }
    Some((quad(c, u, v), best))
}

/// The grid moved (by at most a few percent of a cell at each corner of the Alhambra) to
/// lie best on the seams between its tiles, each a dark line darker than the tiles on both
/// sides. Cells are found a few percent apart, and a reading's wall bands are only a
/// fifteenth of a tile wide: the seams place them more exactly. Outer borders are left
/// out: along a wall the wall's inner edge is the stronger line, and the fountain's art
/// has a border of its own inside the tile's.
pub(super) fn refine_on_seams(
    edges: &EdgeMap,
    grid: Homography,
    cells: impl Iterator<Item = (i32, i32)>,
) -> Homography {
    refine_on_seams_within(edges, grid, cells, SEAM_REACH)
}

/// How far [`refine_on_seams`] moves the grid at most at each corner of the Alhambra
/// (share of a cell).
const SEAM_REACH: f64 = 0.06;

/// [`refine_on_seams`], moving the grid up to `reach` (share of a cell) at each corner of
/// the Alhambra.
pub(super) fn refine_on_seams_within(
    edges: &EdgeMap,
    grid: Homography,
    cells: impl Iterator<Item = (i32, i32)>,
    reach: f64,
) -> Homography {
    // Ordered: the score below is a float sum over the seams, and a hash set's order
    // (new in every process) made the same photo read a little differently each run.
    let cells: BTreeSet<(i32, i32)> = cells.collect();
    if cells.is_empty() {
        return grid;
    }
    // Segments in grid coordinates: each seam once (east and south sides with a tile beyond).
    let mut segments: Vec<(Point, Point)> = Vec::new();
    for &(i, j) in &cells {
        let (x, y) = (f64::from(i), f64::from(j));
        let east = ([x + 0.5, y - 0.5], [x + 0.5, y + 0.5]);
        let south = ([x - 0.5, y + 0.5], [x + 0.5, y + 0.5]);
        if cells.contains(&(i + 1, j)) {
            segments.push(east);
        }
        if cells.contains(&(i, j + 1)) {
            segments.push(south);
        }
    }
    // Sample points along each segment, clear of the corners (where four tiles meet), each
    // with its two flanks across the seam: a seam is a dark line, darker than both.
    const SAMPLES: usize = 8;
    const FLANK: f64 = 0.035;
    let points: Vec<[Point; 3]> = segments
        .iter()
        .flat_map(|(a, b)| {
            let across = if a[0] == b[0] {
                [FLANK, 0.0]
            } else {
                [0.0, FLANK]
            };
            (0..SAMPLES).map(move |k| {
                let t = 0.1 + 0.8 * (k as f64 + 0.5) / SAMPLES as f64;
                let p = [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
                [
                    p,
                    [p[0] - across[0], p[1] - across[1]],
                    [p[0] + across[0], p[1] + across[1]],
                ]
            })
        })
        .collect();
    let score = |h: &Homography| -> f32 {
        points
            .iter()
            .map(|[p, l, r]| match (h.apply(*p), h.apply(*l), h.apply(*r)) {
                (Some(p), Some(l), Some(r)) => {
                    0.5 * (edges.lum_at(l) + edges.lum_at(r)) - edges.lum_at(p)
                }
                _ => 0.0,
            })
            .sum()
    };
    // Four control points, the corners of the Alhambra's bounding box in grid coordinates;
    // each moves in the image, and the grid follows.
    let (mut lo, mut hi) = ([i32::MAX; 2], [i32::MIN; 2]);
    for &(i, j) in &cells {
        lo = [lo[0].min(i), lo[1].min(j)];
        hi = [hi[0].max(i), hi[1].max(j)];
    }
    let control = [
        [f64::from(lo[0]) - 0.5, f64::from(lo[1]) - 0.5],
        [f64::from(hi[0]) + 0.5, f64::from(lo[1]) - 0.5],
        [f64::from(hi[0]) + 0.5, f64::from(hi[1]) + 0.5],
        [f64::from(lo[0]) - 0.5, f64::from(hi[1]) + 0.5],
    ];
    let Some(start) = control
        .iter()
        .map(|&c| grid.apply(c))
        .collect::<Option<Vec<Point>>>()
    else {
        return grid;
    };
    let start: [Point; 4] = [start[0], start[1], start[2], start[3]];
    let cell_px = cell_quad(&grid, 0.0, 0.0).map_or(0.0, |q| quad_size(&q));
    if cell_px <= 0.0 {
        return grid;
    }
    let limit = reach * cell_px;
    let mut moved = start;
    let mut best_grid = grid;
    let mut best = score(&grid);
    let mut step = 0.02 * cell_px;
    while step >= 0.1 {
        let mut improved = false;
        for k in 0..4 {
            for axis in 0..2 {
                for sign in [-1.0, 1.0] {
                    let mut trial = moved;
                    trial[k][axis] += sign * step;
                    if dist(trial[k], start[k]) > limit {
                        continue;
                    }
                    let Some(h) = Homography::from_quads(&control, &trial) else {
                        continue;
                    };
                    let s = score(&h);
                    if s > best {
                        (best, best_grid, moved, improved) = (s, h, trial, true);
                    }
                }
            }
        }
        if !improved {
            step /= 2.0;
        }
    }
    best_grid
}

/// The grid of a small Alhambra (its tiles' `quads`) on the table plane of `plane`, the
/// grid of a large one: every Alhambra lies on the one table and has tiles of one size,
/// so only where it lies and how it is turned are its own. A few tiles tell the
/// perspective poorly, and a grid fitted to them alone puts their outer sides a wall's
/// width off. `None` when its tiles do not lie on that plane's lattice (a turn and shift
/// leaves them more than `PLANE_MISFIT` of a cell off, or they are mirrored).
pub(super) fn on_shared_plane(
    plane: &Homography,
    quads: &BTreeMap<(i32, i32), [Point; 4]>,
) -> Option<Homography> {
    let (grid, misfit) = plane_fit(plane, quads)?;
    (misfit <= PLANE_MISFIT).then_some(grid)
}

/// The grid of `quads` on the table plane of `plane` (a turn and shift of its lattice)
/// and how far their corners lie from it (cells, root mean square); `None` when they are
/// mirrored on it.
pub(super) fn plane_fit(
    plane: &Homography,
    quads: &BTreeMap<(i32, i32), [Point; 4]>,
) -> Option<(Homography, f64)> {
    let back = plane.inverse()?;
    let mut from = Vec::with_capacity(4 * quads.len());
    let mut to = Vec::with_capacity(4 * quads.len());
    for (&(i, j), q) in quads {
        let (x, y) = (f64::from(i), f64::from(j));
        for (k, c) in UNIT_CELL.iter().enumerate() {
            from.push([x + c[0], y + c[1]]);
            to.push(back.apply(q[k])?);
        }
    }
    // A mirror image fits no turn: tell by the orientation of the quads on the plane.
    let mirrored = Homography::affine_fit(&from, &to)
        .is_some_and(|a| a.0[0][0] * a.0[1][1] - a.0[0][1] * a.0[1][0] < 0.0);
    if mirrored {
        return None;
    }
    let (turn, misfit) = Homography::rigid_fit(&from, &to)?;
    if debugging() {
        eprintln!(
            "{} tiles on the largest Alhambra's plane: {misfit:.3} of a cell off",
            quads.len()
        );
    }
    Some((plane.after(&turn), misfit))
}

/// The grid of `plane`'s lattice turned by `angle` (radians) and centred on `at` (plane
/// coordinates).
pub(super) fn turned_on(plane: &Homography, angle: f64, at: Point) -> Homography {
    let (sin, cos) = angle.sin_cos();
    plane.after(&Homography([
        [cos, -sin, at[0]],
        [sin, cos, at[1]],
        [0.0, 0.0, 1.0],
    ]))
}

#[cfg(test)]
mod tests {
    use super::super::RESHAPE_REACH;
    use super::*;
    use crate::scanner::tests::{cell_at, corner_error};
    use opencv::core::{Mat, Point as CvPoint, Scalar};
    use opencv::imgproc;

    #[test]
    fn reshaping_follows_a_cell_turned_sheared_and_stretched() {
        let start = cell_at([200.0, 200.0], 0.0);
        // The cell as it lies: turned 9 degrees, one axis 12% longer and leaning, moved a
        // tenth of a cell.
        let mut target = cell_at([204.0, 198.0], 0.157);
        target[2][0] += 5.0;
        target[1][0] += 5.0;
        let score = |q: &[Point; 4]| Some(-corner_error(q, &target) as f32);
        let (got, _) = reshape(&start, RESHAPE_REACH, (f32::INFINITY, 200), score)
            .expect("a score for the start");
        assert!(
            corner_error(&got, &target) < 1.5,
            "{got:?} is not {target:?}"
        );
    }

    #[test]
    fn reshaping_stays_near_where_it_started() {
        let start = cell_at([200.0, 200.0], 0.0);
        // A better fit half a cell away (a loose tile beside the cell) is out of reach.
        let target = cell_at([220.0, 200.0], 0.0);
        let score = |q: &[Point; 4]| Some(-corner_error(q, &target) as f32);
        let (got, _) = reshape(&start, RESHAPE_REACH, (f32::INFINITY, 200), score)
            .expect("a score for the start");
        let moved = dist(quad_centre(&got), [200.0, 200.0]);
        assert!(moved <= RESHAPE_REACH * 40.0 + 1e-9, "moved {moved} px");
        // Where the score refuses every move (out of the picture), the cell stays.
        let (kept, _) = reshape(&start, RESHAPE_REACH, (f32::INFINITY, 200), |q| {
            (q == &start).then_some(0.0)
        })
        .expect("a score for the start");
        assert_eq!(kept, start);
    }

    #[test]
    fn a_small_alhambra_is_read_on_the_plane_of_the_largest() {
        // The table seen in perspective; a small Alhambra on it, turned and shifted.
        let plane = Homography([
            [60.0, 8.0, 500.0],
            [-5.0, 50.0, 300.0],
            [0.0004, 0.0009, 1.0],
        ]);
        let (sin, cos) = 0.3f64.sin_cos();
        let placed = Homography([[cos, -sin, 7.2], [sin, cos, -3.4], [0.0, 0.0, 1.0]]);
        let truth = plane.after(&placed);
        let cells = [(0, 0), (1, 0), (1, 1)];
        let quads_of = |grid: &Homography| -> BTreeMap<(i32, i32), [Point; 4]> {
            cells
                .iter()
                .map(|&(i, j)| {
                    let q = cell_quad(grid, f64::from(i), f64::from(j)).expect("finite");
                    ((i, j), q)
                })
                .collect()
        };
        let grid = on_shared_plane(&plane, &quads_of(&truth)).expect("on the plane");
        for (i, j) in [(0.0, 0.0), (1.0, 1.0), (3.0, -2.0)] {
            let (a, b) = (grid.apply([i, j]), truth.apply([i, j]));
            let (a, b) = (a.expect("finite"), b.expect("finite"));
            assert!(dist(a, b) < 1e-6, "{a:?} against {b:?}");
        }
        // Tiles of another size, or mirrored, do not lie on that plane's lattice.
        let bigger = plane.after(&placed).after(&Homography::scale(1.3));
        assert!(on_shared_plane(&plane, &quads_of(&bigger)).is_none());
        let mirror = Homography([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]]);
        assert!(on_shared_plane(&plane, &quads_of(&truth.after(&mirror))).is_none());
    }

    /// Tiles of 60 px with dark seams every 60 px from 40 to 460 in both directions (cell
    /// (0, 0) spans 220..280), blurred by `sigma` px, and the grid that puts them there.
    fn seams(sigma: f64) -> (EdgeMap, Homography) {
        let mut frame = match Mat::new_rows_cols_with_default(
            500,
            500,
            opencv::core::CV_8UC3,
            Scalar::all(180.0),
        ) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        for k in 0..8 {
            let at = 40 + 60 * k;
            for (a, b) in [
                (CvPoint::new(at, 30), CvPoint::new(at, 470)),
                (CvPoint::new(30, at), CvPoint::new(470, at)),
            ] {
                if let Err(e) =
                    imgproc::line(&mut frame, a, b, Scalar::all(60.0), 1, imgproc::LINE_8, 0)
                {
                    panic!("{e}");
                }
            }
        }
        if sigma > 0.0 {
            let mut blurred = Mat::default();
            if let Err(e) = imgproc::gaussian_blur(
                &frame,
                &mut blurred,
                opencv::core::Size::new(0, 0),
                sigma,
                sigma,
                opencv::core::BORDER_REPLICATE,
            ) {
                panic!("{e}");
            }
            frame = blurred;
        }
        let edges = match EdgeMap::new(&frame) {
            Ok(e) => e,
            Err(e) => panic!("{e}"),
        };
        let truth = Homography([[60.0, 0.0, 250.0], [0.0, 60.0, 250.0], [0.0, 0.0, 1.0]]);
        (edges, truth)
    }

    /// How far the seam crossings of a grid over cells -2..=2 lie from the truth's (px).
    fn off_the_crossings(truth: &Homography, grid: &Homography) -> f64 {
        [-1.5, -0.5, 0.5, 1.5]
            .into_iter()
            .flat_map(|i| [-1.5, -0.5, 0.5, 1.5].map(|j| (i, j)))
            .map(|(i, j)| match (truth.apply([i, j]), grid.apply([i, j])) {
                (Some(want), Some(got)) => dist(want, got),
                _ => f64::INFINITY,
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn a_grid_further_off_than_the_near_reach_settles_within_the_far_one() {
        let (edges, truth) = seams(1.5);
        // Five by five tiles, the grid 3% too large: 0.9 px off at the seams about the
        // middle, 4.5 px (7.5% of a cell) at the Alhambra's corners.
        let start = Homography([[61.8, 0.0, 250.0], [0.0, 61.8, 250.0], [0.0, 0.0, 1.0]]);
        let cells = || (-2..=2).flat_map(|i| (-2..=2).map(move |j| (i, j)));
        let near = refine_on_seams(&edges, start, cells());
        let far = refine_on_seams_within(&edges, start, cells(), 0.15);
        assert!(off_the_crossings(&truth, &near) > 1.0);
        let off = off_the_crossings(&truth, &far);
        assert!(off < 0.5, "the far reach leaves the seams {off:.2} px off");
    }

    #[test]
    fn the_grid_settles_on_the_seams() {
        let (edges, truth) = seams(0.0);
        // Off by 2.5 and 1.5 px, and 1% too large.
        let start = Homography([[60.6, 0.0, 252.5], [0.0, 60.6, 248.5], [0.0, 0.0, 1.0]]);
        let cells = (-1..=1).flat_map(|i| (-1..=1).map(move |j| (i, j)));
        let refined = refine_on_seams(&edges, start, cells);
        // Seam crossings within half a pixel; the Alhambra's outer corners, which no seam
        // reaches, within a pixel (they started 3.4 px off).
        let points = [(0.5, -0.5), (-0.5, 0.5), (0.5, 0.5), (-0.5, -0.5)]
            .map(|p| (p, 0.5))
            .into_iter()
            .chain([(-1.5, -1.5), (1.5, -1.5), (1.5, 1.5), (-1.5, 1.5)].map(|p| (p, 1.0)));
        for ((i, j), tolerance) in points {
            let (Some(want), Some(got)) = (truth.apply([i, j]), refined.apply([i, j])) else {
                panic!("grid point at infinity");
            };
            assert!(
                dist(want, got) < tolerance,
                "grid point ({i}, {j}) at {got:?}, the seams put it at {want:?}"
            );
        }
    }
}
