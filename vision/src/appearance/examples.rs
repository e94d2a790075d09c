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
        self.looks_like_tile_beside(f, &MoreExamples::default())
    }

    /// [`Examples::looks_like_tile`] with more examples of both kinds: cells of the photo
    /// being read (interior features), tiles in any turn and empty cells as they are.
    pub fn looks_like_tile_beside(
        &self,
        f: &CellFeatures,
        more: &MoreExamples<'_>,
    ) -> Option<bool> {
        let (tile, empty) = self.nearest_tile_and_empty(f, more)?;
        Some(tile < empty)
    }

    /// The mean distance of `f`'s nearest tile examples (any quarter turn) and of its
    /// nearest empty ones, `more` among them. `None` when there are no examples of both
    /// kinds.
    pub fn nearest_tile_and_empty(
        &self,
        f: &CellFeatures,
        more: &MoreExamples<'_>,
    ) -> Option<(f32, f32)> {
        let no_tiles = self.tiles.is_empty() && more.tiles.is_empty();
        if no_tiles || (self.empty.is_empty() && more.empty.is_empty()) {
            return None;
        }
        const K: usize = 3;
        let mut tile = Vec::with_capacity(K);
        for t in 0..4 {
            let turned = f.turned_blocks(t);
            self.nearest(&turned, &self.tiles, K, &mut tile);
            self.nearest(&turned, more.tiles, K, &mut tile);
        }
        let mut empty = Vec::with_capacity(K);
        self.nearest(&f.blocks, &self.empty, K, &mut empty);
        self.nearest(&f.blocks, more.empty, K, &mut empty);
        // Empty examples are not turned: learn them in all turns instead (see learn).
        let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len().max(1) as f32;
        Some((mean(&tile), mean(&empty)))
    }
}

/// Examples from the photo being read, beside a profile's: interior features of tiles read
/// surely and of cells that hold none. They share the photo's light, tone and focus,
/// which the labelled photo's examples may not.
#[derive(Debug, Clone, Copy, Default)]
pub struct MoreExamples<'a> {
    /// Tiles, in whatever turn they were read.
    pub tiles: &'a [Vec<f32>],
    /// Cells holding no tile.
    pub empty: &'a [Vec<f32>],
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Features whose blocks are all `level`.
    fn flat(level: f32) -> CellFeatures {
        let mut f = crate::appearance::tests::features_with(0.0);
        f.blocks = [level; BLOCK_DIMS];
        f
    }

    #[test]
    fn a_cell_like_the_photos_own_empty_cells_is_no_tile() {
        // The labelled photo's tiles lie about 1, its empty cells about 0; this photo's
        // bare table lies about 0.6, nearer the tiles than the labelled photo's table.
        let examples = Examples {
            tiles: vec![vec![1.0; BLOCK_DIMS], vec![1.1; BLOCK_DIMS]],
            empty: vec![vec![0.0; BLOCK_DIMS]],
            scale: vec![0.5; BLOCK_DIMS],
        };
        let table_here = flat(0.62);
        assert_eq!(examples.looks_like_tile(&table_here), Some(true));
        let own_empty = vec![
            vec![0.6; BLOCK_DIMS],
            vec![0.63; BLOCK_DIMS],
            vec![0.65; BLOCK_DIMS],
        ];
        let more = MoreExamples {
            tiles: &[],
            empty: &own_empty,
        };
        assert_eq!(
            examples.looks_like_tile_beside(&table_here, &more),
            Some(false)
        );
        // A tile stays a tile beside them.
        assert_eq!(
            examples.looks_like_tile_beside(&flat(0.98), &more),
            Some(true)
        );
        let (tile, empty) = examples
            .nearest_tile_and_empty(&table_here, &more)
            .expect("examples of both kinds");
        assert!(empty < tile, "{empty} < {tile}");
        // A tile of this photo, in its light nearer its table than the labelled tiles
        // are, is a tile beside this photo's tiles read surely.
        let dim_tile = flat(0.55);
        assert_eq!(
            examples.looks_like_tile_beside(&dim_tile, &more),
            Some(false)
        );
        let own_tiles = vec![vec![0.5; BLOCK_DIMS], vec![0.52; BLOCK_DIMS]];
        let both = MoreExamples {
            tiles: &own_tiles,
            empty: &own_empty,
        };
        assert_eq!(
            examples.looks_like_tile_beside(&dim_tile, &both),
            Some(true)
        );
        assert_eq!(
            examples.looks_like_tile_beside(&table_here, &both),
            Some(false)
        );
        // The photo's own empty cells alone are enough to judge by.
        let no_labelled_empty = Examples {
            empty: Vec::new(),
            ..examples
        };
        assert_eq!(no_labelled_empty.looks_like_tile(&table_here), None);
        assert_eq!(
            no_labelled_empty.looks_like_tile_beside(&table_here, &more),
            Some(false)
        );
    }
}
