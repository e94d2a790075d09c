//! Learning the tiles' look from the picture on screen once the players have put its
//! misread tiles right: the layouts as corrected, on the cells last read, are the labels of
//! `calibrate appearance`, learned from on a thread of their own (a few seconds); the new
//! profile is saved beside the session and read with from then on, and at the next start.

use super::cells::Cells;
use alhambra_engine::{Alhambra, Building};
use alhambra_vision::appearance::Profile;
use alhambra_vision::default_profile::built_in_samples;
use alhambra_vision::scanner::{ScanOptions, Scanner};
use alhambra_vision::training::{learn_profile_borrowing, photo_samples};
use alhambra_vision::{ScanResult, ScannedAlhambra, ScannedTile};
use opencv::core::Mat;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What a finished learning gives: the scanner reading with the new profile and a line
/// saying what it learned from, or why it could not.
pub type Learned = Result<(Scanner, String), String>;

/// A learning under way.
pub struct Learning {
    result: Arc<Mutex<Option<Learned>>>,
}

impl Learning {
    /// Starts learning from `frame` with `labels`; the profile is saved to `save_to`.
    pub fn start(
        frame: Mat,
        labels: ScanResult,
        options: ScanOptions,
        save_to: PathBuf,
        wake: impl Fn() + Send + 'static,
    ) -> std::io::Result<Learning> {
        let result = Arc::new(Mutex::new(None));
        let slot = Arc::clone(&result);
        std::thread::Builder::new()
            .name("learning".into())
            .spawn(move || {
                let learned = learn(&frame, &labels, options, &save_to);
                if let Ok(mut s) = slot.lock() {
                    *s = Some(learned);
                }
                wake();
            })?;
        Ok(Learning { result })
    }

    /// The result, once there.
    pub fn poll(&self) -> Option<Learned> {
        self.result.lock().ok()?.take()
    }
}

/// The labels of a picture: each Alhambra's tiles as the players say they are, each on its
/// cell's corners (`corners_px` in the layout's own frame, so the walls' sides agree).
pub fn labels(alhambras: &[(&Cells, &Alhambra)]) -> ScanResult {
    let alhambras = alhambras
        .iter()
        .filter_map(|(cells, layout)| {
            let tiles: Vec<ScannedTile> = layout
                .tiles()
                .filter_map(|(pos, piece)| {
                    let q = cells.quad(pos)?;
                    Some(ScannedTile {
                        x: pos.x,
                        y: pos.y,
                        building: piece.building,
                        walls: piece.walls,
                        confidence: None,
                        corners_px: Some(q.map(|c| [c[0] as f32, c[1] as f32])),
                        occluded: false,
                    })
                })
                .collect();
            let fountain = tiles
                .iter()
                .find(|t| t.building == Building::Fountain)?
                .corners_px?;
            let centre = [0, 1].map(|k| fountain.iter().map(|c| c[k]).sum::<f32>() / 4.0);
            Some(ScannedAlhambra {
                fountain_px: centre,
                tiles,
            })
        })
        .collect();
    ScanResult {
        image: "companion picture".into(),
        alhambras,
        meta: Default::default(),
    }
}

fn learn(frame: &Mat, labels: &ScanResult, options: ScanOptions, save_to: &Path) -> Learned {
    let tiles: usize = labels.alhambras.iter().map(|a| a.tiles.len()).sum();
    if tiles == 0 {
        return Err("no tile on the picture to learn from".into());
    }
    let samples = photo_samples(frame, labels, options.marker_mm)
        .map_err(|e| format!("cannot learn from the picture: {e}"))?;
    let shown = |b: Building| samples.samples.iter().any(|s| s.building == Some(b));
    let fallback = if Building::ALL.iter().all(|&b| shown(b)) {
        Vec::new()
    } else {
        built_in_samples().map_err(|e| e.to_string())?.samples
    };
    let (profile, borrowed): (Profile, Vec<Building>) =
        learn_profile_borrowing(&[samples], &fallback).map_err(|e| e.to_string())?;
    let saved = match profile.save(save_to) {
        Ok(()) => format!("saved in {}", save_to.display()),
        Err(e) => format!("not saved: {e}"),
    };
    let borrowed = if borrowed.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = borrowed.iter().map(|b| b.name()).collect();
        format!(
            "; none shows {}, whose look stays the built-in one's",
            names.join(", ")
        )
    };
    Ok((
        Scanner::new(profile, options),
        format!("learned the tiles' look from {tiles} tiles on the picture{borrowed}; {saved}"),
    ))
}
