//! How tiles look: the features of a cell patch (colour layout of the interior, the four
//! wall bands), and the appearance profile that turns them into a building and walls with
//! confidences. A profile is learned from labelled photos (`calibrate appearance`, the
//! app's corrections) and saved as versioned JSON.
//!
//! Here: the profile, how it is learned, adapted and saved. Its parts: `cell` (a cell's
//! features), `models` (the Gaussians and side discriminants), `examples` (the labelled
//! cells learned from), `choices` (a cell's catalogue pairs scored, its reading) and
//! `detectors` (the fountain search's rotation-free view); their public names are this
//! module's.

use crate::geometry::{Homography, Point};
use alhambra_engine::{Building, Side, Walls, catalogue};
use opencv::core::{Mat, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;

mod cell;
mod choices;
mod colour_map;
mod detectors;
mod examples;
mod models;

pub use cell::*;
pub use choices::*;
pub use detectors::*;
pub use examples::*;
pub use models::*;

use colour_map::ColourMap;
use std::sync::OnceLock;
use thiserror::Error;

/// The profile format's version.
pub const PROFILE_VERSION: u32 = 2;

/// The blocks at the corners of the block grid, whatever the quarter turn.
const CORNER_BLOCKS: [usize; 4] = [0, GRID - 1, GRID * (GRID - 1), GRID * GRID - 1];

/// For the fountain's model (`k` is the building's index in `Building::ALL`), `blocks`
/// with their four corner blocks moved together, each channel by one amount, to the
/// model's own mean there; `None` for other buildings. The fountain is the starting tile
/// in its player's colour (at its corners in the renderer), and the labelled photo seldom
/// shows every player: what stays is whether the four corners agree and how they differ,
/// not their colour.
fn fountain_corners_shifted(
    k: usize,
    model: &Gaussian,
    blocks: &[f32; BLOCK_DIMS],
) -> Option<[f32; BLOCK_DIMS]> {
    if k != Building::Fountain as usize || model.mean.len() < BLOCK_DIMS {
        return None;
    }
    let mut out = *blocks;
    for ch in 0..3 {
        let mean = |v: &[f32]| CORNER_BLOCKS.iter().map(|&b| v[3 * b + ch]).sum::<f32>() / 4.0;
        let shift = mean(&model.mean) - mean(blocks);
        for &b in &CORNER_BLOCKS {
            out[3 * b + ch] += shift;
        }
    }
    Some(out)
}

/// A glare level counts for a cell only when its black level is at least this share of
/// the level's lift (the rest for noise, the white balance's tint and JPEG).
const GLARE_BLACK_SHARE: f32 = 0.8;

/// How sharply a photo shows the wall bands, which decides the side models a reading
/// uses: a band blurred with what lies beside it is lighter and wider, and one model for
/// both would be too broad to tell a wall from a dark line on a sharp photo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// As sharp as the labelled photo.
    Sharp,
    /// Out of focus or moving.
    Soft,
}

/// How likely a side is taken to look like the labelled tiles' of its building (rather
/// than like any side of its class): the labelled photo shows each building's sides a
/// few times, and another tile's art may differ.
pub const ART_SHARE: f32 = 0.2;

/// The learned appearance of one tile set under one light.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Format version ([`PROFILE_VERSION`]).
    pub version: u32,
    /// Tile pitch in table millimetres (tile plus seam), as measured when learning.
    pub pitch_mm: f32,
    /// Interior colour layout per building (upright), fountain first, in `Building::ALL`
    /// order; `None` where no sample was seen.
    pub buildings: Vec<Option<Gaussian>>,
    /// Interior colour layout of empty cells next to Alhambras (table, cards, clutter).
    pub empty: Option<Gaussian>,
    /// Side band of a walled side.
    pub wall: Gaussian,
    /// Side band of an open side.
    pub open: Gaussian,
    /// Side band of a walled side in a blurred photo (learned from the labelled cells'
    /// blurred variants; absent from profiles written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soft_wall: Option<Gaussian>,
    /// Side band of an open side in a blurred photo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soft_open: Option<Gaussian>,
    /// Wall against open side, as labelled (absent from profiles written before it: then
    /// the two Gaussians decide).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side_split: Option<Discriminant>,
    /// Wall against open side, blurred.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soft_side_split: Option<Discriminant>,
    /// How each building's open sides looked as labelled: per building (`Building::ALL`
    /// order), per side (north, east, south, west), the mean side features of that side
    /// left open, when some labelled tile showed it. A building's art is drawn the same
    /// way up on every tile of it, and where it reaches a side, an open side there looks
    /// like the art, not like open sides in general (see [`Profile::choices`]). Empty in
    /// profiles written before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub open_sides: Vec<[Option<Vec<f32>>; 4]>,
    /// The same, blurred.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub soft_open_sides: Vec<[Option<Vec<f32>>; 4]>,
    /// The same for walled sides.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub walled_sides: Vec<[Option<Vec<f32>>; 4]>,
    /// The same, blurred.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub soft_walled_sides: Vec<[Option<Vec<f32>>; 4]>,
    /// Cells whose median sharpness is below this are read with the blurred side models:
    /// midway (geometrically) between the labelled cells' sharpness and their blurred
    /// variants'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus_split: Option<f32>,
    /// A cell whose best building distance is above this holds no tile.
    pub presence_limit: f32,
    /// The profile of the same tiles under each of [`GLARE_LEVELS`] (learned from the
    /// labelled tiles with that glare put on; no fountain, no nearest examples): what a
    /// tile washed out by a lamp's reflection is matched against and read with. Empty in
    /// profiles learned before it was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub glare: Vec<Profile>,
    /// The profile a cell well out of focus is told tile or not with: learned from the
    /// same samples and the labelled tiles blurred more strongly (a tile on a soft photo
    /// lies beyond the presence limit of models that never saw it so blurred; models that
    /// did read sharp photos worse). Absent from profiles learned before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soft: Option<Box<Profile>>,
    /// Cells whose coarse sharpness (see `CellFeatures::coarse_sharpness`) is below this
    /// are told tile or not with [`Profile::soft`]: midway (geometrically) between the
    /// blurred variants' median and the strongly blurred ones'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soft_split: Option<f32>,
    /// Labelled examples of tiles (upright) and of empty cells, for the nearest-neighbour
    /// test of presence (what surrounds Alhambras is too varied for one Gaussian).
    pub examples: Examples,
    /// Rotation-free summaries (centre against surround) per building, in
    /// `Building::ALL` order, then empty cells: what the fountain search compares.
    pub detect: Vec<Option<Gaussian>>,
    /// How many photos and tiles it was learned from.
    pub photos: u32,
    /// Tiles learned from.
    pub tiles: u32,
}

/// A profile file that cannot be used.
#[derive(Debug, Error)]
pub enum ProfileError {
    /// Cannot read or write the file.
    #[error("{path}: {source}")]
    Io {
        /// Which file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Not a profile, or damaged.
    #[error("{path}: not an appearance profile: {source}")]
    Json {
        /// Which file.
        path: String,
        /// Why.
        source: serde_json::Error,
    },
    /// Written by another version of the format.
    #[error(
        "{path}: appearance profile version {found}, this build reads version {PROFILE_VERSION}; learn it again with `alhambra calibrate appearance`"
    )]
    Version {
        /// Which file.
        path: String,
        /// Its version.
        found: u32,
    },
    /// Malformed content.
    #[error("{path}: {problem}")]
    Invalid {
        /// Which file.
        path: String,
        /// What is wrong.
        problem: String,
    },
    /// Too little to learn from.
    #[error("cannot learn a profile: {0}")]
    TooLittle(String),
}

/// One labelled cell for learning.
#[derive(Debug, Clone)]
pub struct Sample {
    /// What is on it (`None` for an empty cell).
    pub building: Option<Building>,
    /// Its walls (ignored for empty cells).
    pub walls: Walls,
    /// Its features, upright.
    pub features: CellFeatures,
    /// Whether it was blurred on purpose (a learned variant out of focus or moving): the
    /// overview's fountain search, at a few pixels per tile, never sees blur, and the
    /// blurred sides get side models of their own (see `Focus`).
    pub softened: bool,
    /// Whether it was borrowed from another tile set for a building no labelled tile
    /// showed (see `training::borrow_missing`): it teaches that building's look, never how
    /// sides look.
    pub borrowed: bool,
    /// Whether the nearest-neighbour presence test keeps it among its examples. Each
    /// labelled tile is learned from many random variants so that the Gaussians' moments
    /// do not hang on the draw, but every example costs time at each cell scanned: only
    /// the tile as labelled and its first few variants are kept as examples.
    pub example: bool,
}

impl Profile {
    /// Learns a profile from labelled cells (upright features).
    pub fn learn(samples: &[Sample], pitch_mm: f32, photos: u32) -> Result<Profile, ProfileError> {
        let tiles: Vec<&Sample> = samples.iter().filter(|s| s.building.is_some()).collect();
        if tiles.len() < 3 {
            return Err(ProfileError::TooLittle(format!(
                "{} labelled tiles; at least 3 are needed",
                tiles.len()
            )));
        }
        // Pooled within-class variance of the interior, the prior for rare classes.
        let mut pooled = vec![0f32; BLOCK_DIMS];
        let mut count = 0f32;
        for b in Building::ALL {
            let of: Vec<&[f32]> = tiles
                .iter()
                .filter(|s| s.building == Some(b))
                .map(|s| &s.features.blocks[..])
                .collect();
            if let Some(g) = Gaussian::learn(&of, None, |_| 0.0) {
                for (p, v) in pooled.iter_mut().zip(&g.var) {
                    *p += v * of.len() as f32;
                }
                count += of.len() as f32;
            }
        }
        pooled.iter_mut().for_each(|p| *p /= count.max(1.0));
        // Floors: chromaticity varies by at least ~0.005 and relative brightness by ~0.03
        // between photos, however alike the labelled tiles were.
        let floor = block_floor;
        let buildings: Vec<Option<Gaussian>> = Building::ALL
            .iter()
            .map(|&b| {
                let of: Vec<&[f32]> = tiles
                    .iter()
                    .filter(|s| s.building == Some(b))
                    .map(|s| &s.features.blocks[..])
                    .collect();
                Gaussian::learn(&of, Some(&pooled), floor)
            })
            .collect();
        let empties: Vec<&[f32]> = samples
            .iter()
            .filter(|s| s.building.is_none())
            .map(|s| &s.features.blocks[..])
            .collect();
        let empty = Gaussian::learn(&empties, None, floor);
        // Side bands as labelled, and (apart) as blurred on purpose: see `Focus`.
        let sides = |soft: bool| -> (Option<Gaussian>, Option<Gaussian>, Option<Discriminant>) {
            let mut walled: Vec<&[f32]> = Vec::new();
            let mut open: Vec<&[f32]> = Vec::new();
            for s in tiles.iter().filter(|s| s.softened == soft && !s.borrowed) {
                for side in Side::ALL {
                    let f = &s.features.sides[side as usize][..];
                    if s.walls.has(side) {
                        walled.push(f)
                    } else {
                        open.push(f)
                    }
                }
            }
            let side_floor = |_| 1e-4;
            (
                Gaussian::learn(&walled, None, side_floor),
                Gaussian::learn(&open, None, side_floor),
                Discriminant::learn(&walled, &open),
            )
        };
        // Each building's open or walled sides, per side, as labelled (see `open_sides`).
        let side_looks = |soft: bool, walled: bool| -> Vec<[Option<Vec<f32>>; 4]> {
            Building::ALL
                .iter()
                .map(|&b| {
                    Side::ALL.map(|side| {
                        let of: Vec<&[f32]> = tiles
                            .iter()
                            .filter(|s| {
                                s.building == Some(b)
                                    && s.softened == soft
                                    && !s.borrowed
                                    && s.walls.has(side) == walled
                            })
                            .map(|s| &s.features.sides[side as usize][..])
                            .collect();
                        (!of.is_empty()).then(|| {
                            (0..SIDE_DIMS)
                                .map(|i| of.iter().map(|x| x[i]).sum::<f32>() / of.len() as f32)
                                .collect()
                        })
                    })
                })
                .collect()
        };
        let (wall, open, side_split) = sides(false);
        let wall = wall.ok_or_else(|| {
            ProfileError::TooLittle("no walled side among the labelled tiles".into())
        })?;
        let open = open.ok_or_else(|| {
            ProfileError::TooLittle("no open side among the labelled tiles".into())
        })?;
        let (soft_wall, soft_open, soft_side_split) = match sides(true) {
            (Some(w), Some(o), split) => (Some(w), Some(o), split),
            _ => (None, None, None),
        };
        let median_sharpness = |soft: bool| -> Option<f32> {
            let mut v: Vec<f32> = tiles
                .iter()
                .filter(|s| s.softened == soft)
                .map(|s| s.features.sharpness)
                .collect();
            v.sort_by(f32::total_cmp);
            v.get(v.len() / 2).copied()
        };
        let focus_split = match (median_sharpness(false), median_sharpness(true)) {
            (Some(sharp), Some(soft)) if soft < sharp && soft > 0.0 => Some((sharp * soft).sqrt()),
            _ => None,
        };
        let detect: Vec<Option<Gaussian>> = Building::ALL
            .iter()
            .map(|&b| Some(b))
            .chain([None])
            .map(|b| {
                let of: Vec<[f32; DETECT_DIMS]> = samples
                    .iter()
                    .filter(|s| s.building == b && !s.softened)
                    .map(|s| detect_features(&s.features.blocks))
                    .collect();
                let refs: Vec<&[f32]> = of.iter().map(|f| &f[..]).collect();
                Gaussian::learn(&refs, None, |i| if i < 4 { 2.5e-5 } else { 1e-3 })
            })
            .collect();
        let examples = Examples::learn(samples);
        let mut profile = Profile {
            version: PROFILE_VERSION,
            pitch_mm,
            buildings,
            empty,
            examples,
            detect,
            wall,
            open,
            soft_wall,
            soft_open,
            side_split,
            soft_side_split,
            open_sides: side_looks(false, false),
            soft_open_sides: side_looks(true, false),
            walled_sides: side_looks(false, true),
            soft_walled_sides: side_looks(true, true),
            focus_split,
            presence_limit: 0.0,
            glare: Vec::new(),
            soft: None,
            soft_split: None,
            photos,
            tiles: tiles.iter().filter(|s| !s.borrowed).count() as u32,
        };
        // Presence: well above what the labelled tiles themselves scored.
        let mut scores: Vec<f32> = tiles
            .iter()
            .map(|s| profile.best_building_distance(&s.features))
            .collect();
        scores.sort_by(f32::total_cmp);
        let high = scores[((scores.len() - 1) as f32 * 0.95) as usize];
        profile.presence_limit = (high * 1.5).max(1.5);
        Ok(profile)
    }

    /// Channel gains (B, G, R, mean 1) that bring the colours of confidently read tiles
    /// to those the profile learned for their buildings; ones when too few are sure.
    pub fn colour_gains<'a>(
        &self,
        tiles: impl Iterator<Item = (&'a CellFeatures, &'a Reading)>,
    ) -> [f32; 3] {
        let mut ratio = [0f64; 3];
        let mut count = 0f64;
        for (f, r) in tiles {
            if r.building_confidence < 0.8 {
                continue;
            }
            let Some(Some(model)) = self.buildings.get(r.building as usize) else {
                continue;
            };
            for k in 0..GRID * GRID {
                // A fountain's corners are its player's colour, not the light's.
                if r.building == Building::Fountain && CORNER_BLOCKS.contains(&k) {
                    continue;
                }
                let (or, og) = (f64::from(f.blocks[3 * k]), f64::from(f.blocks[3 * k + 1]));
                let (mr, mg) = (
                    f64::from(model.mean[3 * k]),
                    f64::from(model.mean[3 * k + 1]),
                );
                let (ob, mb) = (1.0 - or - og, 1.0 - mr - mg);
                if or > 0.02 && og > 0.02 && ob > 0.02 {
                    ratio[0] += mb / ob;
                    ratio[1] += mg / og;
                    ratio[2] += mr / or;
                    count += 1.0;
                }
            }
        }
        if count < 12.0 {
            return [1.0; 3];
        }
        let g = ratio.map(|r| r / count);
        let mean = (g[0] + g[1] + g[2]) / 3.0;
        g.map(|x| (x / mean) as f32)
    }

    /// The correction that brings confidently read tiles (upright features, the building
    /// read) to the profile's tone: the saturation that best takes their blocks'
    /// chromaticities (as offsets from grey) to their buildings' and the power that best
    /// takes their blocks' brightness (against each cell's median) to their buildings',
    /// each a weighted least-squares fit through the origin, weights the inverse of the
    /// buildings' variances. Fitted as the photo's look from the profile's, then inverted:
    /// the scatter is the photo's (tiles differ from their building's mean), and a fit the
    /// other way round shrinks towards no correction (on photos shot as the labelled one
    /// it gave contrast 0.85). `None` with fewer than `least` tiles. A fountain's corners
    /// are left out: they are its player's colour, not the photo's tone.
    pub fn tone_of<'a>(
        &self,
        tiles: impl Iterator<Item = (&'a CellFeatures, Building)>,
        least: usize,
    ) -> Option<crate::tone::Tone> {
        const GREY: f64 = 1.0 / 3.0;
        let (mut sat_num, mut sat_den) = (0f64, 0f64);
        let (mut con_num, mut con_den) = (0f64, 0f64);
        let mut count = 0usize;
        for (f, b) in tiles {
            let Some(Some(model)) = self.buildings.get(b as usize) else {
                continue;
            };
            if model.mean.len() < BLOCK_DIMS || model.var.len() < BLOCK_DIMS {
                continue;
            }
            count += 1;
            for k in 0..GRID * GRID {
                if b == Building::Fountain && CORNER_BLOCKS.contains(&k) {
                    continue;
                }
                for ch in 0..2 {
                    let i = 3 * k + ch;
                    let w = 1.0 / f64::from(model.var[i]).max(1e-9);
                    let (x, y) = (
                        f64::from(f.blocks[i]) - GREY,
                        f64::from(model.mean[i]) - GREY,
                    );
                    sat_num += w * y * y;
                    sat_den += w * x * y;
                }
                let i = 3 * k + 2;
                let (x, y) = (f64::from(f.blocks[i]), f64::from(model.mean[i]));
                if x > 0.05 && y > 0.05 {
                    // Brightness ratios: fitted in logarithms (a power is a factor there);
                    // the variance taken to the log scale by the mean's square.
                    let w = (y * y) / f64::from(model.var[i]).max(1e-9);
                    let (lx, ly) = (x.ln(), y.ln());
                    con_num += w * ly * ly;
                    con_den += w * lx * ly;
                }
            }
        }
        if count < least || sat_den <= 0.0 || con_den <= 0.0 {
            return None;
        }
        Some(crate::tone::Tone {
            saturation: (sat_num / sat_den) as f32,
            contrast: (con_num / con_den) as f32,
        })
    }

    /// The fountain search's view of this profile.
    pub fn detectors(&self) -> Detectors<'_> {
        Detectors {
            models: &self.detect,
        }
    }

    /// What a fountain in a player's colour the labelled photos did not show costs, in
    /// mean squared z-score (see [`fountain_corners_shifted`]): a third of the presence
    /// limit. Free, a hand or a card of one colour, whose corners agree as a fountain's
    /// do, read as lone fountains (dev photos: 2.4-2.8 against a limit of 2.9, real
    /// fountains of unseen colours 0.3-0.9).
    fn unseen_colour_cost(&self) -> f32 {
        self.presence_limit / 3.0
    }

    /// The distance of `blocks` to model `g` of building `k` (in `Building::ALL` order).
    fn distance_to(&self, k: usize, g: &Gaussian, blocks: &[f32; BLOCK_DIMS]) -> f32 {
        let plain = g.distance(blocks);
        match fountain_corners_shifted(k, g, blocks) {
            Some(shifted) => plain.min(g.distance(&shifted) + self.unseen_colour_cost()),
            None => plain,
        }
    }

    /// The log-likelihood of `blocks` under model `g` of building `k`, as `distance_to`.
    fn likelihood_of(&self, k: usize, g: &Gaussian, blocks: &[f32; BLOCK_DIMS]) -> f32 {
        let plain = g.log_likelihood(blocks);
        match fountain_corners_shifted(k, g, blocks) {
            Some(shifted) => plain.max(
                g.log_likelihood(&shifted) - 0.5 * BLOCK_DIMS as f32 * self.unseen_colour_cost(),
            ),
            None => plain,
        }
    }

    /// The smallest building distance over the patch as it is (no turning).
    pub fn best_building_distance(&self, f: &CellFeatures) -> f32 {
        self.buildings
            .iter()
            .enumerate()
            .filter_map(|(k, g)| Some(self.distance_to(k, g.as_ref()?, &f.blocks)))
            .fold(f32::INFINITY, f32::min)
    }

    /// The glare level (index into [`GLARE_LEVELS`]) under which the cell looks most like
    /// a building in any quarter turn, with that distance (as [`Profile::tile_distance`]).
    /// Only levels the cell's `black` level allows count: glare lifts every pixel, so a
    /// cell whose darkest pixels lie well below a level's lift is not under that glare (a
    /// grey table looks like a washed-out tile in colour alone). `None` without glare
    /// models.
    pub fn glare_distance(
        &self,
        f: &CellFeatures,
        black: f32,
        white: WhiteBalance,
    ) -> Option<(usize, f32)> {
        // The least channel's lift, in the camera's units.
        let least_gain = white
            .iter()
            .fold(f32::INFINITY, |m, &w| m.min(1.0 / w.max(0.1)));
        let turns = [0, 1, 2, 3].map(|t| f.turned_blocks(t));
        let mut best: Option<(usize, f32)> = None;
        for (level, under) in self.glare.iter().enumerate() {
            let lift = GLARE_LEVELS.get(level)? * 255.0 * least_gain;
            if black < GLARE_BLACK_SHARE * lift {
                continue;
            }
            for g in under.buildings.iter().flatten() {
                let d = g
                    .distances4(&turns)
                    .into_iter()
                    .fold(f32::INFINITY, f32::min);
                if best.is_none_or(|(_, b)| d < b) {
                    best = Some((level, d));
                }
            }
        }
        best
    }

    /// This profile with its buildings' looks moved towards those of tiles read in one
    /// photo (`tiles`: upright features and the building read, each sure of it): each
    /// building's mean towards the mean of its own tiles there (as if the profile's were
    /// `prior` tiles more), the buildings no tile showed by the tiles' mean offset from
    /// their buildings (a light, a focus, an edition's colours the profile was not
    /// learned under). `None` with fewer than `least` tiles.
    pub fn adapted<'a>(
        &self,
        tiles: impl Iterator<Item = (&'a CellFeatures, Building)>,
        prior: f32,
        least: usize,
    ) -> Option<Profile> {
        let tiles: Vec<(&CellFeatures, Building)> = tiles.collect();
        let mut out = self.adapted_buildings(&tiles, prior, least)?;
        if let Some(soft) = &self.soft {
            out.soft = soft.adapted_buildings(&tiles, prior, least).map(Box::new);
        }
        Some(out)
    }

    /// This profile with every building's look moved by the colour map that takes its
    /// buildings' looks to those of `tiles` (upright features and the building read, each
    /// sure of it): the light one Alhambra lies under, told by its own tiles, which a
    /// building none of them is moves under too. `None` with fewer than `least` tiles or
    /// colours too few to fit the map.
    pub fn mapped<'a>(
        &self,
        tiles: impl Iterator<Item = (&'a CellFeatures, Building)>,
        least: usize,
    ) -> Option<Profile> {
        let tiles: Vec<(&CellFeatures, Building)> = tiles.collect();
        if tiles.len() < least {
            return None;
        }
        let map = ColourMap::fit(tiles.iter().filter_map(|&(f, b)| {
            let g = self.buildings.get(b as usize)?.as_ref()?;
            Some((&g.mean[..], &f.blocks[..]))
        }))?;
        let mut out = self.clone();
        for g in out.buildings.iter_mut().flatten() {
            map.apply(&mut g.mean);
        }
        if let Some(soft) = &mut out.soft {
            for g in soft.buildings.iter_mut().flatten() {
                map.apply(&mut g.mean);
            }
        }
        Some(out)
    }

    /// [`Profile::adapted`] for this profile's own buildings.
    fn adapted_buildings(
        &self,
        tiles: &[(&CellFeatures, Building)],
        prior: f32,
        least: usize,
    ) -> Option<Profile> {
        let mut sums = vec![([0f32; BLOCK_DIMS], 0f32); self.buildings.len()];
        let mut shift = [0f32; BLOCK_DIMS];
        let mut count = 0usize;
        for &(f, b) in tiles {
            let Some(Some(g)) = self.buildings.get(b as usize) else {
                continue;
            };
            let (sum, n) = &mut sums[b as usize];
            for (k, x) in f.blocks.iter().enumerate() {
                sum[k] += x;
                shift[k] += x - g.mean.get(k).copied().unwrap_or(*x);
            }
            *n += 1.0;
            count += 1;
        }
        if count < least {
            return None;
        }
        let mut out = self.clone();
        for (g, (sum, n)) in out.buildings.iter_mut().zip(&sums) {
            let Some(g) = g else { continue };
            for (k, m) in g.mean.iter_mut().enumerate().take(BLOCK_DIMS) {
                *m = if *n > 0.0 {
                    (prior * *m + sum[k]) / (prior + n)
                } else {
                    *m + shift[k] / count as f32
                };
            }
        }
        Some(out)
    }

    /// Whether a cell holds a tile (any building), with how alike it is (lower: more).
    /// Tries the four quarter turns. A tile must look more like some building than like
    /// the empty cells around Alhambras, and not be far from every building.
    pub fn presence(&self, f: &CellFeatures) -> (bool, f32) {
        if let Some((soft, scale)) = self.soft_for(f) {
            let (tile, d) = soft.presence(f);
            return (tile, d * scale);
        }
        let best = self.tile_distance(f);
        if best > self.presence_limit {
            return (false, best);
        }
        let tile_like = self.examples.looks_like_tile(f).unwrap_or_else(|| {
            self.empty.as_ref().is_none_or(|e| {
                let tile_ll = (0..4)
                    .flat_map(|t| {
                        let g = f.turned_blocks(t);
                        self.buildings
                            .iter()
                            .enumerate()
                            .filter_map(move |(k, b)| {
                                let b = b.as_ref()?;
                                Some(self.likelihood_of(k, b, &g))
                            })
                            .collect::<Vec<_>>()
                    })
                    .fold(f32::NEG_INFINITY, f32::max);
                tile_ll > e.log_likelihood(&f.blocks)
            })
        });
        (tile_like, best)
    }

    /// The mean distances from `f` to its nearest tile examples and to its nearest empty
    /// ones, `more` (the photo's own) among them; in the examples of the profile for `f`'s
    /// focus (a blurred tile looks like the blurred tiles). `None` without examples of both
    /// kinds.
    pub fn nearest_tile_and_empty(
        &self,
        f: &CellFeatures,
        more: &MoreExamples<'_>,
    ) -> Option<(f32, f32)> {
        let examples = self
            .soft_for(f)
            .map_or(&self.examples, |(soft, _)| &soft.examples);
        examples.nearest_tile_and_empty(f, more)
    }

    /// How unlike the nearest building the cell looks in any quarter turn (mean capped
    /// squared z-score): the cheap part of [`Profile::presence`], for ranking candidates.
    pub fn tile_distance(&self, f: &CellFeatures) -> f32 {
        // The four turns at once (see `Gaussian::distances4`); the least of the same
        // distances as `best_building_distance` of each turn gives.
        let turns = [0, 1, 2, 3].map(|t| f.turned_blocks(t));
        let mut best = f32::INFINITY;
        for (k, g) in self.buildings.iter().enumerate() {
            let Some(g) = g else { continue };
            let plain = g.distances4(&turns);
            for (blocks, plain) in turns.iter().zip(plain) {
                let d = match fountain_corners_shifted(k, g, blocks) {
                    Some(shifted) => plain.min(g.distance(&shifted) + self.unseen_colour_cost()),
                    None => plain,
                };
                best = best.min(d);
            }
        }
        best
    }

    /// The profile cell `f` is told tile or not with when it is well out of focus (see
    /// [`Profile::soft`]), and the factor that puts its distances on this profile's scale
    /// (its presence limit to this one's): callers compare them with this one's limit.
    /// Looks at one cell are ranked under one model, whatever their sharpness (ranked
    /// under two, the quads chosen moved and walls read on them changed, at random): see
    /// [`Profile::interior_for`].
    fn soft_for(&self, f: &CellFeatures) -> Option<(&Profile, f32)> {
        let (soft, split) = (self.soft.as_deref()?, self.soft_split?);
        (f.coarse_sharpness < split && soft.presence_limit > 0.0)
            .then(|| (soft, self.presence_limit / soft.presence_limit))
    }

    /// Adds the profile for cells well out of focus (see [`Profile::soft`]), learned from
    /// `samples` (those this one was) and `strong` (the strongly blurred tiles).
    pub fn set_soft(&mut self, soft: Profile, samples: &[Sample], strong: &[Sample]) {
        let median = |of: &mut dyn Iterator<Item = &Sample>| -> Option<f32> {
            let mut v: Vec<f32> = of
                .filter(|s| s.building.is_some())
                .map(|s| s.features.coarse_sharpness)
                .collect();
            v.sort_by(f32::total_cmp);
            v.get(v.len() / 2).copied()
        };
        let blurred = median(&mut samples.iter().filter(|s| s.softened));
        let stronger = median(&mut strong.iter());
        if let (Some(b), Some(s)) = (blurred, stronger)
            && s < b
            && s > 0.0
        {
            self.soft_split = Some((b * s).sqrt());
            self.soft = Some(Box::new(soft));
        }
    }

    /// The profile whose [`Profile::tile_distance`] ranks looks at the cell whose first
    /// look is `f`: the soft one when that look is well out of focus (see
    /// [`Profile::soft`]). One for all looks at a cell: distances under the two are not
    /// comparable.
    pub fn interior_for(&self, f: &CellFeatures) -> &Profile {
        self.soft_for(f).map_or(self, |(soft, _)| soft)
    }

    /// [`Profile::tile_distance`] for telling tile or not against the presence limit:
    /// from the soft profile for a cell well out of focus, on this one's scale.
    pub fn presence_distance(&self, f: &CellFeatures) -> f32 {
        match self.soft_for(f) {
            Some((soft, scale)) => soft.tile_distance(f) * scale,
            None => self.tile_distance(f),
        }
    }

    /// Log-likelihood of each building (in `Building::ALL` order) for upright features;
    /// unseen buildings get `-inf`.
    pub fn building_scores(&self, f: &CellFeatures) -> [f32; 7] {
        let mut out = [f32::NEG_INFINITY; 7];
        for (k, (o, g)) in out.iter_mut().zip(&self.buildings).enumerate() {
            if let Some(g) = g {
                *o = self.likelihood_of(k, g, &f.blocks);
            }
        }
        out
    }

    /// The mean walled and open side looks this profile reads a photo of `focus` with
    /// (the discriminant's classes, or without one the two Gaussians).
    pub fn side_means(&self, focus: Focus) -> (&[f32], &[f32]) {
        match self.side_split_for(focus) {
            Some(d) => (&d.classes[0].mean, &d.classes[1].mean),
            None => {
                let (wall, open) = self.side_models(focus);
                (&wall.mean, &open.mean)
            }
        }
    }

    /// This profile with every walled side look moved by `wall` and every open one by
    /// `open` (added): the general models, the blurred ones, and each building's looks.
    pub fn with_sides_moved(&self, wall: &[f32], open: &[f32]) -> Profile {
        let add = |mean: &mut Vec<f32>, by: &[f32]| {
            for (m, d) in mean.iter_mut().zip(by) {
                *m += d;
            }
        };
        let mut out = self.clone();
        add(&mut out.wall.mean, wall);
        add(&mut out.open.mean, open);
        if let Some(g) = &mut out.soft_wall {
            add(&mut g.mean, wall);
        }
        if let Some(g) = &mut out.soft_open {
            add(&mut g.mean, open);
        }
        for d in [&mut out.side_split, &mut out.soft_side_split]
            .into_iter()
            .flatten()
        {
            add(&mut d.classes[0].mean, wall);
            add(&mut d.classes[1].mean, open);
        }
        for (looks, by) in [
            (&mut out.walled_sides, wall),
            (&mut out.soft_walled_sides, wall),
            (&mut out.open_sides, open),
            (&mut out.soft_open_sides, open),
        ] {
            for m in looks.iter_mut().flatten().flatten() {
                add(m, by);
            }
        }
        out
    }

    /// The (wall, open) side models for a photo of this focus (the sharp ones when the
    /// profile has no others).
    fn side_models(&self, focus: Focus) -> (&Gaussian, &Gaussian) {
        match (focus, &self.soft_wall, &self.soft_open) {
            (Focus::Soft, Some(w), Some(o)) => (w, o),
            _ => (&self.wall, &self.open),
        }
    }

    /// The wall-against-open discriminant for a photo of this focus (the sharp one when the
    /// profile has no other), if the profile has one.
    fn side_split_for(&self, focus: Focus) -> Option<&Discriminant> {
        match focus {
            Focus::Sharp => self.side_split.as_ref(),
            Focus::Soft => self.soft_side_split.as_ref().or(self.side_split.as_ref()),
        }
    }

    /// The log-odds of a wall on each side of upright features (north, east, south, west):
    /// from the discriminant when the profile has one for this focus, else half the two
    /// Gaussians' log-likelihood ratio (tempered: their features are correlated).
    pub fn side_log_odds(&self, f: &CellFeatures, focus: Focus) -> [f32; 4] {
        let split = self.side_split_for(focus);
        let (wall, open) = self.side_models(focus);
        Side::ALL.map(|side| {
            let x = &f.sides[side as usize];
            match split {
                Some(d) => d.log_odds(x),
                None => 0.5 * (wall.log_likelihood(x) - open.log_likelihood(x)),
            }
        })
    }

    /// [`Profile::side_log_odds`] for each building (`Building::ALL` order): where the
    /// profile saw how that building's side there looks open or walled (see `open_sides`,
    /// `walled_sides`), each class is a side looking like any side of it, or (with
    /// [`ART_SHARE`]) like that building's; elsewhere the general odds. The art reaching
    /// a side (a seraglio's roof, a garden's tree) otherwise reads as a wall band now and
    /// then, in a tile set whose walls are faint (light-walled dev photos: 70 -> 73% of
    /// Alhambras exact; dark-walled ones within an Alhambra either way).
    ///
    /// A side the labelled photo showed one way only (a building seen once or twice) gets
    /// the other way's look moved as the art moves the one seen. Left to the general model,
    /// a side like the building's art scored for the class seen alone: with a profile
    /// learned from a photo showing one seraglio, held-out normal seraglios read walls on
    /// open sides facing no tile (77 -> 83% of Alhambras exact).
    pub fn side_log_odds_by_building(&self, f: &CellFeatures, focus: Focus) -> [[f32; 4]; 7] {
        let general = self.side_log_odds(f, focus);
        let mut out = [general; 7];
        let (split, opens, walls) = match (focus, &self.soft_side_split) {
            (Focus::Soft, Some(soft)) => {
                (Some(soft), &self.soft_open_sides, &self.soft_walled_sides)
            }
            _ => (
                self.side_split.as_ref(),
                &self.open_sides,
                &self.walled_sides,
            ),
        };
        let Some(split) = split else { return out };
        let [wall, open] = &split.classes;
        // Like any side of the class, or (with ART_SHARE) like that building's side there.
        let either = |any: f32, this: Option<f32>| match this {
            Some(this) => {
                let top = any.max(this);
                top + ((1.0 - ART_SHARE) * (any - top).exp() + ART_SHARE * (this - top).exp()).ln()
            }
            None => any,
        };
        let moved = |out: &mut [f32; SIDE_DIMS], seen: &[f32], from: &[f32], to: &[f32]| {
            for (((m, s), a), b) in out.iter_mut().zip(seen).zip(from).zip(to) {
                *m = s - a + b;
            }
        };
        for (k, odds) in out.iter_mut().enumerate() {
            for side in Side::ALL {
                let o = opens.get(k).and_then(|m| m[side as usize].as_deref());
                let w = walls.get(k).and_then(|m| m[side as usize].as_deref());
                if o.is_none() && w.is_none() {
                    continue;
                }
                // Seen one way only, the other class's look there is the art moving it as
                // it moves the class seen: the look seen less its class's mean, plus the
                // other's.
                let (mut o_moved, mut w_moved) = ([0f32; SIDE_DIMS], [0f32; SIDE_DIMS]);
                let (o, w) = match (o, w) {
                    (None, Some(w)) => {
                        moved(&mut o_moved, w, &wall.mean, &open.mean);
                        (Some(&o_moved[..]), Some(w))
                    }
                    (Some(o), None) => {
                        moved(&mut w_moved, o, &open.mean, &wall.mean);
                        (Some(o), Some(&w_moved[..]))
                    }
                    known => known,
                };
                let x = &f.sides[side as usize];
                let open_ll = either(
                    open.log_likelihood(x),
                    o.map(|m| open.log_likelihood_about(x, m)),
                );
                let wall_ll = either(
                    wall.log_likelihood(x),
                    w.map(|m| wall.log_likelihood_about(x, m)),
                );
                odds[side as usize] = (wall_ll - open_ll).clamp(-LOG_ODDS_CAP, LOG_ODDS_CAP);
            }
        }
        out
    }

    /// How well each side (north, east, south, west) of upright features looks like a tile's
    /// side at all, walled or open: the likelier class's log-likelihood (up to a constant).
    pub fn side_fit(&self, f: &CellFeatures, focus: Focus) -> [f32; 4] {
        Side::ALL.map(|side| self.one_side_fit(&f.sides[side as usize], focus))
    }

    /// [`Profile::side_fit`] of one side's features `x`.
    pub fn one_side_fit(&self, x: &[f32; SIDE_DIMS], focus: Focus) -> f32 {
        match self.side_split_for(focus) {
            Some(d) => {
                let [a, b] = &d.classes;
                a.log_likelihood(x).max(b.log_likelihood(x))
            }
            None => {
                let (wall, open) = self.side_models(focus);
                wall.log_likelihood(x).max(open.log_likelihood(x))
            }
        }
    }

    /// The focus of cells seen together (one Alhambra): from their median sharpness,
    /// since one cell's picture may be plain or busy. (Which side models fit better does
    /// not tell: the blurred ones are broader and fit every odd side better.)
    pub fn focus_of<'a>(&self, cells: impl Iterator<Item = &'a CellFeatures>) -> Focus {
        let Some(split) = self.focus_split else {
            return Focus::Sharp;
        };
        let mut v: Vec<f32> = cells.map(|f| f.sharpness).collect();
        v.sort_by(f32::total_cmp);
        match v.get(v.len() / 2) {
            Some(&s) if s < split => Focus::Soft,
            _ => Focus::Sharp,
        }
    }

    /// Reads an upright cell: the best (building, walls) pair, preferring pairs the
    /// catalogue has; a pair it lacks is returned only when far more likely, and flagged.
    pub fn read(&self, f: &CellFeatures, focus: Focus) -> Reading {
        self.read_with(f, &[0.0; 4], focus)
    }

    /// Reads an upright cell with outside evidence per side: `hints[side]` is log-odds for
    /// a wall there (positive: a wall), e.g. from the neighbour sharing that side.
    pub fn read_with(&self, f: &CellFeatures, hints: &[f32; 4], focus: Focus) -> Reading {
        self.choices(f, hints, focus).reading()
    }

    /// What a reading of an upright cell chooses from: every catalogue pair (and the
    /// fountain) with its score, and the best pair regardless of the catalogue. `hints` as
    /// for [`Profile::read_with`].
    pub fn choices(&self, f: &CellFeatures, hints: &[f32; 4], focus: Focus) -> Choices {
        // Naive-Bayes log-likelihoods over correlated features are overconfident: temper.
        const TEMPER: f32 = 0.25;
        let bs = self.building_scores(f);
        // Per side, the log-odds of a wall with the neighbour's word added: in general,
        // and for each building.
        let with_hints = |mut odds: [f32; 4]| {
            for (o, h) in odds.iter_mut().zip(hints) {
                *o += h;
            }
            odds
        };
        let odds = with_hints(self.side_log_odds(f, focus));
        let building_odds = self.side_log_odds_by_building(f, focus).map(with_hints);
        let score = |&(b, w): &(Building, Walls)| {
            bs[b as usize] * TEMPER + choices::side_score(&building_odds, (b, w))
        };
        let scored: Vec<f32> = catalogue_pairs().iter().map(score).collect();
        // Unconstrained reading: best building, each side on its own.
        let free_b = Building::ALL[(0..7).max_by(|&a, &b| bs[a].total_cmp(&bs[b])).unwrap_or(0)];
        let free_w = choices::free_walls(&building_odds, free_b);
        Choices {
            scored,
            odds,
            building_odds,
            free: (free_b, free_w),
            free_score: score(&(free_b, free_w)),
        }
    }

    /// Reads a profile file, refusing other versions and damaged files.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ProfileError::Io {
            path: shown.clone(),
            source,
        })?;
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|source| ProfileError::Json {
                path: shown.clone(),
                source,
            })?;
        let found = value
            .get("version")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0) as u32;
        if found != PROFILE_VERSION {
            return Err(ProfileError::Version { path: shown, found });
        }
        let profile: Profile =
            serde_json::from_value(value).map_err(|source| ProfileError::Json {
                path: shown.clone(),
                source,
            })?;
        profile
            .validate()
            .map_err(|problem| ProfileError::Invalid {
                path: shown,
                problem,
            })?;
        Ok(profile)
    }

    fn validate(&self) -> Result<(), String> {
        if self.buildings.len() != 7 {
            return Err(format!(
                "{} building models, expected 7",
                self.buildings.len()
            ));
        }
        let ok = |g: &Gaussian, d: usize| {
            g.mean.len() == d && g.var.len() == d && g.var.iter().all(|v| *v > 0.0)
        };
        for g in self.buildings.iter().flatten().chain(self.empty.as_ref()) {
            if !ok(g, BLOCK_DIMS) {
                return Err("a building model has the wrong size or a zero variance".into());
            }
        }
        if self.detect.len() != 8 || self.detect.iter().flatten().any(|g| !ok(g, DETECT_DIMS)) {
            return Err("the fountain search models have the wrong size".into());
        }
        if [&self.wall, &self.open]
            .into_iter()
            .chain(self.soft_wall.as_ref())
            .chain(self.soft_open.as_ref())
            .any(|g| !ok(g, SIDE_DIMS))
            || [&self.side_split, &self.soft_side_split]
                .into_iter()
                .flatten()
                .any(|d| !d.fits(SIDE_DIMS))
        {
            return Err("a wall model has the wrong size or a zero variance".into());
        }
        for looks in [
            &self.open_sides,
            &self.soft_open_sides,
            &self.walled_sides,
            &self.soft_walled_sides,
        ] {
            let sized = looks
                .iter()
                .flatten()
                .flatten()
                .all(|m| m.len() == SIDE_DIMS);
            if !(looks.is_empty() || looks.len() == 7) || !sized {
                return Err("a building's side looks have the wrong size".into());
            }
        }
        if !(self.pitch_mm > 5.0 && self.pitch_mm < 500.0) {
            return Err(format!("tile pitch {} mm is not plausible", self.pitch_mm));
        }
        if self.glare.len() > GLARE_LEVELS.len() {
            return Err(format!(
                "{} glare profiles, at most {} expected",
                self.glare.len(),
                GLARE_LEVELS.len()
            ));
        }
        for under in &self.glare {
            under.validate().map_err(|e| format!("under glare: {e}"))?;
        }
        if let Some(soft) = &self.soft {
            soft.validate().map_err(|e| format!("out of focus: {e}"))?;
            if soft.soft.is_some() || !soft.presence_limit.is_finite() {
                return Err("the out-of-focus profile is malformed".into());
            }
        }
        Ok(())
    }

    /// Writes the profile (to a temporary file, then renamed, so a crash loses nothing).
    pub fn save(&self, path: &Path) -> Result<(), ProfileError> {
        let shown = path.display().to_string();
        let text = serde_json::to_string_pretty(self).map_err(|source| ProfileError::Json {
            path: shown.clone(),
            source,
        })?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text).map_err(|source| ProfileError::Io {
            path: tmp.display().to_string(),
            source,
        })?;
        std::fs::rename(&tmp, path).map_err(|source| ProfileError::Io {
            path: shown,
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn features_with(seed: f32) -> CellFeatures {
        let mut blocks = [0f32; BLOCK_DIMS];
        for (i, b) in blocks.iter_mut().enumerate() {
            *b = seed + i as f32;
        }
        let mut sides = [[0f32; SIDE_DIMS]; 4];
        for (i, s) in sides.iter_mut().enumerate() {
            s[0] = i as f32;
        }
        CellFeatures {
            blocks,
            sides,
            sharpness: 1.0,
            coarse_sharpness: 1.0,
        }
    }

    /// Cells of three buildings with their own colour layouts, each drawn with noise, and
    /// those same looks shot in another tone: `saturation` times as far from grey, and
    /// brightness ratios to the power `contrast`.
    fn cells_in_tone(saturation: f32, contrast: f32, seed: u64) -> Vec<Sample> {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut out = Vec::new();
        for (k, b) in [Building::Garden, Building::Tower, Building::Seraglio]
            .into_iter()
            .enumerate()
        {
            for n in 0..60 {
                let mut blocks = [0f32; BLOCK_DIMS];
                for i in 0..GRID * GRID {
                    let phase = (i + 3 * k) as f32;
                    let noise = |rng: &mut fastrand::Rng| (rng.f32() - 0.5) * 0.01;
                    let r = 0.08 * phase.sin() + noise(&mut rng);
                    let g = 0.06 * (1.7 * phase).cos() + noise(&mut rng);
                    let l = 1.0 + 0.3 * (0.9 * phase).sin() + noise(&mut rng);
                    blocks[3 * i] = 1.0 / 3.0 + saturation * r;
                    blocks[3 * i + 1] = 1.0 / 3.0 + saturation * g;
                    blocks[3 * i + 2] = l.powf(contrast);
                }
                out.push(Sample {
                    building: Some(b),
                    // Learning needs walled and open sides; they play no part here.
                    walls: if n % 2 == 0 {
                        Walls::of(&[Side::North])
                    } else {
                        Walls::NONE
                    },
                    features: CellFeatures {
                        blocks,
                        sides: [[0.0; SIDE_DIMS]; 4],
                        sharpness: 1.0,
                        coarse_sharpness: 1.0,
                    },
                    softened: false,
                    borrowed: false,
                    example: false,
                });
            }
        }
        out
    }

    #[test]
    fn the_tone_of_tiles_shot_duller_or_brighter_is_told() {
        let profile = Profile::learn(&cells_in_tone(1.0, 1.0, 1), 50.0, 1).expect("profile");
        let tone_of = |samples: &[Sample]| {
            profile
                .tone_of(
                    samples
                        .iter()
                        .filter_map(|s| Some((&s.features, s.building?)))
                        .take(20),
                    3,
                )
                .expect("a tone")
        };
        let same = tone_of(&cells_in_tone(1.0, 1.0, 2));
        assert!(!same.differs(0.03, 0.03), "{same:?}");
        // Duller and flatter: the correction is the inverse.
        let dull = tone_of(&cells_in_tone(0.6, 0.8, 3));
        assert!((dull.saturation - 1.0 / 0.6).abs() < 0.08, "{dull:?}");
        assert!((dull.contrast - 1.0 / 0.8).abs() < 0.08, "{dull:?}");
        let vivid = tone_of(&cells_in_tone(1.4, 1.2, 4));
        assert!((vivid.saturation - 1.0 / 1.4).abs() < 0.05, "{vivid:?}");
        assert!((vivid.contrast - 1.0 / 1.2).abs() < 0.05, "{vivid:?}");
        // Too few tiles tell nothing.
        assert!(
            profile
                .tone_of(
                    cells_in_tone(0.6, 1.0, 5)
                        .iter()
                        .filter_map(|s| Some((&s.features, s.building?)))
                        .take(2),
                    3
                )
                .is_none()
        );
    }

    #[test]
    fn a_fountain_reads_in_any_players_colour_when_its_corners_agree() {
        let profile = crate::default_profile::default_profile().expect("built-in profile");
        let Some(Some(fountain)) = profile.buildings.first() else {
            panic!("the built-in profile has no fountain");
        };
        let upright = |blocks: [f32; BLOCK_DIMS]| CellFeatures {
            blocks,
            sides: [[0.0; SIDE_DIMS]; 4],
            sharpness: 1.0,
            coarse_sharpness: 1.0,
        };
        let mut own = [0f32; BLOCK_DIMS];
        own.copy_from_slice(&fountain.mean[..BLOCK_DIMS]);
        // The profile's own fountain: no cost.
        assert!(profile.tile_distance(&upright(own)) < 0.01);
        // Another player's: every corner's chromaticity and brightness moved alike.
        let recoloured = |moves: [[f32; 3]; 4]| {
            let mut b = own;
            for (&k, m) in CORNER_BLOCKS.iter().zip(moves) {
                for ch in 0..3 {
                    b[3 * k + ch] += m[ch];
                }
            }
            upright(b)
        };
        let other = recoloured([[0.12, -0.08, 0.3]; 4]);
        let d = profile.tile_distance(&other);
        assert!(
            (d - profile.unseen_colour_cost()).abs() < 0.01,
            "{d} against a cost of {}",
            profile.unseen_colour_cost()
        );
        assert!(d < profile.presence_limit);
        let scores = profile.building_scores(&other);
        assert!(scores[1..].iter().all(|&s| s < scores[0]), "{scores:?}");
        // Corners that disagree are no player's colour.
        let mixed = recoloured([
            [0.12, -0.08, 0.3],
            [-0.12, 0.08, -0.3],
            [0.12, -0.08, 0.3],
            [-0.12, 0.08, -0.3],
        ]);
        assert!(profile.tile_distance(&mixed) > 2.0 * d);
    }

    /// Building `b`'s interior mean in profile `p`.
    fn mean(p: &Profile, b: Building) -> Vec<f32> {
        p.buildings[b as usize]
            .as_ref()
            .map(|g| g.mean[..BLOCK_DIMS].to_vec())
            .expect("a model")
    }

    #[test]
    fn a_building_no_tile_showed_moves_with_the_colours_the_others_tell() {
        let profile = crate::default_profile::default_profile().expect("built-in profile");
        // A warmer light over one Alhambra: redder, less green, a little brighter.
        let warmer = |m: Vec<f32>| -> Vec<f32> {
            m.chunks_exact(3)
                .flat_map(|x| [0.01 + 1.04 * x[0], -0.005 + 0.97 * x[1], 1.03 * x[2]])
                .collect()
        };
        // Every building but the tower.
        let cells: Vec<(CellFeatures, Building)> = Building::ALL
            .into_iter()
            .filter(|&b| b != Building::Tower)
            .map(|b| {
                let mut f = blank();
                f.blocks.copy_from_slice(&warmer(mean(&profile, b)));
                (f, b)
            })
            .collect();
        let tiles = || cells.iter().map(|(f, b)| (f, *b));
        assert!(profile.mapped(tiles(), 7).is_none());
        let mapped = profile.mapped(tiles(), 6).expect("enough tiles");
        // No tower among them: the tower moves as the light moved every colour.
        let want = warmer(mean(&profile, Building::Tower));
        for (got, want) in mean(&mapped, Building::Tower).iter().zip(&want) {
            assert!((got - want).abs() < 5e-3, "{got} against {want}");
        }
        // Its spread and the presence limit stay the profile's.
        assert_eq!(mapped.presence_limit, profile.presence_limit);
    }

    /// Features of a cell with every block and side at zero, in focus.
    fn blank() -> CellFeatures {
        CellFeatures {
            blocks: [0.0; BLOCK_DIMS],
            sides: [[0.0; SIDE_DIMS]; 4],
            sharpness: 1.0,
            coarse_sharpness: 1.0,
        }
    }

    #[test]
    fn a_profile_adapts_to_the_tiles_of_a_photo() {
        let profile = crate::default_profile::default_profile().expect("built-in profile");
        // Two gardens, each 0.03 brighter in every block than the profile's gardens.
        let mut f = blank();
        for (x, m) in f.blocks.iter_mut().zip(mean(&profile, Building::Garden)) {
            *x = m + 0.03;
        }
        let tiles = [(&f, Building::Garden), (&f, Building::Garden)];
        assert!(profile.adapted(tiles.into_iter(), 2.0, 3).is_none());
        let adapted = profile
            .adapted(tiles.into_iter(), 2.0, 2)
            .expect("enough tiles");
        // The gardens half way (the profile counts as two tiles), every other building by
        // the whole offset the photo's tiles showed.
        for (a, m) in mean(&adapted, Building::Garden)
            .iter()
            .zip(mean(&profile, Building::Garden))
        {
            assert!((a - m - 0.015).abs() < 1e-5, "{a} {m}");
        }
        for (a, m) in mean(&adapted, Building::Tower)
            .iter()
            .zip(mean(&profile, Building::Tower))
        {
            assert!((a - m - 0.03).abs() < 1e-5, "{a} {m}");
        }
    }

    #[test]
    fn sides_read_again_with_moved_looks_score_as_a_reading_with_them_would() {
        let profile = crate::default_profile::default_profile().expect("built-in profile");
        let (wall, open) = profile.side_means(Focus::Sharp);
        // This photo's walls look 60% of the way from the profile's wall look to its open
        // one (a paler light, a softer focus).
        let toward_open: Vec<f32> = wall.iter().zip(open).map(|(w, o)| 0.6 * (o - w)).collect();
        let photo_wall: Vec<f32> = wall.iter().zip(&toward_open).map(|(w, d)| w + d).collect();
        let moved = profile.with_sides_moved(&toward_open, &[0.0; SIDE_DIMS]);
        let mut f = blank();
        f.blocks.copy_from_slice(&mean(&profile, Building::Garden));
        for side in Side::ALL {
            f.sides[side as usize].copy_from_slice(open);
        }
        let north = Side::North as usize;
        f.sides[north].copy_from_slice(&photo_wall);
        let before = profile.side_log_odds(&f, Focus::Sharp)[north];
        let after = moved.side_log_odds(&f, Focus::Sharp)[north];
        assert!(
            after > 0.0 && after > before,
            "before {before}, after {after}"
        );
        // Moving a reading's choices by the change in side odds scores every pair as
        // reading the cell with the moved looks does.
        let hints = [0.5, -1.0, 0.0, 2.0];
        let old = profile.choices(&f, &hints, Focus::Sharp);
        let fresh = moved.choices(&f, &hints, Focus::Sharp);
        let (was, now) = (
            profile.side_log_odds(&f, Focus::Sharp),
            moved.side_log_odds(&f, Focus::Sharp),
        );
        let (was_by, now_by) = (
            profile.side_log_odds_by_building(&f, Focus::Sharp),
            moved.side_log_odds_by_building(&f, Focus::Sharp),
        );
        let again = old.with_side_odds_moved(
            std::array::from_fn(|s| now[s] - was[s]),
            std::array::from_fn(|b| std::array::from_fn(|s| now_by[b][s] - was_by[b][s])),
        );
        for (a, b) in again.scored.iter().zip(&fresh.scored) {
            assert!((a - b).abs() < 1e-3, "{a} {b}");
        }
        assert_eq!(again.free, fresh.free);
        assert!((again.free_score - fresh.free_score).abs() < 1e-3);
        let (a, b) = (again.reading(), fresh.reading());
        assert_eq!((a.building, a.walls), (b.building, b.walls));
        assert!(a.walls.has(Side::North), "{a:?}");
    }

    #[test]
    fn a_side_seen_walled_only_reads_open_when_it_looks_like_its_art_without_the_wall() {
        let mut profile = crate::default_profile::default_profile().expect("built-in profile");
        let [wall, open] = profile
            .side_split
            .as_ref()
            .map(|d| d.classes.clone().map(|c| c.mean))
            .expect("a discriminant");
        // The labelled photo showed one seraglio, its west side walled, its art moving
        // that side's features half the way from an open side's to a wall's: an open
        // side of that art lies halfway between the two classes.
        let art: Vec<f32> = wall.iter().zip(&open).map(|(w, o)| 0.5 * (w - o)).collect();
        let walled_seen: Vec<f32> = wall.iter().zip(&art).map(|(w, a)| w + a).collect();
        let open_there: Vec<f32> = open.iter().zip(&art).map(|(o, a)| o + a).collect();
        let mut walls: Vec<[Option<Vec<f32>>; 4]> = vec![Default::default(); 7];
        walls[Building::Seraglio as usize][Side::West as usize] = Some(walled_seen.clone());
        profile.walled_sides = walls;
        profile.open_sides = Vec::new();
        let mut f = blank();
        let west = Side::West as usize;
        let seraglio = Building::Seraglio as usize;
        f.sides[west].copy_from_slice(&open_there);
        let general = profile.side_log_odds(&f, Focus::Sharp)[west];
        let open_read = profile.side_log_odds_by_building(&f, Focus::Sharp)[seraglio][west];
        assert!(
            open_read < general - 1.0,
            "open side of that art {open_read}, in general {general}"
        );
        f.sides[west].copy_from_slice(&walled_seen);
        let walled_read = profile.side_log_odds_by_building(&f, Focus::Sharp)[seraglio][west];
        assert!(walled_read > 0.0, "the walled side as seen: {walled_read}");
    }

    #[test]
    fn a_side_that_looks_like_its_buildings_open_side_leans_open_for_that_building_only() {
        let mut profile = crate::default_profile::default_profile().expect("built-in profile");
        let wall_look = profile
            .side_split
            .as_ref()
            .map(|d| d.classes[0].mean.clone())
            .expect("a discriminant");
        // Say the labelled gardens' north sides, left open, looked like a wall band.
        let mut opens: Vec<[Option<Vec<f32>>; 4]> = vec![Default::default(); 7];
        opens[Building::Garden as usize][Side::North as usize] = Some(wall_look.clone());
        profile.open_sides = opens;
        profile.walled_sides = Vec::new();
        let mut f = blank();
        f.sides[Side::North as usize].copy_from_slice(&wall_look);
        let general = profile.side_log_odds(&f, Focus::Sharp)[Side::North as usize];
        let by = profile.side_log_odds_by_building(&f, Focus::Sharp);
        let garden = by[Building::Garden as usize][Side::North as usize];
        assert!(general > 0.0, "a wall band reads as a wall: {general}");
        assert!(
            garden < general - 1.0,
            "garden {garden}, in general {general}"
        );
        assert_eq!(by[Building::Tower as usize][Side::North as usize], general);
        assert_eq!(
            by[Building::Garden as usize][Side::East as usize],
            profile.side_log_odds(&f, Focus::Sharp)[Side::East as usize]
        );
    }
}
