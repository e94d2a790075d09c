//! How the colours of one photo's tiles (or one Alhambra's, under its own light) follow
//! from the labelled photo's: an affine map of a block's chromaticity and brightness,
//! fitted on the tiles read surely, that carries a building none of them is along.

/// How a photo's tiles' block colours follow from the profile's: each of chromaticity r, g
/// and relative brightness an affine function of the profile's block (r, g, L), fitted by
/// least squares over the blocks of the tiles read surely. One map for every block and
/// building, so a building no tile of the photo showed moves as its colours call for (the
/// sand about a tower as the sand about a garden, its purple as purple goes under this
/// light), not by the mean offset of other buildings' blocks in the same place.
pub(super) struct ColourMap {
    /// Per output (r, g, L): constant, then the weights of the profile's r, g, L.
    rows: [[f64; 4]; 3],
}

impl ColourMap {
    /// The map from `pairs` of (profile block means, photo block means); `None` with fewer
    /// blocks than two tiles hold. Colours that do not span the space (one building's)
    /// leave the map near the identity across them, by the ridge.
    pub(super) fn fit<'a>(
        pairs: impl Iterator<Item = (&'a [f32], &'a [f32])>,
    ) -> Option<ColourMap> {
        let mut ata = [[0f64; 4]; 4];
        let mut atb = [[0f64; 4]; 3];
        let mut n = 0usize;
        for (from, to) in pairs {
            for (x, y) in from.chunks_exact(3).zip(to.chunks_exact(3)) {
                let v = [1.0, f64::from(x[0]), f64::from(x[1]), f64::from(x[2])];
                for i in 0..4 {
                    for j in 0..4 {
                        ata[i][j] += v[i] * v[j];
                    }
                    for (o, row) in atb.iter_mut().enumerate() {
                        row[i] += v[i] * f64::from(y[o]);
                    }
                }
                n += 1;
            }
        }
        if n < 32 {
            return None;
        }
        // A little ridge towards the identity: few colours must not make a wild map.
        let ridge = 1e-3 * n as f64;
        for (i, row) in ata.iter_mut().enumerate() {
            row[i] += ridge;
        }
        let mut rows = [[0f64; 4]; 3];
        for o in 0..3 {
            let mut b = atb[o];
            b[o + 1] += ridge;
            rows[o] = solve4(ata, b)?;
        }
        Some(ColourMap { rows })
    }

    /// Block means `m` (r, g, L per block) moved by the map.
    pub(super) fn apply(&self, m: &mut [f32]) {
        for x in m.chunks_exact_mut(3) {
            let v = [1.0, f64::from(x[0]), f64::from(x[1]), f64::from(x[2])];
            for (o, row) in self.rows.iter().enumerate() {
                x[o] = row.iter().zip(&v).map(|(w, v)| w * v).sum::<f64>() as f32;
            }
        }
    }
}

/// `a x = b` for a 4 x 4 system by Gaussian elimination with partial pivoting; `None` when
/// singular.
fn solve4(mut a: [[f64; 4]; 4], mut b: [f64; 4]) -> Option<[f64; 4]> {
    for c in 0..4 {
        let p = (c..4).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[p][c].abs() < 1e-12 {
            return None;
        }
        a.swap(c, p);
        b.swap(c, p);
        let pivot = a[c];
        for r in c + 1..4 {
            let f = a[r][c] / pivot[c];
            for (x, p) in a[r].iter_mut().zip(&pivot).skip(c) {
                *x -= f * p;
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = [0f64; 4];
    for c in (0..4).rev() {
        let s: f64 = (c + 1..4).map(|k| a[c][k] * x[k]).sum();
        x[c] = (b[c] - s) / a[c][c];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Block means (r, g, L) of a few made-up colours, as a profile's buildings hold them.
    fn colours() -> Vec<f32> {
        let mut out = Vec::new();
        for k in 0..48 {
            let t = k as f32;
            out.extend([
                0.30 + 0.02 * (t * 0.7).sin(),
                0.33 + 0.02 * (t * 1.3).cos(),
                0.8 + 0.3 * (t * 0.4).sin(),
            ]);
        }
        out
    }

    #[test]
    fn a_colour_map_told_by_some_colours_moves_the_others_alike() {
        // A warmer light: more red, less green, a little brighter.
        let warmer = |x: &[f32]| [0.02 + 1.05 * x[0], -0.01 + 0.98 * x[1], 1.04 * x[2]];
        let from = colours();
        let to: Vec<f32> = from.chunks_exact(3).flat_map(warmer).collect();
        // Told by two tiles' blocks, applied to the rest.
        let cut = 32 * 3;
        let map = ColourMap::fit(std::iter::once((&from[..cut], &to[..cut])))
            .expect("32 colours fit a map");
        let mut rest = from[cut..].to_vec();
        map.apply(&mut rest);
        for (got, want) in rest.iter().zip(&to[cut..]) {
            assert!((got - want).abs() < 2e-3, "{got} against {want}");
        }
    }

    #[test]
    fn colours_as_they_were_leave_every_colour_as_it_was() {
        let one = [0.3f32, 0.33, 1.0].repeat(16);
        assert!(ColourMap::fit(std::iter::once((&one[..16], &one[..16]))).is_none());
        let from = colours();
        let map = ColourMap::fit(std::iter::once((&from[..], &from[..]))).expect("a map");
        let mut same = from.clone();
        map.apply(&mut same);
        for (a, b) in same.iter().zip(&from) {
            assert!((a - b).abs() < 1e-4);
        }
    }
}
