//! Each printed tile exists once: the tiles read on one table, in every Alhambra, are
//! matched to distinct tiles of the catalogue at the least cost to their readings. Two
//! tiles read as the same (building, walls) pair that the game prints once cannot both
//! be right; the one whose look gives up least for its next free pair changes (mostly a
//! blurred outer wall against a dark table).

use crate::appearance::{Choices, catalogue_pairs};
use crate::assignment::cheapest_assignment;
use alhambra_engine::{Building, catalogue};

/// What leaving a tile read as a pair every printed copy of which is already taken costs,
/// on the readings' tempered log scale: a reading gives way when it loses less than this
/// by taking its best free pair instead (a pair read clearly on both tiles stays, to be
/// seen, rather than be forced onto a pair the look denies; another set's tiles, or a
/// second copy of the game, may repeat a tile).
pub const DUPLICATE_COST: f32 = 8.0;

/// A cost for a pair a reading cannot be (an unseen building): never chosen over a
/// duplicate.
const IMPOSSIBLE: f64 = 1e6;

/// For the tiles read on one table (`None`: not matched, e.g. a fountain or a reading off
/// the catalogue), the index in [`catalogue_pairs`] each should be read as: its own best
/// pair unless another tile needs that printed tile more.
pub fn one_of_each(tiles: &[Option<&Choices>]) -> Vec<Option<usize>> {
    let pairs = catalogue_pairs();
    // One column per printed tile (its pair's index), then one "duplicate" column per
    // tile, so that every tile has somewhere to go.
    let printed: Vec<usize> = catalogue()
        .iter()
        .filter_map(|t| pairs.iter().position(|&p| p == (t.building, t.walls)))
        .collect();
    let rows: Vec<(usize, &Choices)> = tiles
        .iter()
        .enumerate()
        .filter_map(|(k, c)| c.map(|c| (k, c)))
        .filter(|(_, c)| {
            pairs
                .get(c.best())
                .is_some_and(|p| p.0 != Building::Fountain)
        })
        .collect();
    let mut out: Vec<Option<usize>> = tiles.iter().map(|c| c.map(Choices::best)).collect();
    if rows.is_empty() {
        return out;
    }
    let columns = printed.len() + rows.len();
    let mut costs = Vec::with_capacity(rows.len() * columns);
    for (_, c) in &rows {
        let top = c.scored.get(c.best()).copied().unwrap_or(0.0);
        for &k in &printed {
            let loss = c
                .scored
                .get(k)
                .map(|&s| f64::from(top - s))
                .filter(|l| l.is_finite())
                .unwrap_or(IMPOSSIBLE);
            costs.push(loss.min(IMPOSSIBLE));
        }
        costs.extend(std::iter::repeat_n(f64::from(DUPLICATE_COST), rows.len()));
    }
    let Some(taken) = cheapest_assignment(&costs, rows.len(), columns) else {
        return out;
    };
    for ((k, _), column) in rows.iter().zip(taken) {
        // A duplicate column keeps the tile's own best pair.
        if let Some(&pair) = printed.get(column) {
            out[*k] = Some(pair);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alhambra_engine::Walls;

    /// Choices that score `pair` 0, each listed other pair its given score, the rest -20.
    fn choices(scores: &[((Building, Walls), f32)]) -> Choices {
        let scored = catalogue_pairs()
            .iter()
            .map(|p| {
                scores
                    .iter()
                    .find(|(q, _)| q == p)
                    .map_or(-20.0, |&(_, s)| s)
            })
            .collect();
        Choices {
            scored,
            odds: [0.0; 4],
            building_odds: [[0.0; 4]; 7],
            free: scores[0].0,
            free_score: scores[0].1,
        }
    }

    fn index(pair: (Building, Walls)) -> usize {
        catalogue_pairs()
            .iter()
            .position(|&p| p == pair)
            .expect("a catalogue pair")
    }

    fn walls(text: &str) -> Walls {
        Walls::from_letters(text).expect("walls")
    }

    #[test]
    fn of_two_tiles_read_as_one_printed_tile_the_less_sure_changes() {
        let north = (Building::Pavilion, walls("N"));
        let bare = (Building::Pavilion, walls("-"));
        // Both look most like the pavilion walled north; the second would lose less by
        // being the bare pavilion (its north wall is in doubt).
        let sure = choices(&[(north, 0.0), (bare, -5.0)]);
        let unsure = choices(&[(north, 0.0), (bare, -1.0)]);
        let read = one_of_each(&[Some(&sure), Some(&unsure)]);
        assert_eq!(read, vec![Some(index(north)), Some(index(bare))]);
    }

    #[test]
    fn a_pair_read_clearly_twice_stays_twice_and_untouched_tiles_keep_their_best() {
        let north = (Building::Pavilion, walls("N"));
        let bare = (Building::Pavilion, walls("-"));
        let tower = (Building::Tower, walls("-"));
        let a = choices(&[(north, 0.0), (bare, -12.0)]);
        let b = choices(&[(north, 0.0), (bare, -10.0)]);
        let c = choices(&[(tower, 0.0)]);
        let read = one_of_each(&[Some(&a), None, Some(&b), Some(&c)]);
        assert_eq!(
            read,
            vec![
                Some(index(north)),
                None,
                Some(index(north)),
                Some(index(tower))
            ]
        );
    }

    #[test]
    fn a_pair_printed_twice_may_be_read_twice() {
        // The game prints two towers without walls.
        let bare_tower = (Building::Tower, walls("-"));
        let a = choices(&[(bare_tower, 0.0)]);
        let read = one_of_each(&[Some(&a), Some(&a)]);
        assert_eq!(read, vec![Some(index(bare_tower)); 2]);
    }
}
