//! The six building types and the fountain, and what a building is worth in each scoring round.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What stands on a tile: the fountain (each player's starting tile) or one of the six
/// building types that score majorities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Building {
    /// The starting tile: no walls, never moved.
    Fountain,
    /// Light blue.
    Pavilion,
    /// Red.
    Seraglio,
    /// Brown.
    Arcades,
    /// White.
    Chambers,
    /// Green.
    Garden,
    /// Purple.
    Tower,
}

impl Building {
    /// The six types that score, cheapest first (the order of the scoring table).
    pub const SCORING: [Building; 6] = [
        Building::Pavilion,
        Building::Seraglio,
        Building::Arcades,
        Building::Chambers,
        Building::Garden,
        Building::Tower,
    ];

    /// Every value, the fountain first.
    pub const ALL: [Building; 7] = [
        Building::Fountain,
        Building::Pavilion,
        Building::Seraglio,
        Building::Arcades,
        Building::Chambers,
        Building::Garden,
        Building::Tower,
    ];

    /// The name used in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Building::Fountain => "fountain",
            Building::Pavilion => "pavilion",
            Building::Seraglio => "seraglio",
            Building::Arcades => "arcades",
            Building::Chambers => "chambers",
            Building::Garden => "garden",
            Building::Tower => "tower",
        }
    }

    /// Parses a file / command-line name.
    pub fn from_name(name: &str) -> Option<Building> {
        Building::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Index in [`Building::SCORING`], `None` for the fountain.
    pub fn scoring_index(self) -> Option<usize> {
        Building::SCORING.iter().position(|&b| b == self)
    }

    /// The colour of the type's price badge (and its colour in the overlay).
    pub fn colour_name(self) -> &'static str {
        match self {
            Building::Fountain => "player colour",
            Building::Pavilion => "light blue",
            Building::Seraglio => "red",
            Building::Arcades => "brown",
            Building::Chambers => "white",
            Building::Garden => "green",
            Building::Tower => "purple",
        }
    }

    /// How many tiles of this type the game has (1 fountain per player).
    pub fn tile_count(self) -> usize {
        match self {
            Building::Fountain => 1,
            Building::Pavilion | Building::Seraglio => 7,
            Building::Arcades | Building::Chambers => 9,
            Building::Garden | Building::Tower => 11,
        }
    }
}

impl fmt::Display for Building {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
