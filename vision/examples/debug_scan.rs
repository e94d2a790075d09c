//! Development: scan one rendered scene with a profile learned from another, verbosely.
use alhambra_vision::scanner::{ScanOptions, Scanner};
use alhambra_vision::synth::{Difficulty, SceneOptions, render};
use alhambra_vision::training::{learn_profile, photo_samples};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let difficulty: Difficulty = args.get(1).map_or("easy", String::as_str).parse()?;
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let train = render(&SceneOptions {
        seed: 7,
        difficulty,
        ..SceneOptions::default()
    })?;
    let profile = learn_profile(&[photo_samples(&train.image, &train.labels, 40.0)?])?;
    let scene = render(&SceneOptions {
        seed,
        difficulty,
        ..SceneOptions::default()
    })?;
    opencv::imgcodecs::imwrite(
        "/tmp/debug_scene.jpg",
        &scene.image,
        &opencv::core::Vector::new(),
    )?;
    for a in &scene.labels.alhambras {
        eprintln!("label fountain {:?} tiles {}", a.fountain_px, a.tiles.len());
    }
    let scanner = Scanner::new(profile, ScanOptions::default());
    let scan = scanner.scan(&scene.image)?;
    println!("{}", serde_json::to_string(&scan.to_result("x"))?.len());
    Ok(())
}
