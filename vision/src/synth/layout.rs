//! What lies on the table, in table millimetres: each player's Alhambra grown by legal
//! placements from the real catalogue, laid at any angle beside the others (sometimes
//! only millimetres apart), and the clutter around them (loose reserve tiles, the market
//! board with its tiles, money cards, a cup, the marker sheets).

use super::params::normal;
use alhambra_engine::{Alhambra, Building, Piece, Pos, Side, Tile};
use std::collections::HashMap;

/// A convex polygon on the table, millimetres.
pub(crate) type Poly = Vec<[f64; 2]>;

/// One tile lying flat on the table (or on the market board).
#[derive(Debug, Clone)]
pub(crate) struct TableTile {
    /// The printed tile; `None` for a fountain.
    pub tile: Option<Tile>,
    /// Centre, millimetres.
    pub center: [f64; 2],
    /// Direction of the tile's east side, radians (counter-clockwise seen from above).
    pub angle: f64,
    /// Height of the surface it lies on (0 for the table), millimetres.
    pub base_z: f64,
}

impl TableTile {
    /// Corners NW, NE, SE, SW (clockwise in the image) for a tile of side `size`.
    pub fn corners(&self, size: f64) -> [[f64; 2]; 4] {
        square(self.center, self.angle, size)
    }
}

/// The corners NW, NE, SE, SW of a square whose east axis points along `angle`.
pub(crate) fn square(c: [f64; 2], angle: f64, size: f64) -> [[f64; 2]; 4] {
    rect(c, angle, size, size)
}

/// Corners of a rectangle `w` wide (along `angle`) and `h` high: the "north-west" one
/// first, then clockwise as seen from above.
pub(crate) fn rect(c: [f64; 2], angle: f64, w: f64, h: f64) -> [[f64; 2]; 4] {
    let e = [angle.cos(), angle.sin()];
    // South is east turned a quarter clockwise (seen from above, z up).
    let s = [e[1], -e[0]];
    let (hw, hh) = (w / 2.0, h / 2.0);
    let at = |a: f64, b: f64| [c[0] + a * e[0] + b * s[0], c[1] + a * e[1] + b * s[1]];
    [at(-hw, -hh), at(hw, -hh), at(hw, hh), at(-hw, hh)]
}

/// One player's Alhambra on the table.
#[derive(Debug, Clone)]
pub(crate) struct PlayerLayout {
    /// Tiles in placement order, the fountain first, with their grid cells.
    pub tiles: Vec<(Pos, Piece, TableTile)>,
    /// Index of the player's colour (fountain corners).
    pub colour: usize,
    /// Tiles that could not be placed (they go to the reserve).
    pub unplaced: Vec<Tile>,
}

/// An Alhambra grown from the deck before it is put on the table.
pub(crate) struct Grown {
    /// Cells and pieces in placement order, the fountain first.
    pub cells: Vec<(Pos, Piece, Option<Tile>)>,
    /// Tiles drawn that fitted nowhere.
    pub unplaced: Vec<Tile>,
}

/// Grows an Alhambra by `n` legal placements of tiles drawn from the end of `deck`.
/// Places with more neighbours are preferred (players build compactly).
pub(crate) fn grow(deck: &mut Vec<Tile>, n: usize, rng: &mut fastrand::Rng) -> Grown {
    let mut a = Alhambra::new();
    let mut cells = vec![(Pos::ORIGIN, Piece::FOUNTAIN, None)];
    let mut unplaced = Vec::new();
    for _ in 0..n {
        let Some(tile) = deck.pop() else { break };
        let piece = Piece::from(tile);
        let options = a.legal_positions(piece);
        if options.is_empty() {
            unplaced.push(tile);
            continue;
        }
        let weights: Vec<f64> = options
            .iter()
            .map(|&p| {
                let n = alhambra_engine::Side::ALL
                    .iter()
                    .filter(|&&s| a.get(p.neighbour(s)).is_some())
                    .count();
                (n * n) as f64 + 0.5
            })
            .collect();
        let total: f64 = weights.iter().sum();
        let mut pick = rng.f64() * total;
        let mut chosen = options[options.len() - 1];
        for (p, w) in options.iter().zip(&weights) {
            if pick < *w {
                chosen = *p;
                break;
            }
            pick -= w;
        }
        if a.place(chosen, piece).is_ok() {
            cells.push((chosen, piece, Some(tile)));
        } else {
            unplaced.push(tile);
        }
    }
    Grown { cells, unplaced }
}

/// Lays a grown Alhambra on the table: grid east along `angle`, the fountain at the
/// origin, each tile a little off its cell by hand.
pub(crate) fn lay(
    grown: &Grown,
    tile_mm: f64,
    pitch: f64,
    angle: f64,
    jitter: (f64, f64),
    colour: usize,
    rng: &mut fastrand::Rng,
) -> PlayerLayout {
    let e = [angle.cos(), angle.sin()];
    let s = [e[1], -e[0]];
    let _ = tile_mm;
    let tiles = grown
        .cells
        .iter()
        .map(|&(pos, piece, tile)| {
            let (gx, gy) = (f64::from(pos.x) * pitch, f64::from(pos.y) * pitch);
            let dx = (normal(rng) * jitter.0 * 0.4).clamp(-jitter.0, jitter.0);
            let dy = (normal(rng) * jitter.0 * 0.4).clamp(-jitter.0, jitter.0);
            let da = (normal(rng) * jitter.1 * 0.4)
                .clamp(-jitter.1, jitter.1)
                .to_radians();
            let center = [gx * e[0] + gy * s[0] + dx, gx * e[1] + gy * s[1] + dy];
            (
                pos,
                piece,
                TableTile {
                    tile,
                    center,
                    angle: angle + da,
                    base_z: 0.0,
                },
            )
        })
        .collect();
    PlayerLayout {
        tiles,
        colour,
        unplaced: grown.unplaced.clone(),
    }
}

impl PlayerLayout {
    /// The tiles' outlines.
    pub fn polys(&self, size: f64) -> Vec<Poly> {
        self.tiles
            .iter()
            .map(|(_, _, t)| t.corners(size).to_vec())
            .collect()
    }

    /// Lays the tiles as by hand against those already down (see
    /// [`super::Laying::Loose`]): each tile's shift from its cell is the mean of its laid
    /// neighbours' plus a step of its own (0.7 mm typical), and it turns up to 3 degrees.
    pub fn loosen(&mut self, rng: &mut fastrand::Rng) {
        let mut shifts: HashMap<Pos, [f64; 2]> = HashMap::new();
        for (pos, _, t) in &mut self.tiles {
            let near: Vec<[f64; 2]> = Side::ALL
                .iter()
                .filter_map(|&side| shifts.get(&pos.neighbour(side)).copied())
                .collect();
            let shift = if near.is_empty() {
                [0.0, 0.0]
            } else {
                let n = near.len() as f64;
                let mean = [
                    near.iter().map(|s| s[0]).sum::<f64>() / n,
                    near.iter().map(|s| s[1]).sum::<f64>() / n,
                ];
                [mean[0] + normal(rng) * 0.7, mean[1] + normal(rng) * 0.7]
            };
            shifts.insert(*pos, shift);
            t.center[0] += shift[0];
            t.center[1] += shift[1];
            if t.tile.is_some() {
                t.angle += (normal(rng) * 1.2).clamp(-3.0, 3.0).to_radians();
            }
        }
    }

    /// Moves every tile.
    pub fn shift(&mut self, d: [f64; 2]) {
        for (_, _, t) in &mut self.tiles {
            t.center[0] += d[0];
            t.center[1] += d[1];
        }
    }

    /// The mean of the tile centres.
    pub fn centroid(&self) -> [f64; 2] {
        centroid(self.tiles.iter().map(|(_, _, t)| t.center))
    }

    /// Whether this Alhambra has a tile of this building.
    #[allow(dead_code)]
    pub fn has(&self, b: Building) -> bool {
        self.tiles.iter().any(|(_, p, _)| p.building == b)
    }
}

/// Mean of points (origin for none).
pub(crate) fn centroid(points: impl Iterator<Item = [f64; 2]>) -> [f64; 2] {
    let (mut sx, mut sy, mut n) = (0.0, 0.0, 0.0);
    for p in points {
        sx += p[0];
        sy += p[1];
        n += 1.0;
    }
    if n == 0.0 {
        [0.0, 0.0]
    } else {
        [sx / n, sy / n]
    }
}

/// Moves a polygon.
pub(crate) fn shifted(p: &[[f64; 2]], d: [f64; 2]) -> Poly {
    p.iter().map(|q| [q[0] + d[0], q[1] + d[1]]).collect()
}

fn bound_circle(p: &[[f64; 2]]) -> ([f64; 2], f64) {
    let c = centroid(p.iter().copied());
    let r = p
        .iter()
        .map(|q| ((q[0] - c[0]).powi(2) + (q[1] - c[1]).powi(2)).sqrt())
        .fold(0.0, f64::max);
    (c, r)
}

/// Whether two convex polygons come closer than `gap` (separating-axis test on their edge
/// normals; a corner-to-corner approach counts as slightly closer than it is).
pub(crate) fn too_close(a: &[[f64; 2]], b: &[[f64; 2]], gap: f64) -> bool {
    let (ca, ra) = bound_circle(a);
    let (cb, rb) = bound_circle(b);
    let d = ((ca[0] - cb[0]).powi(2) + (ca[1] - cb[1]).powi(2)).sqrt();
    if d > ra + rb + gap {
        return false;
    }
    for poly in [a, b] {
        for i in 0..poly.len() {
            let p = poly[i];
            let q = poly[(i + 1) % poly.len()];
            let n = [q[1] - p[1], p[0] - q[0]];
            let len = (n[0] * n[0] + n[1] * n[1]).sqrt();
            if len < 1e-9 {
                continue;
            }
            let n = [n[0] / len, n[1] / len];
            let proj = |poly: &[[f64; 2]]| {
                poly.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| {
                    let t = v[0] * n[0] + v[1] * n[1];
                    (lo.min(t), hi.max(t))
                })
            };
            let (alo, ahi) = proj(a);
            let (blo, bhi) = proj(b);
            if ahi + gap <= blo || bhi + gap <= alo {
                return false;
            }
        }
    }
    true
}

/// Whether any polygon of `body` comes closer than `gap` to any of `others`.
pub(crate) fn any_too_close(body: &[Poly], others: &[Poly], gap: f64) -> bool {
    body.iter()
        .any(|a| others.iter().any(|b| too_close(a, b, gap)))
}

/// Slides `body` (already placed around `anchor`'s surroundings) from far out along
/// direction `from` towards `anchor` until it comes within `gap` of `others`; returns the
/// translation to apply to `body` as given (whose own centre is its centroid).
pub(crate) fn slide_in(
    body: &[Poly],
    from: [f64; 2],
    anchor: [f64; 2],
    others: &[Poly],
    gap: f64,
) -> [f64; 2] {
    let c = centroid(body.iter().flat_map(|p| p.iter().copied()));
    let n = (from[0] * from[0] + from[1] * from[1]).sqrt().max(1e-9);
    let dir = [from[0] / n, from[1] / n];
    let reach = body
        .iter()
        .chain(others)
        .flat_map(|p| p.iter())
        .map(|q| {
            ((q[0] - anchor[0]).abs() + (q[1] - anchor[1]).abs())
                + ((q[0] - c[0]).abs() + (q[1] - c[1]).abs())
        })
        .fold(0.0, f64::max);
    let at = |dist: f64| {
        [
            anchor[0] + dir[0] * dist - c[0],
            anchor[1] + dir[1] * dist - c[1],
        ]
    };
    let hits = |dist: f64| {
        let d = at(dist);
        let moved: Vec<Poly> = body.iter().map(|p| shifted(p, d)).collect();
        any_too_close(&moved, others, gap)
    };
    let mut free = reach + gap + 100.0;
    let step = 8.0;
    let mut dist = free;
    while dist > 0.0 {
        let next = (dist - step).max(0.0);
        if hits(next) {
            let mut hit = next;
            for _ in 0..12 {
                let mid = 0.5 * (free + hit);
                if hits(mid) { hit = mid } else { free = mid }
            }
            return at(free);
        }
        free = next;
        dist = next;
    }
    at(free)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How far each tile of `b` lies from its place in `a`, by its ring (cells from the
    /// fountain, the larger of the two axes).
    fn moved_by_ring(a: &PlayerLayout, b: &PlayerLayout) -> Vec<(i32, f64)> {
        a.tiles
            .iter()
            .zip(&b.tiles)
            .map(|((pos, _, s), (_, _, t))| {
                let d = (t.center[0] - s.center[0]).hypot(t.center[1] - s.center[1]);
                (pos.x.abs().max(pos.y.abs()), d)
            })
            .collect()
    }

    #[test]
    fn a_loosely_laid_alhambra_drifts_more_the_further_out_its_tiles_lie() {
        let (mut near, mut far) = (Vec::new(), Vec::new());
        for seed in 0..40 {
            let mut rng = fastrand::Rng::with_seed(seed);
            let mut deck = alhambra_engine::catalogue().to_vec();
            let grown = grow(&mut deck, 20, &mut rng);
            let neat = lay(&grown, 50.0, 50.5, 0.3, (0.8, 1.2), 0, &mut rng);
            let mut loose = neat.clone();
            loose.loosen(&mut rng);
            assert_eq!(
                loose.tiles[0].2.center, neat.tiles[0].2.center,
                "the fountain stays"
            );
            for ((_, _, s), (_, _, t)) in neat.tiles.iter().zip(&loose.tiles).skip(1) {
                let turned = (t.angle - s.angle).to_degrees().abs();
                assert!(turned <= 3.0 + 1e-9, "a tile turned {turned} degrees");
            }
            for (ring, d) in moved_by_ring(&neat, &loose) {
                match ring {
                    1 => near.push(d),
                    r if r >= 3 => far.push(d),
                    _ => {}
                }
            }
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        assert!(!near.is_empty() && !far.is_empty());
        assert!(
            mean(&far) > 1.3 * mean(&near),
            "three rings out {:.2} mm, one ring out {:.2} mm",
            mean(&far),
            mean(&near)
        );
        assert!(
            mean(&far) < 5.0,
            "drift of {:.2} mm is no careful player's",
            mean(&far)
        );
    }
}
