//! The features of a cell: its patch sampled square from the photo, the colour layout of
//! its interior in blocks, the four wall bands, and its sharpness; and the patch with
//! glare taken off or put on.

use super::*;

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
    /// The same ratio over the patch averaged 2 x 2 first: sensor noise and JPEG blocks,
    /// which make a blurred cell look sharp pixel by pixel, average out.
    pub coarse_sharpness: f32,
}

impl CellFeatures {
    /// The features of the same patch turned a quarter clockwise `turns` times.
    pub fn turned(&self, turns: u8) -> CellFeatures {
        let mut out = self.clone();
        out.blocks = self.turned_blocks(turns);
        for _ in 0..turns % 4 {
            let prev = out.sides;
            for side in Side::ALL {
                out.sides[side.clockwise() as usize] = prev[side as usize];
            }
        }
        out
    }

    /// The block means of the same patch turned a quarter clockwise `turns` times (see
    /// [`CellFeatures::turned`]; the interior alone is what building distances need).
    pub fn turned_blocks(&self, turns: u8) -> [f32; BLOCK_DIMS] {
        let mut out = self.blocks;
        for _ in 0..turns % 4 {
            let prev = out;
            for by in 0..GRID {
                for bx in 0..GRID {
                    // new(x, y) = old(y, N-1-x): old row N-1-x, old column y.
                    let (ob, nb) = (((GRID - 1 - bx) * GRID + by) * 3, (by * GRID + bx) * 3);
                    out[nb..nb + 3].copy_from_slice(&prev[ob..ob + 3]);
                }
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

/// Over the square grid `values` (`width` a side), at every `step`-th row and column inside
/// its border: the summed absolute Laplacian, the summed mean absolute gradient, and how
/// many points.
fn edge_sums(values: &[f32], width: usize, step: usize) -> (f32, f32, usize) {
    let (mut lap, mut grad) = (0f32, 0f32);
    let mut looked = 0usize;
    for y in (1..width.saturating_sub(1)).step_by(step) {
        for x in (1..width - 1).step_by(step) {
            let i = y * width + x;
            let (c, l, r, u, d) = (
                values[i],
                values[i - 1],
                values[i + 1],
                values[i - width],
                values[i + width],
            );
            lap += (l + r + u + d - 4.0 * c).abs();
            grad += ((r - l).abs() + (d - u).abs()) / 2.0;
            looked += 1;
        }
    }
    (lap, grad, looked)
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
    let brightness: Vec<f32> = px.iter().map(|p| p[2]).collect();
    let (lap, grad, looked) = edge_sums(&brightness, n, 2);
    let sharpness = lap / grad.max(1e-3);
    // And over the patch averaged 2 x 2, every point.
    let half = n / 2;
    let coarse: Vec<f32> = (0..half * half)
        .map(|k| {
            let i = 2 * (k / half) * n + 2 * (k % half);
            (brightness[i] + brightness[i + 1] + brightness[i + n] + brightness[i + n + 1]) / 4.0
        })
        .collect();
    let (coarse_lap, coarse_grad, _) = edge_sums(&coarse, half, 1);
    let coarse_sharpness = coarse_lap / coarse_grad.max(1e-3);
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
        coarse_sharpness,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::appearance::tests::features_with;

    #[test]
    fn four_turns_are_the_identity_and_one_turn_moves_west_to_north() {
        let f = features_with(0.0);
        assert_eq!(f.turned(4), f);
        assert_eq!(f.turned(1).turned(3), f);
        let t = f.turned(1);
        assert_eq!(t.sides[Side::North as usize], f.sides[Side::West as usize]);
        for turns in 0..8 {
            assert_eq!(f.turned_blocks(turns), f.turned(turns).blocks);
        }
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

    /// The features of `frame` (the white square's, or it changed) over the square's quad
    /// grown so that its outline crosses the patch.
    fn across_the_outline(frame: &Mat) -> CellFeatures {
        let (_, quad) = white_square();
        let wide = quad.map(|p| [(p[0] - 97.5) * 1.3 + 97.5, (p[1] - 97.5) * 1.3 + 97.5]);
        let patch = sample_patch(frame, &wide).expect("patch");
        features(&patch, [1.0; 3]).expect("features")
    }

    /// `frame` out of focus: a Gaussian of `sigma` pixels.
    fn blurred(frame: &Mat, sigma: f64) -> Mat {
        let mut soft = Mat::default();
        imgproc::gaussian_blur(
            frame,
            &mut soft,
            Size::new(0, 0),
            sigma,
            sigma,
            opencv::core::BORDER_REPLICATE,
        )
        .expect("blur");
        soft
    }

    #[test]
    fn blur_lowers_sharpness_whatever_the_contrast() {
        let (frame, _) = white_square();
        let sharpness = |frame: &Mat| -> f32 { across_the_outline(frame).sharpness };
        let mut faint = Mat::default();
        frame
            .convert_to(&mut faint, -1, 0.3, 60.0)
            .expect("contrast");
        let soft = blurred(&frame, 2.5);
        let (sharp, faint, soft) = (sharpness(&frame), sharpness(&faint), sharpness(&soft));
        assert!(
            (sharp - faint).abs() < 0.05 * sharp,
            "contrast changed sharpness: {sharp} vs {faint}"
        );
        assert!(soft < 0.7 * sharp, "blurred {soft}, sharp {sharp}");
    }

    #[test]
    fn noise_makes_a_blurred_cell_look_sharp_pixel_by_pixel_less_so_coarsely() {
        let (frame, _) = white_square();
        let look = across_the_outline;
        let soft = blurred(&frame, 4.0);
        // Sensor noise of a few levels on every pixel, as a dim photo shows.
        let mut noisy = soft.clone();
        let mut rng = fastrand::Rng::with_seed(3);
        for v in noisy.data_bytes_mut().expect("bytes") {
            *v = (i32::from(*v) + rng.i32(-6..=6)).clamp(0, 255) as u8;
        }
        let (sharp, soft, noisy) = (look(&frame), look(&soft), look(&noisy));
        // Noise lifts both measures; the coarse one stays nearer the blurred cell's own.
        let lift = |s: f32, n: f32| n / s;
        assert!(
            lift(soft.coarse_sharpness, noisy.coarse_sharpness)
                < lift(soft.sharpness, noisy.sharpness),
            "coarse {} -> {}, fine {} -> {}",
            soft.coarse_sharpness,
            noisy.coarse_sharpness,
            soft.sharpness,
            noisy.sharpness
        );
        assert!(soft.coarse_sharpness < 0.7 * sharp.coarse_sharpness);
    }
}
