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
    /// The companion app's frames (without a command): `camera:N`, a video file, a folder
    /// of photos, a stream URL or `synthetic[:SEED[:tile]]`. Default: the camera, or the
    /// demo footage when none is found.
    #[arg(long, value_name = "SOURCE")]
    pub source: Option<String>,
    /// The companion app's options (without a command).
    #[command(flatten)]
    pub companion: crate::companion::CompanionArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Majority and wall points of a scoring round for every player of a game file.
    Score(ScoreArgs),
    /// The placement rules on one Alhambra: legal, or each violation.
    Check(CheckArgs),
    /// Every Alhambra in table photos: the grids of tiles with their walls.
    Scan(crate::scan::ScanArgs),
    /// Calibration: camera intrinsics from chessboard photos, tile appearance from labelled
    /// photos.
    #[command(subcommand)]
    Calibrate(CalibrateCommand),
    /// Printable marker sheet (ArUco markers, ruler, chessboard), true to scale.
    Markers(crate::markers::MarkersArgs),
    /// Synthetic table photos with their ground-truth labels.
    Synth(crate::synth::SynthArgs),
    /// Accuracy and speed of `scan` over a folder of labelled photos.
    Eval(crate::eval::EvalArgs),
    /// Follows a table through a camera, a video, a folder of photos or a rendered
    /// sequence: each layout accepted, each change with the rules it breaks, as it happens.
    Watch(crate::watch::WatchArgs),
    /// The companion app on the demo footage: a rendered table on which a hand lays a tile.
    Demo(crate::companion::CompanionArgs),
}

/// `alhambra calibrate ...`
#[derive(Debug, Subcommand)]
pub enum CalibrateCommand {
    /// Camera matrix and distortion from chessboard (or ChArUco) photos.
    Intrinsics(crate::calibrate::IntrinsicsArgs),
    /// How this tile set looks under this light, learned from labelled photos.
    Appearance(crate::appearance::AppearanceArgs),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("alhambra").chain(args.iter().copied()))
    }

    #[test]
    fn scan_takes_several_images_and_its_options() {
        let Ok(Args {
            command: Some(Command::Scan(a)),
            ..
        }) = parse(&["scan", "a.jpg", "b.png", "--json", "--marker-mm", "50"])
        else {
            panic!("scan parses");
        };
        assert_eq!(a.images, [PathBuf::from("a.jpg"), PathBuf::from("b.png")]);
        assert!(a.json && a.reading.profile.is_none() && a.debug.is_none());
        assert_eq!(a.reading.marker_mm, 50.0);
        assert!(parse(&["scan"]).is_err(), "an image is required");
        assert!(parse(&["scan", "a.jpg", "--marker-mm", "-4"]).is_err());
    }

    #[test]
    fn calibrate_appearance_takes_one_labels_file_per_image() {
        let Ok(Args {
            command: Some(Command::Calibrate(CalibrateCommand::Appearance(a))),
            ..
        }) = parse(&[
            "calibrate",
            "appearance",
            "a.jpg",
            "b.jpg",
            "--labels",
            "a.json",
            "b.json",
            "--out",
            "p.json",
        ])
        else {
            panic!("calibrate appearance parses");
        };
        assert_eq!(a.images.len(), 2);
        assert_eq!(a.labels, [PathBuf::from("a.json"), PathBuf::from("b.json")]);
        assert_eq!(a.marker_mm, 40.0);
        assert!(
            parse(&["calibrate", "appearance", "a.jpg"]).is_err(),
            "--out"
        );
    }

    #[test]
    fn synth_and_eval_defaults() {
        let Ok(Args {
            command: Some(Command::Synth(s)),
            ..
        }) = parse(&["synth", "--seed", "7", "--out", "d"])
        else {
            panic!("synth parses");
        };
        assert_eq!((s.seed, s.count, s.players), (7, 1, None));
        assert_eq!(s.difficulty, crate::synth::DifficultyArg::Normal);
        assert_eq!(s.laying, crate::synth::LayingArg::Neat);
        assert!(parse(&["synth", "--seed", "1", "--out", "d", "--laying", "loose"]).is_ok());
        assert!(parse(&["synth", "--seed", "1", "--out", "d", "--players", "0"]).is_err());
        assert!(parse(&["synth", "--seed", "1", "--out", "d", "--count", "0"]).is_err());
        let Ok(Args {
            command: Some(Command::Eval(e)),
            ..
        }) = parse(&["eval", "photos", "--json"])
        else {
            panic!("eval parses");
        };
        assert!(e.json && e.profile.is_none());
        assert_eq!(e.marker_mm, 40.0);
    }
}
