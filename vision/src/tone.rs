//! A photo's tone against the labelled photo's: how much more or less colourful and
//! contrasted its tiles look than the profile learned them, and the photo brought back to
//! the profile's tone. A camera's saturation and tone curve differ from shot to shot (or
//! from the calibration photo's camera) in ways the marker paper's white cannot show: the
//! paper stays white under both.

use crate::appearance::WhiteBalance;
use opencv::core::{CV_8UC3, Mat};
use opencv::prelude::*;

/// A correction of a photo's colours, applied in white-balanced colours: chromaticities
/// pushed from grey by `saturation` (1: unchanged), brightness raised to the power
/// `contrast` (1: unchanged; above 1 deepens the darks against the lights).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tone {
    /// Chromaticities' distance from grey, times.
    pub saturation: f32,
    /// Power of brightness ratios.
    pub contrast: f32,
}

impl Tone {
    /// No correction.
    pub const NONE: Tone = Tone {
        saturation: 1.0,
        contrast: 1.0,
    };

    /// Whether the correction is more than `saturation` or `contrast` (shares) off none
    /// in that part.
    pub fn differs(&self, saturation: f32, contrast: f32) -> bool {
        (self.saturation - 1.0).abs() > saturation || (self.contrast - 1.0).abs() > contrast
    }

    /// This correction followed by `next`.
    pub fn then(&self, next: Tone) -> Tone {
        Tone {
            saturation: self.saturation * next.saturation,
            contrast: self.contrast * next.contrast,
        }
    }

    /// `frame` (8-bit BGR) corrected: each pixel, white-balanced with `white`, blended away
    /// from (or towards) the grey of its own brightness and scaled to brightness^contrast,
    /// then taken back out of the white balance. Greys stay grey, so the white balance
    /// measured on the marker paper still holds for the result.
    pub fn apply(&self, frame: &Mat, white: WhiteBalance) -> opencv::Result<Mat> {
        if frame.typ() != CV_8UC3 {
            return Err(opencv::Error::new(
                opencv::core::StsBadArg,
                "tone: the frame is not 8-bit BGR",
            ));
        }
        let mut out = frame.try_clone()?;
        let white = white.map(|w| w.max(1e-3));
        // Brightness scale by brightness (0-255, white-balanced mean of the channels):
        // (m/255)^(contrast-1), so white stays white and ratios of brightness go to the
        // power `contrast`.
        let scale: Vec<f32> = (0..=255)
            .map(|m| (m.max(1) as f32 / 255.0).powf(self.contrast - 1.0))
            .collect();
        let s = self.saturation;
        for px in out.data_bytes_mut()?.chunks_exact_mut(3) {
            let c = [
                f32::from(px[0]) * white[0],
                f32::from(px[1]) * white[1],
                f32::from(px[2]) * white[2],
            ];
            let m = (c[0] + c[1] + c[2]) / 3.0;
            let k = scale[(m.round() as usize).min(255)];
            for ch in 0..3 {
                let v = (s * c[ch] + (1.0 - s) * m) * k / white[ch];
                px[ch] = v.round().clamp(0.0, 255.0) as u8;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Scalar, Vec3b};

    fn pixel(b: u8, g: u8, r: u8) -> Mat {
        Mat::new_rows_cols_with_default(
            1,
            1,
            CV_8UC3,
            Scalar::new(b.into(), g.into(), r.into(), 0.0),
        )
        .expect("mat")
    }

    fn at(m: &Mat) -> [u8; 3] {
        let v = *m.at_2d::<Vec3b>(0, 0).expect("pixel");
        [v[0], v[1], v[2]]
    }

    #[test]
    fn greys_and_white_stay_put() {
        let tone = Tone {
            saturation: 1.6,
            contrast: 1.3,
        };
        assert_eq!(
            at(&tone.apply(&pixel(255, 255, 255), [1.0; 3]).expect("tone")),
            [255; 3]
        );
        let grey = at(&tone.apply(&pixel(100, 100, 100), [1.0; 3]).expect("tone"));
        assert!(grey[0] == grey[1] && grey[1] == grey[2], "{grey:?}");
        assert!(
            grey[0] < 100,
            "contrast above 1 darkens mid greys: {grey:?}"
        );
    }

    #[test]
    fn saturation_undoes_a_desaturation() {
        // A colour blended halfway to its grey, then pushed back out by two.
        let (b, g, r) = (60.0f32, 120.0, 200.0);
        let m = (b + g + r) / 3.0;
        let half = [b, g, r].map(|c| (0.5 * c + 0.5 * m).round() as u8);
        let tone = Tone {
            saturation: 2.0,
            contrast: 1.0,
        };
        let back = at(&tone
            .apply(&pixel(half[0], half[1], half[2]), [1.0; 3])
            .expect("tone"));
        for (got, want) in back.iter().zip([b, g, r]) {
            assert!((f32::from(*got) - want).abs() <= 2.0, "{back:?}");
        }
    }

    #[test]
    fn grey_under_the_white_balance_is_what_stays_grey() {
        // Paper that the camera sees bluish is grey once white-balanced: it stays as it is.
        let white = [0.8, 1.0, 1.25];
        let tone = Tone {
            saturation: 1.5,
            contrast: 1.0,
        };
        let got = at(&tone.apply(&pixel(200, 160, 128), white).expect("tone"));
        assert_eq!(got, [200, 160, 128]);
    }
}
