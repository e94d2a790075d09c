//! Development loop: render scenes, learn from the first, scan the rest, print the figures.
use alhambra_vision::eval::{Tally, compare_photo};
use alhambra_vision::scanner::{ScanOptions, Scanner};
use alhambra_vision::synth::{Difficulty, SceneOptions, render};
use alhambra_vision::training::{learn_profile, photo_samples};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    opencv::core::set_num_threads(1)?;
    let args: Vec<String> = std::env::args().collect();
    let difficulty: Difficulty = args.get(1).map_or("easy", String::as_str).parse()?;
    let count: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let base: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1000);
    // Learn from a photo of the same difficulty (hard photos often show no marker to
    // measure the tile size by: learn from a normal one then).
    let learn_from = if difficulty == Difficulty::Hard {
        Difficulty::Normal
    } else {
        difficulty
    };
    let train = render(&SceneOptions {
        seed: 7,
        difficulty: learn_from,
        ..SceneOptions::default()
    })?;
    let mm = |l: &alhambra_vision::ScanResult| l.marker_mm().unwrap_or(40.0);
    let samples = photo_samples(&train.image, &train.labels, mm(&train.labels))?;
    let profile = match std::env::var_os("PROFILE") {
        Some(p) => alhambra_vision::appearance::Profile::load(std::path::Path::new(&p))?,
        None => learn_profile(&[samples])?,
    };
    eprintln!(
        "profile: pitch {:.1} mm, {} tiles, presence limit {:.2}",
        profile.pitch_mm, profile.tiles, profile.presence_limit
    );
    let scanner = Scanner::new(profile, ScanOptions::default());
    let _ = &scanner;
    let mut total = Tally::default();
    for seed in base..base + count {
        let scene = render(&SceneOptions {
            seed,
            difficulty,
            ..SceneOptions::default()
        })?;
        let t0 = Instant::now();
        let scanner = Scanner::new(
            scanner.profile().clone(),
            ScanOptions {
                marker_mm: mm(&scene.labels),
                ..ScanOptions::default()
            },
        );
        let scan = scanner.scan(&scene.image)?;
        let ms = t0.elapsed().as_secs_f64() * 1000.0;
        let result = scan.to_result("x");
        let mut t = compare_photo(&scene.labels, &result);
        t.millis.push(ms);
        eprintln!(
            "seed {seed}: {} alhambras (found {}), tiles {} missed {} phantom {} bldg err {} wall err {} exact {}/{}  {:.0} ms",
            scene.labels.alhambras.len(),
            result.alhambras.len(),
            t.tiles,
            t.missed,
            t.phantom,
            t.building_errors,
            t.wall_errors,
            t.alhambras_exact,
            t.alhambras,
            ms
        );
        total.add(&t);
    }
    println!("{}", serde_json::to_string_pretty(&total.rates())?);
    Ok(())
}
