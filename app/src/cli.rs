//! The command line of CONTRACTS.md, as clap types.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// The Alhambra table companion: reads every player's Alhambra from a camera, checks the
/// placement rules and scores the rounds.
#[derive(Debug, Parser)]
#[command(name = "alhambra", version, about, max_term_width = 100)]
pub struct Args {
    /// What to do; without one, the companion app opens.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Majority and wall points of a scoring round for every player of a game file.
    Score(ScoreArgs),
    /// The placement rules on one Alhambra: legal, or each violation.
    Check(CheckArgs),
    /// Camera calibration: intrinsics from chessboard photos.
    #[command(subcommand)]
    Calibrate(CalibrateCommand),
    /// Printable marker sheet (ArUco markers, ruler, chessboard), true to scale.
    Markers(crate::markers::MarkersArgs),
}

/// `alhambra calibrate ...`
#[derive(Debug, Subcommand)]
pub enum CalibrateCommand {
    /// Camera matrix and distortion from chessboard (or ChArUco) photos.
    Intrinsics(crate::calibrate::IntrinsicsArgs),
}

/// `alhambra score GAME.json --round N [--json]`
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// The game file: {"players": [{"name": ..., "alhambra": {"tiles": [...]}}, ...]}.
    pub game: PathBuf,
    /// The scoring round: 1, 2 or 3 (3 is the game end).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub round: u8,
    /// Print exactly one JSON document instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// `alhambra check LAYOUT.json [--json]`
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The layout file: {"tiles": [{"x": 0, "y": 0, "building": "fountain"}, ...]}.
    pub layout: PathBuf,
    /// Print exactly one JSON document instead of the report.
    #[arg(long)]
    pub json: bool,
    /// Which empty spaces count as holes.
    #[arg(long, value_enum, default_value_t = HoleArg::AnyRegion)]
    pub holes: HoleArg,
    /// Exit with code 1 when the layout breaks a rule (default: 0, the report says it).
    #[arg(long)]
    pub fail_if_illegal: bool,
}

/// The hole rule on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HoleArg {
    /// Any enclosed empty region, whatever its size (the default; English rules, BGA).
    AnyRegion,
    /// Only single empty cells with tiles on all four sides (strict Japanese reading).
    SingleCell,
}
