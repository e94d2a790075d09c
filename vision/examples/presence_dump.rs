//! Development: every tile each labelled photo of a folder reads, with its presence
//! distance against the profile's limit, glare level and confidence (one line each, for
//! telling real tiles from phantoms by the labels).
use alhambra_vision::ScanResult;
use alhambra_vision::appearance::Profile;
use alhambra_vision::scanner::{ScanOptions, Scanner};
use opencv::imgcodecs;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    opencv::core::set_num_threads(1)?;
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(profile)) = (args.get(1), args.get(2)) else {
        return Err("usage: presence_dump DIR PROFILE".into());
    };
    let profile = Profile::load(Path::new(profile))?;
    let limit = profile.presence_limit;
    let mut photos: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jpg"))
        .collect();
    photos.sort();
    for photo in &photos {
        let labels = ScanResult::load(&photo.with_extension("json"))?;
        let scanner = Scanner::new(
            profile.clone(),
            ScanOptions {
                marker_mm: labels.marker_mm().unwrap_or(40.0),
                ..ScanOptions::default()
            },
        );
        let frame = imgcodecs::imread(
            photo.to_string_lossy().into_owned(),
            imgcodecs::IMREAD_COLOR,
        )?;
        let scan = scanner.scan(&frame)?;
        for a in &scan.alhambras {
            for t in &a.tiles {
                println!(
                    "{} {:.1} {:.1} {} {} {} {:.3} {:?} {:.3} {:.3} {}",
                    photo.display(),
                    a.fountain_px[0],
                    a.fountain_px[1],
                    a.tiles.len(),
                    t.pos.x,
                    t.pos.y,
                    t.presence / limit,
                    t.glare,
                    t.reading.confidence(),
                    t.features.coarse_sharpness,
                    t.reading.building as u8,
                );
            }
        }
    }
    Ok(())
}
