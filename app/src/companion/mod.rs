//! The companion window (`alhambra`, `alhambra demo`): the live picture with every
//! Alhambra drawn over it as the tracker accepts it, the rules each change breaks, the
//! players' corrections of misread tiles (click the tile, click what it is), the scoring
//! rounds and the score track; the game saved after every change.
//!
//! The camera (or the demo footage) is read on the vision worker's thread; the window
//! only draws what the worker last handed over.

mod cells;
mod learning;
mod picture;
mod session;
mod window;
mod worker;

pub use window::Companion;

use crate::Outcome;
use crate::images::{names_photos, quiet_opencv};
use crate::reading::ReadingArgs;
use alhambra_vision::appearance::Profile;
use alhambra_vision::scanner::Scanner;
use alhambra_vision::source::{SourceError, open_source};
use anyhow::{Result, anyhow};
use std::path::PathBuf;

/// What the window shows when no camera is found, and what `alhambra demo` shows: a
/// rendered table on which a hand lays a tile.
pub const DEMO: &str = "synthetic:2:tile";

/// The companion's options (`alhambra [OPTIONS]`, `alhambra demo [OPTIONS]`).
#[derive(Debug, clap::Args)]
pub struct CompanionArgs {
    /// The game file the companion keeps (players, accepted layouts, corrections, score
    /// track), reloaded at the next start. Default: alhambra/session.json in the user's
    /// data folder ($XDG_DATA_HOME, or ~/.local/share).
    #[arg(long, value_name = "FILE.json")]
    pub session: Option<PathBuf>,
    /// Start a new game: the session file is set aside (renamed with a .previous.json
    /// ending) instead of continued.
    #[arg(long)]
    pub new_game: bool,
    /// How the table is read: profile, camera file, markers' size.
    #[command(flatten)]
    pub reading: ReadingArgs,
    /// Read no more than this many frames (the window stays open on the last one).
    #[arg(long, value_name = "N")]
    pub frames: Option<u64>,
    /// Close the window once the frames are read (with --frames, or at the source's end):
    /// for scripted runs.
    #[arg(long)]
    pub close_when_done: bool,
}

/// Where the profile learned from the players' corrections is kept: beside the session
/// file, named after it.
fn learned_profile_path(session: &std::path::Path) -> PathBuf {
    let stem = session
        .file_stem()
        .map_or_else(|| "session".into(), |s| s.to_string_lossy().into_owned());
    session.with_file_name(format!("{stem}.profile.json"))
}

/// Which frames the window shows.
pub enum Source {
    /// The camera; the demo footage when none is found, saying so.
    CameraOrDemo,
    /// The demo footage.
    Demo,
    /// A named source (see `watch`).
    Named(String),
}

/// Opens the window and runs it until it is closed.
pub fn run(args: &CompanionArgs, source: Source) -> Result<Outcome> {
    quiet_opencv();
    let mut reader = args.reading.reader()?;
    if cfg!(target_os = "linux")
        && ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"]
            .iter()
            .all(|v| std::env::var_os(v).is_none_or(|s| s.is_empty()))
    {
        anyhow::bail!(
            "no display to open the window on (DISPLAY is not set); `alhambra watch` follows the table in text"
        );
    }
    // The camera is opened here so that its absence is told before the window opens.
    let (spec, notice) = match source {
        Source::Demo => (DEMO.to_owned(), None),
        Source::Named(spec) => (spec, None),
        Source::CameraOrDemo => match open_source("camera") {
            Ok(camera) => {
                drop(camera);
                ("camera".to_owned(), None)
            }
            Err(SourceError::NoCamera(why)) => {
                let why = why
                    .split(';')
                    .next()
                    .unwrap_or("no camera found")
                    .to_owned();
                eprintln!("alhambra: {why}; showing the demo footage instead");
                (
                    DEMO.to_owned(),
                    Some(format!("{why}: showing the demo footage")),
                )
            }
            Err(e) => return Err(anyhow!("{e}")),
        },
    };
    // The demo's table is not the players' game: it never continues nor overwrites their
    // session unless told to.
    let demo = spec == DEMO && args.session.is_none();
    let path = match &args.session {
        Some(path) => path.clone(),
        None if demo => session::default_path().with_file_name("demo-session.json"),
        None => session::default_path(),
    };
    if args.new_game && path.exists() {
        let aside = path.with_extension("previous.json");
        std::fs::rename(&path, &aside)
            .map_err(|e| anyhow!("{}: cannot set it aside: {e}", path.display()))?;
        eprintln!(
            "alhambra: a new game; the last one is kept in {}",
            aside.display()
        );
    }
    let saved = if demo {
        session::Session::default()
    } else {
        session::Session::load(&path)?
    };
    let pace = worker::Pace {
        paced: !spec.starts_with("camera"),
        hold: if names_photos(&spec) {
            worker::PHOTO_HOLD
        } else {
            1
        },
        frames: args.frames,
        // The demo plays on until the window is closed, unless a run is scripted.
        repeat: spec == DEMO && args.frames.is_none() && !args.close_when_done,
    };
    // The look learned from the players' corrections in an earlier session, unless a
    // profile is named.
    let profile_path = learned_profile_path(&path);
    let mut learned_notice = None;
    if args.reading.profile.is_none() && profile_path.is_file() {
        match Profile::load(&profile_path) {
            Ok(profile) => {
                reader.scanner = Scanner::new(profile, reader.scanner.options().clone());
                learned_notice = Some(format!(
                    "reading with the tiles' look learned earlier ({})",
                    profile_path.display()
                ));
            }
            Err(e) => eprintln!("alhambra: {e}; reading with the built-in profile"),
        }
    }
    let options = window::Options {
        source: spec.clone(),
        notice: notice.or(learned_notice),
        session_path: path,
        close_when_done: args.close_when_done,
        scan_options: reader.scanner.options().clone(),
        profile_path,
    };
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Alhambra table companion")
            .with_inner_size([1280.0, 800.0]),
        ..eframe::NativeOptions::default()
    };
    eframe::run_native(
        "alhambra",
        native,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            let worker = worker::Worker::start(
                move || open_source(&spec).map_err(|e| e.to_string()),
                reader,
                pace,
                move || ctx.request_repaint(),
            )?;
            Ok(Box::new(Companion::new(options, saved, Some(worker))))
        }),
    )
    .map_err(|e| anyhow!("cannot open the window: {e} (is there a display? `alhambra watch` follows the table in text)"))?;
    Ok(Outcome::Done)
}
