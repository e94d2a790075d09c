//! Measuring the scanner against labelled photos: per-tile building error, per-side wall
//! error, missed and phantom tiles, exact Alhambras, exact photos, exact final scores and
//! the time per photo; and the ways the Alhambras not read exactly went wrong.

use crate::labels::{ScanResult, ScannedAlhambra, ScannedTile, rotate_tiles_clockwise};
use alhambra_engine::{Alhambra, Piece, Pos, ScoringRound, Side, score_round};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// Counts over a set of photos.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tally {
    /// Photos measured.
    pub photos: u32,
    /// Labelled, visible tiles.
    pub tiles: u32,
    /// Of those, found with another building.
    pub building_errors: u32,
    /// Sides of tiles found (4 per tile).
    pub sides: u32,
    /// Of those, wall read wrongly.
    pub wall_errors: u32,
    /// Labelled tiles not found.
    pub missed: u32,
    /// Found tiles where the labels have none.
    pub phantom: u32,
    /// Labelled Alhambras.
    pub alhambras: u32,
    /// Of those, read exactly.
    pub alhambras_exact: u32,
    /// Labelled Alhambras whose fountain is hidden (a hand over it): no scan can place
    /// their tiles, as cells are counted from the fountain.
    pub fountain_hidden: u32,
    /// Alhambras with their fountain in view read exactly.
    pub in_view_exact: u32,
    /// Photos read exactly (every Alhambra exact, nothing extra).
    pub photos_exact: u32,
    /// Photos where every player's round-3 total is right.
    pub scores_exact: u32,
    /// Tiles read (in view), phantoms included.
    pub read: u32,
    /// Of those, read wrongly (another building, a side's wall, or no tile there) with
    /// a confidence of at least [`SURE`]: errors the companion shows without a `?`.
    pub sure_wrong: u32,
    /// How the Alhambras not read exactly went wrong.
    pub failures: Failures,
    /// Milliseconds per photo, one entry each.
    pub millis: Vec<f64>,
}

/// How the labelled Alhambras whose fountain is in view and that were not read exactly
/// went wrong, each counted once, under the first that applies: not found at all (alone:
/// a fountain without a visible tile beside it), tiles missed, tiles read where there are
/// none, a building misread, or only walls misread. And every wall misread, by whether
/// the side faces another tile of its Alhambra (inner) or not (outer) and which way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Failures {
    /// Fountain in view, no Alhambra found there.
    pub not_found: u32,
    /// Of those, fountains without a visible tile beside them.
    pub not_found_alone: u32,
    /// Found, with labelled tiles missed.
    pub tiles_missed: u32,
    /// Found, nothing missed, with tiles read where there are none.
    pub phantom_tiles: u32,
    /// Found, every tile and no other, a building misread.
    pub building_misread: u32,
    /// Found, every building right, walls misread.
    pub only_walls: u32,
    /// Walls read on outer sides that have none.
    pub outer_walls_extra: u32,
    /// Walls on outer sides read as open.
    pub outer_walls_missed: u32,
    /// Walls read on inner sides that have none.
    pub inner_walls_extra: u32,
    /// Walls on inner sides read as open.
    pub inner_walls_missed: u32,
}

impl Failures {
    fn add(&mut self, o: &Failures) {
        self.not_found += o.not_found;
        self.not_found_alone += o.not_found_alone;
        self.tiles_missed += o.tiles_missed;
        self.phantom_tiles += o.phantom_tiles;
        self.building_misread += o.building_misread;
        self.only_walls += o.only_walls;
        self.outer_walls_extra += o.outer_walls_extra;
        self.outer_walls_missed += o.outer_walls_missed;
        self.inner_walls_extra += o.inner_walls_extra;
        self.inner_walls_missed += o.inner_walls_missed;
    }

    /// One line for people: the Alhambras in view not read exactly, by what went wrong,
    /// and the walls misread.
    pub fn summary(&self) -> String {
        format!(
            "{} not found ({} of them a fountain alone), {} with tiles missed, {} with tiles \
             where there are none, {} with a building misread, {} with only walls misread; \
             walls misread on outer sides: {} read where there is none, {} missed; on inner \
             sides: {} and {}",
            self.not_found,
            self.not_found_alone,
            self.tiles_missed,
            self.phantom_tiles,
            self.building_misread,
            self.only_walls,
            self.outer_walls_extra,
            self.outer_walls_missed,
            self.inner_walls_extra,
            self.inner_walls_missed
        )
    }
}

/// The confidence from which a tile is shown as sure (the companion marks those below
/// with a `?`).
pub const SURE: f32 = 0.8;

/// Whether a tile read with `confidence` counts as sure (no confidence given: sure).
fn sure(confidence: Option<f32>) -> bool {
    confidence.is_none_or(|c| c >= SURE)
}

/// Rates derived from a tally.
#[derive(Debug, Clone, Serialize)]
pub struct Rates {
    /// Photos measured.
    pub photos: u32,
    /// Building errors per found tile, %.
    pub building_error_pct: f64,
    /// Wall errors per side, %.
    pub wall_error_pct: f64,
    /// Missed tiles per labelled tile, %.
    pub missed_pct: f64,
    /// Phantom tiles per labelled tile, %.
    pub phantom_pct: f64,
    /// Exact Alhambras, %.
    pub alhambra_exact_pct: f64,
    /// Exact Alhambras among those whose fountain is in view, %.
    pub in_view_exact_pct: f64,
    /// Exact photos, %.
    pub photo_exact_pct: f64,
    /// Photos with exact round-3 totals, %.
    pub score_exact_pct: f64,
    /// Median milliseconds per photo.
    pub ms_median: f64,
    /// 95th percentile milliseconds per photo.
    pub ms_p95: f64,
    /// Tiles read wrongly though sure (see [`Tally::sure_wrong`]) per tile read, %.
    pub sure_wrong_pct: f64,
    /// How the Alhambras not read exactly went wrong (counts).
    pub failures: Failures,
}

fn pct(n: u32, d: u32) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * f64::from(n) / f64::from(d)
    }
}

/// The p-th percentile (0..1) of some values.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

impl Tally {
    /// Adds another tally.
    pub fn add(&mut self, o: &Tally) {
        self.photos += o.photos;
        self.tiles += o.tiles;
        self.building_errors += o.building_errors;
        self.sides += o.sides;
        self.wall_errors += o.wall_errors;
        self.missed += o.missed;
        self.phantom += o.phantom;
        self.alhambras += o.alhambras;
        self.alhambras_exact += o.alhambras_exact;
        self.fountain_hidden += o.fountain_hidden;
        self.in_view_exact += o.in_view_exact;
        self.photos_exact += o.photos_exact;
        self.scores_exact += o.scores_exact;
        self.read += o.read;
        self.sure_wrong += o.sure_wrong;
        self.failures.add(&o.failures);
        self.millis.extend(&o.millis);
    }

    /// The rates.
    pub fn rates(&self) -> Rates {
        let found = self.tiles - self.missed;
        Rates {
            photos: self.photos,
            building_error_pct: pct(self.building_errors, found),
            wall_error_pct: pct(self.wall_errors, self.sides),
            missed_pct: pct(self.missed, self.tiles),
            phantom_pct: pct(self.phantom, self.tiles),
            alhambra_exact_pct: pct(self.alhambras_exact, self.alhambras),
            in_view_exact_pct: pct(
                self.in_view_exact,
                self.alhambras.saturating_sub(self.fountain_hidden),
            ),
            photo_exact_pct: pct(self.photos_exact, self.photos),
            score_exact_pct: pct(self.scores_exact, self.photos),
            ms_median: percentile(&self.millis, 0.5),
            ms_p95: percentile(&self.millis, 0.95),
            sure_wrong_pct: pct(self.sure_wrong, self.read),
            failures: self.failures,
        }
    }
}

fn tile_map(tiles: &[ScannedTile]) -> BTreeMap<(i32, i32), &ScannedTile> {
    tiles.iter().map(|t| ((t.x, t.y), t)).collect()
}

/// How one found Alhambra compares with its label at one rotation.
struct Comparison {
    agree: u32,
    building_errors: u32,
    wall_errors: u32,
    sides: u32,
    missed: u32,
    phantom: u32,
    /// Tiles read wrongly though sure (see [`Tally::sure_wrong`]).
    sure_wrong: u32,
    /// Walls misread: outer extra, outer missed, inner extra, inner missed (see
    /// [`Failures`]).
    walls_misread: [u32; 4],
    found_visible: Vec<ScannedTile>,
}

fn compare(label: &ScannedAlhambra, found: &[ScannedTile]) -> Comparison {
    let occluded: HashSet<(i32, i32)> = label
        .tiles
        .iter()
        .filter(|t| t.occluded)
        .map(|t| (t.x, t.y))
        .collect();
    let found_visible: Vec<ScannedTile> = found
        .iter()
        .filter(|t| !occluded.contains(&(t.x, t.y)))
        .cloned()
        .collect();
    let got = tile_map(&found_visible);
    // Every labelled cell, hidden ones too: a side facing a hidden tile is inner.
    let cells: HashSet<(i32, i32)> = label.tiles.iter().map(|t| (t.x, t.y)).collect();
    let mut c = Comparison {
        agree: 0,
        building_errors: 0,
        wall_errors: 0,
        sides: 0,
        missed: 0,
        phantom: 0,
        sure_wrong: 0,
        walls_misread: [0; 4],
        found_visible: Vec::new(),
    };
    let mut labelled = HashSet::new();
    for t in label.tiles.iter().filter(|t| !t.occluded) {
        labelled.insert((t.x, t.y));
        match got.get(&(t.x, t.y)) {
            None => c.missed += 1,
            Some(g) => {
                if g.building == t.building {
                    c.agree += 1;
                } else {
                    c.building_errors += 1;
                }
                for s in Side::ALL {
                    c.sides += 1;
                    if g.walls.has(s) != t.walls.has(s) {
                        c.wall_errors += 1;
                        let beyond = Pos::new(t.x, t.y).neighbour(s);
                        let inner = cells.contains(&(beyond.x, beyond.y));
                        let k = 2 * usize::from(inner) + usize::from(t.walls.has(s));
                        c.walls_misread[k] += 1;
                    }
                }
                let wrong = g.building != t.building || g.walls != t.walls;
                c.sure_wrong += u32::from(wrong && sure(g.confidence));
            }
        }
    }
    let phantoms: Vec<&ScannedTile> = found_visible
        .iter()
        .filter(|t| !labelled.contains(&(t.x, t.y)))
        .collect();
    c.phantom = phantoms.len() as u32;
    c.sure_wrong += phantoms.iter().filter(|t| sure(t.confidence)).count() as u32;
    c.found_visible = found_visible;
    c
}

fn alhambra_of(tiles: &[ScannedTile]) -> Alhambra {
    // Duplicate cells cannot come from a scan; keep the first if they ever do.
    let mut seen = HashSet::new();
    Alhambra::from_pieces(
        tiles
            .iter()
            .filter(|t| !t.occluded && seen.insert((t.x, t.y)))
            .map(|t| (Pos::new(t.x, t.y), Piece::new(t.building, t.walls))),
    )
    .unwrap_or_default()
}

/// Compares a scan with the labels of the same photo.
pub fn compare_photo(labels: &ScanResult, scan: &ScanResult) -> Tally {
    let mut tally = Tally {
        photos: 1,
        ..Tally::default()
    };
    let mut used = vec![false; scan.alhambras.len()];
    let mut all_exact = true;
    let mut label_layouts = Vec::new();
    let mut found_layouts = Vec::new();
    for label in &labels.alhambras {
        tally.alhambras += 1;
        let hidden = label
            .tiles
            .iter()
            .any(|t| (t.x, t.y) == (0, 0) && t.occluded);
        tally.fountain_hidden += u32::from(hidden);
        tally.tiles += label.tiles.iter().filter(|t| !t.occluded).count() as u32;
        // The found Alhambra whose fountain is nearest, within a tile's width.
        let width = label
            .tiles
            .iter()
            .find(|t| (t.x, t.y) == (0, 0))
            .and_then(|t| t.corners_px)
            .map_or(60.0, |q| {
                ((q[0][0] - q[1][0]).hypot(q[0][1] - q[1][1])) as f64
            });
        let near = |a: &ScannedAlhambra| {
            f64::from(a.fountain_px[0] - label.fountain_px[0])
                .hypot(f64::from(a.fountain_px[1] - label.fountain_px[1]))
        };
        let pick = (0..scan.alhambras.len())
            .filter(|&i| !used[i] && near(&scan.alhambras[i]) < 0.6 * width)
            .min_by(|&a, &b| near(&scan.alhambras[a]).total_cmp(&near(&scan.alhambras[b])));
        label_layouts.push(alhambra_of(&label.tiles));
        let Some(i) = pick else {
            let visible = label.tiles.iter().filter(|t| !t.occluded).count() as u32;
            tally.missed += visible;
            if !hidden {
                tally.failures.not_found += 1;
                tally.failures.not_found_alone += u32::from(visible <= 1);
            }
            all_exact = false;
            found_layouts.push(Alhambra::default());
            continue;
        };
        used[i] = true;
        // The four ways to turn the found grid about the fountain: the best agreement.
        let mut tiles = scan.alhambras[i].tiles.clone();
        let mut best: Option<Comparison> = None;
        for _ in 0..4 {
            let c = compare(label, &tiles);
            // Most agreeing tiles, then most tiles in common, then fewest wall errors.
            let key = |c: &Comparison| {
                (
                    c.agree,
                    c.agree + c.building_errors,
                    u32::MAX - c.wall_errors,
                )
            };
            if best.as_ref().is_none_or(|b| key(&c) > key(b)) {
                best = Some(c);
            }
            tiles = rotate_tiles_clockwise(&tiles);
        }
        let Some(c) = best else { continue };
        tally.building_errors += c.building_errors;
        tally.wall_errors += c.wall_errors;
        tally.sides += c.sides;
        tally.missed += c.missed;
        tally.phantom += c.phantom;
        tally.read += c.found_visible.len() as u32;
        tally.sure_wrong += c.sure_wrong;
        let exact = c.building_errors == 0 && c.wall_errors == 0 && c.missed == 0 && c.phantom == 0;
        let f = &mut tally.failures;
        let [outer_extra, outer_missed, inner_extra, inner_missed] = c.walls_misread;
        f.outer_walls_extra += outer_extra;
        f.outer_walls_missed += outer_missed;
        f.inner_walls_extra += inner_extra;
        f.inner_walls_missed += inner_missed;
        if !exact && !hidden {
            if c.missed > 0 {
                f.tiles_missed += 1;
            } else if c.phantom > 0 {
                f.phantom_tiles += 1;
            } else if c.building_errors > 0 {
                f.building_misread += 1;
            } else {
                f.only_walls += 1;
            }
        }
        tally.alhambras_exact += u32::from(exact);
        tally.in_view_exact += u32::from(exact && !hidden);
        all_exact &= exact;
        found_layouts.push(alhambra_of(&c.found_visible));
    }
    // Alhambras found where the labels have none.
    for (i, a) in scan.alhambras.iter().enumerate() {
        if !used[i] {
            tally.phantom += a.tiles.len() as u32;
            tally.read += a.tiles.len() as u32;
            tally.sure_wrong += a.tiles.iter().filter(|t| sure(t.confidence)).count() as u32;
            all_exact = false;
        }
    }
    tally.photos_exact = u32::from(all_exact);
    if !label_layouts.is_empty() {
        let names: Vec<String> = (0..label_layouts.len()).map(|i| format!("p{i}")).collect();
        let truth = score_round(
            ScoringRound::Third,
            &names
                .iter()
                .map(String::as_str)
                .zip(label_layouts.iter())
                .collect::<Vec<_>>(),
        );
        let read = score_round(
            ScoringRound::Third,
            &names
                .iter()
                .map(String::as_str)
                .zip(found_layouts.iter())
                .collect::<Vec<_>>(),
        );
        let same = truth
            .players
            .iter()
            .zip(&read.players)
            .all(|(a, b)| a.total == b.total);
        tally.scores_exact = u32::from(same);
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use alhambra_engine::{Building, Walls};

    fn tile(x: i32, y: i32, b: Building, walls: &str) -> ScannedTile {
        ScannedTile {
            x,
            y,
            building: b,
            walls: Walls::from_letters(walls).unwrap_or_default(),
            confidence: None,
            corners_px: None,
            occluded: false,
        }
    }

    fn photo(tiles: Vec<ScannedTile>) -> ScanResult {
        ScanResult {
            image: "x.png".into(),
            alhambras: vec![ScannedAlhambra {
                fountain_px: [100.0, 100.0],
                tiles,
            }],
            meta: Default::default(),
        }
    }

    /// A fountain, a garden east of it walled on its north side, and a tower east of that.
    fn fountain_garden_tower() -> ScanResult {
        photo(vec![
            tile(0, 0, Building::Fountain, "-"),
            tile(1, 0, Building::Garden, "N"),
            tile(2, 0, Building::Tower, "-"),
        ])
    }

    #[test]
    fn an_exact_scan_is_exact_even_turned() {
        let label = photo(vec![
            tile(0, 0, Building::Fountain, "-"),
            tile(1, 0, Building::Garden, "N"),
        ]);
        let turned = photo(rotate_tiles_clockwise(&label.alhambras[0].tiles));
        let t = compare_photo(&label, &turned);
        assert_eq!(
            (t.alhambras_exact, t.photos_exact, t.scores_exact),
            (1, 1, 1)
        );
        assert_eq!(
            (t.building_errors, t.wall_errors, t.missed, t.phantom),
            (0, 0, 0, 0)
        );
    }

    #[test]
    fn errors_are_counted_where_they_are() {
        let label = fountain_garden_tower();
        let scan = photo(vec![
            tile(0, 0, Building::Fountain, "-"),
            tile(1, 0, Building::Tower, "NE"),
            tile(0, 1, Building::Pavilion, "-"),
        ]);
        let t = compare_photo(&label, &scan);
        assert_eq!(
            (
                t.tiles,
                t.building_errors,
                t.wall_errors,
                t.missed,
                t.phantom
            ),
            (3, 1, 1, 1, 1)
        );
        assert_eq!((t.alhambras_exact, t.photos_exact), (0, 0));
    }

    #[test]
    fn errors_read_surely_are_counted_apart_from_those_marked_unsure() {
        let label = photo(vec![
            tile(0, 0, Building::Fountain, "-"),
            tile(1, 0, Building::Garden, "N"),
            tile(2, 0, Building::Tower, "-"),
            tile(3, 0, Building::Arcades, "-"),
        ]);
        let read = |t: ScannedTile, confidence: f32| ScannedTile {
            confidence: Some(confidence),
            ..t
        };
        let scan = photo(vec![
            read(tile(0, 0, Building::Fountain, "-"), 1.0),
            // A wall missed, surely: the picture shows it unmarked.
            read(tile(1, 0, Building::Garden, "-"), 0.95),
            // Another building, but marked unsure.
            read(tile(2, 0, Building::Seraglio, "-"), 0.5),
            // Right, unsure: no error at all.
            read(tile(3, 0, Building::Arcades, "-"), 0.3),
            // No tile there, surely.
            read(tile(4, 0, Building::Pavilion, "-"), 0.9),
        ]);
        let t = compare_photo(&label, &scan);
        assert_eq!((t.read, t.sure_wrong), (5, 2));
        let r = t.rates();
        assert!((r.sure_wrong_pct - 40.0).abs() < 1e-9, "{r:?}");
    }

    #[test]
    fn failures_are_told_apart_and_walls_by_the_side_they_face() {
        let label = fountain_garden_tower();
        let scan = photo(vec![
            tile(0, 0, Building::Fountain, "-"),
            // North (outer) missed; east (facing the tower: inner) read where there is none.
            tile(1, 0, Building::Garden, "E"),
            // South (outer) read where there is none.
            tile(2, 0, Building::Tower, "S"),
        ]);
        let mut lone = photo(vec![tile(0, 0, Building::Fountain, "-")]);
        lone.alhambras[0].fountain_px = [900.0, 900.0];
        let mut both = label.clone();
        both.alhambras.extend(lone.alhambras);
        let t = compare_photo(&both, &scan);
        assert_eq!(
            t.failures,
            Failures {
                not_found: 1,
                not_found_alone: 1,
                only_walls: 1,
                outer_walls_extra: 1,
                outer_walls_missed: 1,
                inner_walls_extra: 1,
                ..Failures::default()
            }
        );
        // Missed tiles come first, whatever else is wrong.
        let short = photo(vec![
            tile(0, 0, Building::Fountain, "-"),
            tile(1, 0, Building::Tower, "N"),
        ]);
        let f = compare_photo(&label, &short).failures;
        assert_eq!(
            (f.tiles_missed, f.building_misread, f.only_walls),
            (1, 0, 0)
        );
        let mut sum = Tally::default();
        sum.add(&t);
        sum.add(&compare_photo(&label, &short));
        assert_eq!(
            sum.rates().failures.not_found + sum.failures.tiles_missed,
            2
        );
        assert!(
            sum.failures
                .summary()
                .starts_with("1 not found (1 of them a fountain alone), 1 with tiles missed")
        );
    }

    #[test]
    fn occluded_tiles_are_neither_counted_nor_phantoms() {
        let mut hidden = tile(1, 0, Building::Garden, "-");
        hidden.occluded = true;
        let label = photo(vec![tile(0, 0, Building::Fountain, "-"), hidden]);
        let scan = photo(vec![
            tile(0, 0, Building::Fountain, "-"),
            tile(1, 0, Building::Tower, "-"),
        ]);
        let t = compare_photo(&label, &scan);
        assert_eq!((t.tiles, t.phantom, t.building_errors), (1, 0, 0));
        assert_eq!(t.alhambras_exact, 1);
    }

    #[test]
    fn an_alhambra_with_its_fountain_hidden_counts_apart_but_still_counts() {
        let mut fountain = tile(0, 0, Building::Fountain, "-");
        fountain.occluded = true;
        let mut hidden = photo(vec![fountain, tile(1, 0, Building::Garden, "-")]);
        let shown = photo(vec![
            tile(0, 0, Building::Fountain, "-"),
            tile(0, 1, Building::Tower, "-"),
        ]);
        hidden.alhambras[0].fountain_px = [400.0, 400.0];
        let mut label = shown.clone();
        label.alhambras.extend(hidden.alhambras);
        let t = compare_photo(&label, &shown);
        // The hidden one is missed, as before; among those in view, all are exact.
        assert_eq!((t.alhambras, t.alhambras_exact, t.missed), (2, 1, 1));
        let r = t.rates();
        assert_eq!((t.fountain_hidden, t.in_view_exact), (1, 1));
        assert!((r.alhambra_exact_pct - 50.0).abs() < 1e-9);
        assert!((r.in_view_exact_pct - 100.0).abs() < 1e-9);
    }
}
