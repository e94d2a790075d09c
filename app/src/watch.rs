//! `alhambra watch`: follows a table through a frame source (a camera, a video, a folder
//! of photos, a rendered sequence) with the tracker, and tells each layout accepted and
//! each change with the rules it breaks as it happens (the companion's work, in text);
//! `--json`, one document once the source ends.

use crate::Outcome;
use crate::images::{names_photos, quiet_opencv};
use crate::output::say;
use crate::reading::ReadingArgs;
use alhambra_calibration::camera::write_atomically;
use alhambra_engine::layout::{GameFile, LayoutFile, PlayerEntry};
use alhambra_engine::{Change, Piece, Violation, picture};
use alhambra_vision::source::{Frame, SourceError, open_source};
use alhambra_vision::tracker::{Accepted, Tracker};
use alhambra_vision::{ScanResult, overlay};
use anyhow::{Context, Result, anyhow};
use opencv::imgcodecs;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `watch` reads when no source is named and no camera is found: a rendered table
/// on which a hand lays a tile.
const DEMO: &str = "synthetic:2:tile";

/// `alhambra watch [SOURCE] [--profile P.json] [--camera C.json] [--marker-mm 40 | --sheet S.json]
/// [--hold N] [--frames N] [--game-out GAME.json] [--overlay FILE.png] [--json]`
#[derive(Debug, clap::Args)]
pub struct WatchArgs {
    /// Where the frames come from: `camera` or `camera:N` (a webcam), a video file, a
    /// folder of photos (in name order), a photo, a stream URL, or `synthetic[:SEED[:tile]]`
    /// (a rendered table with a hand passing over it, or putting a tile down). Default:
    /// the camera, or when none is found the rendered demo sequence, saying so.
    #[arg(value_name = "SOURCE")]
    pub source: Option<String>,
    /// How the table is read: profile, camera file, markers' size.
    #[command(flatten)]
    pub reading: ReadingArgs,
    /// Show each frame this many times in a row: for a folder of photos of a table's
    /// successive states (a photo after each turn), each held still for a moment, as the
    /// tracker accepts a layout only once it has read it the same in several calm frames.
    /// Default 1 (the frames of a video).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub hold: u32,
    /// Stop after this many frames (default: when the source ends; a camera runs until
    /// the program is stopped).
    #[arg(long, value_name = "N")]
    pub frames: Option<u64>,
    /// Keep this game file (what `alhambra score` reads) up to date: every Alhambra's
    /// accepted layout, a player each ("Alhambra 0", "Alhambra 1", ... by order of first
    /// sight), written anew after each acceptance (to a temporary file, then renamed).
    #[arg(long, value_name = "GAME.json")]
    pub game_out: Option<PathBuf>,
    /// Write the last frame read with what was read drawn over it (each tile in its
    /// building's colour, walls dark) to this PNG or JPEG after each read, replacing it
    /// (to a temporary file, then renamed): an image viewer that reloads shows it live.
    #[arg(long, value_name = "FILE.png")]
    pub overlay: Option<PathBuf>,
    /// Print exactly one JSON document once the source ends, instead of telling each
    /// acceptance as it happens.
    #[arg(long)]
    pub json: bool,
}

/// One change of an accepted layout, for the JSON document.
#[derive(Debug, Serialize)]
struct ChangeEntry {
    /// "added", "removed" or "exchanged".
    change: &'static str,
    x: i32,
    y: i32,
    /// The tile there after the change (before it, for a tile taken away).
    building: alhambra_engine::Building,
    walls: alhambra_engine::Walls,
    /// For a tile exchanged: what lay there before.
    #[serde(skip_serializing_if = "Option::is_none")]
    replaced: Option<alhambra_engine::Building>,
    /// The rules it broke on the layout just before it; empty when legal.
    violations: Vec<Violation>,
}

impl ChangeEntry {
    fn of(report: &alhambra_vision::tracker::ChangeReport) -> ChangeEntry {
        let (change, p, piece, replaced): (_, _, Piece, _) = match report.change {
            Change::Added(p, t) => ("added", p, t, None),
            Change::Removed(p, t) => ("removed", p, t, None),
            Change::Swapped(p, before, after) => ("exchanged", p, after, Some(before.building)),
        };
        ChangeEntry {
            change,
            x: p.x,
            y: p.y,
            building: piece.building,
            walls: piece.walls,
            replaced,
            violations: report.violations.clone(),
        }
    }
}

/// One acceptance, for the JSON document.
#[derive(Debug, Serialize)]
struct AcceptedEntry {
    frame: u64,
    alhambra: usize,
    /// Its first accepted layout (no changes then).
    initial: bool,
    changes: Vec<ChangeEntry>,
    /// Walls read otherwise on tiles that kept their building, as (before, after) tiles.
    corrections: usize,
    layout: LayoutFile,
    /// The rules the layout now accepted breaks as a whole.
    violations: Vec<Violation>,
}

/// The document `--json` prints.
#[derive(Debug, Serialize)]
struct WatchReport {
    source: String,
    frames: u64,
    /// Frames scanned (the others showed motion, or nothing new).
    frames_read: u64,
    /// Of those, scanned whole (the others read from the scan before, see the tracker).
    frames_read_whole: u64,
    accepted: Vec<AcceptedEntry>,
    /// Every Alhambra's last accepted layout.
    alhambras: Vec<FinalEntry>,
}

#[derive(Debug, Serialize)]
struct FinalEntry {
    id: usize,
    fountain_px: [f64; 2],
    layout: Option<LayoutFile>,
}

/// Follows the source to its end (or `--frames`), telling each acceptance.
pub fn run(args: &WatchArgs) -> Result<Outcome> {
    quiet_opencv();
    let reader = args.reading.reader()?;
    // Said now rather than at the first acceptance, minutes into a game.
    for path in args.game_out.iter().chain(&args.overlay) {
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !dir.is_dir() {
            anyhow::bail!(
                "{}: cannot write there: {} is not a folder",
                path.display(),
                dir.display()
            );
        }
    }
    if let Some(path) = &args.overlay {
        let picture = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| ["png", "jpg", "jpeg"].contains(&e.to_ascii_lowercase().as_str()));
        if !picture {
            anyhow::bail!("{}: the overlay is a .png or .jpg picture", path.display());
        }
    }
    let mut source = match &args.source {
        Some(spec) => open_source(spec).map_err(|e| anyhow!("{e}"))?,
        None => match open_source("camera") {
            Err(SourceError::NoCamera(why)) => {
                // The first clause: what was looked for (the rest says what to do instead).
                let why = why.split(';').next().unwrap_or("no camera found");
                eprintln!("alhambra: {why}; watching the rendered demo sequence ({DEMO}) instead");
                open_source(DEMO).map_err(|e| anyhow!("{e}"))?
            }
            other => other.map_err(|e| anyhow!("{e}"))?,
        },
    };
    let mut tracker = Tracker::new(reader.scanner.clone());
    let described = source.describe();
    if !args.json {
        say!("watching {described}")?;
    }
    let started = Instant::now();
    let (mut frames, mut read, mut read_whole) = (0u64, 0u64, 0u64);
    let mut accepted = Vec::new();
    // The frame being held (see --hold) and how many more times it is shown.
    let mut held: Option<(Frame, u32)> = None;
    while args.frames.is_none_or(|n| frames < n) {
        let mut frame = match held.take() {
            Some((frame, more)) if more > 0 => {
                held = Some((frame.clone(), more - 1));
                frame
            }
            _ => {
                let Some(frame) = source
                    .next_frame()
                    .with_context(|| format!("{described}: cannot read a frame"))?
                else {
                    break;
                };
                if args.hold > 1 {
                    held = Some((frame.clone(), args.hold - 1));
                }
                frame
            }
        };
        frame.index = frames;
        let what = format!("frame {}", frame.index);
        frame.image = reader.undistorted(frame.image, &what)?;
        let update = tracker
            .push(&frame)
            .map_err(|e| anyhow!("{described}: frame {}: {e}", frame.index))?;
        frames += 1;
        if let (Some(path), Some(scan)) = (&args.overlay, &update.scan) {
            write_overlay(path, &frame.image, &scan.to_result(&described))?;
        }
        if update.scan.is_some() {
            read += 1;
            read_whole += u64::from(update.scanned_whole);
        }
        if !update.accepted.is_empty()
            && let Some(path) = &args.game_out
        {
            save_game(path, &tracker)?;
        }
        for a in &update.accepted {
            if !args.json {
                let seconds = started.elapsed().as_secs_f64();
                say!("{}", tell(frame.index, seconds, a))?;
            }
            accepted.push(AcceptedEntry {
                frame: frame.index,
                alhambra: a.id,
                initial: a.initial,
                changes: a.changes.iter().map(ChangeEntry::of).collect(),
                corrections: a.corrections.len(),
                layout: LayoutFile::from_alhambra(&a.layout),
                violations: a.layout.check(),
            });
        }
    }
    let states = tracker.alhambras();
    if args.json {
        let report = WatchReport {
            source: described,
            frames,
            frames_read: read,
            frames_read_whole: read_whole,
            accepted,
            alhambras: states
                .iter()
                .map(|s| FinalEntry {
                    id: s.id,
                    fountain_px: s.fountain_px,
                    layout: s.accepted.as_ref().map(LayoutFile::from_alhambra),
                })
                .collect(),
        };
        say!("{}", serde_json::to_string(&report)?)?;
    } else {
        say!(
            "{frames} frames, {read} read ({read_whole} whole), in {:.1} s",
            started.elapsed().as_secs_f64()
        )?;
        // A folder or a photo (a video's frames follow one another).
        let photos = args.source.as_deref().is_some_and(names_photos);
        if accepted.is_empty() && args.hold == 1 && photos {
            say!(
                "nothing was read the same in enough calm frames to be accepted; for photos \
                 of successive states (one after each turn), hold each: --hold 5"
            )?;
        }
        for s in &states {
            match &s.accepted {
                Some(layout) => say!(
                    "Alhambra {} (fountain at {:.0},{:.0}):\n{}",
                    s.id,
                    s.fountain_px[0],
                    s.fountain_px[1],
                    picture::draw(layout)
                )?,
                None => say!("Alhambra {}: never read steadily", s.id)?,
            }
        }
    }
    Ok(Outcome::Done)
}

/// Writes `frame` with `read` drawn over it to `path` (through a temporary file beside
/// it with the same extension, renamed over it).
fn write_overlay(path: &Path, frame: &opencv::core::Mat, read: &ScanResult) -> Result<()> {
    let picture = overlay::draw(frame, read, None)
        .with_context(|| format!("{}: cannot draw the overlay", path.display()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "overlay.png".into());
    let tmp = path.with_file_name(format!(".tmp{}-{name}", std::process::id()));
    let written = imgcodecs::imwrite(
        tmp.to_string_lossy().as_ref(),
        &picture,
        &opencv::core::Vector::new(),
    )
    .unwrap_or(false);
    if !written {
        let _ = std::fs::remove_file(&tmp);
        anyhow::bail!(
            "{}: cannot write the overlay (a .png or .jpg in an existing folder)",
            path.display()
        );
    }
    std::fs::rename(&tmp, path).with_context(|| format!("{}: cannot write", path.display()))
}

/// Writes the game file of every Alhambra's accepted layout to `path`.
fn save_game(path: &Path, tracker: &Tracker) -> Result<()> {
    let game = GameFile {
        players: tracker
            .alhambras()
            .iter()
            .filter_map(|s| {
                s.accepted.as_ref().map(|layout| PlayerEntry {
                    name: format!("Alhambra {}", s.id),
                    alhambra: LayoutFile::from_alhambra(layout),
                })
            })
            .collect(),
    };
    let text = serde_json::to_string_pretty(&game)? + "\n";
    write_atomically(path, text.as_bytes()).map_err(|e| anyhow!("{e}"))
}

/// An acceptance in words, each line headed by the frame, the time and the Alhambra.
fn tell(frame: u64, seconds: f64, a: &Accepted) -> String {
    let at = format!("frame {frame} ({seconds:.1} s): Alhambra {}", a.id);
    let lines = crate::telling::tell(a);
    if lines.is_empty() {
        return format!("{at}: accepted again, unchanged");
    }
    lines
        .iter()
        .map(|l| format!("{at}: {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
