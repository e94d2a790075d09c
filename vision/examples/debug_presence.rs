//! Development: presence distances of labelled tiles (at their labelled corners) across
//! scenes, with a profile learned from one.
use alhambra_vision::appearance::{features, sample_patch};
use alhambra_vision::plane::find_plane;
use alhambra_vision::synth::{Difficulty, SceneOptions, render};
use alhambra_vision::training::{learn_profile, photo_samples};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let difficulty: Difficulty = args.get(1).map_or("easy", String::as_str).parse()?;
    let mm = |l: &alhambra_vision::ScanResult| l.marker_mm().unwrap_or(40.0);
    let train = render(&SceneOptions {
        seed: 7,
        difficulty,
        ..SceneOptions::default()
    })?;
    let profile = learn_profile(&[photo_samples(
        &train.image,
        &train.labels,
        mm(&train.labels),
    )?])?;
    println!("limit {:.2}", profile.presence_limit);
    for seed in 1000..1010u64 {
        let scene = render(&SceneOptions {
            seed,
            difficulty,
            ..SceneOptions::default()
        })?;
        let white = find_plane(&scene.image, mm(&scene.labels))?.map_or([1.0; 3], |p| p.white);
        let mut d: Vec<(f32, String)> = Vec::new();
        for a in &scene.labels.alhambras {
            for t in &a.tiles {
                let Some(q) = t.corners_px else { continue };
                if t.occluded {
                    continue;
                }
                let q = q.map(|p| [f64::from(p[0]), f64::from(p[1])]);
                let f = features(&sample_patch(&scene.image, &q)?, white)?;
                let (present, dist) = profile.presence(&f);
                d.push((
                    dist,
                    format!("{:?}{}", t.building, if present { "" } else { "!" }),
                ));
            }
        }
        d.sort_by(|a, b| b.0.total_cmp(&a.0));
        let over = d.iter().filter(|x| x.1.ends_with('!')).count();
        println!(
            "seed {seed} kelvin {:?} white {white:?}: {} tiles, {over} rejected; worst {:?}",
            scene.labels.meta.get("kelvin"),
            d.len(),
            &d[..4.min(d.len())]
        );
    }
    Ok(())
}
