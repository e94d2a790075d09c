//! Small drawing helpers over OpenCV: antialiased sub-pixel polygons, colours as float
//! triples, smooth noise fields, and plain access to a continuous Mat's bytes.

use opencv::core::{Mat, Point, Scalar, Size, Vector};
use opencv::prelude::*;
use opencv::{core, imgproc};

/// Fractional bits of the sub-pixel coordinates handed to OpenCV's drawing functions.
pub(crate) const SHIFT: i32 = 4;
const ONE: f64 = (1 << SHIFT) as f64;

/// A BGR colour with channels 0..255 as floats.
pub(crate) type Bgr = [f64; 3];

/// The colour as an OpenCV scalar (alpha 255 for four-channel images).
pub(crate) fn sc(c: Bgr) -> Scalar {
    Scalar::new(
        c[0].clamp(0.0, 255.0),
        c[1].clamp(0.0, 255.0),
        c[2].clamp(0.0, 255.0),
        255.0,
    )
}

/// The colour scaled by `f` (shading).
pub(crate) fn shade(c: Bgr, f: f64) -> Bgr {
    [c[0] * f, c[1] * f, c[2] * f]
}

/// Mix of two colours, `t` of the second.
pub(crate) fn mix(a: Bgr, b: Bgr, t: f64) -> Bgr {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// The colour with each channel scaled by a random factor in 1 +- `amount`.
pub(crate) fn jitter(c: Bgr, amount: f64, rng: &mut fastrand::Rng) -> Bgr {
    let g = 1.0 + amount * (2.0 * rng.f64() - 1.0);
    [
        c[0] * g * (1.0 + amount * 0.5 * (2.0 * rng.f64() - 1.0)),
        c[1] * g * (1.0 + amount * 0.5 * (2.0 * rng.f64() - 1.0)),
        c[2] * g * (1.0 + amount * 0.5 * (2.0 * rng.f64() - 1.0)),
    ]
}

/// A point for OpenCV's shifted drawing coordinates.
pub(crate) fn pt(p: [f64; 2]) -> Point {
    Point::new((p[0] * ONE).round() as i32, (p[1] * ONE).round() as i32)
}

/// Fills a polygon (antialiased, sub-pixel).
pub(crate) fn fill(img: &mut Mat, poly: &[[f64; 2]], c: Bgr) -> opencv::Result<()> {
    fill_scalar(img, poly, sc(c))
}

/// Fills a polygon with a raw scalar (masks, single-channel images).
pub(crate) fn fill_scalar(img: &mut Mat, poly: &[[f64; 2]], c: Scalar) -> opencv::Result<()> {
    if poly.len() < 3 {
        return Ok(());
    }
    let v: Vector<Point> = poly.iter().map(|&p| pt(p)).collect();
    let all: Vector<Vector<Point>> = std::iter::once(v).collect();
    imgproc::fill_poly(img, &all, c, imgproc::LINE_AA, SHIFT, Point::new(0, 0))
}

/// Outlines a polygon.
pub(crate) fn outline(
    img: &mut Mat,
    poly: &[[f64; 2]],
    c: Bgr,
    thickness: i32,
) -> opencv::Result<()> {
    let v: Vector<Point> = poly.iter().map(|&p| pt(p)).collect();
    let all: Vector<Vector<Point>> = std::iter::once(v).collect();
    imgproc::polylines(img, &all, true, sc(c), thickness, imgproc::LINE_AA, SHIFT)
}

/// A line with round caps.
pub(crate) fn line(
    img: &mut Mat,
    a: [f64; 2],
    b: [f64; 2],
    c: Bgr,
    thickness: i32,
) -> opencv::Result<()> {
    line_scalar(img, a, b, sc(c), thickness)
}

/// A line with round caps, raw scalar colour.
pub(crate) fn line_scalar(
    img: &mut Mat,
    a: [f64; 2],
    b: [f64; 2],
    c: Scalar,
    thickness: i32,
) -> opencv::Result<()> {
    imgproc::line(
        img,
        pt(a),
        pt(b),
        c,
        thickness.max(1),
        imgproc::LINE_AA,
        SHIFT,
    )
}

/// A filled ellipse (axes are half-widths, angle in degrees).
pub(crate) fn ellipse(
    img: &mut Mat,
    c: [f64; 2],
    axes: [f64; 2],
    angle: f64,
    col: Bgr,
) -> opencv::Result<()> {
    ellipse_scalar(img, c, axes, angle, sc(col))
}

/// A filled ellipse with a raw scalar colour.
pub(crate) fn ellipse_scalar(
    img: &mut Mat,
    c: [f64; 2],
    axes: [f64; 2],
    angle: f64,
    col: Scalar,
) -> opencv::Result<()> {
    let axes = Size::new(
        (axes[0].max(0.5) * ONE).round() as i32,
        (axes[1].max(0.5) * ONE).round() as i32,
    );
    imgproc::ellipse(
        img,
        pt(c),
        axes,
        angle,
        0.0,
        360.0,
        col,
        -1,
        imgproc::LINE_AA,
        SHIFT,
    )
}

/// A regular polygon's vertices (`n` corners, radius `r`, first corner at `phase` rad).
pub(crate) fn regular(c: [f64; 2], r: f64, n: usize, phase: f64) -> Vec<[f64; 2]> {
    (0..n)
        .map(|i| {
            let a = phase + std::f64::consts::TAU * i as f64 / n as f64;
            [c[0] + r * a.cos(), c[1] + r * a.sin()]
        })
        .collect()
}

/// A new image of one colour.
pub(crate) fn solid(w: i32, h: i32, typ: i32, c: Scalar) -> opencv::Result<Mat> {
    Mat::new_rows_cols_with_default(h, w, typ, c)
}

/// Smooth random noise in about -1..1: `cells` random values across, resized with a
/// cubic filter to `w` x `h` (single-channel float).
pub(crate) fn noise_field(
    w: i32,
    h: i32,
    cells_x: i32,
    cells_y: i32,
    rng: &mut fastrand::Rng,
) -> opencv::Result<Mat> {
    let (cx, cy) = (cells_x.max(2), cells_y.max(2));
    let mut small = solid(cx, cy, core::CV_32FC1, Scalar::all(0.0))?;
    for v in small.data_typed_mut::<f32>()? {
        *v = rng.f32() * 2.0 - 1.0;
    }
    let mut out = Mat::default();
    imgproc::resize(
        &small,
        &mut out,
        Size::new(w, h),
        0.0,
        0.0,
        imgproc::INTER_CUBIC,
    )?;
    Ok(out)
}

/// Adds `amount` x noise (per channel the same) to a BGR 8-bit image, in place.
pub(crate) fn add_noise(img: &mut Mat, field: &Mat, amount: f32) -> opencv::Result<()> {
    let n = field.data_typed::<f32>()?.to_vec();
    let data = img.data_bytes_mut()?;
    let ch = data.len() / n.len().max(1);
    for (px, v) in data.chunks_exact_mut(ch).zip(n) {
        for c in px.iter_mut().take(3) {
            *c = (f32::from(*c) + v * amount).clamp(0.0, 255.0) as u8;
        }
    }
    Ok(())
}

/// A BGR image turned into an opaque BGRA texture.
pub(crate) fn opaque(img: &Mat) -> opencv::Result<Mat> {
    let mut out = Mat::default();
    imgproc::cvt_color(img, &mut out, imgproc::COLOR_BGR2BGRA, 0)?;
    Ok(out)
}
