//! Development: scan one rendered scene with a profile learned from another and write an
//! overlay of the result (thick) over the labels (thin red) to /tmp/debug_overlay.png;
//! print each found tile's presence distance and whether the labels have a tile there.
use alhambra_vision::overlay::draw;
use alhambra_vision::scanner::{ScanOptions, Scanner};
use alhambra_vision::synth::{Difficulty, SceneOptions, render};
use alhambra_vision::training::{learn_profile, photo_samples};

fn marker_mm(labels: &alhambra_vision::ScanResult) -> f64 {
    labels.marker_mm().unwrap_or(40.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    opencv::core::set_num_threads(1)?;
    let args: Vec<String> = std::env::args().collect();
    let difficulty: Difficulty = args.get(1).map_or("easy", String::as_str).parse()?;
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let train = render(&SceneOptions {
        seed: 7,
        difficulty,
        ..SceneOptions::default()
    })?;
    let profile = match std::env::var_os("PROFILE") {
        Some(p) => alhambra_vision::appearance::Profile::load(std::path::Path::new(&p))?,
        None => learn_profile(&[photo_samples(
            &train.image,
            &train.labels,
            marker_mm(&train.labels),
        )?])?,
    };
    eprintln!("presence limit {}", profile.presence_limit);
    let scene = render(&SceneOptions {
        seed,
        difficulty,
        ..SceneOptions::default()
    })?;
    let scanner = Scanner::new(
        profile,
        ScanOptions {
            marker_mm: marker_mm(&scene.labels),
            ..ScanOptions::default()
        },
    );
    eprintln!("marker mm {}", marker_mm(&scene.labels));
    let scan = scanner.scan(&scene.image)?;
    let truth: Vec<[f64; 2]> = scene
        .labels
        .alhambras
        .iter()
        .flat_map(|a| a.tiles.iter().filter_map(|t| t.corners_px))
        .map(|q| {
            [
                f64::from(q[0][0] + q[2][0]) / 2.0,
                f64::from(q[0][1] + q[2][1]) / 2.0,
            ]
        })
        .collect();
    for a in &scan.alhambras {
        for t in &a.tiles {
            let q = t.corners_px;
            let c = [(q[0][0] + q[2][0]) / 2.0, (q[0][1] + q[2][1]) / 2.0];
            let size = (q[0][0] - q[1][0]).hypot(q[0][1] - q[1][1]);
            let real = truth
                .iter()
                .any(|p| (p[0] - c[0]).hypot(p[1] - c[1]) < 0.3 * size);
            println!(
                "{} presence {:.2} {:?} at {:?}",
                if real { "REAL " } else { "EMPTY" },
                t.presence,
                t.reading.building,
                [c[0].round(), c[1].round()]
            );
        }
    }
    let result = scan.to_result("x");
    std::fs::write("/tmp/debug_scan.json", serde_json::to_string(&result)?)?;
    std::fs::write(
        "/tmp/debug_labels.json",
        serde_json::to_string(&scene.labels)?,
    )?;
    let out = draw(&scene.image, &result, Some(&scene.labels))?;
    opencv::imgcodecs::imwrite("/tmp/debug_overlay.png", &out, &opencv::core::Vector::new())?;
    Ok(())
}
