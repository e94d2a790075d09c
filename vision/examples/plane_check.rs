//! Development: how consistent is the marker plane? Maps every marker through the plane of
//! the largest one and prints its side lengths in mm.
use alhambra_vision::plane::find_plane;
use alhambra_vision::synth::{Difficulty, SceneOptions, render};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for seed in 1000..1012 {
        for difficulty in [Difficulty::Easy, Difficulty::Normal] {
            let scene = render(&SceneOptions {
                seed,
                difficulty,
                ..SceneOptions::default()
            })?;
            let tile = scene
                .labels
                .meta
                .get("tile_mm")
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0);
            let Some(plane) = find_plane(&scene.image, 40.0)? else {
                println!("{seed} {difficulty}: no plane");
                continue;
            };
            let mut sides = Vec::new();
            for (_, q) in &plane.markers {
                let t: Vec<[f64; 2]> = q
                    .iter()
                    .filter_map(|p| plane.image_to_table.apply(*p))
                    .collect();
                for i in 0..t.len() {
                    let (a, b) = (t[i], t[(i + 1) % t.len()]);
                    sides.push(format!("{:.1}", (a[0] - b[0]).hypot(a[1] - b[1])));
                }
            }
            // A tile of the first Alhambra, measured on the table.
            let mut tile_sides = Vec::new();
            for a in scene.labels.alhambras.iter().take(3) {
                if let Some(q) = a.tiles[0].corners_px {
                    let t: Vec<[f64; 2]> = q
                        .iter()
                        .filter_map(|p| {
                            plane
                                .image_to_table
                                .apply([f64::from(p[0]), f64::from(p[1])])
                        })
                        .collect();
                    tile_sides.push(format!(
                        "{:.1}/{:.1}",
                        (t[0][0] - t[1][0]).hypot(t[0][1] - t[1][1]),
                        (t[1][0] - t[2][0]).hypot(t[1][1] - t[2][1])
                    ));
                }
            }
            println!(
                "{seed} {difficulty}: tile {tile:.1} markers {} sides {:?} tiles {:?}",
                plane.markers.len(),
                sides,
                tile_sides
            );
        }
    }
    Ok(())
}
