//! Development loop: a rendered sequence (`tracker_reads SEED [tile|hand]`: a hand laying
//! a tile, or passing over) through the tracker, each frame read with its time and whether
//! it was scanned whole.
use alhambra_vision::default_profile::default_profile;
use alhambra_vision::scanner::{ScanOptions, Scanner};
use alhambra_vision::source::{FrameSource, SyntheticScene};
use alhambra_vision::tracker::Tracker;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    opencv::core::set_num_threads(1)?;
    let seed: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let mut scene = match std::env::args().nth(2).as_deref() {
        Some("hand") => SyntheticScene::hand_pass(seed)?,
        _ => SyntheticScene::tile_added(seed)?,
    };
    let marker_mm = scene.labels_after().marker_mm().unwrap_or(40.0);
    let scanner = Scanner::new(
        default_profile()?,
        ScanOptions {
            marker_mm,
            ..ScanOptions::default()
        },
    );
    let mut tracker = Tracker::new(scanner);
    while let Some(frame) = scene.next_frame()? {
        let t = Instant::now();
        let update = tracker.push(&frame)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if update.scan.is_some() {
            println!(
                "frame {}: read {} in {ms:.0} ms; accepted {:?}",
                frame.index,
                if update.scanned_whole {
                    "whole"
                } else {
                    "from the last scan"
                },
                update
                    .accepted
                    .iter()
                    .map(|a| (a.id, a.changes.len()))
                    .collect::<Vec<_>>()
            );
        }
    }
    Ok(())
}
