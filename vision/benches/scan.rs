//! Scanner speed: one cell look (resampling a tile's quad, its features, the profile's
//! verdict), the pieces the scanner repeats thousands of times a photo, and whole scans of
//! rendered 1080p photos. One OpenCV thread, as the speed budget is stated.

use alhambra_vision::appearance::{CellFeatures, Profile, features, sample_patch};
use alhambra_vision::geometry::Point;
use alhambra_vision::scanner::{CellLooks, Scan, ScanOptions, Scanner};
use alhambra_vision::synth::{Difficulty, RenderedScene, SceneOptions, render};
use alhambra_vision::training::{learn_profile, photo_samples};
use divan::Bencher;
use std::hint::black_box;
use std::sync::OnceLock;

fn main() {
    if let Err(e) = opencv::core::set_num_threads(1) {
        eprintln!("cannot set OpenCV to one thread: {e}");
    }
    divan::main();
}

/// A normal rendered photo, the profile learned from it, and its tiles' quads.
struct Setup {
    scene: RenderedScene,
    profile: Profile,
    quads: Vec<[Point; 4]>,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let scene = render(&SceneOptions {
            seed: 7,
            difficulty: Difficulty::Normal,
            ..SceneOptions::default()
        })
        .expect("the renderer renders seed 7");
        let samples =
            photo_samples(&scene.image, &scene.labels, 40.0).expect("seed 7 has markers in view");
        let profile = learn_profile(&[samples]).expect("seed 7 has labelled tiles");
        let quads = scene
            .labels
            .alhambras
            .iter()
            .flat_map(|a| a.tiles.iter())
            .filter_map(|t| t.corners_px)
            .map(|c| c.map(|p| [f64::from(p[0]), f64::from(p[1])]))
            .collect();
        Setup {
            scene,
            profile,
            quads,
        }
    })
}

/// Resampling every labelled tile of the photo to a patch.
#[divan::bench]
fn sample_tiles(b: Bencher) {
    let s = setup();
    b.counter(divan::counter::ItemsCount::new(s.quads.len()))
        .bench(|| {
            for q in &s.quads {
                black_box(sample_patch(&s.scene.image, q).ok());
            }
        });
}

/// The features of every labelled tile's patch.
#[divan::bench]
fn tile_features(b: Bencher) {
    let s = setup();
    let patches: Vec<_> = s
        .quads
        .iter()
        .filter_map(|q| sample_patch(&s.scene.image, q).ok())
        .collect();
    b.counter(divan::counter::ItemsCount::new(patches.len()))
        .bench(|| {
            for p in &patches {
                black_box(features(p, [1.0; 3]).ok());
            }
        });
}

/// The profile's first question of every look: a tile here, or the table?
#[divan::bench]
fn tile_presence(b: Bencher) {
    let s = setup();
    let looks = looks(s);
    b.counter(divan::counter::ItemsCount::new(looks.len()))
        .bench(|| {
            for f in &looks {
                black_box(s.profile.presence(f));
            }
        });
}

/// The profile's reading of a tile: building and walls, within the catalogue.
#[divan::bench]
fn tile_readings(b: Bencher) {
    let s = setup();
    let looks = looks(s);
    let focus = s.profile.focus_of(looks.iter());
    b.counter(divan::counter::ItemsCount::new(looks.len()))
        .bench(|| {
            for f in &looks {
                black_box(s.profile.read(f, focus));
            }
        });
}

fn looks(s: &Setup) -> Vec<CellFeatures> {
    s.quads
        .iter()
        .filter_map(|q| sample_patch(&s.scene.image, q).ok())
        .filter_map(|p| features(&p, [1.0; 3]).ok())
        .collect()
}

/// Whole scans of rendered 1080p photos (seeds not the profile's).
#[divan::bench(args = [Difficulty::Easy, Difficulty::Normal], sample_count = 5, sample_size = 1)]
fn scan_1080p(b: Bencher, difficulty: Difficulty) {
    let s = setup();
    let scanner = Scanner::new(s.profile.clone(), ScanOptions::default());
    let photos: Vec<_> = (0..4)
        .filter_map(|k| {
            render(&SceneOptions {
                seed: 100 + k,
                difficulty,
                ..SceneOptions::default()
            })
            .ok()
        })
        .collect();
    b.counter(divan::counter::ItemsCount::new(photos.len()))
        .bench(|| {
            for p in &photos {
                black_box(scanner.scan(&p.image).ok());
            }
        });
}

/// Four rendered 1080p photos of `difficulty`, each with its whole scan.
fn photos_scanned(scanner: &Scanner, difficulty: Difficulty) -> Vec<(RenderedScene, Scan)> {
    (0..4)
        .filter_map(|k| {
            let scene = render(&SceneOptions {
                seed: 100 + k,
                difficulty,
                ..SceneOptions::default()
            })
            .ok()?;
            let last = scanner.scan(&scene.image).ok()?;
            Some((scene, last))
        })
        .collect()
}

/// The same photos read again from their own whole scans, as the tracker reads a frame
/// that changed only about the Alhambras it read last (`Scanner::scan_from`).
#[divan::bench(args = [Difficulty::Easy, Difficulty::Normal], sample_count = 5, sample_size = 1)]
fn scan_from_last_1080p(b: Bencher, difficulty: Difficulty) {
    let s = setup();
    let scanner = Scanner::new(s.profile.clone(), ScanOptions::default());
    let photos = photos_scanned(&scanner, difficulty);
    b.counter(divan::counter::ItemsCount::new(photos.len()))
        .bench(|| {
            for (p, last) in &photos {
                black_box(scanner.scan_from(&p.image, last, &[]).ok());
            }
        });
}

/// The same, each photo's looks remembered from a read before (see `CellLooks`), as the
/// tracker reads a frame where nothing moved over the cells it reads: what is left is
/// deciding from the looks. (A tile laid costs the looks about it on top.)
#[divan::bench(args = [Difficulty::Easy, Difficulty::Normal], sample_count = 5, sample_size = 1)]
fn scan_from_last_remembered_1080p(b: Bencher, difficulty: Difficulty) {
    let s = setup();
    let scanner = Scanner::new(s.profile.clone(), ScanOptions::default());
    let photos: Vec<_> = photos_scanned(&scanner, difficulty)
        .into_iter()
        .filter_map(|(scene, last)| {
            let looks = CellLooks::new();
            scanner
                .scan_from_remembering(&scene.image, &last, &[], Some(&looks))
                .ok()?;
            Some((scene, last, looks))
        })
        .collect();
    b.counter(divan::counter::ItemsCount::new(photos.len()))
        .bench_local(|| {
            for (p, last, looks) in &photos {
                black_box(
                    scanner
                        .scan_from_remembering(&p.image, last, &[], Some(looks))
                        .ok(),
                );
            }
        });
}
