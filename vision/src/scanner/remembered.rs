//! Cell looks remembered across the frames of a still camera: the features of every quad
//! a reading looked at, kept where the picture has not changed since, so that a frame read
//! again after a tile is laid looks again only where it changed (the looks are most of a
//! reading's time; the decisions made from them are all made again).
//!
//! Quads are remembered to 1/64 of a pixel: grown again from the same lattice in a new
//! frame, the same cell's quad moves by a few millionths of a pixel with the sensor's
//! noise (about as many looks as hit exactly, on the rendered sequences), and the patch
//! is resampled to 1/32 of a pixel anyway.

use super::view::LookKey;
use crate::appearance::CellFeatures;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// Steps per pixel the corners of a remembered quad are rounded to.
const STEPS: f64 = 64.0;

/// A quad's corners in [`STEPS`] of a pixel, the white balance bit for bit, and the share
/// of glare taken off the patch (bit for bit; 0 for none).
pub(super) type RememberedKey = ([i32; 8], [u32; 3], u32);

/// Features by quad and white balance.
pub(super) type Looks = HashMap<RememberedKey, Option<CellFeatures>>;

/// How a look at quad `key` is remembered, with `deglared` of glare taken off its patch
/// (see [`crate::appearance::deglared`]) when given.
pub(super) fn remembered_key(key: &LookKey, deglared: Option<f32>) -> RememberedKey {
    let (corners, white) = key;
    (
        corners.map(|bits| (f64::from_bits(bits) * STEPS).round() as i32),
        *white,
        deglared.map_or(0, f32::to_bits),
    )
}

/// Most looks remembered (about 600 bytes each: 24 MB): past this many (lattices that
/// kept moving) all are forgotten. A frame's reading takes a few thousand.
const MOST_LOOKS: usize = 40_000;

/// The looks of the frames read so far, where the picture has not changed since (see
/// [`super::Scanner::scan_from_remembering`]).
#[derive(Debug)]
pub struct CellLooks {
    /// In the photo as shot.
    pub(super) shot: RefCell<Looks>,
    /// In the photo with the table's light made even (a second reading of each frame).
    pub(super) evened: RefCell<Looks>,
    /// Image pixels per pixel of the remembered quads: a frame wider than the scanner's
    /// working width is read reduced.
    pub(super) scale: Cell<f64>,
}

impl Default for CellLooks {
    fn default() -> CellLooks {
        CellLooks {
            shot: RefCell::default(),
            evened: RefCell::default(),
            scale: Cell::new(1.0),
        }
    }
}

impl CellLooks {
    /// Nothing remembered.
    pub fn new() -> CellLooks {
        CellLooks::default()
    }

    /// How many looks are remembered.
    pub fn len(&self) -> usize {
        self.shot.borrow().len() + self.evened.borrow().len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets every look (the camera moved, or a whole scan fits new lattices).
    pub fn forget(&mut self) {
        self.shot.get_mut().clear();
        self.evened.get_mut().clear();
    }

    /// Keeps only the looks at quads whose pixels `unchanged` says did not change since
    /// they were taken: it is given each quad's bounding box (x0, y0, x1, y1, image
    /// pixels), grown by the pixel that bilinear sampling reads beyond it.
    pub fn keep_unchanged(&mut self, mut unchanged: impl FnMut([f64; 4]) -> bool) {
        let scale = self.scale.get();
        let box_of = |key: &RememberedKey| -> [f64; 4] {
            let (corners, _, _) = key;
            let mut b = [
                f64::INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NEG_INFINITY,
            ];
            for k in 0..4 {
                let (x, y) = (
                    f64::from(corners[2 * k]) / STEPS * scale,
                    f64::from(corners[2 * k + 1]) / STEPS * scale,
                );
                b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
            }
            let reach = scale.max(1.0);
            [b[0] - reach, b[1] - reach, b[2] + reach, b[3] + reach]
        };
        let too_many = self.len() > MOST_LOOKS;
        for looks in [self.shot.get_mut(), self.evened.get_mut()] {
            if too_many {
                looks.clear();
            } else {
                looks.retain(|key, _| unchanged(box_of(key)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn look_key(x: f64, y: f64, size: f64) -> LookKey {
        let q = [[x, y], [x + size, y], [x + size, y + size], [x, y + size]];
        let mut corners = [0u64; 8];
        for (k, p) in q.iter().enumerate() {
            corners[2 * k] = p[0].to_bits();
            corners[2 * k + 1] = p[1].to_bits();
        }
        (corners, [1f32.to_bits(); 3])
    }

    fn key(x: f64, y: f64, size: f64) -> RememberedKey {
        remembered_key(&look_key(x, y, size), None)
    }

    #[test]
    fn a_quad_moved_by_noise_alone_is_the_same_look_and_one_moved_further_is_not() {
        let here = key(100.25, 40.5, 48.0);
        assert_eq!(key(100.25 + 3e-6, 40.5 - 2e-6, 48.0), here);
        assert_ne!(key(100.25 + 0.05, 40.5, 48.0), here);
        assert_ne!(key(100.25, 40.5, 48.1), here);
        // The same quad with glare taken off is another look.
        assert_ne!(
            remembered_key(&look_key(100.25, 40.5, 48.0), Some(0.5)),
            here
        );
    }

    #[test]
    fn only_the_looks_where_the_picture_changed_are_forgotten() {
        let mut looks = CellLooks::new();
        looks.shot.get_mut().insert(key(10.0, 10.0, 40.0), None);
        looks.shot.get_mut().insert(key(200.0, 10.0, 40.0), None);
        looks.evened.get_mut().insert(key(205.0, 12.0, 40.0), None);
        // The picture changed right of x = 150.
        looks.keep_unchanged(|b| b[2] < 150.0);
        assert_eq!(looks.len(), 1);
        assert!(looks.shot.borrow().contains_key(&key(10.0, 10.0, 40.0)));
        // A quad's box reaches a pixel beyond its corners, in the frame's own pixels.
        let mut looks = CellLooks::new();
        looks.scale.set(2.0);
        looks.shot.get_mut().insert(key(10.0, 10.0, 40.0), None);
        let mut seen = Vec::new();
        looks.keep_unchanged(|b| {
            seen.push(b);
            true
        });
        assert_eq!(seen, vec![[18.0, 18.0, 102.0, 102.0]]);
        looks.forget();
        assert!(looks.is_empty());
    }
}
