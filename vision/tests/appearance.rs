//! Appearance learned from one labelled rendered photo reads the other photos of that set:
//! the profile carries the adaptation, not the scanner's defaults.

use alhambra_vision::eval::{Tally, compare_photo};
use alhambra_vision::scanner::{ScanOptions, Scanner};
use alhambra_vision::synth::{Difficulty, SceneOptions, render};
use alhambra_vision::training::{learn_profile, photo_samples};

fn marker_mm(labels: &alhambra_vision::ScanResult) -> f64 {
    labels
        .meta
        .get("marker_mm")
        .and_then(|v| v.as_f64())
        .unwrap_or(40.0)
}

#[test]
fn a_profile_from_one_easy_photo_reads_other_easy_photos() {
    let options = |seed| SceneOptions {
        seed,
        difficulty: Difficulty::Easy,
        ..SceneOptions::default()
    };
    let train = render(&options(7)).expect("renders");
    let samples =
        photo_samples(&train.image, &train.labels, marker_mm(&train.labels)).expect("samples");
    let profile = learn_profile(&[samples]).expect("learns from one photo");
    let mut total = Tally::default();
    for seed in 31..37 {
        let scene = render(&options(seed)).expect("renders");
        let scanner = Scanner::new(
            profile.clone(),
            ScanOptions {
                marker_mm: marker_mm(&scene.labels),
                ..ScanOptions::default()
            },
        );
        let scan = scanner.scan(&scene.image).expect("scans").to_result("x");
        total.add(&compare_photo(&scene.labels, &scan));
    }
    let rates = total.rates();
    // A profile that did not carry over would miss most tiles and misread buildings. The
    // scanner still misses whole Alhambras now and then (eval: ~2-3% of tiles on easy
    // photos, unevenly: one photo can lose a fifth), hence the margin on missed tiles.
    assert!(total.tiles > 120, "{total:?}");
    assert!(rates.missed_pct < 20.0, "{rates:?}");
    assert!(rates.building_error_pct < 2.0, "{rates:?}");
    assert!(rates.wall_error_pct < 3.0, "{rates:?}");
}
