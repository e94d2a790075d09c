//! The photo's own walls. The side models were learned from one labelled photo; another
//! photo's light, focus and scale move how a wall band and an open side look in it. A side
//! two tiles share, read the same way and surely from both, shows how this photo's walled
//! or open sides look: the side models are moved that way, and every tile's sides are
//! read again with them.

use super::*;
use std::collections::HashMap;

/// A shared side teaches only when both tiles read it this surely.
const SURE: f32 = 0.95;
/// The least number of such sides of each kind (walled, open) for a move.
const LEAST: usize = 8;
/// The profile's looks count as this many sides of the photo's: few sides move the
/// models a little, many nearly all the way.
const PRIOR: f32 = 16.0;

/// Moves the side models to the sides shared and surely read alike in `alhambras` (the
/// kept reading), then reads every tile's sides again, in `alhambras` and in every other
/// look (`looks`), keeping each tile's building. Returns whether it did.
pub(super) fn read_sides_again(
    profile: &Profile,
    alhambras: &mut [FoundAlhambra],
    looks: &mut [FoundAlhambra],
) -> bool {
    let mut walled: Vec<&[f32]> = Vec::new();
    let mut open: Vec<&[f32]> = Vec::new();
    let mut seen: Vec<&CellFeatures> = Vec::new();
    for a in alhambras.iter() {
        let at: HashMap<Pos, &FoundTile> = a.tiles.iter().map(|t| (t.pos, t)).collect();
        for t in a.tiles.iter().filter(|t| plain(t)) {
            seen.push(&t.features);
            for side in Side::ALL {
                let Some(n) = at.get(&t.pos.neighbour(side)).filter(|n| plain(n)) else {
                    continue;
                };
                let (r, o) = (&t.reading, &n.reading);
                let opposite = side.opposite();
                if r.walls.has(side) != o.walls.has(opposite)
                    || r.side_confidence[side as usize] < SURE
                    || o.side_confidence[opposite as usize] < SURE
                {
                    continue;
                }
                let x = &t.features.sides[side as usize][..];
                if r.walls.has(side) {
                    walled.push(x);
                } else {
                    open.push(x);
                }
            }
        }
    }
    if walled.len() < LEAST || open.len() < LEAST {
        return false;
    }
    let focus = profile.focus_of(seen.into_iter());
    let (wall_mean, open_mean) = profile.side_means(focus);
    let shift = |samples: &[&[f32]], mean: &[f32]| -> Vec<f32> {
        let n = samples.len() as f32;
        let weight = 1.0 / (n + PRIOR);
        (0..SIDE_DIMS)
            .map(|k| {
                let sum: f32 = samples.iter().map(|x| x[k]).sum();
                (sum - n * mean.get(k).copied().unwrap_or(0.0)) * weight
            })
            .collect()
    };
    let (wall_shift, open_shift) = (shift(&walled, wall_mean), shift(&open, open_mean));
    if debugging() {
        eprintln!(
            "own sides: {} walled and {} open sides shared and sure; side models moved by \
             {:.3} (walled) and {:.3} (open)",
            walled.len(),
            open.len(),
            wall_shift.iter().map(|v| v * v).sum::<f32>().sqrt(),
            open_shift.iter().map(|v| v * v).sum::<f32>().sqrt()
        );
    }
    let moved = profile.with_sides_moved(&wall_shift, &open_shift);
    for a in alhambras.iter_mut().chain(looks.iter_mut()) {
        read_again(profile, &moved, a);
    }
    true
}

/// A tile whose sides tell the side models' looks: read from the photo as the profile's
/// tiles look (not under glare), not the fountain.
fn plain(t: &FoundTile) -> bool {
    t.glare.is_none() && t.choices.is_some() && t.reading.building != Building::Fountain
}

/// Reads the sides of `a`'s tiles again with `moved` instead of `profile` (whose side
/// odds their choices hold), keeping each tile's building.
fn read_again(profile: &Profile, moved: &Profile, a: &mut FoundAlhambra) {
    let focus = profile.focus_of(a.tiles.iter().map(|t| &t.features));
    for t in a.tiles.iter_mut().filter(|t| t.glare.is_none()) {
        if t.reading.building == Building::Fountain {
            continue;
        }
        let Some(choices) = &t.choices else { continue };
        let f = &t.features;
        let (was, now) = (
            profile.side_log_odds(f, focus),
            moved.side_log_odds(f, focus),
        );
        let general: [f32; 4] = std::array::from_fn(|s| now[s] - was[s]);
        let (was, now) = (
            profile.side_log_odds_by_building(f, focus),
            moved.side_log_odds_by_building(f, focus),
        );
        let by_building: [[f32; 4]; 7] =
            std::array::from_fn(|b| std::array::from_fn(|s| now[b][s] - was[b][s]));
        let again = choices.with_side_odds_moved(general, by_building);
        let reading = again.reading();
        if reading.building != t.reading.building {
            continue;
        }
        if debugging() && reading.walls != t.reading.walls {
            let c = quad_centre(&t.corners_px);
            eprintln!(
                "own sides: tile {:?} at [{:.0},{:.0}]: walls {:?} -> {:?}",
                t.pos, c[0], c[1], t.reading.walls, reading.walls
            );
        }
        t.reading = reading;
        t.choices = Some(again);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scanner::tests::tile;
    use alhambra_engine::Walls;

    #[test]
    fn an_outer_wall_as_pale_as_the_photos_shared_walls_leans_further_to_a_wall() {
        let profile = crate::default_profile::default_profile().expect("built-in profile");
        let (wall, open) = profile.side_means(Focus::Sharp);
        let (wall, open) = (wall.to_vec(), open.to_vec());
        // This photo's walls look half way from the profile's wall look to its open one.
        let pale: Vec<f32> = wall
            .iter()
            .zip(&open)
            .map(|(w, o)| w + 0.5 * (o - w))
            .collect();
        let look = |walls: Walls| {
            let mut f = tile(0, 0, Building::Garden, 1.0).features;
            let garden = profile.buildings[Building::Garden as usize].as_ref();
            let garden = garden.expect("a garden model");
            f.blocks
                .copy_from_slice(&garden.mean[..crate::appearance::BLOCK_DIMS]);
            for side in Side::ALL {
                let x = if walls.has(side) { &pale } else { &open };
                f.sides[side as usize].copy_from_slice(x);
            }
            f
        };
        let read = |x: i32, y: i32, walls: Walls, sure: bool| {
            let mut t = tile(x, y, Building::Garden, 1.0);
            t.features = look(walls);
            let choices = profile.choices(&t.features, &[0.0; 4], Focus::Sharp);
            t.reading = choices.reading();
            if sure {
                // Read alike from both tiles of each shared side, surely.
                t.reading.walls = walls;
                t.reading.side_confidence = [0.99; 4];
            }
            t.choices = Some(choices);
            t
        };
        // Ten by ten gardens, walled between columns, open between rows; and one more
        // tile above the first, its outer north side walled.
        let mut tiles: Vec<FoundTile> = Vec::new();
        for y in 0..10 {
            for x in 0..10 {
                let mut sides = Vec::new();
                if x > 0 {
                    sides.push(Side::West);
                }
                if x < 9 {
                    sides.push(Side::East);
                }
                tiles.push(read(x, y, Walls::of(&sides), true));
            }
        }
        let outer = read(0, -1, Walls::of(&[Side::North]), false);
        let garden = Building::Garden as usize;
        let north = Side::North as usize;
        let odds = |t: &FoundTile| {
            t.choices
                .as_ref()
                .map_or(f32::NAN, |c| c.building_odds[garden][north])
        };
        let before = odds(&outer);
        assert!(
            !outer.reading.walls.has(Side::North),
            "the pale wall reads open with the profile's looks: {:?}",
            outer.reading
        );
        tiles.push(outer);
        let mut alhambras = vec![FoundAlhambra {
            fountain_px: [0.0, 0.0],
            grid: crate::geometry::Homography::IDENTITY,
            tiles,
            light: [1.0; 3],
            looked_across: Vec::new(),
        }];
        let mut looks = alhambras.clone();
        assert!(read_sides_again(&profile, &mut alhambras, &mut looks));
        // The pale outer wall leans further to a wall in every look.
        for a in alhambras.iter().chain(&looks) {
            let outer = a.tiles.iter().find(|t| t.pos == Pos::new(0, -1));
            let after = odds(outer.expect("the outer tile"));
            assert!(after > before + 0.25, "wall log-odds {before} -> {after}");
        }
        // Too few sides shared surely: nothing moves.
        let mut few = vec![FoundAlhambra {
            tiles: alhambras[0].tiles[..4].to_vec(),
            ..alhambras[0].clone()
        }];
        assert!(!read_sides_again(&profile, &mut few, &mut []));
    }
}
