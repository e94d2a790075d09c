//! Development: detected marker corners against the renderer's truth, and the tile size
//! measured through the fitted plane.
use alhambra_vision::plane::find_plane;
use alhambra_vision::synth::{Difficulty, SceneOptions, render};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for seed in 1000..1006 {
        for difficulty in [Difficulty::Easy, Difficulty::Normal] {
            let scene = render(&SceneOptions {
                seed,
                difficulty,
                ..SceneOptions::default()
            })?;
            let meta = &scene.labels.meta;
            let mm = scene.labels.marker_mm().unwrap_or(40.0);
            let tile = meta.get("tile_mm").and_then(|v| v.as_f64()).unwrap_or(0.0);
            let Some(plane) = find_plane(&scene.image, mm)? else {
                println!("{seed} {difficulty}: no plane");
                continue;
            };
            let truth = meta
                .get("markers")
                .and_then(|v| v.as_array())
                .cloned()
                .unwrap_or_default();
            let mut errs = Vec::new();
            for (id, q) in &plane.markers {
                let t = truth
                    .iter()
                    .find(|m| m.get("id").and_then(|v| v.as_i64()) == Some(i64::from(*id)));
                let Some(t) = t
                    .and_then(|m| m.get("corners_px"))
                    .and_then(|v| v.as_array())
                else {
                    continue;
                };
                for (k, p) in q.iter().enumerate() {
                    let tp = &t[k];
                    let (x, y) = (tp[0].as_f64().unwrap_or(0.0), tp[1].as_f64().unwrap_or(0.0));
                    errs.push(format!("{:.1}", (p[0] - x).hypot(p[1] - y)));
                }
            }
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
                "{seed} {difficulty}: mm {mm} tile {tile:.1} corner errors px {errs:?} tiles {tile_sides:?}"
            );
            per_marker(&scene, mm);
        }
    }
    Ok(())
}

/// Per-marker planes from the renderer's own marker corners, measuring the first tile.
#[allow(dead_code)]
pub fn per_marker(scene: &alhambra_vision::synth::RenderedScene, mm: f64) {
    use alhambra_vision::geometry::Homography;
    let truth = scene
        .labels
        .meta
        .get("markers")
        .and_then(|v| v.as_array())
        .cloned()
        .unwrap_or_default();
    let Some(q) = scene.labels.alhambras[0].tiles[0].corners_px else {
        return;
    };
    for m in truth {
        let Some(c) = m.get("corners_px").and_then(|v| v.as_array()) else {
            continue;
        };
        let pts: Vec<[f64; 2]> = c
            .iter()
            .map(|p| [p[0].as_f64().unwrap_or(0.0), p[1].as_f64().unwrap_or(0.0)])
            .collect();
        let square = [[0.0, 0.0], [mm, 0.0], [mm, mm], [0.0, mm]];
        let Some(h) = Homography::from_quads(&[pts[0], pts[1], pts[2], pts[3]], &square) else {
            continue;
        };
        let t: Vec<[f64; 2]> = q
            .iter()
            .filter_map(|p| h.apply([f64::from(p[0]), f64::from(p[1])]))
            .collect();
        println!(
            "   marker {:?}: side px {:.1} tile {:.1}/{:.1}",
            m.get("id"),
            (pts[0][0] - pts[1][0]).hypot(pts[0][1] - pts[1][1]),
            (t[0][0] - t[1][0]).hypot(t[0][1] - t[1][1]),
            (t[1][0] - t[2][0]).hypot(t[1][1] - t[2][1])
        );
    }
}
