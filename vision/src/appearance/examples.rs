//! The labelled cells a profile is learned from, per building and per side class, kept to
//! a bounded number each.

use super::*;

/// Interior features of labelled cells, with the per-dimension spread that distances are
/// measured in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Examples {
    /// Tiles, upright.
    pub tiles: Vec<Vec<f32>>,
    /// Empty cells and clutter.
    pub empty: Vec<Vec<f32>>,
    /// Spread per dimension.
    pub scale: Vec<f32>,
}

/// The least variance of an interior dimension: chromaticity varies by at least ~0.005
/// and relative brightness by ~0.03 between photos, however alike the labelled tiles were.
pub(super) fn block_floor(i: usize) -> f32 {
    if i % 3 == 2 { 1e-3 } else { 2.5e-5 }
}

/// At most this many examples of each kind are kept (evenly spread over those seen).
const MAX_EXAMPLES: usize = 800;

impl Examples {
    pub(super) fn learn(samples: &[Sample]) -> Examples {
        let pick = |of: Vec<&Sample>| -> Vec<Vec<f32>> {
            let step = (of.len() as f32 / MAX_EXAMPLES as f32).max(1.0);
            (0..of.len().min(MAX_EXAMPLES))
                .map(|i| of[(i as f32 * step) as usize].features.blocks.to_vec())
                .collect()
        };
        let tiles = pick(
            samples
                .iter()
                .filter(|s| s.building.is_some() && s.example)
                .collect(),
        );
        let empty = pick(
            samples
                .iter()
                .filter(|s| s.building.is_none() && s.example)
                .collect(),
        );
        let all: Vec<&Vec<f32>> = tiles.iter().chain(&empty).collect();
        let n = all.len().max(1) as f32;
        let scale = (0..BLOCK_DIMS)
            .map(|d| {
                let mean = all.iter().map(|x| x[d]).sum::<f32>() / n;
                let var = all.iter().map(|x| (x[d] - mean).powi(2)).sum::<f32>() / n;
                var.sqrt().max(1e-3)
            })
            .collect();
        Examples {
            tiles,
            empty,
            scale,
        }
    }

    /// Squared distance in spreads, each dimension capped (a glare spot or a finger
    /// cannot decide alone); `None` as soon as it is sure to be at least `limit`: the
    /// nearest few of hundreds of examples are wanted, and most are far after a few
    /// dimensions.
    fn distance_below(&self, a: &[f32], b: &[f32], limit: f32) -> Option<f32> {
        let mut sum = 0f32;
        for ((a, b), s) in a.chunks(8).zip(b.chunks(8)).zip(self.scale.chunks(8)) {
            for ((x, y), s) in a.iter().zip(b).zip(s) {
                sum += (((x - y) / s).powi(2)).min(Z2_CAP);
            }
            if sum >= limit {
                return None;
            }
        }
        Some(sum)
    }

    /// The mean of the `k` smallest distances from `x` to `set`.
    fn nearest(&self, x: &[f32], set: &[Vec<f32>], k: usize, best: &mut Vec<f32>) {
        for e in set {
            let limit = if best.len() < k {
                f32::INFINITY
            } else {
                best[k - 1]
            };
            let Some(d) = self.distance_below(x, e, limit) else {
                continue;
            };
            if best.len() < k {
                best.push(d);
                best.sort_by(f32::total_cmp);
            } else if d < best[k - 1] {
                best[k - 1] = d;
                best.sort_by(f32::total_cmp);
            }
        }
    }

    /// Whether the nearest labelled examples of `f` (any quarter turn) are tiles rather
    /// than empty cells. `None` when there are no examples of both kinds.
    pub fn looks_like_tile(&self, f: &CellFeatures) -> Option<bool> {
        if self.tiles.is_empty() || self.empty.is_empty() {
            return None;
        }
        const K: usize = 3;
        let mut tile = Vec::with_capacity(K);
        for t in 0..4 {
            self.nearest(&f.turned_blocks(t), &self.tiles, K, &mut tile);
        }
        let mut empty = Vec::with_capacity(K);
        self.nearest(&f.blocks, &self.empty, K, &mut empty);
        // Empty examples are not turned: learn them in all turns instead (see learn).
        let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len().max(1) as f32;
        Some(mean(&tile) < mean(&empty))
    }
}
