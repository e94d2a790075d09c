//! What no table of one game holds: a printed tile read twice, more Alhambras than a game
//! has players, more tiles of a building than the catalogue has, tiles no way on foot
//! reaches from the fountain that look doubtful. The last steps of a scan.

use super::{FoundAlhambra, FoundTile, debugging, quad_centre};
use crate::appearance::Choices;
use crate::geometry::{Homography, Point, UNIT_CELL};
use crate::identity::one_of_each;
use alhambra_engine::{Building, MOST_PLAYERS, Pos, Rule, Side, catalogue};
use std::collections::{HashMap, HashSet};

/// The last limits on a table's readings: the doubtful tiles the rules cannot explain go
/// (see [`drop_doubtful_unreachable`]), then no printed tile is read twice (see
/// [`each_printed_tile_once`]), then whatever that left walled off and doubtful goes too.
/// Dropped first, a tile that is not there takes no printed tile from one that is (fresh
/// normal 9551: a tile read beside an Alhambra as chambers moved to the arcades a real
/// arcades of another Alhambra was, which was moved to a wall it has not; then it was
/// dropped).
pub(super) fn table_limits(alhambras: &mut [FoundAlhambra], limit: f32) {
    for a in alhambras.iter_mut() {
        drop_doubtful_unreachable(a, limit);
    }
    each_printed_tile_once(alhambras);
    for a in alhambras.iter_mut() {
        drop_doubtful_unreachable(a, limit);
    }
}

/// Reads no printed tile twice on one table (see [`one_of_each`]): where two tiles read as
/// the same one, the one whose look gives up least is read as its best pair still free.
fn each_printed_tile_once(alhambras: &mut [FoundAlhambra]) {
    let read = {
        let choices: Vec<Option<&Choices>> = alhambras
            .iter()
            .flat_map(|a| &a.tiles)
            .map(|t| {
                t.choices
                    .as_ref()
                    .filter(|_| t.reading.in_catalogue && t.reading.building != Building::Fountain)
            })
            .collect();
        one_of_each(&choices)
    };
    for (t, k) in alhambras.iter_mut().flat_map(|a| &mut a.tiles).zip(read) {
        if let (Some(c), Some(k)) = (&t.choices, k)
            && k != c.best()
        {
            if debugging() {
                let pairs = crate::appearance::catalogue_pairs();
                let score = |k: usize| c.scored.get(k).copied().unwrap_or(f32::NAN);
                eprintln!(
                    "tile at {:?} [{:.0},{:.0}]: read as another printed tile, {:?} ({:.1}) -> {:?} ({:.1})",
                    t.pos,
                    quad_centre(&t.corners_px)[0],
                    quad_centre(&t.corners_px)[1],
                    pairs.get(c.best()),
                    score(c.best()),
                    pairs.get(k),
                    score(k)
                );
            }
            // The table, not the look, decided what changed: an even confidence there (still
            // one to look at again), not the look's near-certain "no".
            let own = &t.reading;
            let mut reading = c.reading_as(k);
            for side in Side::ALL {
                if reading.walls.has(side) != own.walls.has(side) {
                    let p = &mut reading.side_confidence[side as usize];
                    *p = p.max(0.5);
                }
            }
            if reading.building != own.building {
                reading.building_confidence = reading.building_confidence.max(0.5);
            }
            t.reading = reading;
        }
    }
}

/// Two fountains whose centres lie nearer than this (cells of either one's quad, both
/// ways) would overlap: tiles that do not overlap lie at least a cell apart, centre to
/// centre, whatever their turn (each holds the disc inscribed in it). A little under one,
/// for the quads' own error (of real neighbouring fountains on dev and held-out photos,
/// the nearer measure was 1.00-1.14 cells and the farther at least 1.07).
const FOUNTAINS_APART: f64 = 0.95;

/// Keeps no two fountains on one tile's worth of table (see [`FOUNTAINS_APART`]): one of
/// them is something else read as a fountain (dev hard_8738: a pavilion and a garden of an
/// Alhambra whose own fountain was missed, each read as a fountain overlapping another).
/// Of each such pair the Alhambra with fewer tiles, then the less fountain-like one, goes.
pub(super) fn fountains_apart(alhambras: &mut Vec<FoundAlhambra>) {
    let quad = |a: &FoundAlhambra| {
        a.tiles
            .iter()
            .find(|t| t.pos == Pos::ORIGIN)
            .map(|t| t.corners_px)
    };
    // How far `b`'s fountain lies from `a`'s, in cells of `a`'s quad.
    let cells_from = |a: &[Point; 4], b: &[Point; 4]| -> f64 {
        Homography::from_quads(a, &UNIT_CELL)
            .and_then(|h| h.apply(quad_centre(b)))
            .map_or(f64::INFINITY, |p| p[0].hypot(p[1]))
    };
    let mut order: Vec<usize> = (0..alhambras.len()).collect();
    order.sort_by(|&a, &b| likelier(&alhambras[a], &alhambras[b]));
    let mut kept: Vec<usize> = Vec::new();
    for k in order {
        let Some(q) = quad(&alhambras[k]) else {
            kept.push(k);
            continue;
        };
        let overlaps = kept.iter().find(|&&j| {
            quad(&alhambras[j]).is_some_and(|other| {
                cells_from(&q, &other).max(cells_from(&other, &q)) < FOUNTAINS_APART
            })
        });
        match overlaps {
            Some(&j) => {
                if debugging() {
                    eprintln!(
                        "fountain at {:?} dropped: it overlaps the one at {:?}",
                        alhambras[k].fountain_px.map(f64::round),
                        alhambras[j].fountain_px.map(f64::round)
                    );
                }
            }
            None => kept.push(k),
        }
    }
    keep_only(alhambras, &kept.into_iter().collect());
}

/// Keeps the Alhambras at indices `kept`, in their order.
fn keep_only(alhambras: &mut Vec<FoundAlhambra>, kept: &HashSet<usize>) {
    let mut k = 0;
    alhambras.retain(|_| {
        k += 1;
        kept.contains(&(k - 1))
    });
}

/// The order Alhambras are kept in when not all can be: most tiles first, then the
/// likeliest fountain.
fn likelier(a: &FoundAlhambra, b: &FoundAlhambra) -> std::cmp::Ordering {
    let fountain_presence = |a: &FoundAlhambra| {
        a.tiles
            .iter()
            .find(|t| t.pos == Pos::ORIGIN)
            .map_or(f32::INFINITY, |t| t.presence)
    };
    b.tiles
        .len()
        .cmp(&a.tiles.len())
        .then(fountain_presence(a).total_cmp(&fountain_presence(b)))
}

/// Keeps no more Alhambras than a game has players: those with the most tiles, then the
/// likeliest fountains (a profile whose fountain fits other buildings on a blurred photo
/// found fourteen fountains, each alone, among three players' tiles).
pub(super) fn one_per_player(alhambras: &mut Vec<FoundAlhambra>) {
    if alhambras.len() <= MOST_PLAYERS {
        return;
    }
    let mut order: Vec<usize> = (0..alhambras.len()).collect();
    order.sort_by(|&a, &b| likelier(&alhambras[a], &alhambras[b]));
    keep_only(alhambras, &order.into_iter().take(MOST_PLAYERS).collect());
}

/// Drops what no Alhambra can hold: more tiles of a building than the game has (a table
/// whose grain passes for one building grows a sheet of it from a lone fountain). Keeps
/// the likeliest of each building up to the catalogue's count, then whatever still joins
/// the fountain (at `Pos::ORIGIN`, never dropped) by sides.
pub(super) fn within_catalogue(tiles: &mut Vec<FoundTile>) {
    let mut of_building: HashMap<Building, Vec<usize>> = HashMap::new();
    for (k, t) in tiles.iter().enumerate() {
        of_building.entry(t.reading.building).or_default().push(k);
    }
    let mut dropped: HashSet<usize> = HashSet::new();
    for (building, mut ks) in of_building {
        // The fountain is never dropped (growth already stops at another one; a tile read
        // as a second fountain is a misreading, not a sheet).
        if building == Building::Fountain {
            continue;
        }
        let allowed = catalogue()
            .iter()
            .filter(|t| t.building == building)
            .count();
        if ks.len() > allowed {
            ks.sort_by(|&a, &b| tiles[a].presence.total_cmp(&tiles[b].presence));
            dropped.extend(ks[allowed..].iter().copied());
        }
    }
    if dropped.is_empty() {
        return;
    }
    *tiles = std::mem::take(tiles)
        .into_iter()
        .enumerate()
        .filter(|(k, _)| !dropped.contains(k))
        .map(|(_, t)| t)
        .collect();
    keep_joined(tiles);
}

/// Keeps the tiles joined to the fountain (at `Pos::ORIGIN`) by full sides.
fn keep_joined(tiles: &mut Vec<FoundTile>) {
    let joined = joined_to_fountain(tiles);
    tiles.retain(|t| joined.contains(&t.pos));
}

/// The cells of the tiles joined to the fountain (at `Pos::ORIGIN`) by full sides.
pub(super) fn joined_to_fountain(tiles: &[FoundTile]) -> HashSet<Pos> {
    let cells: HashSet<Pos> = tiles.iter().map(|t| t.pos).collect();
    let mut joined: HashSet<Pos> = HashSet::new();
    let mut todo = vec![Pos::ORIGIN];
    while let Some(p) = todo.pop() {
        if cells.contains(&p) && joined.insert(p) {
            todo.extend(Side::ALL.map(|s| p.neighbour(s)));
        }
    }
    joined
}

/// Drops the tiles no way on foot reaches from the fountain (`Alhambra::check`) whose own
/// look is past the profile's presence `limit`, then those no longer joined to the
/// fountain. Such a tile was taken by growth's wider looks (a little off the lattice,
/// deglared, reshaped) and the rules cannot explain it: on dev photos it was a loose tile
/// or another player's beside the Alhambra far more often than a tile of its own. A tile
/// that looks clearly like one stays, its broken rule shown to the players.
fn drop_doubtful_unreachable(a: &mut FoundAlhambra, limit: f32) {
    let Ok(layout) = a.layout() else {
        return;
    };
    let unreachable: HashSet<Pos> = layout
        .check()
        .into_iter()
        .filter(|v| v.rule == Rule::Unreachable)
        .map(|v| v.pos)
        .collect();
    let before = a.tiles.len();
    a.tiles
        .retain(|t| !(unreachable.contains(&t.pos) && t.presence > limit));
    if a.tiles.len() < before {
        keep_joined(&mut a.tiles);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Homography;
    use crate::scanner::tests::{row, tile};
    use alhambra_engine::Walls;

    #[test]
    fn a_table_keeps_no_more_alhambras_than_a_game_has_players() {
        // Eight fountains read: two grown, six alone, one of which fits best.
        let alhambra = |k: usize, tiles: usize, fountain: f32| FoundAlhambra {
            fountain_px: [k as f64, 0.0],
            grid: Homography::IDENTITY,
            tiles: (0..tiles as i32)
                .map(|x| {
                    let b = if x == 0 {
                        Building::Fountain
                    } else {
                        Building::Garden
                    };
                    tile(x, 0, b, if x == 0 { fountain } else { 1.0 })
                })
                .collect(),
            light: [1.0; 3],
            looked_across: Vec::new(),
        };
        let mut found: Vec<FoundAlhambra> = (0..8)
            .map(|k| match k {
                2 => alhambra(k, 5, 2.0),
                5 => alhambra(k, 3, 2.0),
                6 => alhambra(k, 1, 0.5),
                _ => alhambra(k, 1, 1.0 + k as f32 * 0.1),
            })
            .collect();
        one_per_player(&mut found);
        let kept: Vec<usize> = found.iter().map(|a| a.fountain_px[0] as usize).collect();
        // The grown ones, then the lone fountains that fit best, in the order read.
        assert_eq!(kept, vec![0, 1, 2, 3, 5, 6]);
        // Six or fewer: all stay.
        let mut few: Vec<FoundAlhambra> = (0..3).map(|k| alhambra(k, 1, 1.0)).collect();
        one_per_player(&mut few);
        assert_eq!(few.len(), 3);
    }

    #[test]
    fn of_two_fountains_less_than_a_tile_apart_the_likelier_stays() {
        // Fountains of cells 10 px wide: a grown Alhambra at x = 0, a lone fountain 8 px
        // (0.8 of a cell) beside it, two lone ones 9 px apart far off, the second fitting
        // better, and a lone one a whole cell and a half from the first.
        let lone = |x: f64, presence: f32| {
            let mut a = row(x, 1);
            a.tiles[0].presence = presence;
            a
        };
        let mut found = vec![
            row(0.0, 3),
            lone(8.0, 0.5),
            lone(200.0, 2.0),
            lone(209.0, 1.0),
        ];
        found.push(lone(-15.0, 1.0));
        fountains_apart(&mut found);
        let kept: Vec<f64> = found.iter().map(|a| a.fountain_px[0]).collect();
        assert_eq!(kept, vec![0.0, 209.0, -15.0]);
        // Neighbours a little over a cell apart both stay.
        let mut neighbours = vec![lone(0.0, 1.0), lone(10.5, 1.0)];
        fountains_apart(&mut neighbours);
        assert_eq!(neighbours.len(), 2);
    }

    #[test]
    fn a_doubtful_tile_walled_off_from_the_fountain_is_dropped_a_clear_one_stays() {
        let walled = |mut t: FoundTile, walls: Walls| {
            t.reading.walls = walls;
            t
        };
        let limit = 3.0;
        // Fountain, a garden east of it walled on its east side, and beyond that wall a
        // tower walled on its west side (unreachable), with a pavilion beyond the tower.
        let layout = |tower_presence: f32, pavilion_presence: f32| {
            vec![
                tile(0, 0, Building::Fountain, 0.5),
                walled(
                    tile(1, 0, Building::Garden, 1.0),
                    Walls::NONE.with(Side::East),
                ),
                walled(
                    tile(2, 0, Building::Tower, tower_presence),
                    Walls::NONE.with(Side::West),
                ),
                tile(3, 0, Building::Pavilion, pavilion_presence),
            ]
        };
        let cells = |tiles: Vec<FoundTile>| -> Vec<i32> {
            let mut a = FoundAlhambra {
                fountain_px: [0.0; 2],
                grid: Homography::IDENTITY,
                tiles,
                light: [1.0; 3],
                looked_across: Vec::new(),
            };
            drop_doubtful_unreachable(&mut a, limit);
            a.tiles.iter().map(|t| t.pos.x).collect()
        };
        // The tower looks past the limit: it goes, and the pavilion joined only through it.
        assert_eq!(cells(layout(4.0, 1.0)), vec![0, 1]);
        // The tower looks clearly like a tile: the reading stands, broken rule and all.
        assert_eq!(cells(layout(2.0, 1.0)), vec![0, 1, 2, 3]);
        // The pavilion alone is doubtful: it goes, the clear tower stays.
        assert_eq!(cells(layout(2.0, 4.0)), vec![0, 1, 2]);
        // A doubtful tile the fountain reaches is not the rules' business.
        assert_eq!(
            cells(vec![
                tile(0, 0, Building::Fountain, 0.5),
                tile(1, 0, Building::Garden, 4.0),
            ]),
            vec![0, 1]
        );
    }

    #[test]
    fn an_alhambra_keeps_no_more_of_a_building_than_the_game_has() {
        let chambers = catalogue()
            .iter()
            .filter(|t| t.building == Building::Chambers)
            .count();
        // A fountain, a garden west of it, and a row of chambers east of it, one more than
        // the game has; the one nearest the fountain looks least like one.
        let mut tiles = vec![
            tile(0, 0, Building::Fountain, 0.5),
            tile(-1, 0, Building::Garden, 0.5),
        ];
        for x in 1..=chambers as i32 + 1 {
            tiles.push(tile(
                x,
                0,
                Building::Chambers,
                if x == 1 { 2.0 } else { 1.0 },
            ));
        }
        within_catalogue(&mut tiles);
        // Dropping the least likely cuts the row off the fountain: only what joins stays.
        let mut left: Vec<(i32, i32)> = tiles.iter().map(|t| (t.pos.x, t.pos.y)).collect();
        left.sort_unstable();
        assert_eq!(left, vec![(-1, 0), (0, 0)]);
        // A tile misread as a second fountain is left to the reading, and the fountain
        // always stays.
        let mut tiles = vec![
            tile(0, 0, Building::Fountain, 3.0),
            tile(1, 0, Building::Fountain, 0.5),
            tile(2, 0, Building::Garden, 1.0),
        ];
        within_catalogue(&mut tiles);
        assert_eq!(tiles.len(), 3);
        // Within the catalogue, nothing is dropped.
        let mut tiles: Vec<FoundTile> = (0..=chambers as i32)
            .map(|x| {
                let b = if x == 0 {
                    Building::Fountain
                } else {
                    Building::Chambers
                };
                tile(x, 0, b, 1.0)
            })
            .collect();
        within_catalogue(&mut tiles);
        assert_eq!(tiles.len(), chambers + 1);
    }

    #[test]
    fn a_doubtful_tile_the_rules_cannot_explain_takes_no_printed_tile_from_a_real_one() {
        let pair = |walls: Walls| {
            crate::appearance::catalogue_pairs()
                .iter()
                .position(|&p| p == (Building::Arcades, walls))
                .expect("a printed arcades")
        };
        let (south_west, north_west) = (
            pair(Walls::NONE.with(Side::South).with(Side::West)),
            pair(Walls::NONE.with(Side::North).with(Side::West)),
        );
        // A look that reads the arcades walled south and west best, and `second` next at
        // `loss` (every other pair far behind).
        let read = |mut t: FoundTile, second: usize, loss: f32| {
            let mut scored = vec![-30.0; crate::appearance::catalogue_pairs().len()];
            scored[south_west] = 0.0;
            scored[second] = -loss;
            let c = Choices {
                scored,
                odds: [0.0; 4],
                building_odds: [[0.0; 4]; 7],
                free: (
                    Building::Arcades,
                    Walls::NONE.with(Side::South).with(Side::West),
                ),
                free_score: 0.0,
            };
            t.reading = c.reading();
            t.choices = Some(c);
            t
        };
        let alhambra = |x: f64, tiles: Vec<FoundTile>| FoundAlhambra {
            fountain_px: [x, 0.0],
            grid: Homography::IDENTITY,
            tiles,
            light: [1.0; 3],
            looked_across: Vec::new(),
        };
        let limit = 3.0;
        // A real arcades south of its fountain, that could just be the one walled north
        // and west; and beside another Alhambra a doubtful tile read as the same printed
        // arcades, walled off from its fountain by its own west wall, that could be
        // nothing else.
        let mut table = vec![
            alhambra(
                0.0,
                vec![
                    tile(0, 0, Building::Fountain, 0.5),
                    read(tile(0, 1, Building::Arcades, 1.0), north_west, 2.0),
                ],
            ),
            alhambra(
                1000.0,
                vec![
                    tile(0, 0, Building::Fountain, 0.5),
                    tile(1, 0, Building::Garden, 1.0),
                    read(tile(2, 0, Building::Arcades, 4.0), north_west, 30.0),
                ],
            ),
        ];
        table_limits(&mut table, limit);
        // The doubtful tile is gone, and the real one reads as its look does.
        assert_eq!(table[1].tiles.len(), 2);
        assert_eq!(
            table[0].tiles[1].reading.walls,
            Walls::NONE.with(Side::South).with(Side::West)
        );
    }
}
