//! The bare table's colour in a photo: the commonest colour of the view, told about each
//! place (a lamp's pool, a vignette), and the share of a cell that shows it. A cell mostly
//! of the table's colour holds no tile, whatever the profile says of it.

use super::{ScanError, debugging};
use crate::appearance::WhiteBalance;
use crate::geometry::{Homography, Point};
use opencv::core::{Mat, Scalar};
use opencv::imgproc;
use opencv::prelude::*;
use std::sync::Arc;

/// The bare table's colour (chromaticity r, g and brightness) as measured under a white
/// balance. An Alhambra is read again under its own light (other channel gains), and the
/// table's pixels then show another chromaticity: compared under the old balance, a bare
/// table cell no longer looked like the table, and a cloth under a cast that made it look
/// like a building was read as tiles.
///
/// A lamp's pool or a lens's vignette lights one table unevenly: its colour is told about
/// each place too (`light`), and a cell is compared with the table around it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct TableColour {
    pub(super) colour: [f32; 3],
    pub(super) white: WhiteBalance,
    pub(super) light: Option<Arc<TableLight>>,
}

impl TableColour {
    /// `frame` with the table's light made even (see [`TableLight::flattened`]) to the
    /// light about the marker papers at `papers` (where the white balance was read; the
    /// table's commonest colour without them); `None` when it is even already or unknown.
    pub(super) fn flattened(
        &self,
        frame: &Mat,
        papers: &[Point],
        places: &[Point],
    ) -> Result<Option<Mat>, ScanError> {
        let Some(light) = &self.light else {
            return Ok(None);
        };
        let there: Vec<[f32; 3]> = papers.iter().filter_map(|&p| light.colour_at(p)).collect();
        let reference = if there.is_empty() {
            self.colour
        } else {
            let n = there.len() as f32;
            [0, 1, 2].map(|k| there.iter().map(|c| c[k]).sum::<f32>() / n)
        };
        light.flattened(frame, reference, places)
    }

    /// The colour the table shows about image point `at`, under `white`.
    pub(super) fn near(&self, white: WhiteBalance, at: Point) -> [f32; 3] {
        let colour = self.light.as_ref().and_then(|light| light.colour_at(at));
        under_white(colour.unwrap_or(self.colour), self.white, white)
    }
}

/// The bare table's colour about each place: a lamp's pool or a lens's vignette light one
/// table unevenly, and a warm lamp tints the table where it shines. Over blocks of about a
/// tile, the median colour of the pixels near the photo's table colour; each block then
/// takes the median of the blocks about it (a few tiles of the table's colour there are
/// outvoted; the light varies slowly).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct TableLight {
    /// Image pixels to blocks.
    image_to_block: Homography,
    columns: usize,
    rows: usize,
    /// Per block, row by row: the table's colour there (as [`table_colour`] measures it).
    colours: Vec<[f32; 3]>,
}

impl TableLight {
    /// Blocks either way whose medians are taken together about each block.
    const REACH: usize = 2;
    /// The share of a block's pixels that must show the table's colour for it to count.
    const TABLE_SHARE: f32 = 0.3;
    /// How far the table's colour may move from the photo's over the table: chromaticity
    /// (either coordinate) and brightness ratio. Beyond these it is no longer one table.
    const CHROMA: f32 = 0.04;
    const RATIO: (f32, f32) = (0.6, 1.8);
    /// The light is uneven when a channel's gain somewhere is this far off 1 either way.
    const UNEVEN: f32 = 1.15;

    /// The light over an overview of `columns` x `rows` pixels of BGR `bytes` (black outside
    /// the photo), `block` pixels a block, for a table of `colour` under `white`;
    /// `image_to_overview` places image pixels on it. `None` when no block shows the table.
    pub(super) fn measured(
        bytes: &[u8],
        (columns, rows): (usize, usize),
        block: usize,
        white: WhiteBalance,
        colour: [f32; 3],
        image_to_overview: &Homography,
    ) -> Option<TableLight> {
        let [tr, tg, tl] = colour;
        let (lo, hi) = Self::RATIO;
        let block = block.max(1);
        let (bx, by) = (columns.div_ceil(block), rows.div_ceil(block));
        let mut values: Vec<[Vec<f32>; 3]> = vec![Default::default(); bx * by];
        let mut valid = vec![0usize; bx * by];
        for (k, px) in bytes.chunks_exact(3).enumerate().take(columns * rows) {
            if px == [0, 0, 0] {
                continue;
            }
            let cell = (k / columns) / block * bx + (k % columns) / block;
            valid[cell] += 1;
            let b = f32::from(px[0]) * white[0];
            let g = f32::from(px[1]) * white[1];
            let r = f32::from(px[2]) * white[2];
            let sum = r + g + b + 3.0;
            let (cr, cg, l) = (r / sum, g / sum, sum / 3.0);
            if (cr - tr).abs() < Self::CHROMA
                && (cg - tg).abs() < Self::CHROMA
                && l > lo * tl
                && l < hi * tl
            {
                for (v, x) in values[cell].iter_mut().zip([cr, cg, l]) {
                    v.push(x);
                }
            }
        }
        let blocks: Vec<Option<[f32; 3]>> = values
            .iter_mut()
            .zip(&valid)
            .map(|(v, &n)| {
                (n > 0 && v[0].len() as f32 >= Self::TABLE_SHARE * n as f32)
                    .then(|| [0, 1, 2].map(|c| median(&mut v[c])))
            })
            .collect();
        if blocks.iter().all(Option::is_none) {
            return None;
        }
        let mut colours = vec![colour; bx * by];
        let mut near: [Vec<f32>; 3] = Default::default();
        for y in 0..by {
            for x in 0..bx {
                near.iter_mut().for_each(Vec::clear);
                for v in y.saturating_sub(Self::REACH)..(y + Self::REACH + 1).min(by) {
                    for u in x.saturating_sub(Self::REACH)..(x + Self::REACH + 1).min(bx) {
                        for (c, value) in blocks[v * bx + u].into_iter().flatten().enumerate() {
                            near[c].push(value);
                        }
                    }
                }
                // Too few blocks of table about it: the photo's table colour stands.
                if near[0].len() >= 2 * Self::REACH {
                    colours[y * bx + x] = [0, 1, 2].map(|c| median(&mut near[c]));
                }
            }
        }
        if debugging() {
            let (lo, hi) = colours.iter().fold((f32::MAX, 0f32), |(lo, hi), c| {
                (lo.min(c[2] / tl), hi.max(c[2] / tl))
            });
            eprintln!("table light over {bx}x{by} blocks: {lo:.2} to {hi:.2} of {colour:?}");
        }
        Some(TableLight {
            image_to_block: Homography::scale(1.0 / block as f64).after(image_to_overview),
            columns: bx,
            rows: by,
            colours,
        })
    }

    /// `frame` with the table's light made even: each pixel's channels scaled by the
    /// table's colour `colour` over its colour about that pixel (what a lamp's pool or a
    /// vignette does to the table it does to the tiles on it). `None` when the light is
    /// even where it matters already: no channel more than [`TableLight::UNEVEN`] off at
    /// any of image points `places`.
    fn flattened(
        &self,
        frame: &Mat,
        colour: [f32; 3],
        places: &[Point],
    ) -> Result<Option<Mat>, ScanError> {
        // table_colour's chromaticity and brightness back to channels (B, G, R).
        let channels = |[r, g, l]: [f32; 3]| {
            let sum = 3.0 * l;
            [sum * (1.0 - r - g) - 3.0, sum * g, sum * r].map(|c| c.max(1.0))
        };
        let whole = channels(colour);
        let gains: Vec<[f32; 3]> = self
            .colours
            .iter()
            .map(|&c| {
                let here = channels(c);
                [0, 1, 2].map(|k| whole[k] / here[k])
            })
            .collect();
        let most = places
            .iter()
            .filter_map(|&p| self.block_at(p))
            .flat_map(|k| gains[k])
            .map(|g| g.ln().abs())
            .fold(0f32, f32::max)
            .exp();
        let uneven = most > Self::UNEVEN;
        if debugging() {
            eprintln!(
                "table light: gains up to {most:.3} at {} places",
                places.len()
            );
        }
        if !uneven {
            return Ok(None);
        }
        let rows: Vec<Vec<opencv::core::Vec3f>> = gains
            .chunks(self.columns)
            .map(|row| row.iter().map(|&g| opencv::core::Vec3f::from(g)).collect())
            .collect();
        let grid = Mat::from_slice_2d(&rows)?;
        // Block values stand at block centres; image pixels map onto blocks.
        let to_grid = Homography::translation(-0.5, -0.5).after(&self.image_to_block);
        let mut gain = Mat::default();
        imgproc::warp_perspective(
            &grid,
            &mut gain,
            &Mat::from_slice_2d(&to_grid.0)?,
            frame.size()?,
            imgproc::INTER_LINEAR | imgproc::WARP_INVERSE_MAP,
            opencv::core::BORDER_REPLICATE,
            Scalar::all(1.0),
        )?;
        // 8-bit pixels times float gains, rounded and saturated back to 8 bits.
        let mut even = Mat::default();
        opencv::core::multiply(frame, &gain, &mut even, 1.0, opencv::core::CV_8U)?;
        Ok(Some(even))
    }

    /// The table's colour about image point `at`; `None` off the table's overview.
    fn colour_at(&self, at: Point) -> Option<[f32; 3]> {
        self.block_at(at).map(|k| self.colours[k])
    }

    /// The block about image point `at`; `None` off the table's overview.
    fn block_at(&self, at: Point) -> Option<usize> {
        let [x, y] = self.image_to_block.apply(at)?;
        if !(x >= 0.0 && y >= 0.0 && x < self.columns as f64 && y < self.rows as f64) {
            return None;
        }
        Some(y as usize * self.columns + x as usize)
    }
}

/// The median of `values` (reordered); 0 when there are none.
fn median(values: &mut [f32]) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    let mid = values.len() / 2;
    *values.select_nth_unstable_by(mid, f32::total_cmp).1
}

/// Table colour `colour` (chromaticity r, g and brightness as [`table_colour`] measures it
/// under white balance `from`) as measured under `to`.
fn under_white(colour: [f32; 3], from: WhiteBalance, to: WhiteBalance) -> [f32; 3] {
    if to == from {
        return colour;
    }
    let [r, g, l] = colour;
    // table_colour's sum is R + G + B + 3 = 3 L.
    let sum = 3.0 * l;
    let bgr = [sum * (1.0 - r - g) - 3.0, sum * g, sum * r];
    let [b, g, r] = [0, 1, 2].map(|k| (bgr[k] * to[k] / from[k].max(1e-6)).max(0.0));
    let sum = r + g + b + 3.0;
    [r / sum, g / sum, sum / 3.0]
}

/// How much of a cell shows the bare table: over the whole patch, and over its middle
/// (the central half each way). A tile shows its building in its middle, so a cell whose
/// middle is the table is bare however its rim reads: a bay between tiles, its rim on the
/// neighbours' edges and shadows.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct TableShare {
    pub(super) whole: f32,
    pub(super) middle: f32,
}

/// The shares of a patch's pixels that look like the bare table of colour `table` (as
/// [`table_colour`] measures it under `white`): within 0.02 of its chromaticity and
/// 0.7-1.4 times its brightness.
pub(super) fn table_share_of(
    patch: &Mat,
    white: WhiteBalance,
    [tr, tg, tl]: [f32; 3],
) -> TableShare {
    let Ok(bytes) = patch.data_bytes() else {
        return TableShare::default();
    };
    let width = usize::try_from(patch.cols()).unwrap_or(0).max(1);
    let height = bytes.len() / 3 / width;
    let middle = |k: usize, n: usize| k >= n / 4 && k < n - n / 4;
    let (mut like, mut like_middle, mut n_middle) = (0usize, 0usize, 0usize);
    let n = bytes.len() / 3;
    for (k, px) in bytes.chunks_exact(3).enumerate() {
        let b = f32::from(px[0]) * white[0];
        let g = f32::from(px[1]) * white[1];
        let r = f32::from(px[2]) * white[2];
        let sum = r + g + b + 3.0;
        let (cr, cg, l) = (r / sum, g / sum, sum / 3.0);
        let table =
            (cr - tr).abs() < 0.02 && (cg - tg).abs() < 0.02 && l > 0.7 * tl && l < 1.4 * tl;
        let central = middle(k % width, width) && middle(k / width, height);
        like += usize::from(table);
        like_middle += usize::from(table && central);
        n_middle += usize::from(central);
    }
    TableShare {
        whole: like as f32 / n.max(1) as f32,
        middle: like_middle as f32 / n_middle.max(1) as f32,
    }
}

/// The commonest colour of a BGR picture (white-balanced chromaticity r, g and median
/// brightness of the pixels of that colour): on a table photo, the bare table. `None` when
/// no colour covers a quarter of the picture (a table too busy to tell).
pub(super) fn table_colour(bytes: &[u8], white: WhiteBalance) -> Option<[f32; 3]> {
    const BINS: usize = 64;
    let (lo, hi) = (0.15f32, 0.55f32);
    let bin =
        |c: f32| (((c - lo) / (hi - lo)) * BINS as f32).clamp(0.0, (BINS - 1) as f32) as usize;
    let mut hist = vec![0u32; BINS * BINS];
    let mut pixels = Vec::with_capacity(bytes.len() / 3);
    for px in bytes.chunks_exact(3) {
        if px == [0, 0, 0] {
            continue; // outside the photo
        }
        let b = f32::from(px[0]) * white[0];
        let g = f32::from(px[1]) * white[1];
        let r = f32::from(px[2]) * white[2];
        let sum = r + g + b + 3.0;
        let (cr, cg) = (r / sum, g / sum);
        hist[bin(cr) * BINS + bin(cg)] += 1;
        pixels.push((cr, cg, sum / 3.0));
    }
    // The densest 3x3 block of bins.
    let mut best = (0u32, 0usize, 0usize);
    for i in 1..BINS - 1 {
        for j in 1..BINS - 1 {
            let n: u32 = (i - 1..=i + 1)
                .flat_map(|a| (j - 1..=j + 1).map(move |b| (a, b)))
                .map(|(a, b)| hist[a * BINS + b])
                .sum();
            if n > best.0 {
                best = (n, i, j);
            }
        }
    }
    if (best.0 as usize) * 4 < pixels.len() {
        return None;
    }
    let near = |c: f32, k: usize| bin(c).abs_diff(k) <= 1;
    let mut members: Vec<(f32, f32, f32)> = pixels
        .into_iter()
        .filter(|p| near(p.0, best.1) && near(p.1, best.2))
        .collect();
    let n = members.len().max(1) as f32;
    let (r, g) = members
        .iter()
        .fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    let mid = members.len() / 2;
    let l = members
        .select_nth_unstable_by(mid, |a, b| a.2.total_cmp(&b.2))
        .1
        .2;
    Some([r, g, l])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table 120 x 60 px, blocks of 6 px: grey-brown, under a warm lamp from column
    /// `lit` on (red 1.6, green 1.5, blue 1.35 times), with a few blue tiles of 6 x 6 px
    /// on both sides, lit alike.
    fn lamp_lit_table(lit: usize) -> (Vec<u8>, [u8; 3], [u8; 3]) {
        let (w, h) = (120usize, 60usize);
        let dark = [60u8, 70, 90];
        let gain = [1.35, 1.5, 1.6];
        let lamp = |c: [u8; 3]| -> [u8; 3] {
            [0, 1, 2].map(|k| (f64::from(c[k]) * gain[k]).round().min(255.0) as u8)
        };
        let mut bytes = Vec::with_capacity(w * h * 3);
        for y in 0..h {
            for x in 0..w {
                let tile = (x / 6) % 4 == 1 && (y / 6) % 3 == 1 && (x / 6 + y / 6) % 5 == 0;
                let base = if tile { [150, 90, 40] } else { dark };
                let grain = ((x * 7 + y * 3) % 5) as u8;
                let px = base.map(|c| c.saturating_add(grain));
                bytes.extend(if x >= lit { lamp(px) } else { px });
            }
        }
        (bytes, dark, lamp(dark))
    }

    #[test]
    fn the_tables_colour_is_told_about_each_place_under_a_lamp() {
        let (bytes, _, _) = lamp_lit_table(72);
        let white = [1.0; 3];
        let colour = table_colour(&bytes, white).expect("a table");
        let light =
            TableLight::measured(&bytes, (120, 60), 6, white, colour, &Homography::IDENTITY)
                .expect("the table's light");
        let unlit = light.colour_at([6.0, 30.0]).expect("on the table");
        let lit = light.colour_at([110.0, 30.0]).expect("on the table");
        // The unlit side is the photo's table colour; the lit one is 1.5 times as bright
        // and redder, the tiles there outvoted.
        assert!(
            (unlit[2] / colour[2] - 1.0).abs() < 0.03,
            "{unlit:?} {colour:?}"
        );
        assert!(
            (lit[2] / colour[2] - 1.5).abs() < 0.06,
            "{lit:?} {colour:?}"
        );
        assert!(lit[0] > colour[0] + 0.01, "{lit:?} {colour:?}");
        assert!(light.colour_at([-5.0, 30.0]).is_none());
    }

    #[test]
    fn a_lamps_pool_is_made_even_and_even_light_is_left_alone() -> opencv::Result<()> {
        let (bytes, dark, _) = lamp_lit_table(72);
        let white = [1.0; 3];
        let to_mat = |bytes: &[u8]| -> opencv::Result<Mat> {
            let rows: Vec<Vec<opencv::core::Vec3b>> = bytes
                .chunks_exact(120 * 3)
                .map(|row| {
                    row.chunks_exact(3)
                        .map(|p| [p[0], p[1], p[2]].into())
                        .collect()
                })
                .collect();
            Mat::from_slice_2d(&rows)
        };
        let frame = to_mat(&bytes)?;
        let colour = table_colour(&bytes, white).expect("a table");
        let light =
            TableLight::measured(&bytes, (120, 60), 6, white, colour, &Homography::IDENTITY)
                .expect("the table's light");
        let everywhere: Vec<Point> = (0..20)
            .flat_map(|i| {
                (0..10).map(move |j| [6.0 * f64::from(i) + 3.0, 6.0 * f64::from(j) + 3.0])
            })
            .collect();
        let even = light
            .flattened(&frame, colour, &everywhere)
            .map_err(|e| opencv::Error::new(opencv::core::StsError, e.to_string()))?
            .expect("uneven light");
        // Bare table far into the lit side (column 100, row 3 of a tile's gap) now shows the
        // unlit table's colour.
        let px = *even.at_2d::<opencv::core::Vec3b>(2, 100)?;
        for k in 0..3 {
            assert!(
                (i32::from(px[k]) - i32::from(dark[k])).abs() <= 8,
                "{px:?} against {dark:?}"
            );
        }
        // Where only the unlit side matters, nothing is done.
        let unlit: Vec<Point> = everywhere.iter().copied().filter(|p| p[0] < 30.0).collect();
        let none = light
            .flattened(&frame, colour, &unlit)
            .map_err(|e| opencv::Error::new(opencv::core::StsError, e.to_string()))?;
        assert!(none.is_none());
        Ok(())
    }

    #[test]
    fn the_table_colour_is_the_same_pixels_under_another_white_balance() {
        // A grey-brown cloth, with a little grain.
        let bytes: Vec<u8> = (0..400u32)
            .flat_map(|i| {
                let d = (i % 5) as u8;
                [52 + d, 60 + d, 71 + d]
            })
            .collect();
        let first = [1.12, 1.0, 0.9];
        let measured = table_colour(&bytes, first).expect("one colour");
        let table = TableColour {
            colour: measured,
            white: first,
            light: None,
        };
        assert_eq!(table.near(first, [0.0, 0.0]), measured);
        for other in [[1.05, 1.06, 0.9], [0.9, 1.0, 1.15], [1.0, 1.0, 1.0]] {
            let there = table_colour(&bytes, other).expect("one colour");
            let moved = table.near(other, [0.0, 0.0]);
            for k in 0..2 {
                assert!(
                    (moved[k] - there[k]).abs() < 0.003,
                    "{moved:?} against {there:?} under {other:?}"
                );
            }
            assert!(
                (moved[2] / there[2] - 1.0).abs() < 0.03,
                "{moved:?} {there:?}"
            );
        }
    }

    #[test]
    fn a_bay_between_tiles_shows_the_table_in_its_middle_and_a_tile_does_not() -> opencv::Result<()>
    {
        use opencv::core::{CV_8UC3, Rect};
        let table_bgr = Scalar::new(40.0, 50.0, 70.0, 0.0);
        let tile_bgr = Scalar::new(120.0, 190.0, 220.0, 0.0);
        let table = {
            let s = 40.0 + 50.0 + 70.0 + 3.0;
            [70.0 / s, 50.0 / s, s / 3.0]
        };
        // A bay: table in a 48 px patch but for a 10 px rim of tiles' edges on two sides.
        let mut bay = Mat::new_rows_cols_with_default(48, 48, CV_8UC3, table_bgr)?;
        imgproc::rectangle(&mut bay, Rect::new(0, 0, 48, 10), tile_bgr, -1, 8, 0)?;
        imgproc::rectangle(&mut bay, Rect::new(0, 38, 48, 10), tile_bgr, -1, 8, 0)?;
        let share = table_share_of(&bay, [1.0; 3], table);
        assert!((share.whole - 28.0 / 48.0).abs() < 0.01, "{share:?}");
        assert!(share.middle > 0.99, "{share:?}");
        // A tile drawn on a ground of the table's colour: its building in the middle.
        let mut tile = Mat::new_rows_cols_with_default(48, 48, CV_8UC3, table_bgr)?;
        imgproc::rectangle(&mut tile, Rect::new(10, 10, 28, 28), tile_bgr, -1, 8, 0)?;
        let share = table_share_of(&tile, [1.0; 3], table);
        assert!(share.whole > 0.6 && share.middle < 0.01, "{share:?}");
        Ok(())
    }
}
