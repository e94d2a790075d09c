//! Which reading of an Alhambra to keep. A photo is read more than once (under the
//! adapted profile, in the photo's own tone and light, under casts, with the light made
//! even), and each reading fits its own lattices: the readings are compared by the tiles
//! they join and the rules they break, and merged tile by tile where they agree.

use super::game_limits::joined_to_fountain;
use super::{FoundAlhambra, FoundTile, TAKEN_REACH, debugging, dist, quad_centre, quad_size};
use crate::appearance::Choices;
use crate::geometry::Point;
use alhambra_engine::{Building, Pos, Rule, Side, Walls};
use std::collections::{BTreeSet, HashMap};

/// How many times surer of all its tiles (see [`certainty`]) another look's reading of an
/// Alhambra on the same cells must be to replace the first: most second looks read the
/// same tiles a little surer or less sure (dev normal photos: half within 1.1 times), and
/// those that read a wall otherwise were as often wrong as right when up to 6 times surer.
const SURER: f32 = 10.0;
/// How many more tiles an Alhambra grown again under the adapted profile must have to
/// replace the one read first (see `take_much_larger`).
const ADAPTED_GAIN: usize = 2;

/// The rules an Alhambra as read breaks (see `Alhambra::check`); one for a layout the
/// engine cannot even hold. A gap growth looked across (a hand over the Alhambra) breaks
/// none: the tiles beyond it are unreachable, and the gap a hole, only as read.
fn broken_rules(a: &FoundAlhambra) -> usize {
    let Ok(layout) = a.layout() else {
        return 1;
    };
    let gaps = a.covered_between();
    if gaps.is_empty() {
        return layout.check().len();
    }
    let joined = joined_to_fountain(&a.tiles);
    layout
        .check()
        .iter()
        .filter(|v| match v.rule {
            Rule::Unreachable => joined.contains(&v.pos),
            Rule::Hole => !gaps.contains(&v.pos),
            _ => true,
        })
        .count()
}

/// How many of its tiles a way on foot reaches from the fountain (see `Alhambra::check`),
/// the fountain's included; none for a layout the engine cannot hold.
pub(super) fn reached_on_foot(a: &FoundAlhambra) -> usize {
    let Ok(layout) = a.layout() else {
        return 0;
    };
    let unreachable = layout
        .check()
        .iter()
        .filter(|v| v.rule == Rule::Unreachable)
        .count();
    a.tiles.len().saturating_sub(unreachable)
}

/// The rules all of them break.
pub(super) fn violations(alhambras: &[FoundAlhambra]) -> usize {
    alhambras.iter().map(broken_rules).sum()
}

/// Tiles in all.
pub(super) fn tile_count(alhambras: &[FoundAlhambra]) -> usize {
    alhambras.iter().map(FoundAlhambra::joined).sum()
}

/// Whether reading `again` breaks fewer rules than `before` while keeping every Alhambra:
/// one fewer proves nothing. (It may hold fewer tiles: asking for as many kept a tile read
/// where the labels have none, on a held-out hard photo: 34 tiles breaking 3 rules
/// against 32 breaking none.)
pub(super) fn breaks_fewer_rules(again: &[FoundAlhambra], before: &[FoundAlhambra]) -> bool {
    violations(again) < violations(before) && again.len() >= before.len()
}

/// Whether some Alhambra breaks a rule with a tile beside another Alhambra's (centres
/// within one and a half cells).
pub(super) fn contested(alhambras: &[FoundAlhambra]) -> bool {
    alhambras.iter().enumerate().any(|(k, a)| {
        broken_rules(a) > 0
            && a.tiles.iter().any(|t| {
                let (c, size) = (quad_centre(&t.corners_px), quad_size(&t.corners_px));
                alhambras
                    .iter()
                    .enumerate()
                    .filter(|&(o, _)| o != k)
                    .flat_map(|(_, b)| &b.tiles)
                    .any(|u| dist(c, quad_centre(&u.corners_px)) < 1.5 * size)
            })
    })
}

/// The light a photo's Alhambras agree on (the median of the gains of those with four
/// tiles or more, per channel), when it is more than 5% off the white balance in some
/// channel; `None` otherwise.
pub(super) fn shared_light(alhambras: &[FoundAlhambra]) -> Option<[f32; 3]> {
    let lights: Vec<[f32; 3]> = alhambras
        .iter()
        .filter(|a| a.tiles.len() >= 4)
        .map(|a| a.light)
        .collect();
    if lights.is_empty() {
        return None;
    }
    let mut light = [1.0f32; 3];
    for (k, l) in light.iter_mut().enumerate() {
        let mut channel: Vec<f32> = lights.iter().map(|g| g[k]).collect();
        channel.sort_by(f32::total_cmp);
        *l = channel[channel.len() / 2];
    }
    light
        .iter()
        .any(|g| (g - 1.0).abs() > 0.05)
        .then_some(light)
}

/// How many tiles of `alhambras` are joined to their fountains (what readings of a photo
/// are compared by).
pub(super) fn joined_tiles(alhambras: &[FoundAlhambra]) -> usize {
    alhambras.iter().map(FoundAlhambra::joined).sum()
}

/// How many of `alhambras` grew a tile joined to their fountain.
pub(super) fn grown_alhambras(alhambras: &[FoundAlhambra]) -> usize {
    alhambras.iter().filter(|a| a.joined() >= 2).count()
}

/// Says on stderr, when debugging, what reading `what` read against the one before.
pub(super) fn tell_readings(
    what: impl std::fmt::Display,
    again: &[FoundAlhambra],
    before: &[FoundAlhambra],
) {
    if debugging() {
        eprintln!(
            "{what}: {} Alhambras, {} tiles (was {}, {})",
            grown_alhambras(again),
            joined_tiles(again),
            grown_alhambras(before),
            joined_tiles(before)
        );
    }
}

/// Puts each Alhambra of `again` (read from the same fountains) in place of its own in
/// `alhambras` where it has at least half as many tiles again and `ADAPTED_GAIN` more, and
/// none on another's cells: a few tiles more are as often loose ones taken in. Not for a
/// fountain read alone: no tile of its own vouched for how its tiles look.
pub(super) fn take_much_larger(alhambras: &mut Vec<FoundAlhambra>, again: Vec<FoundAlhambra>) {
    take_where(alhambras, again, |own, larger| {
        let m = larger.joined();
        own.is_some_and(|own| {
            let n = own.joined();
            n >= 2 && m >= n + ADAPTED_GAIN && 2 * m >= 3 * n
        })
    });
}

/// Puts each Alhambra of `again` (read from another look at the same photo) in place of
/// its own in `alhambras` where it has [`ADAPTED_GAIN`] tiles more (one more is as often a
/// loose tile taken in, and its walls read otherwise), or one more and every tile of its
/// own read alike (see [`extends`]), and adds those grown from a fountain `alhambras`
/// lacks, none on another's cells: an Alhambra read no better keeps its reading.
pub(super) fn take_larger(alhambras: &mut Vec<FoundAlhambra>, again: Vec<FoundAlhambra>) {
    take_where(alhambras, again, |own, larger| match own {
        Some(own) => {
            let (m, n) = (larger.joined(), own.joined());
            m >= n + ADAPTED_GAIN || (m == n + 1 && extends(larger, own)) || far_surer(larger, own)
        }
        None => larger.joined() >= 2,
    });
}

/// Puts reading `again` of the whole photo in place of `alhambras` when it reads more (as
/// many Alhambras grown, more tiles joined): `true`. Otherwise each of its Alhambras read
/// much better than its own replaces it (see [`take_larger`]): `false`. (Light differs
/// across a table: a reading in another tone may read one Alhambra better and another
/// worse. Chosen on the whole photo alone, one Alhambra's tiles gained or lost decided
/// every other one's reading; fresh hard 9588: 1 -> 3 of 6 Alhambras exact.)
pub(super) fn take_whole_or_larger(
    alhambras: &mut Vec<FoundAlhambra>,
    again: Vec<FoundAlhambra>,
) -> bool {
    if grown_alhambras(&again) >= grown_alhambras(alhambras)
        && joined_tiles(&again) > joined_tiles(alhambras)
    {
        *alhambras = again;
        true
    } else {
        take_larger(alhambras, again);
        false
    }
}

/// Reads each tile's building and walls again from every look at it (`looks`: each whole
/// reading of the photo made on the way): their readings pooled (see [`pooled_pairs`]),
/// where they read the same building on the same cell within a quarter of a tile. Each
/// look fitted its lattice a little otherwise, and a side's reading turns on where the
/// quad's side lies to within 2% of a tile (see docs/eval.txt): one look's quad on the
/// table beside an open side reads its shadow as a wall, the others' read it open.
/// Tiles read under glare keep their own reading (another profile's scores), and
/// so do tiles read as a pair the catalogue lacks.
pub(super) fn fuse_looks(alhambras: &mut [FoundAlhambra], looks: &[FoundAlhambra]) {
    for a in alhambras.iter_mut() {
        let fountain = a.fountain_px;
        for t in &mut a.tiles {
            if t.glare.is_some()
                || t.reading.building == Building::Fountain
                || !t.reading.in_catalogue
            {
                continue;
            }
            let Some(own) = &t.choices else { continue };
            let (centre, size) = (quad_centre(&t.corners_px), quad_size(&t.corners_px));
            let mut seen: Vec<[Point; 4]> = vec![t.corners_px];
            let mut alike: Vec<&Choices> = vec![own];
            for u in looks
                .iter()
                .filter(|l| dist(l.fountain_px, fountain) < 0.5 * size)
                .flat_map(|l| &l.tiles)
            {
                let Some(c) = &u.choices else { continue };
                let same = u.pos == t.pos
                    && u.glare.is_none()
                    && u.reading.building == t.reading.building
                    && c.scored.len() == own.scored.len()
                    && dist(quad_centre(&u.corners_px), centre) < 0.25 * size;
                if same && !seen.contains(&u.corners_px) {
                    seen.push(u.corners_px);
                    alike.push(c);
                }
            }
            if alike.len() < 2 {
                continue;
            }
            let mut fused = own.clone();
            fused.scored = pooled_pairs(&alike);
            fused.odds = std::array::from_fn(|s| pooled_odds(alike.iter().map(|c| c.odds[s])));
            fused.building_odds = std::array::from_fn(|b| {
                std::array::from_fn(|s| pooled_odds(alike.iter().map(|c| c.building_odds[b][s])))
            });
            // The pair read with each side on its own differs between looks: the
            // fused reading stays in the catalogue, as the tile's own did.
            fused.free_score = f32::NEG_INFINITY;
            let reading = fused.reading();
            if debugging() && reading.walls != t.reading.walls {
                eprintln!(
                    "tile {:?} at {:?}: {} looks fused, walls {:?} -> {:?} (bests {:?}, fused {})",
                    t.pos,
                    centre.map(|v| v.round()),
                    alike.len(),
                    t.reading.walls,
                    reading.walls,
                    alike.iter().map(|c| c.best()).collect::<Vec<_>>(),
                    fused.best()
                );
            }
            if reading.building == t.reading.building {
                t.reading = reading;
                t.choices = Some(fused);
            }
        }
    }
}

/// The looks' beliefs over the catalogue pairs, averaged (a linear pool), on the log
/// scale the pairs are scored on. The looks are not independent (one photo, lattices a
/// pixel apart), so summing their log scores (as a mean of scores does) lets one look
/// whose side strip took the table's shadow for a wall at the cap (log-odds 12) outvote
/// two that read it open; pooled, each look weighs at most its share, and a pair only
/// one look believed stays next in line (see `each_printed_tile_once`). Against the
/// mean: as many Alhambras exact on every set (within a photo or two), tiles read wrongly
/// yet surely fewer on every set (fresh normal 0.24 -> 0.17%, held-out hard 2.3 -> 1.6%).
fn pooled_pairs(looks: &[&Choices]) -> Vec<f32> {
    let n = looks.len().max(1) as f32;
    let mut belief = vec![0f32; looks.first().map_or(0, |c| c.scored.len())];
    for c in looks {
        let top = c.scored.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let total: f32 = c.scored.iter().map(|s| (s - top).exp()).sum();
        for (b, s) in belief.iter_mut().zip(&c.scored) {
            *b += (s - top).exp() / total / n;
        }
    }
    belief.iter().map(|b| b.max(POOLED_LEAST).ln()).collect()
}

/// The chance of a wall the looks give a side, averaged as in [`pooled_pairs`], as
/// log-odds.
fn pooled_odds(odds: impl Iterator<Item = f32>) -> f32 {
    let (mut sum, mut n) = (0f32, 0f32);
    for o in odds {
        sum += 1.0 / (1.0 + (-o).exp());
        n += 1.0;
    }
    let p = (sum / n.max(1.0)).clamp(ODDS_LEAST, 1.0 - ODDS_LEAST);
    (p / (1.0 - p)).ln()
}

/// The least chance pooling gives a pair: one no look believed still scores, far below
/// the rest (ln of it is about -69).
const POOLED_LEAST: f32 = 1e-30;

/// The least chance pooling gives a side either way (log-odds about 13.8, past a single
/// look's cap of 12): a chance of 1 would make the odds infinite.
const ODDS_LEAST: f32 = 1e-6;

/// A tile only another look saw must read this clearly, as a share of the presence limit
/// (dev photos: such tiles that were real read at 0.1-0.65 of it, the phantoms among
/// them at 0.9 and over: a loose tile or a neighbour's half on the table).
const OTHER_LOOK_SHARE: f32 = 0.8;

/// Adds to each Alhambra of two tiles or more the tiles another look at it read (`looks`:
/// every whole reading of the photo, see [`fuse_looks`]) on cells its reading (`read`,
/// before the game's limits dropped tiles from it) left empty, where half the looks at
/// the Alhambra at least read a tile, the clearest of them clearly (see
/// [`OTHER_LOOK_SHARE`] of `limit`), on the Alhambra's own lattice, on no tile of any
/// Alhambra, joined to the Alhambra by a side.
/// The reading kept is the one that grew most or broke fewest rules as a whole; growth
/// turns on each cell's look, and the kept one can stop short at a tile another look read
/// plainly (dev normal_8450: a seraglio read in one look of two at 0.65 of the limit).
/// Returns whether a tile was added.
pub(super) fn fill_from_looks(
    alhambras: &mut [FoundAlhambra],
    read: &[FoundAlhambra],
    looks: &[FoundAlhambra],
    limit: f32,
) -> bool {
    let mut filled = false;
    for k in 0..alhambras.len() {
        let a = &alhambras[k];
        if a.tiles.len() < 2 {
            continue;
        }
        let Some(size) = a.tiles.first().map(|f| quad_size(&f.corners_px)) else {
            continue;
        };
        let Some(to_grid) = a.grid.inverse() else {
            continue;
        };
        let fountain = a.fountain_px;
        let of_it = |r: &&FoundAlhambra| dist(r.fountain_px, fountain) < 0.5 * size;
        // The cells the kept reading held before the game's limits were applied: a tile
        // dropped there broke a limit, and another look's tile there would break it too.
        let held: BTreeSet<Pos> = read
            .iter()
            .filter(of_it)
            .flat_map(|r| r.tiles.iter().map(|t| t.pos))
            .collect();
        // A point's cell on the kept lattice, and whether it lies near that cell's centre.
        let cell_of = |c: Point| -> Option<(Pos, bool)> {
            let g = to_grid.apply(c)?;
            let (i, j) = (g[0].round(), g[1].round());
            let near = (g[0] - i).abs() < 0.25 && (g[1] - j).abs() < 0.25;
            Some((Pos::new(i as i32, j as i32), near))
        };
        // The quarter turn from the lattice's frame to the Alhambra's upright one (see
        // `Scanner::finish`): the one most of its tiles agree on.
        let turned = |p: Pos, k: u8| (0..k).fold(p, |p, _| p.rotated_clockwise());
        let Some(turn) = (0..4u8).max_by_key(|&k| {
            a.tiles
                .iter()
                .filter(|t| {
                    cell_of(quad_centre(&t.corners_px)).is_some_and(|(p, _)| turned(p, k) == t.pos)
                })
                .count()
        }) else {
            continue;
        };
        // How many looks at the Alhambra read a tile on each cell of the kept lattice (a
        // look's own frame may be turned): one look of three or four is as often a loose
        // tile beside it (hard photos' reserve tiles).
        let own_looks: Vec<&FoundAlhambra> = looks.iter().filter(of_it).collect();
        let mut read_by: HashMap<Pos, usize> = HashMap::new();
        for t in own_looks.iter().flat_map(|l| &l.tiles) {
            if let Some((p, true)) = cell_of(quad_centre(&t.corners_px)) {
                *read_by.entry(turned(p, turn)).or_default() += 1;
            }
        }
        // The clearest look at each cell the Alhambra leaves empty.
        let mut offered: HashMap<Pos, &FoundTile> = HashMap::new();
        for u in own_looks.iter().flat_map(|l| &l.tiles) {
            if u.reading.building == Building::Fountain
                || 2 * read_by.get(&u.pos).copied().unwrap_or(0) < own_looks.len()
                || u.presence > OTHER_LOOK_SHARE * limit
                || held.contains(&u.pos)
                || a.tiles.iter().any(|t| t.pos == u.pos)
            {
                continue;
            }
            let c = quad_centre(&u.corners_px);
            // Its cell on the kept lattice: another look's frame may be turned.
            let on_lattice = cell_of(c).is_some_and(|(p, near)| near && turned(p, turn) == u.pos);
            let on_a_tile = alhambras.iter().flat_map(|o| &o.tiles).any(|t| {
                dist(quad_centre(&t.corners_px), c) < TAKEN_REACH * quad_size(&t.corners_px)
            });
            if !on_lattice || on_a_tile {
                continue;
            }
            if offered.get(&u.pos).is_none_or(|o| u.presence < o.presence) {
                offered.insert(u.pos, u);
            }
        }
        // Joined by a side to the Alhambra, or to a tile added before it.
        let mut added: Vec<FoundTile> = Vec::new();
        loop {
            let cells: BTreeSet<Pos> = alhambras[k]
                .tiles
                .iter()
                .chain(&added)
                .map(|t| t.pos)
                .collect();
            let Some(&p) = offered
                .keys()
                .filter(|p| Side::ALL.iter().any(|&s| cells.contains(&p.neighbour(s))))
                .min()
            else {
                break;
            };
            if let Some(u) = offered.remove(&p) {
                if debugging() {
                    eprintln!(
                        "tile {p:?} at {:?}: read by another look at the Alhambra, presence {:.2}",
                        quad_centre(&u.corners_px).map(|v| v.round()),
                        u.presence
                    );
                }
                added.push(u.clone());
            }
        }
        filled |= !added.is_empty();
        alhambras[k].tiles.extend(added);
    }
    filled
}

/// Whether reading `again` of an Alhambra holds tiles on the cells `own` does and is
/// [`SURER`] times surer of them (see [`certainty`]).
pub(super) fn far_surer(again: &FoundAlhambra, own: &FoundAlhambra) -> bool {
    let cells = |x: &FoundAlhambra| x.tiles.iter().map(|t| t.pos).collect::<BTreeSet<Pos>>();
    cells(again) == cells(own) && certainty(again) > certainty(own) + SURER.ln()
}

/// How sure a reading of an Alhambra is of all its tiles: the log of the product of its
/// tiles' confidences (building times the least sure side; a fountain's sides count
/// for none).
fn certainty(a: &FoundAlhambra) -> f32 {
    a.tiles
        .iter()
        .map(|t| t.reading.confidence().max(1e-3).ln())
        .sum()
}

/// Whether `larger` holds every tile of `own` on the same cell with the same building and
/// walls: the other look read all that the first did, and saw more. A tile taken in that
/// way changed no side of its neighbours, so it is no loose tile whose edge was read as
/// theirs.
fn extends(larger: &FoundAlhambra, own: &FoundAlhambra) -> bool {
    let read: HashMap<Pos, (Building, Walls)> = larger
        .tiles
        .iter()
        .map(|t| (t.pos, (t.reading.building, t.reading.walls)))
        .collect();
    own.tiles
        .iter()
        .all(|t| read.get(&t.pos) == Some(&(t.reading.building, t.reading.walls)))
}

/// Puts each Alhambra of `again` in place of its own in `alhambras` (the one whose
/// fountain it grew from; added when there is none) where `better(own, it)` says so and
/// none of its tiles lies on another's cells.
fn take_where(
    alhambras: &mut Vec<FoundAlhambra>,
    again: Vec<FoundAlhambra>,
    better: impl Fn(Option<&FoundAlhambra>, &FoundAlhambra) -> bool,
) {
    let centres = |a: &FoundAlhambra| -> Vec<(Point, f64)> {
        a.tiles
            .iter()
            .map(|t| (quad_centre(&t.corners_px), quad_size(&t.corners_px)))
            .collect()
    };
    for larger in again {
        let own = alhambras.iter().position(|a| {
            a.tiles.first().is_some_and(|f| {
                dist(a.fountain_px, larger.fountain_px) < 0.5 * quad_size(&f.corners_px)
            })
        });
        if !better(own.map(|k| &alhambras[k]), &larger) {
            continue;
        }
        let mine = centres(&larger);
        let overlaps = alhambras.iter().enumerate().any(|(o, other)| {
            Some(o) != own
                && centres(other)
                    .iter()
                    .any(|(c, size)| mine.iter().any(|(p, _)| dist(*p, *c) < 0.5 * size))
        });
        if overlaps {
            continue;
        }
        match own {
            Some(k) => alhambras[k] = larger,
            None => alhambras.push(larger),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scanner::tests::row;
    use alhambra_engine::Side;

    #[test]
    fn an_alhambra_breaking_a_rule_beside_another_is_contested() {
        // A garden walled towards its own fountain: a wall against an open side, and no
        // way on foot to it.
        let walled = |mut a: FoundAlhambra| {
            a.tiles[1].reading.walls = alhambra_engine::Walls::NONE.with(Side::West);
            a
        };
        assert_eq!(violations(&[row(0.0, 3), row(34.0, 2)]), 0);
        assert!(violations(&[walled(row(0.0, 3)), row(34.0, 2)]) > 0);
        // Beside another Alhambra (its fountain 1.4 cells from the last garden):
        // contested only when a rule is broken.
        assert!(!contested(&[row(0.0, 3), row(34.0, 2)]));
        assert!(contested(&[walled(row(0.0, 3)), row(34.0, 2)]));
        assert!(contested(&[row(34.0, 2), walled(row(0.0, 3))]));
        // Far from every other: nothing to contest.
        assert!(!contested(&[walled(row(0.0, 3)), row(1000.0, 2)]));
        // The garden given to the other Alhambra: no rule broken, every tile kept.
        let raced = [walled(row(0.0, 3)), row(34.0, 2)];
        assert!(breaks_fewer_rules(&[row(0.0, 2), row(24.0, 3)], &raced));
        // So is the garden left out (it may be no tile); losing an Alhambra is no better.
        assert!(breaks_fewer_rules(&[row(0.0, 2), row(34.0, 2)], &raced));
        assert!(!breaks_fewer_rules(&[row(34.0, 2)], &raced));
        assert!(!breaks_fewer_rules(&raced, &raced));
    }

    #[test]
    fn tiles_behind_a_wall_are_not_reached_on_foot() {
        assert_eq!(reached_on_foot(&row(0.0, 3)), 3);
        // The first garden walled towards the fountain: neither garden is reached.
        let mut walled = row(0.0, 3);
        walled.tiles[1].reading.walls = alhambra_engine::Walls::NONE.with(Side::West);
        assert_eq!(reached_on_foot(&walled), 1);
    }

    #[test]
    fn a_tile_another_look_read_clearly_fills_an_empty_cell_that_joins_the_alhambra() {
        // `row`'s tiles lie 10 pixels apart from x0: its lattice, to match.
        let on_lattice = |mut a: FoundAlhambra| {
            a.grid = crate::geometry::Homography([
                [10.0, 0.0, a.fountain_px[0]],
                [0.0, 10.0, 0.0],
                [0.0, 0.0, 1.0],
            ]);
            a
        };
        let sizes = |a: &[FoundAlhambra]| a.iter().map(|x| x.tiles.len()).collect::<Vec<_>>();
        let limit = 2.0;
        let fill = |found: &mut Vec<FoundAlhambra>, looks: &[FoundAlhambra]| {
            let read = found.clone();
            fill_from_looks(found, &read, looks, limit)
        };
        // Two gardens more in the other look, each joined to the last: both taken.
        let mut found = vec![on_lattice(row(0.0, 3))];
        fill(&mut found, &[on_lattice(row(0.0, 5))]);
        assert_eq!(sizes(&found), vec![5]);
        assert!(found[0].tiles.iter().any(|t| t.pos == Pos::new(4, 0)));
        // Read no clearer than near the limit: a loose tile as often as one of its own.
        let mut vague = on_lattice(row(0.0, 5));
        vague.tiles[3].presence = 0.9 * limit;
        let mut found = vec![on_lattice(row(0.0, 3))];
        fill(&mut found, &[vague]);
        assert_eq!(sizes(&found), vec![3]);
        // On another Alhambra's tiles (its fountain at x = 30): not taken.
        let mut found = vec![on_lattice(row(0.0, 3)), on_lattice(row(30.0, 2))];
        fill(&mut found, &[on_lattice(row(0.0, 5))]);
        assert_eq!(sizes(&found), vec![3, 2]);
        // Not joined to the Alhambra (the cell between is empty in every look): not taken.
        let mut gap = on_lattice(row(0.0, 5));
        gap.tiles.remove(3);
        let mut found = vec![on_lattice(row(0.0, 3))];
        fill(&mut found, &[gap]);
        assert_eq!(sizes(&found), vec![3]);
        // A look in a frame turned against the kept one (its cell (3, 0) named (1, 1)).
        let mut turned = on_lattice(row(0.0, 4));
        turned.tiles[3].pos = Pos::new(1, 1);
        let mut found = vec![on_lattice(row(0.0, 3))];
        fill(&mut found, &[turned]);
        assert_eq!(sizes(&found), vec![3]);
        // Read by one look of three: as often a loose tile beside the Alhambra.
        let mut found = vec![on_lattice(row(0.0, 3))];
        let short = on_lattice(row(0.0, 3));
        fill(&mut found, &[short.clone(), short, on_lattice(row(0.0, 5))]);
        assert_eq!(sizes(&found), vec![3]);
        // A tile the game's limits dropped from the reading kept: not put back.
        let mut found = vec![on_lattice(row(0.0, 3))];
        let read = vec![on_lattice(row(0.0, 4))];
        assert!(!fill_from_looks(
            &mut found,
            &read,
            &[on_lattice(row(0.0, 5))],
            limit
        ));
        assert_eq!(sizes(&found), vec![3]);
        // A fountain read alone: no tile of its own vouches for the lattice.
        let mut found = vec![on_lattice(row(0.0, 1))];
        fill(&mut found, &[on_lattice(row(0.0, 5))]);
        assert_eq!(sizes(&found), vec![1]);
    }

    #[test]
    fn an_adapted_reading_replaces_only_a_much_larger_alhambra_on_cells_of_its_own() {
        let sizes = |a: &[FoundAlhambra]| a.iter().map(|x| x.tiles.len()).collect::<Vec<_>>();
        // Two tiles grown to twelve: taken. Twenty to twenty-four: a few more, kept as read.
        let mut found = vec![row(0.0, 2), row(1000.0, 20)];
        take_much_larger(&mut found, vec![row(0.0, 12), row(1000.0, 24)]);
        assert_eq!(sizes(&found), vec![12, 20]);
        // A fountain read alone vouches for nothing: kept alone.
        let mut found = vec![row(0.0, 1)];
        take_much_larger(&mut found, vec![row(0.0, 6)]);
        assert_eq!(sizes(&found), vec![1]);
        // Grown onto another Alhambra's tiles (the other's start at x = 60): kept as read.
        let mut found = vec![row(0.0, 3), row(60.0, 4)];
        take_much_larger(&mut found, vec![row(0.0, 9)]);
        assert_eq!(sizes(&found), vec![3, 4]);
    }

    #[test]
    fn a_reading_of_the_whole_photo_that_reads_fewer_tiles_still_lends_its_larger_alhambras() {
        let sizes = |a: &[FoundAlhambra]| a.iter().map(|x| x.tiles.len()).collect::<Vec<_>>();
        let first = vec![row(0.0, 3), row(100.0, 6)];
        // In another tone the first Alhambra reads 3 tiles more, the second 4 fewer: the
        // whole reads fewer, yet the first is read better.
        let mut found = first.clone();
        assert!(!take_whole_or_larger(
            &mut found,
            vec![row(0.0, 6), row(100.0, 2)]
        ));
        assert_eq!(sizes(&found), vec![6, 6]);
        // Reading more in all, the whole reading is taken, each Alhambra as it reads.
        let mut found = first.clone();
        assert!(take_whole_or_larger(
            &mut found,
            vec![row(0.0, 5), row(100.0, 5)]
        ));
        assert_eq!(sizes(&found), vec![5, 5]);
        // Nothing better anywhere: the first reading stays as it was.
        let mut found = first;
        assert!(!take_whole_or_larger(
            &mut found,
            vec![row(0.0, 3), row(100.0, 4)]
        ));
        assert_eq!(sizes(&found), vec![3, 6]);
    }

    #[test]
    fn a_reading_with_one_tile_more_replaces_its_own_only_when_it_read_the_rest_alike() {
        let sizes = |a: &[FoundAlhambra]| a.iter().map(|x| x.tiles.len()).collect::<Vec<_>>();
        // Two tiles more: taken, whatever the rest read.
        let mut found = vec![row(0.0, 5)];
        take_larger(&mut found, vec![row(0.0, 7)]);
        assert_eq!(sizes(&found), vec![7]);
        // One more, every other tile read alike: the other look saw all the first did.
        let mut found = vec![row(0.0, 5)];
        take_larger(&mut found, vec![row(0.0, 6)]);
        assert_eq!(sizes(&found), vec![6]);
        // One more, but a wall of the first reading read otherwise: kept as read first.
        let mut found = vec![row(0.0, 5)];
        let mut other = row(0.0, 6);
        other.tiles[2].reading.walls = alhambra_engine::Walls::NONE.with(Side::North);
        take_larger(&mut found, vec![other]);
        assert_eq!(sizes(&found), vec![5]);
        // One more, but a building of the first reading read otherwise: kept.
        let mut own = row(0.0, 5);
        own.tiles[4].reading.building = Building::Tower;
        let mut found = vec![own];
        take_larger(&mut found, vec![row(0.0, 6)]);
        assert_eq!(sizes(&found), vec![5]);
        // The same size: kept.
        let mut found = vec![row(0.0, 5)];
        take_larger(&mut found, vec![row(0.0, 5)]);
        assert_eq!(sizes(&found), vec![5]);
    }

    #[test]
    fn a_reading_of_the_same_cells_replaces_its_own_only_when_far_surer() {
        let walls = |a: &[FoundAlhambra]| a[0].tiles[2].reading.walls;
        let north = alhambra_engine::Walls::NONE.with(Side::North);
        // The first reading unsure of a wall (confidence 0.002) the other look reads surely.
        let mut unsure = row(0.0, 5);
        unsure.tiles[2].reading.walls = north;
        unsure.tiles[2].reading.side_confidence = [0.002, 0.9, 0.9, 0.9];
        let mut found = vec![unsure.clone()];
        take_larger(&mut found, vec![row(0.0, 5)]);
        assert_eq!(walls(&found), alhambra_engine::Walls::NONE);
        // Only a little surer (0.5 against 0.9 of the tiles as read): kept as read first.
        unsure.tiles[2].reading.side_confidence = [0.5, 0.9, 0.9, 0.9];
        let mut found = vec![unsure.clone()];
        take_larger(&mut found, vec![row(0.0, 5)]);
        assert_eq!(walls(&found), north);
        // Far surer, but on other cells: kept.
        unsure.tiles[2].reading.side_confidence = [0.002, 0.9, 0.9, 0.9];
        let mut other = row(0.0, 5);
        other.tiles[4].pos = Pos::new(3, 1);
        let mut found = vec![unsure];
        take_larger(&mut found, vec![other]);
        assert_eq!(walls(&found), north);
    }

    /// What a look at a garden chooses from when its west side reads at log-odds `west`
    /// of a wall and its other sides surely open: each catalogue pair scored by how its
    /// walls agree with the sides (other buildings far behind).
    fn garden_look(west: f32) -> Choices {
        let odds = [-8.0, -8.0, -8.0, west];
        let scored = crate::appearance::catalogue_pairs()
            .iter()
            .map(|(b, w)| match b {
                Building::Garden => Side::ALL
                    .iter()
                    .map(|&s| {
                        let o = odds[s as usize] / 2.0;
                        if w.has(s) { o } else { -o }
                    })
                    .sum(),
                _ => -100.0,
            })
            .collect();
        let mut building_odds = [[0.0; 4]; 7];
        building_odds[Building::Garden as usize] = odds;
        Choices {
            scored,
            odds,
            building_odds,
            free: (Building::Garden, alhambra_engine::Walls::NONE),
            free_score: 0.0,
        }
    }

    /// `a` with its garden at (1, 0) read from `look`, the cell moved by `dx` px.
    fn garden_read(mut a: FoundAlhambra, look: Choices, dx: f64) -> FoundAlhambra {
        let t = &mut a.tiles[1];
        t.reading = look.reading();
        t.corners_px = t.corners_px.map(|[x, y]| [x + dx, y]);
        t.choices = Some(look);
        a
    }

    #[test]
    fn a_side_is_read_from_every_look_at_its_tile() {
        let west = |a: &FoundAlhambra| a.tiles[1].reading.walls.has(Side::West);
        // Kept: the look whose quad took the table's shadow for a wall; two others, their
        // lattices a pixel or two apart, read the side open.
        let kept = garden_read(row(0.0, 3), garden_look(12.0), 0.0);
        assert!(west(&kept));
        // The kept reading fused with two more looks at the side, a pixel either way.
        let with_two = |a: f32, b: f32| {
            let mut found = vec![kept.clone()];
            let looks = [
                kept.clone(),
                garden_read(row(0.0, 3), garden_look(a), 1.0),
                garden_read(row(0.0, 3), garden_look(b), -1.0),
            ];
            fuse_looks(&mut found, &looks);
            let side = found[0].tiles[1].reading.side_confidence[Side::West as usize];
            (found.remove(0), side)
        };
        let (found, side) = with_two(-6.0, -9.0);
        assert!(!west(&found));
        assert!(side > 0.5 && side < 0.9, "fused, a side in doubt: {side}");
        // Two looks that only lean open still outweigh one at the cap (their mean log-odds
        // would be a wall: (12 - 3 - 4) / 3 > 0).
        let (found, side) = with_two(-3.0, -4.0);
        assert!(!west(&found));
        assert!(
            side > 0.5 && side < 0.75,
            "one look in three for a wall: {side}"
        );
        // The wall one look saw stays next in line: far likelier than a pair none saw.
        let Some(fused) = &found.tiles[1].choices else {
            panic!("a fused tile keeps its choices")
        };
        let pairs = crate::appearance::catalogue_pairs();
        let score = |walls: Walls| {
            pairs
                .iter()
                .position(|&p| p == (Building::Garden, walls))
                .map(|k| fused.scored[k])
                .expect("the base game prints this garden")
        };
        let (open, walled, north) = (
            score(Walls::NONE),
            score(Walls::NONE.with(Side::West)),
            score(Walls::NONE.with(Side::North)),
        );
        assert!(
            open > walled && walled > north + 5.0,
            "{open} {walled} {north}"
        );
        // The kept look counted twice (it is among the looks) weighs as one.
        let mut found = vec![kept.clone()];
        let open = garden_read(row(0.0, 3), garden_look(-6.0), 1.0);
        fuse_looks(&mut found, &[kept.clone(), kept.clone(), open]);
        assert!(west(&found[0]));
        // Looks at another cell (a third of a tile off), at another building or under
        // glare say nothing of this tile.
        let mut tower = garden_read(row(0.0, 3), garden_look(-9.0), 0.5);
        tower.tiles[1].reading.building = Building::Tower;
        let mut glared = garden_read(row(0.0, 3), garden_look(-9.0), 0.5);
        glared.tiles[1].glare = Some(0);
        let others = [
            kept.clone(),
            garden_read(row(0.0, 3), garden_look(-9.0), 3.5),
            garden_read(row(0.0, 3), garden_look(-9.0), -3.5),
            tower,
            glared,
        ];
        let mut found = vec![kept.clone()];
        fuse_looks(&mut found, &others);
        assert!(west(&found[0]));
        // Nor does another Alhambra's look (its fountain elsewhere).
        let mut found = vec![kept.clone()];
        fuse_looks(
            &mut found,
            &[garden_read(row(40.0, 3), garden_look(-9.0), -40.0)],
        );
        assert!(west(&found[0]));
    }
}
