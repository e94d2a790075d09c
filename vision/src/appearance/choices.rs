//! A cell's reading: the catalogue's (building, walls) pairs scored from the building's
//! and each side's evidence, the best pair with its confidences, and whether the best
//! reading of each part on its own is a pair the catalogue lacks.

use super::*;

/// A cell's reading: the building and walls with confidences.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The building, in the upright orientation the reading was made in.
    pub building: Building,
    /// Its walls.
    pub walls: Walls,
    /// Probability of the building (0..1).
    pub building_confidence: f32,
    /// Probability of each side's reading (north, east, south, west).
    pub side_confidence: [f32; 4],
    /// Whether (building, walls) exists in the base game's catalogue.
    pub in_catalogue: bool,
}

impl Reading {
    /// How sure the reading is of the whole tile: the building's probability times the
    /// least sure side's (a fountain has no walls by definition: only its building counts).
    pub fn confidence(&self) -> f32 {
        let side = if self.building == Building::Fountain {
            1.0
        } else {
            self.side_confidence.iter().copied().fold(1.0f32, f32::min)
        };
        self.building_confidence * side
    }
}

/// The (building, walls) pairs a cell may be read as: the fountain (wall-less) first, then
/// every pair the base game's catalogue has, each once, in catalogue order.
pub fn catalogue_pairs() -> &'static [(Building, Walls)] {
    static PAIRS: OnceLock<Vec<(Building, Walls)>> = OnceLock::new();
    PAIRS.get_or_init(|| {
        let mut pairs = vec![(Building::Fountain, Walls::NONE)];
        for t in catalogue() {
            if !pairs.contains(&(t.building, t.walls)) {
                pairs.push((t.building, t.walls));
            }
        }
        pairs
    })
}

/// A pair off the catalogue is read only when it beats every catalogue pair by this much
/// (on the reading's tempered log scale), and is then flagged.
const NOT_IN_CATALOGUE_MARGIN: f32 = 6.0;

/// Everything a reading of one upright cell weighs: each of [`catalogue_pairs`]'s score
/// (tempered log-likelihood, higher is likelier), the per-side wall log-odds, and the best
/// pair regardless of the catalogue.
#[derive(Debug, Clone, PartialEq)]
pub struct Choices {
    /// Score of each catalogue pair, in [`catalogue_pairs`] order.
    pub scored: Vec<f32>,
    /// Log-odds of a wall on each side (north, east, south, west), whatever the building.
    pub odds: [f32; 4],
    /// The same for each building (`Building::ALL` order): see
    /// [`Profile::side_log_odds_by_building`].
    pub building_odds: [[f32; 4]; 7],
    /// The likeliest building with each side read on its own.
    pub free: (Building, Walls),
    /// Its score.
    pub free_score: f32,
}

impl Choices {
    /// The index of the best-scoring catalogue pair.
    pub fn best(&self) -> usize {
        (0..self.scored.len())
            .max_by(|&a, &b| self.scored[a].total_cmp(&self.scored[b]))
            .unwrap_or(0)
    }

    /// The same choices with each side's log-odds of a wall moved by `general` (whatever
    /// the building) and `by_building` (each building's): the pairs' scores move with
    /// their sides' odds, their buildings' part unchanged (see [`Profile::choices`]).
    pub fn with_side_odds_moved(&self, general: [f32; 4], by_building: [[f32; 4]; 7]) -> Choices {
        let mut building_odds = self.building_odds;
        for (odds, by) in building_odds.iter_mut().zip(&by_building) {
            for (o, d) in odds.iter_mut().zip(by) {
                *o += d;
            }
        }
        let moved = |pair: (Building, Walls)| {
            side_score(&building_odds, pair) - side_score(&self.building_odds, pair)
        };
        let scored = catalogue_pairs()
            .iter()
            .zip(&self.scored)
            .map(|(&pair, s)| s + moved(pair))
            .collect();
        let (free_b, _) = self.free;
        let free_w = free_walls(&building_odds, free_b);
        let free_score = self.free_score - side_score(&self.building_odds, self.free)
            + side_score(&building_odds, (free_b, free_w));
        let mut odds = self.odds;
        for (o, d) in odds.iter_mut().zip(&general) {
            *o += d;
        }
        Choices {
            scored,
            odds,
            building_odds,
            free: (free_b, free_w),
            free_score,
        }
    }

    /// The reading: the best catalogue pair, unless a pair off the catalogue is far
    /// likelier (then that, flagged, with an even building confidence).
    pub fn reading(&self) -> Reading {
        let best = self.best();
        match self.scored.get(best) {
            Some(&s) if self.free_score <= s + NOT_IN_CATALOGUE_MARGIN => self.reading_as(best),
            _ => self.reading_of(self.free, false),
        }
    }

    /// The reading as catalogue pair `k` (see [`catalogue_pairs`]), with the confidences
    /// the scores give it: low where the pair goes against the cell's own look.
    pub fn reading_as(&self, k: usize) -> Reading {
        let pair = catalogue_pairs()
            .get(k)
            .copied()
            .unwrap_or((Building::Fountain, Walls::NONE));
        self.reading_of(pair, true)
    }

    fn reading_of(&self, (building, walls): (Building, Walls), in_catalogue: bool) -> Reading {
        // The building marginalised over pairs; each side from its own band.
        let max = self
            .scored
            .iter()
            .copied()
            .fold(f32::NEG_INFINITY, f32::max);
        let mut per_building = [0f32; 7];
        let mut total = 0f32;
        for (p, s) in catalogue_pairs().iter().zip(&self.scored) {
            let w = (s - max).exp();
            per_building[p.0 as usize] += w;
            total += w;
        }
        let building_confidence = if in_catalogue {
            per_building[building as usize] / total.max(1e-12)
        } else {
            0.5
        };
        let odds = self.building_odds[building as usize];
        let side_confidence = Side::ALL.map(|s| {
            let p_wall = 1.0 / (1.0 + (-odds[s as usize]).exp());
            if walls.has(s) { p_wall } else { 1.0 - p_wall }
        });
        Reading {
            building,
            walls,
            building_confidence,
            side_confidence,
            in_catalogue,
        }
    }
}

/// A pair's part of its score from its sides: a quarter of each side's log-odds of a wall
/// (`odds`, per building), for a side the pair walls, against one it leaves open (on the
/// building's tempered scale, see [`Profile::choices`]).
pub(super) fn side_score(odds: &[[f32; 4]; 7], (b, w): (Building, Walls)) -> f32 {
    Side::ALL
        .iter()
        .map(|&s| {
            let o = odds[b as usize][s as usize] / 4.0;
            if w.has(s) { o } else { -o }
        })
        .sum()
}

/// The walls of building `b` with each side read on its own from `odds` (per building);
/// none for the fountain, whatever its art's borders look like.
pub(super) fn free_walls(odds: &[[f32; 4]; 7], b: Building) -> Walls {
    if b == Building::Fountain {
        return Walls::NONE;
    }
    Walls::of(
        &Side::ALL
            .into_iter()
            .filter(|&s| odds[b as usize][s as usize] > 0.0)
            .collect::<Vec<_>>(),
    )
}
