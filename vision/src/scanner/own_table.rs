//! The photo's own bare table as examples of no tile. The labelled photo a profile is
//! learned from shows what empty cells look like on its table; another table (other
//! planks, a cloth) or an arm reaching in can look more like some building than like
//! those, most of all when the tiles' art varies. Every photo shows plenty of its own
//! table: cells of each Alhambra's lattice well away from every tile read are taken as
//! empty examples, the tiles read surely as tile examples (they share the photo's light
//! and focus, which the labelled photo's tiles may not), and a tile read that looks more
//! like the empty ones than like a tile is no tile.

use super::*;
use crate::appearance::MoreExamples;

/// Lattice cells either way beyond an Alhambra's tiles that are looked at.
const REACH: i32 = 4;
/// The least number of cells (either way) between an example and the Alhambra's tiles.
const APART: i32 = 2;
/// How near (in cell sizes) an example may come to another Alhambra's tile.
const OTHERS_APART: f64 = 1.5;
/// How much likelier a cell growth read as a tile is to be one than not, before its
/// examples are looked at: tiles read where there was none run at a few in a hundred.
/// Distances to examples are squared z-scores summed, a Gaussian kernel's log-likelihood
/// times -2, so a tile is dropped only when the empty cells are nearer by twice the
/// log of these odds.
const TILE_ODDS: f32 = 30.0;

/// Each Alhambra's tiles (not the fountain, not those read under glare) that look more
/// like the bare table about it than like a tile, dropped, unless another look read the
/// cell clearly as a tile that does not (see [`clearer_look`]): then read as there. Each
/// Alhambra is looked at under its own light (`white` times its gains), through `photo`.
pub(super) fn drop_tiles_like_the_table(
    photo: Photo<'_>,
    profile: &Profile,
    alhambras: &mut [FoundAlhambra],
    looks: &[FoundAlhambra],
) {
    let clearly = CLEARLY_A_TILE * profile.presence_limit;
    // Every tile read, and whether it was read surely enough to stand for the tiles.
    let tiles: Vec<([Point; 4], bool)> = alhambras
        .iter()
        .flat_map(|a| &a.tiles)
        .map(|t| (t.corners_px, t.glare.is_none() && t.presence < clearly))
        .collect();
    for a in alhambras.iter_mut() {
        let white = [0, 1, 2].map(|c| photo.white[c] * a.light[c]);
        let Some(view) = View::new(photo.under(white)) else {
            continue;
        };
        let empty = table_examples(&view, profile, a, &tiles);
        if empty.is_empty() {
            continue;
        }
        let (mut sure_at, mut sure): (Vec<[Point; 4]>, Vec<Vec<f32>>) = tiles
            .iter()
            .filter(|(_, sure)| *sure)
            .filter_map(|(q, _)| Some((*q, view.features(q)?.blocks.to_vec())))
            .unzip();
        let fountain = Pos::new(0, 0);
        let at = a.fountain_px;
        a.tiles.retain_mut(|t| {
            if t.pos == fountain || t.glare.is_some() {
                return true;
            }
            let Some(f) = view.features(&t.corners_px) else {
                return true;
            };
            // The tile itself is no example of what it is: moved past the last one used.
            let used = match sure_at.iter().position(|q| *q == t.corners_px) {
                Some(k) => {
                    let last = sure.len() - 1;
                    sure.swap(k, last);
                    sure_at.swap(k, last);
                    last
                }
                None => sure.len(),
            };
            let more = MoreExamples {
                tiles: &sure[..used],
                empty: &empty,
            };
            let Some((tile, bare)) = profile.nearest_tile_and_empty(&f, &more) else {
                return true;
            };
            let like_a_tile = |tile: f32, bare: f32| bare + 2.0 * TILE_ODDS.ln() > tile;
            let is_tile = like_a_tile(tile, bare);
            if !is_tile
                && let Some(other) = clearer_look(t, at, looks, clearly).filter(|u| {
                    view.features(&u.corners_px)
                        .and_then(|f| profile.nearest_tile_and_empty(&f, &more))
                        .is_some_and(|(tile, bare)| like_a_tile(tile, bare))
                })
            {
                if debugging() {
                    let (c, o) = (quad_centre(&t.corners_px), quad_centre(&other.corners_px));
                    eprintln!(
                        "own table: tile {:?} at [{:.0},{:.0}] presence {:.2} looks like the table; \
                         another look read it at [{:.0},{:.0}], presence {:.2}: taken from there",
                        (t.pos.x, t.pos.y),
                        c[0],
                        c[1],
                        t.presence,
                        o[0],
                        o[1],
                        other.presence
                    );
                }
                *t = other.clone();
                return true;
            }
            if debugging() {
                let c = quad_centre(&t.corners_px);
                eprintln!(
                    "own table: tile {:?} at [{:.0},{:.0}] presence {:.2}: nearest tiles {tile:.1}, \
                     empty cells {bare:.1}{}",
                    (t.pos.x, t.pos.y),
                    c[0],
                    c[1],
                    t.presence,
                    if is_tile { "" } else { ", dropped" }
                );
            }
            is_tile
        });
    }
}

/// The clearest reading another look (`looks`, see `fuse_looks`) made of tile `t`'s cell
/// in the Alhambra whose fountain lies at `fountain`: the same cell, within a quarter of
/// a tile, read clearly (`clearly`, a presence) and not under glare. A look whose quad
/// lay a little otherwise may read a tile plainly that the kept reading's quad, off the
/// tile onto the table, read as the table (held-out normal 9057: a seraglio read at 4.8,
/// past the presence limit, where three other looks read it at 0.5 to 0.9).
fn clearer_look<'a>(
    t: &FoundTile,
    fountain: Point,
    looks: &'a [FoundAlhambra],
    clearly: f32,
) -> Option<&'a FoundTile> {
    let (centre, size) = (quad_centre(&t.corners_px), quad_size(&t.corners_px));
    looks
        .iter()
        .filter(|l| dist(l.fountain_px, fountain) < 0.5 * size)
        .flat_map(|l| &l.tiles)
        .filter(|u| {
            u.pos == t.pos
                && u.glare.is_none()
                && u.presence < clearly
                && dist(quad_centre(&u.corners_px), centre) < 0.25 * size
        })
        .min_by(|a, b| a.presence.total_cmp(&b.presence))
}

/// Interior features of cells of `a`'s lattice at least [`APART`] cells from its tiles,
/// well away from every other tile read (`tiles`), and not clearly a tile (a loose tile):
/// the bare table about `a`, and whatever else lies on it.
fn table_examples(
    view: &View<'_>,
    profile: &Profile,
    a: &FoundAlhambra,
    tiles: &[([Point; 4], bool)],
) -> Vec<Vec<f32>> {
    let Some(to_lattice) = a.grid.inverse() else {
        return Vec::new();
    };
    let own: Vec<(i32, i32)> = a
        .tiles
        .iter()
        .filter_map(|t| to_lattice.apply(quad_centre(&t.corners_px)))
        .map(|[i, j]| (i.round() as i32, j.round() as i32))
        .collect();
    let (Some(lo_i), Some(hi_i), Some(lo_j), Some(hi_j)) = (
        own.iter().map(|c| c.0).min(),
        own.iter().map(|c| c.0).max(),
        own.iter().map(|c| c.1).min(),
        own.iter().map(|c| c.1).max(),
    ) else {
        return Vec::new();
    };
    let others: Vec<(Point, f64)> = tiles
        .iter()
        .filter(|(q, _)| !a.tiles.iter().any(|t| t.corners_px == *q))
        .map(|(q, _)| (quad_centre(q), quad_size(q)))
        .collect();
    let clearly = CLEARLY_A_TILE * profile.presence_limit;
    let mut examples = Vec::new();
    for i in lo_i - REACH..=hi_i + REACH {
        for j in lo_j - REACH..=hi_j + REACH {
            if own
                .iter()
                .any(|&(x, y)| (x - i).abs() < APART && (y - j).abs() < APART)
            {
                continue;
            }
            let Some(q) = cell_quad(&a.grid, f64::from(i), f64::from(j)) else {
                continue;
            };
            let (c, size) = (quad_centre(&q), quad_size(&q));
            if others
                .iter()
                .any(|&(p, s)| dist(p, c) < OTHERS_APART * size.max(s))
            {
                continue;
            }
            if !view.inside(&q) {
                continue;
            }
            let Some(f) = view.features(&q) else {
                continue;
            };
            if profile.presence_distance(&f) < clearly {
                continue;
            }
            examples.push(f.blocks.to_vec());
        }
    }
    examples
}
