//! Painting the scene onto the canvas: textures warped by their homography into just the
//! region they cover (with antialiased, premultiplied alpha), the cardboard edges of
//! tiles, soft shadows, the cup and the hand (which also mark what they hide).

use super::draw::{Bgr, ellipse_scalar, fill, fill_scalar, line_scalar, mix, shade};
use opencv::core::{Mat, Point2f, Rect, Scalar, Size, Vector};
use opencv::prelude::*;
use opencv::{core, imgproc};

/// Convex hull of points (monotone chain), counter-clockwise in image coordinates.
pub(crate) fn hull(points: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut p: Vec<[f64; 2]> = points.to_vec();
    p.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut lower: Vec<[f64; 2]> = Vec::new();
    for &q in &p {
        while lower.len() >= 2 && cross(lower[lower.len() - 2], lower[lower.len() - 1], q) <= 0.0 {
            lower.pop();
        }
        lower.push(q);
    }
    let mut upper: Vec<[f64; 2]> = Vec::new();
    for &q in p.iter().rev() {
        while upper.len() >= 2 && cross(upper[upper.len() - 2], upper[upper.len() - 1], q) <= 0.0 {
            upper.pop();
        }
        upper.push(q);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

/// The canvas region (clipped) covering points, with a one-pixel border.
fn bounds(points: &[[f64; 2]], size: Size) -> Option<Rect> {
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for p in points {
        x0 = x0.min(p[0]);
        y0 = y0.min(p[1]);
        x1 = x1.max(p[0]);
        y1 = y1.max(p[1]);
    }
    let x0 = (x0.floor() as i32 - 1).max(0);
    let y0 = (y0.floor() as i32 - 1).max(0);
    let x1 = (x1.ceil() as i32 + 2).min(size.width);
    let y1 = (y1.ceil() as i32 + 2).min(size.height);
    (x1 > x0 && y1 > y0).then(|| Rect::new(x0, y0, x1 - x0, y1 - y0))
}

/// Warps a BGRA texture (premultiplied alpha) so that its corners land on `quad`
/// (top-left, top-right, bottom-right, bottom-left, canvas pixels) and composites it
/// over the BGR canvas, touching only the covered region. Small footprints are drawn from
/// a downsized texture to avoid aliasing.
pub(crate) fn blit(canvas: &mut Mat, tex: &Mat, quad: &[[f64; 2]; 4]) -> opencv::Result<()> {
    blit_gain(canvas, tex, quad, 1.0)
}

/// [`blit`] with the texture's colours scaled by `gain`.
pub(crate) fn blit_gain(
    canvas: &mut Mat,
    tex: &Mat,
    quad: &[[f64; 2]; 4],
    gain: f32,
) -> opencv::Result<()> {
    let size = canvas.size()?;
    let Some(roi) = bounds(quad, size) else {
        return Ok(());
    };
    let edge = (0..4)
        .map(|i| {
            let (a, b) = (quad[i], quad[(i + 1) % 4]);
            ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
        })
        .fold(0.0, f64::max);
    let (tw, th) = (tex.cols(), tex.rows());
    let scaled;
    let src = if edge * 1.6 < f64::from(tw.max(th)) {
        let k = (edge * 1.6 / f64::from(tw.max(th))).max(1e-3);
        let size = Size::new(
            ((f64::from(tw) * k).round() as i32).max(4),
            ((f64::from(th) * k).round() as i32).max(4),
        );
        let mut small = Mat::default();
        imgproc::resize(tex, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        scaled = small;
        &scaled
    } else {
        tex
    };
    let (w, h) = (src.cols() as f32, src.rows() as f32);
    let from: Vector<Point2f> = [
        [-0.5, -0.5],
        [w - 0.5, -0.5],
        [w - 0.5, h - 0.5],
        [-0.5, h - 0.5],
    ]
    .iter()
    .map(|p| Point2f::new(p[0], p[1]))
    .collect();
    let to: Vector<Point2f> = quad
        .iter()
        .map(|p| {
            Point2f::new(
                (p[0] - f64::from(roi.x)) as f32,
                (p[1] - f64::from(roi.y)) as f32,
            )
        })
        .collect();
    let hm = imgproc::get_perspective_transform(&from, &to, core::DECOMP_LU)?;
    let mut warped = Mat::default();
    imgproc::warp_perspective(
        src,
        &mut warped,
        &hm,
        roi.size(),
        imgproc::INTER_LINEAR,
        core::BORDER_CONSTANT,
        Scalar::all(0.0),
    )?;
    composite(canvas, &warped, roi, gain)
}

/// Composites a premultiplied BGRA patch over the BGR canvas at `roi`.
fn composite(canvas: &mut Mat, patch: &Mat, roi: Rect, gain: f32) -> opencv::Result<()> {
    let g = (gain.clamp(0.0, 4.0) * 256.0) as u32;
    let cw = canvas.cols() as usize;
    let dst = canvas.data_bytes_mut()?;
    let src = patch.data_bytes()?;
    let (rw, rh) = (roi.width as usize, roi.height as usize);
    for y in 0..rh {
        let srow = &src[y * rw * 4..(y + 1) * rw * 4];
        let off = ((roi.y as usize + y) * cw + roi.x as usize) * 3;
        let drow = &mut dst[off..off + rw * 3];
        for (s, d) in srow.chunks_exact(4).zip(drow.chunks_exact_mut(3)) {
            let a = u32::from(s[3]);
            if a == 0 {
                continue;
            }
            let keep = 255 - a;
            for c in 0..3 {
                let v = ((u32::from(s[c]) * g) >> 8) + (u32::from(d[c]) * keep + 127) / 255;
                d[c] = v.min(255) as u8;
            }
        }
    }
    Ok(())
}

/// Fills a polygon on the canvas.
pub(crate) fn polygon(canvas: &mut Mat, poly: &[[f64; 2]], c: Bgr) -> opencv::Result<()> {
    fill(canvas, poly, c)
}

/// Darkens the canvas by `strength` x `mask` (single channel, 0..255, any size: it is
/// stretched over the canvas).
pub(crate) fn darken(canvas: &mut Mat, mask: &Mat, strength: f32) -> opencv::Result<()> {
    let size = canvas.size()?;
    let full;
    let m = if mask.size()? == size {
        mask
    } else {
        let mut up = Mat::default();
        imgproc::resize(mask, &mut up, size, 0.0, 0.0, imgproc::INTER_LINEAR)?;
        full = up;
        &full
    };
    let mb = m.data_bytes()?;
    let lut: Vec<u16> = (0..256)
        .map(|v| ((1.0 - strength * v as f32 / 255.0).clamp(0.0, 1.0) * 256.0) as u16)
        .collect();
    let data = canvas.data_bytes_mut()?;
    for (px, &v) in data.chunks_exact_mut(3).zip(mb) {
        if v == 0 {
            continue;
        }
        let f = u32::from(lut[usize::from(v)]);
        for c in px {
            *c = ((u32::from(*c) * f) >> 8) as u8;
        }
    }
    Ok(())
}

/// A single-channel mask at `1/down` of the canvas size, for shadows.
pub(crate) fn low_mask(canvas: Size, down: i32) -> opencv::Result<Mat> {
    Mat::new_rows_cols_with_default(
        (canvas.height / down).max(1),
        (canvas.width / down).max(1),
        core::CV_8UC1,
        Scalar::all(0.0),
    )
}

/// Blurs a mask in place.
pub(crate) fn soften(mask: &mut Mat, sigma: f64) -> opencv::Result<()> {
    if sigma < 0.3 {
        return Ok(());
    }
    let mut out = Mat::default();
    imgproc::gaussian_blur(
        mask,
        &mut out,
        Size::new(0, 0),
        sigma,
        sigma,
        core::BORDER_REPLICATE,
    )?;
    *mask = out;
    Ok(())
}

/// Fills a polygon given in canvas pixels into a mask downscaled by `down`.
pub(crate) fn mask_poly(
    mask: &mut Mat,
    poly: &[[f64; 2]],
    down: f64,
    value: f64,
) -> opencv::Result<()> {
    let p: Vec<[f64; 2]> = poly
        .iter()
        .map(|q| [(q[0] + 0.5) / down - 0.5, (q[1] + 0.5) / down - 0.5])
        .collect();
    fill_scalar(mask, &p, Scalar::all(value))
}

/// The arm, hand and fingers as drawn shapes, in canvas pixels.
pub(crate) struct Hand {
    /// The polygons (arm, sleeve) and their colours.
    pub polys: Vec<(Vec<[f64; 2]>, Bgr)>,
    /// Round-capped strokes (fingers, thumb): from, to, width, colour.
    pub strokes: Vec<([f64; 2], [f64; 2], f64, Bgr)>,
    /// Ellipses (palm): centre, half-axes, angle in degrees, colour.
    pub blobs: Vec<([f64; 2], [f64; 2], f64, Bgr)>,
    /// Where the hand's shadow falls relative to the hand, canvas pixels.
    pub shadow_shift: [f64; 2],
    /// Softness of the shadow, pixels.
    pub shadow_blur: f64,
    /// Darkness of the shadow.
    pub shadow_strength: f32,
}

impl Hand {
    fn points(&self) -> Vec<[f64; 2]> {
        let mut pts: Vec<[f64; 2]> = self
            .polys
            .iter()
            .flat_map(|(p, _)| p.iter().copied())
            .collect();
        for (a, b, w, _) in &self.strokes {
            for p in [a, b] {
                pts.push([p[0] - w, p[1] - w]);
                pts.push([p[0] + w, p[1] + w]);
            }
        }
        for (c, ax, _, _) in &self.blobs {
            let r = ax[0].max(ax[1]);
            pts.push([c[0] - r, c[1] - r]);
            pts.push([c[0] + r, c[1] + r]);
        }
        pts
    }

    /// Draws the hand's shapes into a colour layer and a mask (both `roi`-sized).
    fn layers(&self, roi: Rect) -> opencv::Result<(Mat, Mat)> {
        let mut colour = Mat::new_rows_cols_with_default(
            roi.height,
            roi.width,
            core::CV_8UC3,
            Scalar::all(0.0),
        )?;
        let mut mask = Mat::new_rows_cols_with_default(
            roi.height,
            roi.width,
            core::CV_8UC1,
            Scalar::all(0.0),
        )?;
        let o = [f64::from(roi.x), f64::from(roi.y)];
        let mv = |p: &[f64; 2]| [p[0] - o[0], p[1] - o[1]];
        for (poly, c) in &self.polys {
            let p: Vec<[f64; 2]> = poly.iter().map(mv).collect();
            fill(&mut colour, &p, *c)?;
            fill_scalar(&mut mask, &p, Scalar::all(255.0))?;
        }
        for (c, ax, ang, col) in &self.blobs {
            super::draw::ellipse(&mut colour, mv(c), *ax, *ang, *col)?;
            ellipse_scalar(&mut mask, mv(c), *ax, *ang, Scalar::all(255.0))?;
        }
        for (a, b, w, col) in &self.strokes {
            let t = w.round() as i32;
            line_scalar(&mut colour, mv(a), mv(b), super::draw::sc(*col), t)?;
            line_scalar(&mut mask, mv(a), mv(b), Scalar::all(255.0), t)?;
        }
        Ok((colour, mask))
    }

    /// Paints the hand's soft shadow, then the hand with rounded shading; marks the hand
    /// in `occluder` (canvas-sized, single channel).
    pub fn paint(&self, canvas: &mut Mat, occluder: &mut Mat) -> opencv::Result<()> {
        let size = canvas.size()?;
        let mut pts = self.points();
        let n = pts.len();
        for i in 0..n {
            let p = pts[i];
            pts.push([p[0] + self.shadow_shift[0], p[1] + self.shadow_shift[1]]);
        }
        let pad = 3.0 * self.shadow_blur;
        let lo = pts.iter().fold([f64::MAX, f64::MAX], |m, p| {
            [m[0].min(p[0] - pad), m[1].min(p[1] - pad)]
        });
        let hi = pts.iter().fold([f64::MIN, f64::MIN], |m, p| {
            [m[0].max(p[0] + pad), m[1].max(p[1] + pad)]
        });
        let Some(roi) = bounds(&[lo, hi], size) else {
            return Ok(());
        };
        let (colour, mask) = self.layers(roi)?;
        // Shadow: the mask moved and blurred, darkening what is under it.
        let m = core::Mat::from_slice_2d(&[
            [1.0f32, 0.0, self.shadow_shift[0] as f32],
            [0.0, 1.0, self.shadow_shift[1] as f32],
        ])?;
        let mut shadow = Mat::default();
        imgproc::warp_affine(
            &mask,
            &mut shadow,
            &m,
            roi.size(),
            imgproc::INTER_LINEAR,
            core::BORDER_CONSTANT,
            Scalar::all(0.0),
        )?;
        soften(&mut shadow, self.shadow_blur)?;
        // Shading: darker towards the silhouette's edge, as a rounded limb.
        let limb = self.strokes.first().map_or(10.0, |s| s.2);
        let mut round = mask.clone();
        soften(&mut round, (limb * 0.3).max(1.0))?;
        let mut broad = mask.clone();
        soften(&mut broad, (limb * 1.2).max(2.0))?;
        let cw = size.width as usize;
        let dst = canvas.data_bytes_mut()?;
        let occ = occluder.data_bytes_mut()?;
        let (sb, mb, rb, cb) = (
            shadow.data_bytes()?,
            mask.data_bytes()?,
            round.data_bytes()?,
            colour.data_bytes()?,
        );
        let bb = broad.data_bytes()?;
        let (rw, rh) = (roi.width as usize, roi.height as usize);
        for y in 0..rh {
            for x in 0..rw {
                let i = y * rw + x;
                let o = (roi.y as usize + y) * cw + roi.x as usize + x;
                let s = f32::from(sb[i]) / 255.0 * self.shadow_strength;
                let a = f32::from(mb[i]) / 255.0;
                let r = f32::from(rb[i]) / 255.0;
                let b = f32::from(bb[i]) / 255.0;
                let light = 0.45 + 0.3 * r.powf(0.7) + 0.3 * b;
                for c in 0..3 {
                    let under = f32::from(dst[o * 3 + c]) * (1.0 - s);
                    let top = f32::from(cb[i * 3 + c]) * light;
                    dst[o * 3 + c] = (under * (1.0 - a) + top * a).clamp(0.0, 255.0) as u8;
                }
                occ[o] = occ[o].max(mb[i]);
            }
        }
        Ok(())
    }
}

/// A cup standing on the table, as projected outlines (canvas pixels).
pub(crate) struct Cup {
    /// Outline of the base circle and of the rim circle.
    pub base: Vec<[f64; 2]>,
    /// The rim.
    pub rim: Vec<[f64; 2]>,
    /// The inside surface seen through the opening.
    pub inner: Vec<[f64; 2]>,
    /// The handle as a chain of points.
    pub handle: Vec<[f64; 2]>,
    /// Handle thickness, pixels.
    pub handle_width: f64,
    /// Body colour.
    pub colour: Bgr,
    /// What is in it (coffee, dice...): a colour for the inside's bottom.
    pub content: Bgr,
}

impl Cup {
    /// Paints the cup and marks it in `occluder`.
    pub fn paint(&self, canvas: &mut Mat, occluder: &mut Mat) -> opencv::Result<()> {
        for w in self.handle.windows(2) {
            super::draw::line(
                canvas,
                w[0],
                w[1],
                shade(self.colour, 0.8),
                self.handle_width.round() as i32,
            )?;
            line_scalar(
                occluder,
                w[0],
                w[1],
                Scalar::all(255.0),
                self.handle_width.round() as i32,
            )?;
        }
        let mut all = self.base.clone();
        all.extend_from_slice(&self.rim);
        let body = hull(&all);
        polygon(canvas, &body, shade(self.colour, 0.78))?;
        fill_scalar(occluder, &body, Scalar::all(255.0))?;
        // A lit side: a lighter band drawn as a narrower hull.
        let n = self.base.len();
        let lit: Vec<[f64; 2]> = self
            .base
            .iter()
            .zip(&self.rim)
            .take(n / 4)
            .flat_map(|(b, r)| [*b, *r])
            .collect();
        polygon(
            canvas,
            &hull(&lit),
            mix(self.colour, [255.0, 255.0, 255.0], 0.15),
        )?;
        polygon(
            canvas,
            &self.rim,
            mix(self.colour, [255.0, 255.0, 255.0], 0.25),
        )?;
        polygon(canvas, &self.inner, shade(self.colour, 0.45))?;
        let c = super::layout::centroid(self.inner.iter().copied());
        let small: Vec<[f64; 2]> = self
            .inner
            .iter()
            .map(|p| [c[0] + (p[0] - c[0]) * 0.8, c[1] + (p[1] - c[1]) * 0.8])
            .collect();
        polygon(canvas, &small, self.content)
    }
}

/// Fraction of the points for which the mask (canvas-sized) is set.
pub(crate) fn covered(mask: &Mat, points: &[[f64; 2]]) -> opencv::Result<f64> {
    let (w, h) = (mask.cols(), mask.rows());
    let data = mask.data_bytes()?;
    let mut hit = 0usize;
    for p in points {
        let (x, y) = (p[0].round() as i32, p[1].round() as i32);
        if x >= 0 && y >= 0 && x < w && y < h && data[(y * w + x) as usize] > 127 {
            hit += 1;
        }
    }
    Ok(hit as f64 / points.len().max(1) as f64)
}
