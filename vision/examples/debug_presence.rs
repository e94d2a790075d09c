//! Development: presence distances of labelled tiles, in the training photo and another.
use alhambra_vision::appearance::{features, sample_patch};
use alhambra_vision::plane::find_plane;
use alhambra_vision::synth::{Difficulty, SceneOptions, render};
use alhambra_vision::training::{learn_profile, photo_samples};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let difficulty = Difficulty::Easy;
    let train = render(&SceneOptions {
        seed: 7,
        difficulty,
        ..SceneOptions::default()
    })?;
    let profile = learn_profile(&[photo_samples(&train.image, &train.labels, 40.0)?])?;
    for seed in [7u64, 1000] {
        let scene = render(&SceneOptions {
            seed,
            difficulty,
            ..SceneOptions::default()
        })?;
        let white = find_plane(&scene.image, 40.0)?.map_or([1.0; 3], |p| p.white);
        println!("seed {seed} white {white:?}");
        for a in scene.labels.alhambras.iter().take(2) {
            for t in a.tiles.iter().take(4) {
                let Some(q) = t.corners_px else { continue };
                let q = q.map(|p| [f64::from(p[0]), f64::from(p[1])]);
                let f = features(&sample_patch(&scene.image, &q)?, white)?;
                println!(
                    "  {:?} {:?} quad {:?} presence {:?}",
                    (t.x, t.y),
                    t.building,
                    q.map(|p| [p[0].round(), p[1].round()]),
                    profile.presence(&f)
                );
            }
        }
    }
    Ok(())
}
