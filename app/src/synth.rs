//! `alhambra synth`: renders synthetic table photos with their ground-truth labels
//! (`DIFFICULTY_SEED.jpg` beside `DIFFICULTY_SEED.json`), the same bytes for the same seed.

use crate::Outcome;
use crate::images::flat;
use alhambra_vision::synth::{
    ArtVariety, Difficulty, Laying, SceneOptions, TileSet, WallLook, render, write_scene,
};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// `alhambra synth --seed N --out DIR [--players K] [--difficulty easy|normal|hard] [--walls dark|light] [--tiles iso|plan] [--laying neat|loose] [--art same|varied|centred] [--count C]`
#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    /// Seed of the first photo; everything in a photo follows from its seed.
    #[arg(long)]
    pub seed: u64,
    /// Folder to write into (created if missing): DIFFICULTY_SEED.jpg and .json per photo.
    #[arg(long)]
    pub out: PathBuf,
    /// Players on the table, 1 to 6 (default: 2 to 6, drawn from the seed).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=6))]
    pub players: Option<u8>,
    /// How hard the photos are to read.
    #[arg(long, value_enum, default_value_t = DifficultyArg::Normal)]
    pub difficulty: DifficultyArg,
    /// How the tiles' walls are drawn: this renderer's dark stone, or light stone (another
    /// tile set's look, for checking that one labelled photo teaches any wall)
    #[arg(long, value_enum, default_value_t = WallsArg::Dark)]
    pub walls: WallsArg,
    /// Which tile set: this renderer's own, or a second drawn unlike it in every way (for
    /// checking that one labelled photo teaches tile art the scanner has never seen)
    #[arg(long, value_enum, default_value_t = TilesArg::Iso)]
    pub tiles: TilesArg,
    /// How the tiles are laid: each a little off its cell on its own, or loosely, by hand
    /// against the tiles already down, the small errors adding up across an Alhambra
    #[arg(long, value_enum, default_value_t = LayingArg::Neat)]
    pub laying: LayingArg,
    /// Whether the tiles of one building share their illustration, or each shows its own
    /// (one of three, mirrored or not, shifted a little), as the real game's tiles do
    #[arg(long, value_enum, default_value_t = ArtArg::Same)]
    pub art: ArtArg,
    /// How many photos: seeds N, N+1, ... N+C-1.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub count: u64,
}

/// Wall look on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WallsArg {
    /// Dark brown stone, 7% of a tile wide.
    Dark,
    /// Light sandstone, 10% of a tile wide.
    Light,
}

impl From<WallsArg> for WallLook {
    fn from(w: WallsArg) -> WallLook {
        match w {
            WallsArg::Dark => WallLook::Dark,
            WallsArg::Light => WallLook::Light,
        }
    }
}

/// Laying on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LayingArg {
    /// Each tile off its cell by its own small error.
    Neat,
    /// Errors that add up from the fountain outwards, tiles turned up to 3 degrees.
    Loose,
}

impl From<LayingArg> for Laying {
    fn from(l: LayingArg) -> Laying {
        match l {
            LayingArg::Neat => Laying::Neat,
            LayingArg::Loose => Laying::Loose,
        }
    }
}

/// Illustration variety on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ArtArg {
    /// One illustration per building.
    Same,
    /// Each tile its own illustration, its building shifted up to 6% of the tile.
    Varied,
    /// Each tile its own illustration, centred.
    Centred,
}

impl From<ArtArg> for ArtVariety {
    fn from(a: ArtArg) -> ArtVariety {
        match a {
            ArtArg::Same => ArtVariety::Same,
            ArtArg::Varied => ArtVariety::Varied,
            ArtArg::Centred => ArtVariety::Centred,
        }
    }
}

/// Tile set on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TilesArg {
    /// Isometric illustrations on mottled sand, a drawn rim, octagonal badges.
    Iso,
    /// Buildings seen from above on grey-green paving, crenellated walls, round badges.
    Plan,
}

impl From<TilesArg> for TileSet {
    fn from(t: TilesArg) -> TileSet {
        match t {
            TilesArg::Iso => TileSet::Iso,
            TilesArg::Plan => TileSet::Plan,
        }
    }
}

/// Difficulty on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DifficultyArg {
    /// Near top-down, big tiles, mild light, no hand.
    Easy,
    /// Up to 30 degrees of tilt, moderate light and blur, sometimes a hand.
    Normal,
    /// Steep tilt, small tiles, glare, blur, heavy JPEG, hands often.
    Hard,
}

impl From<DifficultyArg> for Difficulty {
    fn from(d: DifficultyArg) -> Difficulty {
        match d {
            DifficultyArg::Easy => Difficulty::Easy,
            DifficultyArg::Normal => Difficulty::Normal,
            DifficultyArg::Hard => Difficulty::Hard,
        }
    }
}

/// Renders and writes each photo, printing one line per photo.
pub fn run(args: &SynthArgs) -> Result<Outcome> {
    let difficulty = Difficulty::from(args.difficulty);
    let last = args
        .seed
        .checked_add(args.count - 1)
        .context("--seed plus --count goes past the largest seed")?;
    for seed in args.seed..=last {
        let scene = render(&SceneOptions {
            seed,
            players: args.players,
            difficulty,
            walls: args.walls.into(),
            tiles: args.tiles.into(),
            laying: args.laying.into(),
            art: args.art.into(),
            ..SceneOptions::default()
        })
        .map_err(flat)?;
        let name = format!("{difficulty}_{seed}");
        let path = write_scene(&scene, &args.out, &name).map_err(flat)?;
        let labels = &scene.labels;
        let tiles: usize = labels.alhambras.iter().map(|a| a.tiles.len()).sum();
        let meta = |k: &str| labels.meta.get(k).cloned().unwrap_or_default();
        crate::output::print(&format!(
            "{}  {} players, {tiles} tiles, tile {} px, tilt {} deg, markers {} mm, JPEG {}\n",
            path.display(),
            labels.alhambras.len(),
            meta("tile_px"),
            meta("tilt_deg"),
            meta("marker_mm"),
            scene.jpeg_quality,
        ))?;
    }
    Ok(Outcome::Done)
}
