//! Development: wall readings of labelled tiles at their labelled corners, to tell the side
//! model's errors from the scanner's geometry. `side_check PROFILE DIR [SHIFT]`: each quad
//! moved diagonally by SHIFT of a tile; SCALE=s grows it about its centre first. Counts
//! wrong sides; SHOW=1 names each, DUMP=DIR writes their patches, PRES=1 prints every
//! tile's presence and its blocks' z-scores, EDGE=1 prints where `outer_edge` finds each
//! side facing no tile (the side moved by SHIFT instead).
use alhambra_engine::Side;
use alhambra_vision::appearance::{Profile, features, sample_patch};
use alhambra_vision::plane::find_plane;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let profile = Profile::load(std::path::Path::new(&args[1]))?;
    let shift: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.0);
    let mut names: Vec<_> = std::fs::read_dir(&args[2])?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    let mut dumped = 0usize;
    let (mut n, mut wrong_free, mut wrong_read) = ([0usize; 2], [0usize; 2], [0usize; 2]);
    for json in names {
        let labels: alhambra_vision::ScanResult =
            serde_json::from_str(&std::fs::read_to_string(&json)?)?;
        let img = opencv::imgcodecs::imread(
            json.with_extension("jpg").to_str().unwrap_or(""),
            opencv::imgcodecs::IMREAD_COLOR,
        )?;
        let mm = labels.marker_mm().unwrap_or(40.0);
        let white = find_plane(&img, mm)?.map_or([1.0; 3], |p| p.white);
        for a in &labels.alhambras {
            let mut cells = Vec::new();
            for t in &a.tiles {
                let Some(q) = t.corners_px else { continue };
                if t.occluded {
                    continue;
                }
                let mut q = q.map(|p| [f64::from(p[0]), f64::from(p[1])]);
                // Shift diagonally by `shift` of the tile's side.
                let (dx, dy) = ((q[1][0] - q[0][0]) * shift, (q[1][1] - q[0][1]) * shift);
                let (ex, ey) = ((q[3][0] - q[0][0]) * shift, (q[3][1] - q[0][1]) * shift);
                let scale: f64 = std::env::var("SCALE")
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(1.0);
                let c = [(q[0][0] + q[2][0]) / 2.0, (q[0][1] + q[2][1]) / 2.0];
                for p in &mut q {
                    p[0] = c[0] + (p[0] - c[0]) * scale + dx + ex;
                    p[1] = c[1] + (p[1] - c[1]) * scale + dy + ey;
                }
                let f = features(&sample_patch(&img, &q)?, white)?;

                cells.push((t, f));
            }
            if std::env::var_os("EDGE").is_some() {
                let occupied: std::collections::HashSet<(i32, i32)> =
                    a.tiles.iter().map(|t| (t.x, t.y)).collect();
                for t in &a.tiles {
                    let Some(q) = t.corners_px else { continue };
                    if t.occluded {
                        continue;
                    }
                    let q = q.map(|p| [f64::from(p[0]), f64::from(p[1])]);
                    for side in Side::ALL {
                        let (di, dj) = match side {
                            Side::North => (0, -1),
                            Side::East => (1, 0),
                            Side::South => (0, 1),
                            Side::West => (-1, 0),
                        };
                        if occupied.contains(&(t.x + di, t.y + dj)) {
                            continue;
                        }
                        // Move this side in (negative) or out by `shift`.
                        let Some(moved) = alhambra_vision::outer_edge::side_moved(&q, side, shift)
                        else {
                            continue;
                        };
                        let found = alhambra_vision::outer_edge::outer_edge_offset(
                            &img, &moved, side, white, None,
                        );
                        println!(
                            "EDGE {} {:?} {:?} wall {} expect {:.3} found {:?}",
                            json.display(),
                            t.building,
                            side,
                            t.walls.has(side),
                            -shift,
                            found.map(|v| (v * 1000.0).round() / 1000.0)
                        );
                    }
                }
                continue;
            }
            let focus = profile.focus_of(cells.iter().map(|(_, f)| f));
            for (t, f) in &cells {
                if std::env::var_os("PRES").is_some() {
                    let (ok, d) = profile.presence(f);
                    let c = t.corners_px.unwrap_or_default();
                    println!(
                        "{} {:?} ({},{}) at [{:.0},{:.0}] presence {} {:.2} scores {:?}",
                        json.display(),
                        t.building,
                        t.x,
                        t.y,
                        (c[0][0] + c[2][0]) / 2.0,
                        (c[0][1] + c[2][1]) / 2.0,
                        ok,
                        d,
                        profile
                            .building_scores(f)
                            .map(|v| (v * 10.0).round() / 10.0)
                    );
                    if let Some(Some(g)) = profile.buildings.get(t.building as usize) {
                        for ch in 0..3 {
                            let z: Vec<String> = (0..16)
                                .map(|b| {
                                    let i = 3 * b + ch;
                                    format!("{:+.1}", (f.blocks[i] - g.mean[i]) / g.var[i].sqrt())
                                })
                                .collect();
                            println!("   ch{ch} z {}", z.join(" "));
                        }
                    }
                }
                let odds = profile.side_log_odds(f, focus);
                let read = profile.read(f, focus);
                for side in Side::ALL {
                    let truth = t.walls.has(side);
                    let k = usize::from(truth);
                    n[k] += 1;
                    if (odds[side as usize] > 0.0) != truth {
                        wrong_free[k] += 1;
                        if let Some(dir) = std::env::var_os("DUMP") {
                            let q = t
                                .corners_px
                                .unwrap_or_default()
                                .map(|p| [f64::from(p[0]), f64::from(p[1])]);
                            let sq = alhambra_vision::appearance::sample_square(&img, &q, 96)?;
                            let name = format!(
                                "{}/{:?}_{:?}_{}_{}.png",
                                dir.to_string_lossy(),
                                t.building,
                                side,
                                truth,
                                dumped
                            );
                            dumped += 1;
                            opencv::imgcodecs::imwrite(&name, &sq, &opencv::core::Vector::new())?;
                        }
                        if std::env::var_os("SHOW").is_some() {
                            println!(
                                "{} {:?} ({},{}) {:?} truth {} odds {:.1} focus {:?}",
                                json.display(),
                                t.building,
                                t.x,
                                t.y,
                                side,
                                truth,
                                odds[side as usize],
                                focus
                            );
                        }
                    }
                    if read.walls.has(side) != truth {
                        wrong_read[k] += 1;
                    }
                }
            }
        }
    }
    println!(
        "open sides {}: wrong {} free, {} read; walled sides {}: wrong {} free, {} read",
        n[0], wrong_free[0], wrong_read[0], n[1], wrong_free[1], wrong_read[1]
    );
    Ok(())
}
