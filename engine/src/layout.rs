//! The JSON files of CONTRACTS.md at the engine's edge: a layout (one Alhambra), a game
//! (players with their Alhambras) and the check report.

use crate::alhambra::{Alhambra, LayoutError, Piece};
use crate::building::Building;
use crate::pos::Pos;
use crate::rules::Violation;
use crate::side::Walls;
use serde::{Deserialize, Serialize};

/// One tile of a layout file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileEntry {
    /// Cells east of the fountain.
    pub x: i32,
    /// Cells south of the fountain.
    pub y: i32,
    /// The building.
    pub building: Building,
    /// The walled sides; omitted for none.
    #[serde(default, skip_serializing_if = "is_none")]
    pub walls: Walls,
}

fn is_none(w: &Walls) -> bool {
    *w == Walls::NONE
}

/// A layout file: one Alhambra.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LayoutFile {
    /// Every tile, the fountain included.
    #[serde(deserialize_with = "crate::object::objects")]
    pub tiles: Vec<TileEntry>,
}

impl LayoutFile {
    /// The Alhambra this file describes (which may break rules); an error for what cannot be
    /// an Alhambra at all (two tiles on a cell, a walled fountain, a cell absurdly far).
    pub fn to_alhambra(&self) -> Result<Alhambra, LayoutError> {
        Alhambra::from_pieces(
            self.tiles
                .iter()
                .map(|t| (Pos::new(t.x, t.y), Piece::new(t.building, t.walls))),
        )
    }

    /// The file form of an Alhambra.
    pub fn from_alhambra(alhambra: &Alhambra) -> LayoutFile {
        LayoutFile {
            tiles: alhambra
                .tiles()
                .map(|(p, t)| TileEntry {
                    x: p.x,
                    y: p.y,
                    building: t.building,
                    walls: t.walls,
                })
                .collect(),
        }
    }
}

/// One player of a game file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerEntry {
    /// The player's name.
    pub name: String,
    /// Their Alhambra.
    #[serde(deserialize_with = "crate::object::object")]
    pub alhambra: LayoutFile,
}

/// The most players a game has (and fountains in the box).
pub const MOST_PLAYERS: usize = 6;

/// A game file: the players and their Alhambras.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GameFile {
    /// The players, in seating order.
    #[serde(deserialize_with = "crate::object::objects")]
    pub players: Vec<PlayerEntry>,
}

/// What is wrong with a game file as a whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// No player at all.
    #[error("the game names no player")]
    NoPlayers,
    /// Two players share a name.
    #[error("two players are called {0:?}")]
    SameName(String),
    /// A player's layout is malformed.
    #[error("{name}'s Alhambra: {error}")]
    Layout {
        /// Whose.
        name: String,
        /// What.
        error: LayoutError,
    },
}

impl GameFile {
    /// The players' names and Alhambras.
    pub fn to_alhambras(&self) -> Result<Vec<(String, Alhambra)>, GameError> {
        // One Alhambra alone, or more players than the box holds (two games' tiles side
        // by side), still has well-defined points: the places are paid as for any table.
        let n = self.players.len();
        if n == 0 {
            return Err(GameError::NoPlayers);
        }
        let mut out: Vec<(String, Alhambra)> = Vec::with_capacity(n);
        for p in &self.players {
            if out.iter().any(|(name, _)| *name == p.name) {
                return Err(GameError::SameName(p.name.clone()));
            }
            let a = p
                .alhambra
                .to_alhambra()
                .map_err(|error| GameError::Layout {
                    name: p.name.clone(),
                    error,
                })?;
            out.push((p.name.clone(), a));
        }
        Ok(out)
    }
}

/// The `check --json` report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckReport {
    /// No violation at all.
    pub legal: bool,
    /// Every violation, in the engine's order.
    pub violations: Vec<Violation>,
}

impl CheckReport {
    /// The report for an Alhambra.
    pub fn of(alhambra: &Alhambra) -> CheckReport {
        let violations = alhambra.check();
        CheckReport {
            legal: violations.is_empty(),
            violations,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::side::Side;

    #[test]
    fn reads_the_contract_example() {
        let text = r#"{"tiles": [
            {"x": 0, "y": 0, "building": "fountain"},
            {"x": 1, "y": 0, "building": "garden", "walls": ["north", "east"]}
        ]}"#;
        let file: LayoutFile = serde_json::from_str(text).expect("the contract's example");
        let a = file.to_alhambra().expect("well-formed");
        assert_eq!(
            a.get(Pos::new(1, 0)).map(|p| p.walls),
            Some(Walls::of(&[Side::North, Side::East]))
        );
        assert_eq!(LayoutFile::from_alhambra(&a), file);
    }

    #[test]
    fn bad_input_is_an_error() {
        for text in [
            r#"{"tiles": [{"x": 0, "y": 0, "building": "castle"}]}"#,
            r#"{"tiles": [{"x": 0, "y": 0, "building": "garden", "walls": ["up"]}]}"#,
            r#"{"tiles": [{"x": 0, "building": "garden"}]}"#,
            r#"{"tiles": [{"x": 0, "y": 0, "building": "garden"}"#,
            r#"{"tiles": [{"x": 0.5, "y": 0, "building": "garden"}]}"#,
        ] {
            assert!(serde_json::from_str::<LayoutFile>(text).is_err(), "{text}");
        }
        let two: LayoutFile = serde_json::from_str(
            r#"{"tiles": [{"x": 0, "y": 0, "building": "fountain"}, {"x": 0, "y": 0, "building": "garden"}]}"#,
        )
        .expect("parses");
        assert!(two.to_alhambra().is_err());
    }

    #[test]
    fn games_have_distinct_players_one_at_least() {
        let none: GameFile = serde_json::from_str(r#"{"players": []}"#).expect("parses");
        assert_eq!(none.to_alhambras(), Err(GameError::NoPlayers));
        let one: GameFile =
            serde_json::from_str(r#"{"players": [{"name": "Ana", "alhambra": {"tiles": []}}]}"#)
                .expect("parses");
        assert_eq!(one.to_alhambras().map(|a| a.len()), Ok(1));
        let same: GameFile = serde_json::from_str(
            r#"{"players": [{"name": "Ana", "alhambra": {"tiles": []}}, {"name": "Ana", "alhambra": {"tiles": []}}]}"#,
        )
        .expect("parses");
        assert_eq!(same.to_alhambras(), Err(GameError::SameName("Ana".into())));
    }
}
