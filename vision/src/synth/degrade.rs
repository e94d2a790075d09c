//! What the light and the camera do to the painted scene: uneven light (gradient, a soft
//! shadow band, a glare spot), colour temperature and exposure, the lens (radial
//! distortion, vignetting), focus or motion blur, sensor noise and the JPEG round trip.

use super::camera::{Camera, undistort_scale};
use super::params::Ranges;
use opencv::core::{Mat, Scalar, Size, Vector};
use opencv::prelude::*;
use opencv::{core, imgcodecs, imgproc};

/// The light in the room and the camera's response, drawn once per scene.
#[derive(Debug, Clone)]
pub(crate) struct Look {
    gradient: (f64, [f64; 2]),
    band: Option<Band>,
    glare: Option<([f64; 2], f64, f64)>,
    gains: [f32; 3],
    exposure: f32,
    vignette: f32,
    noise: f32,
    focus: f64,
    motion: Option<(f64, f64)>,
    /// JPEG quality.
    pub jpeg: i32,
    /// Colour temperature, kelvin (for the labels' meta).
    pub kelvin: f64,
}

#[derive(Debug, Clone, Copy)]
struct Band {
    normal: [f64; 2],
    offset: f64,
    width: f64,
    soft: f64,
    dark: f64,
}

/// Relative RGB of a black body at `k` kelvin (Tanner Helland's fit), as BGR gains
/// normalised to green.
fn kelvin_gains(k: f64) -> [f64; 3] {
    let t = k / 100.0;
    let r = if t <= 66.0 {
        255.0
    } else {
        329.7 * (t - 60.0).powf(-0.1332)
    };
    let g = if t <= 66.0 {
        99.47 * t.ln() - 161.12
    } else {
        288.12 * (t - 60.0).powf(-0.0755)
    };
    let b = if t >= 66.0 {
        255.0
    } else if t <= 19.0 {
        0.0
    } else {
        138.52 * (t - 10.0).ln() - 305.04
    };
    let (r, g, b) = (
        r.clamp(1.0, 255.0),
        g.clamp(1.0, 255.0),
        b.clamp(1.0, 255.0),
    );
    [b / g, 1.0, r / g]
}

impl Look {
    /// Draws the light and camera response of a scene.
    pub fn draw(r: &Ranges, rng: &mut fastrand::Rng) -> Look {
        let ga = rng.f64() * std::f64::consts::TAU;
        let gradient = (r.gradient.draw(rng), [ga.cos(), ga.sin()]);
        let band = (rng.f64() < r.shadow_band.0).then(|| {
            let a = rng.f64() * std::f64::consts::TAU;
            Band {
                normal: [a.cos(), a.sin()],
                offset: rng.f64() * 0.8 - 0.4,
                width: 0.06 + rng.f64() * 0.25,
                soft: 0.02 + rng.f64() * 0.1,
                dark: r.shadow_band.1.draw(rng),
            }
        });
        let glare = (rng.f64() < r.glare.0).then(|| {
            (
                [0.1 + 0.8 * rng.f64(), 0.1 + 0.8 * rng.f64()],
                0.03 + 0.09 * rng.f64(),
                r.glare.1.draw(rng),
            )
        });
        let kelvin = r.kelvin.draw(rng);
        let wb = r.white_balance.draw(rng);
        let cast = kelvin_gains(kelvin);
        let neutral = kelvin_gains(5500.0);
        let gains = [0, 1, 2].map(|c| ((cast[c] / neutral[c]).powf(1.0 - wb)) as f32);
        let exposure = 2f64.powf(r.exposure.draw(rng) / 2.2) as f32;
        let motion =
            (rng.f64() < r.motion_blur.0).then(|| (r.motion_blur.1.draw(rng), rng.f64() * 180.0));
        let (lo, hi) = r.jpeg;
        Look {
            gradient,
            band,
            glare,
            gains,
            exposure,
            vignette: r.vignette.draw(rng) as f32,
            noise: r.noise.draw(rng) as f32,
            focus: r.focus_blur.draw(rng),
            motion,
            jpeg: rng.i32(lo..=hi),
            kelvin,
        }
    }

    /// Lights the canvas (scene irradiance and the camera's colour response) in place.
    /// Light features are placed relative to the photo frame inside the canvas. The glare
    /// (a reflection off the table and the tiles) spares what `occluder` marks (a hand
    /// or a cup above the table does not mirror the lamp at the same place).
    pub fn light(&self, canvas: &mut Mat, occluder: &Mat, cam: &Camera) -> opencv::Result<()> {
        let size = canvas.size()?;
        let down = 8;
        let (lw, lh) = ((size.width / down).max(2), (size.height / down).max(2));
        let mut gain = Mat::new_rows_cols_with_default(lh, lw, core::CV_32FC1, Scalar::all(1.0))?;
        let mut glare = Mat::new_rows_cols_with_default(lh, lw, core::CV_32FC1, Scalar::all(0.0))?;
        let (fw, fh) = (f64::from(cam.width), f64::from(cam.height));
        let diag = (fw * fw + fh * fh).sqrt();
        {
            let g = gain.data_typed_mut::<f32>()?;
            let gl = glare.data_typed_mut::<f32>()?;
            for y in 0..lh {
                for x in 0..lw {
                    // Photo-frame coordinates of this sample, as fractions of the frame.
                    let px = (f64::from(x) + 0.5) * f64::from(size.width) / f64::from(lw)
                        - cam.canvas_origin[0];
                    let py = (f64::from(y) + 0.5) * f64::from(size.height) / f64::from(lh)
                        - cam.canvas_origin[1];
                    let (u, v) = ((px - fw / 2.0) / diag, (py - fh / 2.0) / diag);
                    let mut l = 1.0
                        + self.gradient.0 * 2.0 * (u * self.gradient.1[0] + v * self.gradient.1[1]);
                    if let Some(b) = self.band {
                        let d = (u * b.normal[0] + v * b.normal[1] - b.offset).abs();
                        let t = ((b.width / 2.0 + b.soft - d) / (2.0 * b.soft)).clamp(0.0, 1.0);
                        let t = t * t * (3.0 - 2.0 * t);
                        l *= 1.0 - b.dark * t;
                    }
                    let i = (y * lw + x) as usize;
                    g[i] = l.max(0.05) as f32;
                    if let Some((c, r, s)) = self.glare {
                        let (du, dv) = (px / fw - c[0], (py / fh - c[1]) * fh / fw);
                        let d2 = (du * du + dv * dv) / (r * r);
                        gl[i] = (s * (-d2 * 0.5).exp() + s * 0.2 * (-d2 * 0.15).exp()) as f32;
                    }
                }
            }
        }
        let mut gain_full = Mat::default();
        imgproc::resize(&gain, &mut gain_full, size, 0.0, 0.0, imgproc::INTER_LINEAR)?;
        let mut glare_full = Mat::default();
        imgproc::resize(
            &glare,
            &mut glare_full,
            size,
            0.0,
            0.0,
            imgproc::INTER_LINEAR,
        )?;
        let gb = gain_full.data_typed::<f32>()?;
        let lb = glare_full.data_typed::<f32>()?;
        let k = [
            self.gains[0] * self.exposure,
            self.gains[1] * self.exposure,
            self.gains[2] * self.exposure,
        ];
        let tint = [0.92f32, 0.97, 1.0];
        let ob = occluder.data_bytes()?;
        let data = canvas.data_bytes_mut()?;
        for (((px, &g), &l), &o) in data.chunks_exact_mut(3).zip(gb).zip(lb).zip(ob) {
            let l = l * (1.0 - 0.85 * f32::from(o) / 255.0);
            for c in 0..3 {
                let v = f32::from(px[c]) * g * k[c] + l * 255.0 * tint[c] * k[c].sqrt();
                px[c] = v.clamp(0.0, 255.0) as u8;
            }
        }
        Ok(())
    }

    /// The photo as the lens and sensor deliver it: distortion (remap from the canvas),
    /// blur, vignetting and noise; then the JPEG round trip. Returns the decoded image.
    pub fn expose(
        &self,
        canvas: &Mat,
        cam: &Camera,
        rng: &mut fastrand::Rng,
    ) -> opencv::Result<Mat> {
        let (w, h) = (cam.width, cam.height);
        let mut mx = Mat::new_rows_cols_with_default(h, w, core::CV_32FC1, Scalar::all(0.0))?;
        let mut my = Mat::new_rows_cols_with_default(h, w, core::CV_32FC1, Scalar::all(0.0))?;
        // Undistortion factor as a function of the distorted radius, tabulated.
        let corner = ((f64::from(w).powi(2) + f64::from(h).powi(2)).sqrt() / cam.f) * 1.05;
        let n = 4096;
        let lut: Vec<f64> = (0..=n)
            .map(|i| undistort_scale(cam.k1, cam.k2, corner * f64::from(i) / f64::from(n)))
            .collect();
        {
            let xs = mx.data_typed_mut::<f32>()?;
            let ys = my.data_typed_mut::<f32>()?;
            for y in 0..h {
                let ny = (f64::from(y) - cam.cy) / cam.f;
                for x in 0..w {
                    let nx = (f64::from(x) - cam.cx) / cam.f;
                    let r = (nx * nx + ny * ny).sqrt();
                    let t = (r / corner * f64::from(n)).min(f64::from(n) - 1.0);
                    let i = t as usize;
                    let fr = t - i as f64;
                    let s = lut[i] * (1.0 - fr) + lut[i + 1] * fr;
                    let idx = (y * w + x) as usize;
                    xs[idx] = (nx * s * cam.f + cam.cx + cam.canvas_origin[0]) as f32;
                    ys[idx] = (ny * s * cam.f + cam.cy + cam.canvas_origin[1]) as f32;
                }
            }
        }
        let mut img = Mat::default();
        imgproc::remap(
            canvas,
            &mut img,
            &mx,
            &my,
            imgproc::INTER_LINEAR,
            core::BORDER_REPLICATE,
            Scalar::all(0.0),
        )?;
        drop((mx, my));
        if self.focus > 0.3 {
            let mut out = Mat::default();
            imgproc::gaussian_blur(
                &img,
                &mut out,
                Size::new(0, 0),
                self.focus,
                self.focus,
                core::BORDER_REPLICATE,
            )?;
            img = out;
        }
        if let Some((len, angle)) = self.motion {
            let k = (len.ceil() as i32) | 1;
            let mut kernel =
                Mat::new_rows_cols_with_default(k, k, core::CV_32FC1, Scalar::all(0.0))?;
            let c = f64::from(k - 1) / 2.0;
            let (s, co) = angle.to_radians().sin_cos();
            let half = len / 2.0;
            super::draw::line_scalar(
                &mut kernel,
                [c - co * half, c - s * half],
                [c + co * half, c + s * half],
                Scalar::all(1.0),
                1,
            )?;
            let sum = core::sum_elems(&kernel)?[0];
            if sum > 0.0 {
                let mut normed = Mat::default();
                kernel.convert_to(&mut normed, core::CV_32FC1, 1.0 / sum, 0.0)?;
                let mut out = Mat::default();
                imgproc::filter_2d(
                    &img,
                    &mut out,
                    -1,
                    &normed,
                    core::Point::new(-1, -1),
                    0.0,
                    core::BORDER_REPLICATE,
                )?;
                img = out;
            }
        }
        self.sensor(&mut img, cam, rng)?;
        let mut buf = Vector::<u8>::new();
        let params: Vector<i32> = [imgcodecs::IMWRITE_JPEG_QUALITY, self.jpeg]
            .into_iter()
            .collect();
        imgcodecs::imencode(".jpg", &img, &mut buf, &params)?;
        imgcodecs::imdecode(&buf, imgcodecs::IMREAD_COLOR)
    }

    /// Vignetting and signal-dependent noise (luminance and colour), in place.
    fn sensor(&self, img: &mut Mat, cam: &Camera, rng: &mut fastrand::Rng) -> opencv::Result<()> {
        let (w, h) = (cam.width as usize, cam.height as usize);
        let r2max = (cam.cx.max(f64::from(cam.width) - cam.cx)).powi(2)
            + (cam.cy.max(f64::from(cam.height) - cam.cy)).powi(2);
        let sigma = self.noise;
        let data = img.data_bytes_mut()?;
        for y in 0..h {
            let dy = (y as f64 - cam.cy).powi(2);
            for x in 0..w {
                let d = ((x as f64 - cam.cx).powi(2) + dy) / r2max;
                let v = 1.0 - self.vignette * (d as f32) * (0.6 + 0.4 * d as f32);
                let i = (y * w + x) * 3;
                let r = rng.u64(..);
                let lum = gauss(r as u32);
                let px = &mut data[i..i + 3];
                let level = (f32::from(px[0]) + f32::from(px[1]) + f32::from(px[2])) / 765.0;
                let s = sigma * (0.45 + 0.75 * level.sqrt());
                let chroma = [
                    tri((r >> 32) as u8),
                    tri((r >> 40) as u8),
                    tri((r >> 48) as u8),
                ];
                for c in 0..3 {
                    let val = f32::from(px[c]) * v + s * (0.8 * lum + 0.55 * chroma[c]);
                    px[c] = val.round().clamp(0.0, 255.0) as u8;
                }
            }
        }
        Ok(())
    }
}

/// A roughly normal value from 32 random bits (sum of four bytes).
fn gauss(r: u32) -> f32 {
    let s = (r & 0xff) + ((r >> 8) & 0xff) + ((r >> 16) & 0xff) + (r >> 24);
    (s as f32 - 510.0) / 147.8
}

/// A triangular value (sum of two nibbles), mean 0, standard deviation about 1.
fn tri(r: u8) -> f32 {
    (f32::from((r & 0xf) + (r >> 4)) - 15.0) / 6.52
}
