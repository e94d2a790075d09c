//! How hard a scene is: the ranges every random choice of the renderer is drawn from, per
//! difficulty, and the draws themselves (all from one seeded generator, so a scene is
//! reproducible).

use super::Difficulty;

/// A closed range of floats to draw from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span(pub f64, pub f64);

impl Span {
    /// A uniform draw.
    pub fn draw(self, rng: &mut fastrand::Rng) -> f64 {
        self.0 + (self.1 - self.0) * rng.f64()
    }
}

/// The ranges of one difficulty.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ranges {
    /// Camera tilt from straight down, degrees.
    pub tilt_deg: Span,
    /// Tile width in pixels at the centre of view.
    pub tile_px: Span,
    /// Horizontal field of view, degrees.
    pub hfov_deg: Span,
    /// First radial distortion coefficient.
    pub k1: Span,
    /// Strength of the light gradient across the view (fraction).
    pub gradient: Span,
    /// Probability and darkness of a soft shadow band.
    pub shadow_band: (f64, Span),
    /// Probability and strength of a glare spot.
    pub glare: (f64, Span),
    /// Colour temperature, kelvin.
    pub kelvin: Span,
    /// How much of the colour cast the camera's white balance removes (1 = all).
    pub white_balance: Span,
    /// Exposure, stops.
    pub exposure: Span,
    /// Sensor noise, standard deviation in 8-bit levels at mid grey.
    pub noise: Span,
    /// Focus blur sigma, pixels.
    pub focus_blur: Span,
    /// Probability and length (pixels) of motion blur.
    pub motion_blur: (f64, Span),
    /// JPEG quality.
    pub jpeg: (i32, i32),
    /// Probability of a hand over an Alhambra.
    pub hand: f64,
    /// Probability that an Alhambra is pushed up to a few millimetres from another.
    pub close_pair: f64,
    /// Loose reserve tiles per player.
    pub reserve: (usize, usize),
    /// Gap between a loose reserve tile and its Alhambra, millimetres.
    pub reserve_gap: Span,
    /// How far a tile may sit off its cell (millimetres) and off square (degrees).
    pub placement_jitter: (f64, f64),
    /// Money cards on the table.
    pub cards: (usize, usize),
    /// Vignetting at the photo's corners (fraction of light lost).
    pub vignette: Span,
}

impl Ranges {
    /// The ranges of a difficulty.
    pub fn of(d: Difficulty) -> Ranges {
        match d {
            Difficulty::Easy => Ranges {
                tilt_deg: Span(0.0, 10.0),
                tile_px: Span(60.0, 120.0),
                hfov_deg: Span(55.0, 68.0),
                k1: Span(-0.05, 0.02),
                gradient: Span(0.0, 0.12),
                shadow_band: (0.0, Span(0.0, 0.0)),
                glare: (0.2, Span(0.05, 0.12)),
                kelvin: Span(4500.0, 6500.0),
                white_balance: Span(0.75, 0.95),
                exposure: Span(-0.3, 0.3),
                noise: Span(1.0, 2.5),
                focus_blur: Span(0.3, 0.7),
                motion_blur: (0.0, Span(0.0, 0.0)),
                jpeg: (85, 95),
                hand: 0.0,
                close_pair: 0.1,
                reserve: (0, 2),
                reserve_gap: Span(20.0, 60.0),
                placement_jitter: (0.4, 0.6),
                cards: (2, 6),
                vignette: Span(0.0, 0.12),
            },
            Difficulty::Normal => Ranges {
                tilt_deg: Span(0.0, 30.0),
                tile_px: Span(35.0, 100.0),
                hfov_deg: Span(55.0, 75.0),
                k1: Span(-0.15, 0.05),
                gradient: Span(0.05, 0.3),
                shadow_band: (0.4, Span(0.1, 0.3)),
                glare: (0.5, Span(0.1, 0.35)),
                kelvin: Span(3300.0, 6500.0),
                white_balance: Span(0.55, 0.9),
                exposure: Span(-0.6, 0.6),
                noise: Span(2.0, 5.0),
                focus_blur: Span(0.4, 1.2),
                motion_blur: (0.2, Span(2.0, 5.0)),
                jpeg: (70, 92),
                hand: 0.3,
                close_pair: 0.35,
                reserve: (0, 4),
                reserve_gap: Span(6.0, 40.0),
                placement_jitter: (0.8, 1.2),
                cards: (3, 10),
                vignette: Span(0.05, 0.25),
            },
            Difficulty::Hard => Ranges {
                tilt_deg: Span(10.0, 50.0),
                tile_px: Span(25.0, 80.0),
                hfov_deg: Span(50.0, 80.0),
                k1: Span(-0.35, 0.1),
                gradient: Span(0.15, 0.5),
                shadow_band: (0.7, Span(0.25, 0.55)),
                glare: (0.8, Span(0.3, 0.75)),
                kelvin: Span(2700.0, 6500.0),
                white_balance: Span(0.2, 0.8),
                exposure: Span(-1.0, 1.0),
                noise: Span(4.0, 10.0),
                focus_blur: Span(0.6, 2.5),
                motion_blur: (0.4, Span(3.0, 10.0)),
                jpeg: (60, 85),
                hand: 0.7,
                close_pair: 0.65,
                reserve: (1, 6),
                reserve_gap: Span(2.0, 12.0),
                placement_jitter: (1.5, 2.5),
                cards: (5, 16),
                vignette: Span(0.15, 0.4),
            },
        }
    }
}

/// An integer in `lo..=hi`.
pub(crate) fn between(rng: &mut fastrand::Rng, lo: usize, hi: usize) -> usize {
    if hi <= lo { lo } else { rng.usize(lo..=hi) }
}

/// A roughly normal draw (sum of uniforms), mean 0, standard deviation 1.
pub(crate) fn normal(rng: &mut fastrand::Rng) -> f64 {
    let s: f64 = (0..6).map(|_| rng.f64()).sum();
    (s - 3.0) * std::f64::consts::SQRT_2
}
