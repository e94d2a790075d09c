//! Scoring rounds: majority points per building type (ties share the places they occupy)
//! and the longest outer wall, with a breakdown per player and type.

use crate::alhambra::Alhambra;
use crate::building::Building;
use crate::wall::{LongestWall, longest_wall};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// One of the three scoring rounds: the two scoring cards, then the game end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub enum ScoringRound {
    /// The first scoring card: 1st place only.
    First,
    /// The second scoring card: 1st and 2nd.
    Second,
    /// Game end: 1st, 2nd and 3rd.
    Third,
}

/// Points per place, per scoring type (pavilion..tower), per round.
const PAYOUT: [[&[u32]; 6]; 3] = [
    [&[1], &[2], &[3], &[4], &[5], &[6]],
    [&[8, 1], &[9, 2], &[10, 3], &[11, 4], &[12, 5], &[13, 6]],
    [
        &[16, 8, 1],
        &[17, 9, 2],
        &[18, 10, 3],
        &[19, 11, 4],
        &[20, 12, 5],
        &[21, 13, 6],
    ],
];

impl ScoringRound {
    /// The three rounds in order.
    pub const ALL: [ScoringRound; 3] = [
        ScoringRound::First,
        ScoringRound::Second,
        ScoringRound::Third,
    ];

    /// Round 1, 2 or 3.
    pub fn from_number(n: u8) -> Option<ScoringRound> {
        match n {
            1 => Some(ScoringRound::First),
            2 => Some(ScoringRound::Second),
            3 => Some(ScoringRound::Third),
            _ => None,
        }
    }

    /// 1, 2 or 3.
    pub fn number(self) -> u8 {
        self as u8 + 1
    }

    /// The points this round pays for a building type, 1st place first. Empty for the
    /// fountain.
    pub fn payout(self, building: Building) -> &'static [u32] {
        building
            .scoring_index()
            .map_or(&[], |i| PAYOUT[self as usize][i])
    }
}

impl TryFrom<u8> for ScoringRound {
    type Error = String;
    fn try_from(n: u8) -> Result<Self, Self::Error> {
        ScoringRound::from_number(n).ok_or_else(|| format!("round {n} does not exist (1, 2 or 3)"))
    }
}

impl From<ScoringRound> for u8 {
    fn from(r: ScoringRound) -> u8 {
        r.number()
    }
}

impl fmt::Display for ScoringRound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "round {}", self.number())
    }
}

/// A value for each of the six scoring types, serialised as a map in catalogue order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(from = "PerBuildingFields")]
pub struct PerBuilding(pub [u32; 6]);

impl PerBuilding {
    /// The value for a type (0 for the fountain).
    pub fn get(&self, building: Building) -> u32 {
        building.scoring_index().map_or(0, |i| self.0[i])
    }

    /// The sum over all six types.
    pub fn sum(&self) -> u32 {
        self.0.iter().sum()
    }
}

impl Serialize for PerBuilding {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(6))?;
        for (b, v) in Building::SCORING.iter().zip(self.0) {
            map.serialize_entry(b.name(), &v)?;
        }
        map.end()
    }
}

#[derive(Deserialize)]
struct PerBuildingFields {
    #[serde(default)]
    pavilion: u32,
    #[serde(default)]
    seraglio: u32,
    #[serde(default)]
    arcades: u32,
    #[serde(default)]
    chambers: u32,
    #[serde(default)]
    garden: u32,
    #[serde(default)]
    tower: u32,
}

impl From<PerBuildingFields> for PerBuilding {
    fn from(f: PerBuildingFields) -> Self {
        PerBuilding([
            f.pavilion, f.seraglio, f.arcades, f.chambers, f.garden, f.tower,
        ])
    }
}

/// Majority points for one round: `counts[p]` holds player p's tiles per scoring type.
///
/// For each type, players with at least one tile are ranked by count; tied players add up
/// the points of the places they occupy (0 beyond the places the round pays), share them
/// rounded down, and the next player takes the place after them (1, 1, 3).
pub fn majority_points(round: ScoringRound, counts: &[[u32; 6]]) -> Vec<PerBuilding> {
    let mut points = vec![PerBuilding::default(); counts.len()];
    let mut order: Vec<usize> = Vec::with_capacity(counts.len());
    for (t, &building) in Building::SCORING.iter().enumerate() {
        let payout = round.payout(building);
        order.clear();
        order.extend((0..counts.len()).filter(|&p| counts[p][t] > 0));
        order.sort_by(|&a, &b| counts[b][t].cmp(&counts[a][t]));
        let mut place = 0;
        while place < order.len() {
            let count = counts[order[place]][t];
            let tied = order[place..]
                .iter()
                .take_while(|&&p| counts[p][t] == count)
                .count();
            let pool: u32 = (place..place + tied)
                .map(|i| payout.get(i).copied().unwrap_or(0))
                .sum();
            for &p in &order[place..place + tied] {
                points[p].0[t] = pool / tied as u32;
            }
            place += tied;
        }
    }
    points
}

/// One player's result of a scoring round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlayerScore {
    /// The player's name.
    pub name: String,
    /// Majority points per type (0 where none scored).
    pub buildings: PerBuilding,
    /// The longest outer wall, which is also its points.
    pub wall: u32,
    /// The round's sum.
    pub total: u32,
    /// The wall itself, for drawing.
    #[serde(skip)]
    pub longest_wall: LongestWall,
    /// Tiles per type, for the breakdown.
    #[serde(skip)]
    pub counts: PerBuilding,
}

/// A whole round's result, in the JSON form of CONTRACTS.md.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoundScore {
    /// 1, 2 or 3.
    pub round: ScoringRound,
    /// Every player, in the order given.
    pub players: Vec<PlayerScore>,
}

/// Scores a round for every player's Alhambra (reserve tiles are not part of it).
pub fn score_round(round: ScoringRound, players: &[(&str, &Alhambra)]) -> RoundScore {
    let counts: Vec<[u32; 6]> = players.iter().map(|(_, a)| a.building_counts()).collect();
    let majority = majority_points(round, &counts);
    let players = players
        .iter()
        .zip(majority)
        .zip(&counts)
        .map(|(((name, alhambra), buildings), counts)| {
            let longest_wall = longest_wall(alhambra);
            let wall = longest_wall.length;
            PlayerScore {
                name: (*name).to_owned(),
                buildings,
                wall,
                total: buildings.sum() + wall,
                longest_wall,
                counts: PerBuilding(*counts),
            }
        })
        .collect();
    RoundScore { round, players }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOWER: usize = 5;

    fn towers(counts: &[u32]) -> Vec<[u32; 6]> {
        counts.iter().map(|&c| [0, 0, 0, 0, 0, c]).collect()
    }

    fn tower_points(round: ScoringRound, counts: &[u32]) -> Vec<u32> {
        majority_points(round, &towers(counts))
            .iter()
            .map(|p| p.0[TOWER])
            .collect()
    }

    #[test]
    fn the_payout_table_of_the_rules() {
        use Building::*;
        assert_eq!(ScoringRound::First.payout(Pavilion), &[1]);
        assert_eq!(ScoringRound::First.payout(Tower), &[6]);
        assert_eq!(ScoringRound::Second.payout(Arcades), &[10, 3]);
        assert_eq!(ScoringRound::Third.payout(Chambers), &[19, 11, 4]);
        assert_eq!(ScoringRound::Third.payout(Garden), &[20, 12, 5]);
        assert!(ScoringRound::Third.payout(Fountain).is_empty());
    }

    #[test]
    fn the_japanese_example_two_tied_first_and_a_third() {
        // Final round, towers: two tied first share (21+13)/2 = 17, the third gets 6.
        assert_eq!(
            tower_points(ScoringRound::Third, &[4, 4, 2]),
            vec![17, 17, 6]
        );
    }

    #[test]
    fn a_tie_for_third_shares_third_place_and_beyond() {
        // 3rd pays 6; the 4th place the tie occupies pays nothing: 6/2 = 3.
        assert_eq!(
            tower_points(ScoringRound::Third, &[5, 4, 2, 2]),
            vec![21, 13, 3, 3]
        );
        // Three tied for second in round 2: (6 + 0 + 0) / 3 = 2.
        assert_eq!(
            tower_points(ScoringRound::Second, &[5, 3, 3, 3]),
            vec![13, 2, 2, 2]
        );
    }

    #[test]
    fn rounding_down() {
        // Three tied first in round 3: (21 + 13 + 6) / 3 = 13.33 -> 13.
        assert_eq!(
            tower_points(ScoringRound::Third, &[2, 2, 2]),
            vec![13, 13, 13]
        );
        // Two tied first in round 1: 6 / 2 = 3; the next player is 3rd, unpaid.
        assert_eq!(tower_points(ScoringRound::First, &[2, 2, 1]), vec![3, 3, 0]);
    }

    #[test]
    fn zero_tiles_never_score() {
        assert_eq!(
            tower_points(ScoringRound::Third, &[3, 0, 0]),
            vec![21, 0, 0]
        );
        assert_eq!(tower_points(ScoringRound::Third, &[0, 0]), vec![0, 0]);
        // A lone player with one tile is first, whatever the others (none) do.
        assert_eq!(tower_points(ScoringRound::First, &[0, 1]), vec![0, 6]);
    }

    #[test]
    fn six_players_with_places_after_ties() {
        assert_eq!(
            tower_points(ScoringRound::Third, &[1, 3, 3, 2, 1, 0]),
            vec![0, 17, 17, 6, 0, 0]
        );
    }

    #[test]
    fn score_json_has_every_type() {
        let a = Alhambra::new();
        let s = score_round(ScoringRound::Third, &[("Ana", &a)]);
        let json = serde_json::to_string(&s).expect("serialisable");
        assert_eq!(
            json,
            r#"{"round":3,"players":[{"name":"Ana","buildings":{"pavilion":0,"seraglio":0,"arcades":0,"chambers":0,"garden":0,"tower":0},"wall":0,"total":0}]}"#
        );
    }
}
