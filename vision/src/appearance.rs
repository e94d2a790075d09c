//! How tiles look: the features of a cell patch (colour layout of the interior, the four
//! wall bands), and the appearance profile that turns them into a building and walls with
//! confidences. A profile is learned from labelled photos (`calibrate appearance`, the
//! app's corrections) and saved as versioned JSON.

use crate::geometry::{Homography, Point};
use alhambra_engine::{Building, Side, Walls, catalogue};
use opencv::core::{Mat, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::OnceLock;
use thiserror::Error;

/// Side of the square patch a cell is resampled to.
pub const PATCH: i32 = 48;
/// Interior blocks per side (the colour layout is GRID x GRID blocks).
pub const GRID: usize = 4;
/// Features of the interior: chromaticity r, g and relative brightness per block.
pub const BLOCK_DIMS: usize = GRID * GRID * 3;
/// Depth bands per side profile (each 4% of the patch deep, from the edge in).
const SIDE_BANDS: usize = 4;
/// Features of one side: the darkest wall-wide band (4), then the profile from the edge
/// in (3 per depth band), then the lines along the side at each depth (1 per band).
pub const SIDE_DIMS: usize = 4 + 4 * SIDE_BANDS;
/// The profile format's version.
pub const PROFILE_VERSION: u32 = 2;

/// Per-channel gains (B, G, R) that make the table's white paper white.
pub type WhiteBalance = [f32; 3];

/// What a cell patch looks like, in the patch's own orientation.
#[derive(Debug, Clone, PartialEq)]
pub struct CellFeatures {
    /// Block means, row-major from the patch's top-left: (r, g, L/Lref) each.
    pub blocks: [f32; BLOCK_DIMS],
    /// Per side (north, east, south, west of the patch): the darkest band's darkness and
    /// tint, then brightness and tint from the edge in, against the strip inside.
    pub sides: [[f32; SIDE_DIMS]; 4],
    /// How sharp the patch is: its mean Laplacian over its mean gradient (about 1 for
    /// edges a pixel wide, falling as blur widens them; the same under any quarter turn
    /// and any contrast).
    pub sharpness: f32,
}

impl CellFeatures {
    /// The features of the same patch turned a quarter clockwise `turns` times.
    pub fn turned(&self, turns: u8) -> CellFeatures {
        let mut out = self.clone();
        for _ in 0..turns % 4 {
            let prev = out.clone();
            for by in 0..GRID {
                for bx in 0..GRID {
                    // new(x, y) = old(y, N-1-x): old row N-1-x, old column y.
                    let (ob, nb) = (((GRID - 1 - bx) * GRID + by) * 3, (by * GRID + bx) * 3);
                    out.blocks[nb..nb + 3].copy_from_slice(&prev.blocks[ob..ob + 3]);
                }
            }
            for side in Side::ALL {
                out.sides[side.clockwise() as usize] = prev.sides[side as usize];
            }
        }
        out
    }
}

/// Resamples the image quad `corners` (clockwise from the cell's north-west corner, image
/// pixels) to a PATCH x PATCH square.
pub fn sample_patch(frame: &Mat, corners: &[Point; 4]) -> opencv::Result<Mat> {
    sample_square(frame, corners, PATCH)
}

/// The black level of a BGR patch: the darkest twentieth of its pixels' least channel.
pub fn black_level(patch: &Mat) -> opencv::Result<f32> {
    let mut least: Vec<u8> = patch
        .data_bytes()?
        .chunks_exact(3)
        .map(|p| p[0].min(p[1]).min(p[2]))
        .collect();
    if least.is_empty() {
        return Ok(0.0);
    }
    let k = least.len() / 20;
    Ok(f32::from(*least.select_nth_unstable(k).1))
}

/// The patch with `share` of its black level (see [`black_level`]) taken off every
/// channel. Glare, a lamp's reflection on glossy tiles, adds white light: it lifts the
/// darkest parts and washes out the colours of the buildings.
pub fn deglared(patch: &Mat, share: f32) -> opencv::Result<Mat> {
    let lift = share * black_level(patch)?;
    let mut out = patch.try_clone()?;
    let bytes = out.data_bytes_mut()?;
    for b in bytes.iter_mut() {
        *b = (f32::from(*b) - lift).round().max(0.0) as u8;
    }
    Ok(out)
}

/// Strengths of glare the labelled tiles are also learned under: white light added, as a
/// share of the sensor's full scale. A lamp's reflection on glossy tiles lifts every pixel
/// and clips the brightest, which no taking off can undo (a clipped channel has lost its
/// value); put on the labelled tiles instead, the same clipping happens to them.
pub const GLARE_LEVELS: [f32; 3] = [0.15, 0.3, 0.45];

/// The patch under glare `level` (see [`GLARE_LEVELS`]): light that is white under the
/// white balance `white` added to every pixel, clipped as the sensor clips.
pub fn glared(patch: &Mat, level: f32, white: WhiteBalance) -> opencv::Result<Mat> {
    let lift = white.map(|w| level * 255.0 / w.max(0.1));
    let mut out = patch.try_clone()?;
    for px in out.data_bytes_mut()?.chunks_exact_mut(3) {
        for (v, l) in px.iter_mut().zip(lift) {
            *v = (f32::from(*v) + l).round().min(255.0) as u8;
        }
    }
    Ok(out)
}

/// Resamples the image quad `corners` to an `n` x `n` square.
pub fn sample_square(frame: &Mat, corners: &[Point; 4], n: i32) -> opencv::Result<Mat> {
    let size = n;
    let n = f64::from(n);
    // Patch pixel centres sit at the middle of their share of the quad.
    let square = [
        [-0.5, -0.5],
        [n - 0.5, -0.5],
        [n - 0.5, n - 0.5],
        [-0.5, n - 0.5],
    ];
    let Some(h) = Homography::from_quads(&square, corners) else {
        return Err(opencv::Error::new(
            opencv::core::StsBadArg,
            "degenerate cell quad",
        ));
    };
    let m = Mat::from_slice_2d(&h.0)?;
    let mut patch = Mat::default();
    imgproc::warp_perspective(
        frame,
        &mut patch,
        &m,
        Size::new(size, size),
        imgproc::INTER_LINEAR | imgproc::WARP_INVERSE_MAP,
        opencv::core::BORDER_CONSTANT,
        Scalar::all(0.0),
    )?;
    Ok(patch)
}

/// The features of a PATCH x PATCH BGR patch under the given white balance.
pub fn features(patch: &Mat, white: WhiteBalance) -> opencv::Result<CellFeatures> {
    let n = PATCH as usize;
    let bytes = patch.data_bytes()?;
    if bytes.len() < n * n * 3 {
        return Err(opencv::Error::new(
            opencv::core::StsBadArg,
            "patch is not PATCH x PATCH BGR",
        ));
    }
    // Chromaticity and brightness per pixel.
    let mut px = vec![[0f32; 3]; n * n];
    for (i, p) in px.iter_mut().enumerate() {
        let b = f32::from(bytes[3 * i]) * white[0];
        let g = f32::from(bytes[3 * i + 1]) * white[1];
        let r = f32::from(bytes[3 * i + 2]) * white[2];
        let s = r + g + b + 3.0;
        *p = [r / s, g / s, s / 3.0];
    }
    let margin = (0.12 * n as f32).round() as usize;
    let inner = n - 2 * margin;
    let block = inner / GRID;
    // Reference brightness: the median of the interior, robust to glare and shadows.
    let mut lum: Vec<f32> = Vec::with_capacity(inner * inner);
    for y in margin..margin + GRID * block {
        for x in margin..margin + GRID * block {
            lum.push(px[y * n + x][2]);
        }
    }
    let mid = lum.len() / 2;
    let lref = lum.select_nth_unstable_by(mid, f32::total_cmp).1.max(1.0);
    let mut blocks = [0f32; BLOCK_DIMS];
    for by in 0..GRID {
        for bx in 0..GRID {
            let mut acc = [0f32; 3];
            for y in 0..block {
                for x in 0..block {
                    let p = px[(margin + by * block + y) * n + margin + bx * block + x];
                    acc[0] += p[0];
                    acc[1] += p[1];
                    acc[2] += p[2];
                }
            }
            let k = (block * block) as f32;
            let o = (by * GRID + bx) * 3;
            blocks[o] = acc[0] / k;
            blocks[o + 1] = acc[1] / k;
            blocks[o + 2] = acc[2] / k / lref;
        }
    }
    // Sharpness over the whole patch, seams included: the strongest edges there are
    // (every other row and column: a ratio of sums, it needs no more).
    let (mut lap, mut grad) = (0f32, 0f32);
    let mut looked = 0usize;
    for y in (1..n - 1).step_by(2) {
        for x in (1..n - 1).step_by(2) {
            let i = y * n + x;
            let (c, l, r, u, d) = (
                px[i][2],
                px[i - 1][2],
                px[i + 1][2],
                px[i - n][2],
                px[i + n][2],
            );
            lap += (l + r + u + d - 4.0 * c).abs();
            grad += ((r - l).abs() + (d - u).abs()) / 2.0;
            looked += 1;
        }
    }
    let sharpness = lap / grad.max(1e-3);
    let mean_gradient = grad / looked.max(1) as f32;
    // Side bands: the darkest band of a wall's width near the edge (where exactly depends
    // on how well the cell is aligned, so every start within the outer eighth is tried)
    // against the strip inside it.
    let wall_width = (0.07 * n as f32).round().max(2.0) as usize;
    let strip = (
        (0.18 * n as f32).round() as usize,
        (0.30 * n as f32).round() as usize,
    );
    let along = ((0.15 * n as f32) as usize, (0.85 * n as f32) as usize);
    let starts = 0..=((0.125 * n as f32).round() as usize);
    // The profile from the edge in: whatever a wall looks like in this tile set (dark
    // stone, light stone, a coloured rim), the side models learn it; the darkest band
    // alone only tells dark walls.
    let band = (0.04 * n as f32).round().max(1.0) as usize;
    let deepest = strip
        .1
        .max(SIDE_BANDS * band + 2)
        .max(*starts.end() + wall_width);
    let third = (along.1 - along.0) / 3;
    let mut sides = [[0f32; SIDE_DIMS]; 4];
    for side in Side::ALL {
        // Pixel index of (along a, depth d) from this side's edge: base + a sa + d sd.
        let (base, sa, sd): (isize, isize, isize) = {
            let n = n as isize;
            match side {
                Side::North => (0, 1, n),
                Side::South => ((n - 1) * n, 1, -n),
                Side::West => (0, n, 1),
                Side::East => (n - 1, n, -1),
            }
        };
        let at = |a: usize, d: usize| px[(base + a as isize * sa + d as isize * sd) as usize];
        // Mean (r, g, L) of each row parallel to the side, from the edge in.
        let rows: Vec<[f32; 3]> = (0..deepest)
            .map(|d| {
                let mut acc = [0f32; 3];
                for a in along.0..along.1 {
                    let p = at(a, d);
                    acc[0] += p[0];
                    acc[1] += p[1];
                    acc[2] += p[2];
                }
                acc.map(|v| v / (along.1 - along.0) as f32)
            })
            .collect();
        let mean = |(from, to): (usize, usize)| -> [f32; 3] {
            let mut acc = [0f32; 3];
            for r in &rows[from..to] {
                acc[0] += r[0];
                acc[1] += r[1];
                acc[2] += r[2];
            }
            acc.map(|v| v / (to - from) as f32)
        };
        let s = mean(strip);
        let b = starts
            .clone()
            .map(|d| mean((d, d + wall_width)))
            .min_by(|a, b| a[2].total_cmp(&b[2]))
            .unwrap_or(s);
        let out = &mut sides[side as usize];
        out[..4].copy_from_slice(&[b[2] / lref, b[2] / s[2].max(1.0), b[0] - s[0], b[1] - s[1]]);
        for k in 0..SIDE_BANDS {
            let d = mean((k * band, (k + 1) * band));
            out[4 + 3 * k..7 + 3 * k].copy_from_slice(&[
                d[2] / s[2].max(1.0),
                d[0] - s[0],
                d[1] - s[1],
            ]);
            // Lines along the side at this depth (a wall's inner edge, its coping), against
            // the patch's mean gradient: the weakest of its three thirds, since a wall's
            // line runs the whole side and a line in the art seldom does.
            let mut weakest = f32::INFINITY;
            for part in 0..3 {
                let mut line = 0f32;
                let span = along.0 + part * third..along.0 + (part + 1) * third;
                for depth in k * band + 1..(k + 1) * band + 1 {
                    for a in span.clone() {
                        line += (at(a, depth + 1)[2] - at(a, depth - 1)[2]).abs() / 2.0;
                    }
                }
                weakest = weakest.min(line / (band * third).max(1) as f32);
            }
            out[4 + 3 * SIDE_BANDS + k] = weakest / mean_gradient.max(1e-3);
        }
    }
    Ok(CellFeatures {
        blocks,
        sides,
        sharpness,
    })
}

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
    models: &'a [Option<Gaussian>],
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

/// A diagonal Gaussian over a feature vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "GaussianFile", into = "GaussianFile")]
pub struct Gaussian {
    /// How many samples it was learned from.
    pub n: u32,
    /// Mean per dimension.
    pub mean: Vec<f32>,
    /// Variance per dimension (never below the floor).
    pub var: Vec<f32>,
    /// The log-likelihood's constant part, -1/2 of the sum of the variances' logarithms:
    /// computed once, not per cell look.
    log_norm: f32,
}

/// A Gaussian as saved in a profile.
#[derive(Clone, Serialize, Deserialize)]
struct GaussianFile {
    n: u32,
    mean: Vec<f32>,
    var: Vec<f32>,
}

impl From<GaussianFile> for Gaussian {
    fn from(g: GaussianFile) -> Gaussian {
        Gaussian::new(g.n, g.mean, g.var)
    }
}

impl From<Gaussian> for GaussianFile {
    fn from(g: Gaussian) -> GaussianFile {
        GaussianFile {
            n: g.n,
            mean: g.mean,
            var: g.var,
        }
    }
}

/// A quadratic discriminant between two classes of feature vectors: each class a
/// Gaussian with its full covariance (shrunk a third of the way to the two classes'
/// pooled one), and the log-odds of the first. Unlike diagonal Gaussians it counts
/// correlated features (a wall band's colour and the line along its inner edge) once, and
/// weighs each by how well it separates the classes in the labelled photo, whatever the
/// walls look like there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Discriminant {
    /// The first class, then the second.
    pub classes: [ClassShape; 2],
}

/// One class of a [`Discriminant`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassShape {
    /// Mean per feature.
    pub mean: Vec<f32>,
    /// The covariance's Cholesky factor, lower triangle, row-major (d x d).
    pub chol: Vec<f32>,
    /// Half the logarithm of the covariance's determinant.
    pub half_log_det: f32,
}

/// Log-odds past this are not believed: one odd feature (glare, a finger) must not decide
/// a side alone.
const LOG_ODDS_CAP: f32 = 12.0;

impl ClassShape {
    /// Log-likelihood up to a constant shared by every class of the same dimension.
    fn log_likelihood(&self, x: &[f32]) -> f32 {
        self.log_likelihood_about(x, &self.mean)
    }

    /// [`ClassShape::log_likelihood`] with the class moved to `mean`.
    fn log_likelihood_about(&self, x: &[f32], mean: &[f32]) -> f32 {
        let d = self.mean.len();
        // Forward substitution: L y = x - mean, then |y|^2 is the squared Mahalanobis
        // distance.
        let mut y = vec![0f32; d];
        let mut maha = 0f32;
        for i in 0..d {
            let row = &self.chol[i * d..i * d + i];
            let s = x.get(i).copied().unwrap_or(0.0)
                - mean.get(i).copied().unwrap_or(0.0)
                - row.iter().zip(&y[..i]).map(|(l, y)| l * y).sum::<f32>();
            y[i] = s / self.chol[i * d + i];
            maha += y[i] * y[i];
        }
        -0.5 * maha - self.half_log_det
    }
}

impl Discriminant {
    /// Learns from samples of the first class (`a`) and of the second (`b`); `None` with
    /// too few of either or when the features are degenerate.
    pub fn learn(a: &[&[f32]], b: &[&[f32]]) -> Option<Discriminant> {
        let d = a.first()?.len();
        if a.len() < 2 || b.len() < 2 || a.iter().chain(b).any(|x| x.len() != d) {
            return None;
        }
        let moments = |xs: &[&[f32]]| -> (Vec<f64>, Vec<f64>) {
            let mut m = vec![0f64; d];
            for x in xs {
                for (mi, xi) in m.iter_mut().zip(x.iter()) {
                    *mi += f64::from(*xi);
                }
            }
            m.iter_mut().for_each(|v| *v /= xs.len() as f64);
            let mut cov = vec![0f64; d * d];
            for x in xs {
                for i in 0..d {
                    let di = f64::from(x[i]) - m[i];
                    for j in 0..d {
                        cov[i * d + j] += di * (f64::from(x[j]) - m[j]);
                    }
                }
            }
            cov.iter_mut().for_each(|v| *v /= (xs.len() - 1) as f64);
            (m, cov)
        };
        let ((ma, ca), (mb, cb)) = (moments(a), moments(b));
        let (na, nb) = (a.len() as f64, b.len() as f64);
        let pooled: Vec<f64> = ca
            .iter()
            .zip(&cb)
            .map(|(x, y)| (x * (na - 1.0) + y * (nb - 1.0)) / (na + nb - 2.0))
            .collect();
        let shape = |mean: Vec<f64>, cov: Vec<f64>| -> Option<ClassShape> {
            let mut m: Vec<f64> = cov
                .iter()
                .zip(&pooled)
                .map(|(c, p)| c * (2.0 / 3.0) + p / 3.0)
                .collect();
            // A little ridge: a feature that never varies in the labelled photo must not
            // get an unbounded weight.
            for i in 0..d {
                m[i * d + i] = m[i * d + i] * 1.05 + 1e-6;
            }
            cholesky(&mut m, d)?;
            let half_log_det = (0..d).map(|i| m[i * d + i].ln()).sum::<f64>();
            Some(ClassShape {
                mean: mean.iter().map(|v| *v as f32).collect(),
                chol: m.iter().map(|v| *v as f32).collect(),
                half_log_det: half_log_det as f32,
            })
        };
        Some(Discriminant {
            classes: [shape(ma, ca)?, shape(mb, cb)?],
        })
    }

    /// The log-odds of the first class.
    pub fn log_odds(&self, x: &[f32]) -> f32 {
        let [a, b] = &self.classes;
        (a.log_likelihood(x) - b.log_likelihood(x)).clamp(-LOG_ODDS_CAP, LOG_ODDS_CAP)
    }

    /// Whether both classes have dimension `d` and usable factors.
    fn fits(&self, d: usize) -> bool {
        self.classes.iter().all(|c| {
            c.mean.len() == d
                && c.chol.len() == d * d
                && (0..d).all(|i| c.chol[i * d + i] > 0.0)
                && c.half_log_det.is_finite()
        })
    }
}

/// Factors a symmetric positive definite `d` x `d` matrix in place into its lower
/// Cholesky factor (the upper triangle is zeroed); `None` when it is not positive definite.
fn cholesky(m: &mut [f64], d: usize) -> Option<()> {
    for j in 0..d {
        let mut sum = m[j * d + j];
        for k in 0..j {
            sum -= m[j * d + k] * m[j * d + k];
        }
        if sum <= 0.0 || !sum.is_finite() {
            return None;
        }
        let l = sum.sqrt();
        m[j * d + j] = l;
        for i in j + 1..d {
            let mut s = m[i * d + j];
            for k in 0..j {
                s -= m[i * d + k] * m[j * d + k];
            }
            m[i * d + j] = s / l;
        }
        for i in 0..j {
            m[i * d + j] = 0.0;
        }
    }
    Some(())
}

/// A glare level counts for a cell only when its black level is at least this share of
/// the level's lift (the rest for noise, the white balance's tint and JPEG).
const GLARE_BLACK_SHARE: f32 = 0.8;

/// Per-dimension squared z-scores are capped here, so one odd block (glare, a finger)
/// cannot outweigh the rest.
const Z2_CAP: f32 = 9.0;

impl Gaussian {
    /// Learns from samples, shrinking the variance toward `pooled` (for classes with few
    /// samples) and flooring it.
    pub fn learn(
        samples: &[&[f32]],
        pooled: Option<&[f32]>,
        floor: impl Fn(usize) -> f32,
    ) -> Option<Gaussian> {
        let first = samples.first()?;
        let d = first.len();
        let n = samples.len() as f32;
        let mut mean = vec![0f32; d];
        for s in samples {
            for (m, v) in mean.iter_mut().zip(s.iter()) {
                *m += v / n;
            }
        }
        let mut var = vec![0f32; d];
        for s in samples {
            for ((v, m), x) in var.iter_mut().zip(&mean).zip(s.iter()) {
                *v += (x - m) * (x - m) / n;
            }
        }
        const PRIOR: f32 = 5.0;
        for (i, v) in var.iter_mut().enumerate() {
            let prior = pooled.map_or(*v, |p| p[i]);
            *v = ((n * *v + PRIOR * prior) / (n + PRIOR)).max(floor(i));
        }
        Some(Gaussian::new(samples.len() as u32, mean, var))
    }

    /// A Gaussian of these moments.
    pub fn new(n: u32, mean: Vec<f32>, var: Vec<f32>) -> Gaussian {
        let log_norm = var.iter().map(|v| -0.5 * v.ln()).sum();
        Gaussian {
            n,
            mean,
            var,
            log_norm,
        }
    }

    /// Mean capped squared z-score: 1 is typical, larger is less alike.
    pub fn distance(&self, x: &[f32]) -> f32 {
        let d = self.mean.len().min(x.len()).max(1);
        let sum: f32 = (0..d)
            .map(|i| ((x[i] - self.mean[i]).powi(2) / self.var[i]).min(Z2_CAP))
            .sum();
        sum / d as f32
    }

    /// Log-likelihood up to a constant shared by Gaussians of the same dimension.
    pub fn log_likelihood(&self, x: &[f32]) -> f32 {
        let z: f32 = x
            .iter()
            .zip(&self.mean)
            .zip(&self.var)
            .map(|((x, m), v)| -0.5 * ((x - m).powi(2) / v).min(Z2_CAP))
            .sum();
        z + self.log_norm
    }
}

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
fn block_floor(i: usize) -> f32 {
    if i % 3 == 2 { 1e-3 } else { 2.5e-5 }
}

/// At most this many examples of each kind are kept (evenly spread over those seen).
const MAX_EXAMPLES: usize = 800;

impl Examples {
    fn learn(samples: &[Sample]) -> Examples {
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
            self.nearest(&f.turned(t).blocks, &self.tiles, K, &mut tile);
        }
        let mut empty = Vec::with_capacity(K);
        self.nearest(&f.blocks, &self.empty, K, &mut empty);
        // Empty examples are not turned: learn them in all turns instead (see learn).
        let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len().max(1) as f32;
        Some(mean(&tile) < mean(&empty))
    }
}

/// A cell's reading: the building and walls with confidences.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The building, in the upright orientation the reading was made in.
    pub building: Building,
    /// Its walls.
    pub walls: Walls,
    /// Probability of the building (0..1).
    pub building_confidence: f32,
    /// Probability of each side's reading (north, east, south, west).
    pub side_confidence: [f32; 4],
    /// Whether (building, walls) exists in the base game's catalogue.
    pub in_catalogue: bool,
}

impl Reading {
    /// How sure the reading is of the whole tile: the building's probability times the
    /// least sure side's (a fountain has no walls by definition: only its building counts).
    pub fn confidence(&self) -> f32 {
        let side = if self.building == Building::Fountain {
            1.0
        } else {
            self.side_confidence.iter().copied().fold(1.0f32, f32::min)
        };
        self.building_confidence * side
    }
}

/// The (building, walls) pairs a cell may be read as: the fountain (wall-less) first, then
/// every pair the base game's catalogue has, each once, in catalogue order.
pub fn catalogue_pairs() -> &'static [(Building, Walls)] {
    static PAIRS: OnceLock<Vec<(Building, Walls)>> = OnceLock::new();
    PAIRS.get_or_init(|| {
        let mut pairs = vec![(Building::Fountain, Walls::NONE)];
        for t in catalogue() {
            if !pairs.contains(&(t.building, t.walls)) {
                pairs.push((t.building, t.walls));
            }
        }
        pairs
    })
}

/// A pair off the catalogue is read only when it beats every catalogue pair by this much
/// (on the reading's tempered log scale), and is then flagged.
const NOT_IN_CATALOGUE_MARGIN: f32 = 6.0;

/// Everything a reading of one upright cell weighs: each of [`catalogue_pairs`]'s score
/// (tempered log-likelihood, higher is likelier), the per-side wall log-odds, and the best
/// pair regardless of the catalogue.
#[derive(Debug, Clone, PartialEq)]
pub struct Choices {
    /// Score of each catalogue pair, in [`catalogue_pairs`] order.
    pub scored: Vec<f32>,
    /// Log-odds of a wall on each side (north, east, south, west), whatever the building.
    pub odds: [f32; 4],
    /// The same for each building (`Building::ALL` order): see
    /// [`Profile::side_log_odds_by_building`].
    pub building_odds: [[f32; 4]; 7],
    /// The likeliest building with each side read on its own.
    pub free: (Building, Walls),
    /// Its score.
    pub free_score: f32,
}

impl Choices {
    /// The index of the best-scoring catalogue pair.
    pub fn best(&self) -> usize {
        (0..self.scored.len())
            .max_by(|&a, &b| self.scored[a].total_cmp(&self.scored[b]))
            .unwrap_or(0)
    }

    /// The reading: the best catalogue pair, unless a pair off the catalogue is far
    /// likelier (then that, flagged, with an even building confidence).
    pub fn reading(&self) -> Reading {
        let best = self.best();
        match self.scored.get(best) {
            Some(&s) if self.free_score <= s + NOT_IN_CATALOGUE_MARGIN => self.reading_as(best),
            _ => self.reading_of(self.free, false),
        }
    }

    /// The reading as catalogue pair `k` (see [`catalogue_pairs`]), with the confidences
    /// the scores give it: low where the pair goes against the cell's own look.
    pub fn reading_as(&self, k: usize) -> Reading {
        let pair = catalogue_pairs()
            .get(k)
            .copied()
            .unwrap_or((Building::Fountain, Walls::NONE));
        self.reading_of(pair, true)
    }

    fn reading_of(&self, (building, walls): (Building, Walls), in_catalogue: bool) -> Reading {
        // The building marginalised over pairs; each side from its own band.
        let max = self
            .scored
            .iter()
            .copied()
            .fold(f32::NEG_INFINITY, f32::max);
        let mut per_building = [0f32; 7];
        let mut total = 0f32;
        for (p, s) in catalogue_pairs().iter().zip(&self.scored) {
            let w = (s - max).exp();
            per_building[p.0 as usize] += w;
            total += w;
        }
        let building_confidence = if in_catalogue {
            per_building[building as usize] / total.max(1e-12)
        } else {
            0.5
        };
        let odds = self.building_odds[building as usize];
        let side_confidence = Side::ALL.map(|s| {
            let p_wall = 1.0 / (1.0 + (-odds[s as usize]).exp());
            if walls.has(s) { p_wall } else { 1.0 - p_wall }
        });
        Reading {
            building,
            walls,
            building_confidence,
            side_confidence,
            in_catalogue,
        }
    }
}

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
        let turns: Vec<CellFeatures> = (0..4).map(|t| f.turned(t)).collect();
        let mut best: Option<(usize, f32)> = None;
        for (level, under) in self.glare.iter().enumerate() {
            let lift = GLARE_LEVELS.get(level)? * 255.0 * least_gain;
            if black < GLARE_BLACK_SHARE * lift {
                continue;
            }
            for g in under.buildings.iter().flatten() {
                let d = turns
                    .iter()
                    .map(|t| g.distance(&t.blocks))
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
        let mut sums = vec![([0f32; BLOCK_DIMS], 0f32); self.buildings.len()];
        let mut shift = [0f32; BLOCK_DIMS];
        let mut count = 0usize;
        for (f, b) in tiles {
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
        let best = self.tile_distance(f);
        if best > self.presence_limit {
            return (false, best);
        }
        let tile_like = self.examples.looks_like_tile(f).unwrap_or_else(|| {
            self.empty.as_ref().is_none_or(|e| {
                let tile_ll = (0..4)
                    .flat_map(|t| {
                        let g = f.turned(t);
                        self.buildings
                            .iter()
                            .enumerate()
                            .filter_map(move |(k, b)| {
                                let b = b.as_ref()?;
                                Some(self.likelihood_of(k, b, &g.blocks))
                            })
                            .collect::<Vec<_>>()
                    })
                    .fold(f32::NEG_INFINITY, f32::max);
                tile_ll > e.log_likelihood(&f.blocks)
            })
        });
        (tile_like, best)
    }

    /// How unlike the nearest building the cell looks in any quarter turn (mean capped
    /// squared z-score): the cheap part of [`Profile::presence`], for ranking candidates.
    pub fn tile_distance(&self, f: &CellFeatures) -> f32 {
        (0..4)
            .map(|t| self.best_building_distance(&f.turned(t)))
            .fold(f32::INFINITY, f32::min)
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
    /// `walled_sides`), that class is a side looking like any side of it, or (with
    /// [`ART_SHARE`]) like that building's; elsewhere the general odds. The art reaching
    /// a side (a seraglio's roof, a garden's tree) otherwise reads as a wall band now and
    /// then, in a tile set whose walls are faint (light-walled dev photos: 70 -> 73% of
    /// Alhambras exact; dark-walled ones within an Alhambra either way).
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
        for (k, odds) in out.iter_mut().enumerate() {
            for side in Side::ALL {
                let o = opens.get(k).and_then(|m| m[side as usize].as_deref());
                let w = walls.get(k).and_then(|m| m[side as usize].as_deref());
                if o.is_none() && w.is_none() {
                    continue;
                }
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
        let split = self.side_split_for(focus);
        let (wall, open) = self.side_models(focus);
        Side::ALL.map(|side| {
            let x = &f.sides[side as usize];
            match split {
                Some(d) => {
                    let [a, b] = &d.classes;
                    a.log_likelihood(x).max(b.log_likelihood(x))
                }
                None => wall.log_likelihood(x).max(open.log_likelihood(x)),
            }
        })
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
        // A quarter of the log-odds for or against each side, on the building's tempered
        // scale.
        let side_ll = |b: Building, w: Walls| -> f32 {
            Side::ALL
                .iter()
                .map(|&s| {
                    let o = building_odds[b as usize][s as usize] / 4.0;
                    if w.has(s) { o } else { -o }
                })
                .sum()
        };
        let score = |&(b, w): &(Building, Walls)| bs[b as usize] * TEMPER + side_ll(b, w);
        let scored: Vec<f32> = catalogue_pairs().iter().map(score).collect();
        // Unconstrained reading: best building, each side on its own.
        let free_b = Building::ALL[(0..7).max_by(|&a, &b| bs[a].total_cmp(&bs[b])).unwrap_or(0)];
        // The fountain has no walls, whatever its art's borders look like.
        let free_w = if free_b == Building::Fountain {
            Walls::NONE
        } else {
            Walls::of(
                &Side::ALL
                    .into_iter()
                    .filter(|&s| building_odds[free_b as usize][s as usize] > 0.0)
                    .collect::<Vec<_>>(),
            )
        };
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

    fn features_with(seed: f32) -> CellFeatures {
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
    fn four_turns_are_the_identity_and_one_turn_moves_west_to_north() {
        let f = features_with(0.0);
        assert_eq!(f.turned(4), f);
        assert_eq!(f.turned(1).turned(3), f);
        let t = f.turned(1);
        assert_eq!(t.sides[Side::North as usize], f.sides[Side::West as usize]);
        // The old bottom-left block becomes the top-left one.
        let bottom_left = ((GRID - 1) * GRID) * 3;
        assert_eq!(t.blocks[0], f.blocks[bottom_left]);
    }

    /// A white square on black, its quad drawn exactly on its outline (pixel centres at
    /// integers, so pixels 50..=145 span 49.5..145.5).
    fn white_square() -> (Mat, [Point; 4]) {
        let mut frame =
            Mat::new_rows_cols_with_default(200, 200, opencv::core::CV_8UC3, Scalar::all(0.0))
                .expect("frame");
        imgproc::rectangle(
            &mut frame,
            opencv::core::Rect::new(50, 50, 96, 96),
            Scalar::all(255.0),
            -1,
            imgproc::LINE_8,
            0,
        )
        .expect("square");
        let (a, b) = (49.5, 145.5);
        (frame, [[a, a], [b, a], [b, b], [a, b]])
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

    #[test]
    fn a_profile_adapts_to_the_tiles_of_a_photo() {
        let profile = crate::default_profile::default_profile().expect("built-in profile");
        let mean = |p: &Profile, b: Building| {
            p.buildings[b as usize]
                .as_ref()
                .map(|g| g.mean[..BLOCK_DIMS].to_vec())
                .expect("a model")
        };
        // Two gardens, each 0.03 brighter in every block than the profile's gardens.
        let mut f = CellFeatures {
            blocks: [0.0; BLOCK_DIMS],
            sides: [[0.0; SIDE_DIMS]; 4],
            sharpness: 1.0,
        };
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
        let mut f = CellFeatures {
            blocks: [0.0; BLOCK_DIMS],
            sides: [[0.0; SIDE_DIMS]; 4],
            sharpness: 1.0,
        };
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

    #[test]
    fn a_patch_is_centred_on_its_quad() {
        // A patch shifted by half a pixel shows the black outside along two of its sides
        // and misplaces every wall band by as much: every border row and column of the
        // patch must be inside the square, equally white.
        let (frame, quad) = white_square();
        let patch = sample_patch(&frame, &quad).expect("patch");
        let bytes = patch.data_bytes().expect("bytes");
        let n = PATCH as usize;
        let mean = |pixels: &mut dyn Iterator<Item = usize>| -> f64 {
            let v: Vec<f64> = pixels.map(|i| f64::from(bytes[i * 3])).collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        let top = mean(&mut (0..n));
        let bottom = mean(&mut ((n - 1) * n..n * n));
        let left = mean(&mut (0..n).map(|y| y * n));
        let right = mean(&mut (0..n).map(|y| y * n + n - 1));
        for (name, m) in [
            ("top", top),
            ("bottom", bottom),
            ("left", left),
            ("right", right),
        ] {
            assert!(
                m > 250.0,
                "{name} border row/column mean {m}, expected white"
            );
        }
    }

    #[test]
    fn the_discriminant_counts_a_repeated_feature_once() {
        // Class a around 1, class b around 0, in one noisy feature copied three times:
        // the copies add no evidence, so the log-odds must be those of the one feature
        // (equal spreads: linear, zero midway, about 1/var x the offset from it).
        let mut rng = fastrand::Rng::with_seed(3);
        let draw = |centre: f32, rng: &mut fastrand::Rng| -> Vec<f32> {
            let v = centre + (rng.f32() - 0.5) * 1.2;
            vec![v, v, v]
        };
        let a: Vec<Vec<f32>> = (0..400).map(|_| draw(1.0, &mut rng)).collect();
        let b: Vec<Vec<f32>> = (0..400).map(|_| draw(0.0, &mut rng)).collect();
        let (ra, rb): (Vec<&[f32]>, Vec<&[f32]>) = (
            a.iter().map(|v| &v[..]).collect(),
            b.iter().map(|v| &v[..]).collect(),
        );
        let d = Discriminant::learn(&ra, &rb).expect("learns");
        assert!(d.fits(3));
        let mid = d.log_odds(&[0.5, 0.5, 0.5]);
        assert!(mid.abs() < 0.3, "log-odds midway {mid}");
        // Uniform noise of width 1.2: variance 0.12; one feature at 1.0 gives about
        // 0.5 / 0.12 = 4.2 (three counted apart would give three times as much).
        let at_a = d.log_odds(&[1.0, 1.0, 1.0]);
        assert!(at_a > 2.5 && at_a < 6.0, "log-odds at a's mean {at_a}");
        assert!(d.log_odds(&[0.0, 0.0, 0.0]) < -2.5);
        // Too few samples, or of different sizes: nothing learned.
        assert!(Discriminant::learn(&ra[..1], &rb).is_none());
        assert!(Discriminant::learn(&[&[1.0][..], &[2.0][..]], &rb).is_none());
    }

    #[test]
    fn deglaring_takes_the_black_level_off_and_restores_the_colour() {
        use opencv::core::{CV_8UC3, Vec3b};
        // A washed-out patch: a coloured field and dark art, both lifted by 60 of white.
        let mut patch = Mat::new_rows_cols_with_default(PATCH, PATCH, CV_8UC3, Scalar::all(0.0))
            .unwrap_or_default();
        for y in 0..PATCH {
            for x in 0..PATCH {
                let px: [u8; 3] = if x < PATCH / 4 {
                    [80, 80, 80]
                } else {
                    [160, 210, 250]
                };
                if let Ok(p) = patch.at_2d_mut::<Vec3b>(y, x) {
                    *p = Vec3b::from(px);
                }
            }
        }
        let at = |m: &Mat, x: i32| m.at_2d::<Vec3b>(0, x).map(|p| p.0).ok();
        let same = deglared(&patch, 0.0).unwrap_or_default();
        assert_eq!(at(&same, PATCH - 1), Some([160, 210, 250]));
        let full = deglared(&patch, 1.0).unwrap_or_default();
        assert_eq!(at(&full, 0), Some([0, 0, 0]));
        assert_eq!(at(&full, PATCH - 1), Some([80, 130, 170]));
        // The field's colour is stronger once the glare is off.
        let chroma = |p: [u8; 3]| f32::from(p[2]) / p.iter().map(|&v| f32::from(v)).sum::<f32>();
        assert!(chroma([80, 130, 170]) > chroma([160, 210, 250]) + 0.03);
    }

    #[test]
    fn blur_lowers_sharpness_whatever_the_contrast() {
        // The square's quad grown so that its outline crosses the patch.
        let (frame, quad) = white_square();
        let wide = quad.map(|p| [(p[0] - 97.5) * 1.3 + 97.5, (p[1] - 97.5) * 1.3 + 97.5]);
        let sharpness = |frame: &Mat| -> f32 {
            let patch = sample_patch(frame, &wide).expect("patch");
            features(&patch, [1.0; 3]).expect("features").sharpness
        };
        let mut faint = Mat::default();
        frame
            .convert_to(&mut faint, -1, 0.3, 60.0)
            .expect("contrast");
        let mut soft = Mat::default();
        imgproc::gaussian_blur(
            &frame,
            &mut soft,
            Size::new(0, 0),
            2.5,
            2.5,
            opencv::core::BORDER_REPLICATE,
        )
        .expect("blur");
        let (sharp, faint, soft) = (sharpness(&frame), sharpness(&faint), sharpness(&soft));
        assert!(
            (sharp - faint).abs() < 0.05 * sharp,
            "contrast changed sharpness: {sharp} vs {faint}"
        );
        assert!(soft < 0.7 * sharp, "blurred {soft}, sharp {sharp}");
    }
}
