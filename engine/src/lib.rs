//! The game of Alhambra as a library: the tiles and their catalogue, one player's grid
//! (`Alhambra`) with the placement rules and redesign actions, majority and wall scoring,
//! and the score track. Pure Rust with serde at the edges; no camera, no pixels.

pub mod alhambra;
pub mod building;
pub mod catalogue;
pub mod layout;
pub mod object;
pub mod picture;
pub mod pos;
pub mod rules;
pub mod scoring;
pub mod side;
pub mod track;
pub mod wall;

pub use alhambra::{Alhambra, Change, LayoutError, MAX_REACH, Piece};
pub use building::Building;
pub use catalogue::{Currency, MoneyCard, NotPrinted, Tile, catalogue, money_cards};
pub use layout::{
    CheckReport, GameError, GameFile, LayoutFile, MOST_PLAYERS, PlayerEntry, TileEntry,
};
pub use pos::Pos;
pub use rules::{HoleRule, Rule, Rules, Violation};
pub use scoring::{
    PerBuilding, PlayerScore, RoundScore, ScoringRound, majority_points, score_round,
};
pub use side::{Side, Walls};
pub use track::{Outcome, ScoreTrack, TrackError, leftover_tiles};
pub use wall::{LongestWall, Segment, longest_wall};
