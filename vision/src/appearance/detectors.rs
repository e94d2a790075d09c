//! The fountain search's view of a cell: a summary of its interior that no quarter turn
//! changes, and how much more it looks like the fountain than like anything else.

use super::*;

/// Dimensions of the rotation-free summary of a cell.
pub const DETECT_DIMS: usize = 5;

/// A rotation-free summary of a cell's interior: chromaticity of the centre, of the
/// surround, and the centre's brightness relative to the surround.
pub fn detect_features(blocks: &[f32; BLOCK_DIMS]) -> [f32; DETECT_DIMS] {
    let mut centre = [0f32; 3];
    let mut ring = [0f32; 3];
    for by in 0..GRID {
        for bx in 0..GRID {
            let inner = (1..GRID - 1).contains(&by) && (1..GRID - 1).contains(&bx);
            let acc = if inner { &mut centre } else { &mut ring };
            for k in 0..3 {
                acc[k] += blocks[(by * GRID + bx) * 3 + k];
            }
        }
    }
    let (nc, nr) = (
        ((GRID - 2) * (GRID - 2)) as f32,
        (GRID * GRID - (GRID - 2) * (GRID - 2)) as f32,
    );
    [
        centre[0] / nc,
        centre[1] / nc,
        ring[0] / nr,
        ring[1] / nr,
        (centre[2] / nc) / (ring[2] / nr).max(1e-3),
    ]
}

/// The fountain search: how much more a rotation-free summary looks like a fountain than
/// like anything else.
#[derive(Debug, Clone, Copy)]
pub struct Detectors<'a> {
    pub(super) models: &'a [Option<Gaussian>],
}

impl Detectors<'_> {
    /// Log-likelihood of the fountain alone: how much a spot's colours are the profile's
    /// fountain's (the score below says only how much more than anything else's).
    pub fn fountain_fit(&self, f: &[f32; DETECT_DIMS]) -> f32 {
        match self.models.first() {
            Some(Some(fountain)) => fountain.log_likelihood(f),
            _ => f32::NEG_INFINITY,
        }
    }

    /// Log-likelihood of the fountain minus the best other; positive: fountain-like.
    pub fn fountain_score(&self, f: &[f32; DETECT_DIMS]) -> f32 {
        let Some(Some(fountain)) = self.models.first() else {
            return f32::NEG_INFINITY;
        };
        let other = self.models[1..]
            .iter()
            .flatten()
            .map(|g| g.log_likelihood(f))
            .fold(f32::NEG_INFINITY, f32::max);
        fountain.log_likelihood(f) - other
    }
}
