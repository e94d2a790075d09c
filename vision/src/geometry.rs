//! Plane geometry for the scanner: 3x3 homographies between image pixels and table
//! millimetres, and the square lattice an Alhambra's tiles lie on.

use alhambra_engine::Side;
use opencv::prelude::*;
use serde::{Deserialize, Serialize};

/// A point in the plane (image pixels or table millimetres, as the context says).
pub type Point = [f64; 2];

/// Cell (0, 0)'s corners in grid coordinates, clockwise from its north-west one.
pub const UNIT_CELL: [Point; 4] = [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]];

/// A projective map of the plane, row-major.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Homography(pub [[f64; 3]; 3]);

impl Homography {
    /// The identity.
    pub const IDENTITY: Homography =
        Homography([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);

    /// Where `p` goes; `None` at or behind the horizon.
    pub fn apply(&self, p: Point) -> Option<Point> {
        let m = &self.0;
        let w = m[2][0] * p[0] + m[2][1] * p[1] + m[2][2];
        if w.abs() < 1e-12 {
            return None;
        }
        Some([
            (m[0][0] * p[0] + m[0][1] * p[1] + m[0][2]) / w,
            (m[1][0] * p[0] + m[1][1] * p[1] + m[1][2]) / w,
        ])
    }

    /// The inverse map, `None` when singular.
    pub fn inverse(&self) -> Option<Homography> {
        let m = &self.0;
        let c = |r0: usize, r1: usize, c0: usize, c1: usize| {
            m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]
        };
        let adj = [
            [c(1, 2, 1, 2), -c(0, 2, 1, 2), c(0, 1, 1, 2)],
            [-c(1, 2, 0, 2), c(0, 2, 0, 2), -c(0, 1, 0, 2)],
            [c(1, 2, 0, 1), -c(0, 2, 0, 1), c(0, 1, 0, 1)],
        ];
        let det = m[0][0] * adj[0][0] + m[0][1] * adj[1][0] + m[0][2] * adj[2][0];
        if det.abs() < 1e-15 {
            return None;
        }
        let mut out = [[0.0; 3]; 3];
        for (r, row) in out.iter_mut().enumerate() {
            for (col, v) in row.iter_mut().enumerate() {
                *v = adj[r][col] / det;
            }
        }
        Some(Homography(out))
    }

    /// `self` after `first`: p -> self(first(p)).
    pub fn after(&self, first: &Homography) -> Homography {
        let (a, b) = (&self.0, &first.0);
        let mut out = [[0.0; 3]; 3];
        for (r, row) in out.iter_mut().enumerate() {
            for (col, v) in row.iter_mut().enumerate() {
                *v = (0..3).map(|k| a[r][k] * b[k][col]).sum();
            }
        }
        Homography(out)
    }

    /// A uniform scale about the origin.
    pub fn scale(s: f64) -> Homography {
        Homography([[s, 0.0, 0.0], [0.0, s, 0.0], [0.0, 0.0, 1.0]])
    }

    /// A shift by (x, y).
    pub fn translation(x: f64, y: f64) -> Homography {
        Homography([[1.0, 0.0, x], [0.0, 1.0, y], [0.0, 0.0, 1.0]])
    }

    /// The homography taking `from` closest to `to` (least squares over all the pairs, exact
    /// for four); `None` when degenerate.
    pub fn fit(from: &[Point], to: &[Point]) -> Option<Homography> {
        if from.len() < 4 || from.len() != to.len() {
            return None;
        }
        if from.len() == 4 {
            return Homography::from_quads(
                &[from[0], from[1], from[2], from[3]],
                &[to[0], to[1], to[2], to[3]],
            );
        }
        let cv = |pts: &[Point]| -> opencv::core::Vector<opencv::core::Point2d> {
            pts.iter()
                .map(|p| opencv::core::Point2d::new(p[0], p[1]))
                .collect()
        };
        let h = opencv::calib3d::find_homography(
            &cv(from),
            &cv(to),
            &mut opencv::core::Mat::default(),
            0,
            3.0,
        )
        .ok()?;
        if h.rows() != 3 || h.cols() != 3 {
            return None;
        }
        let mut m = [[0.0f64; 3]; 3];
        for (r, row) in m.iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                *v = *h.at_2d::<f64>(r as i32, c as i32).ok()?;
            }
        }
        Some(Homography(m))
    }

    /// The affine map (no perspective) taking `from` closest to `to` in the least-squares
    /// sense; `None` for fewer than three points or collinear ones.
    pub fn affine_fit(from: &[Point], to: &[Point]) -> Option<Homography> {
        if from.len() < 3 || from.len() != to.len() {
            return None;
        }
        // Normal equations of [x y 1] * [a b c]^T = u (and the same for v).
        let mut m = [[0.0f64; 3]; 3];
        let mut bu = [0.0f64; 3];
        let mut bv = [0.0f64; 3];
        for (p, q) in from.iter().zip(to) {
            let r = [p[0], p[1], 1.0];
            for i in 0..3 {
                for j in 0..3 {
                    m[i][j] += r[i] * r[j];
                }
                bu[i] += r[i] * q[0];
                bv[i] += r[i] * q[1];
            }
        }
        let inv = Homography(m).inverse()?;
        let solve = |b: [f64; 3]| -> [f64; 3] {
            let n = &inv.0;
            [
                n[0][0] * b[0] + n[0][1] * b[1] + n[0][2] * b[2],
                n[1][0] * b[0] + n[1][1] * b[1] + n[1][2] * b[2],
                n[2][0] * b[0] + n[2][1] * b[1] + n[2][2] * b[2],
            ]
        };
        let (u, v) = (solve(bu), solve(bv));
        Some(Homography([u, v, [0.0, 0.0, 1.0]]))
    }

    /// The turn and shift (no scaling, no mirroring) taking `from` closest to `to` in the
    /// least-squares sense, with the root-mean-square distance left; `None` for fewer
    /// than two points.
    pub fn rigid_fit(from: &[Point], to: &[Point]) -> Option<(Homography, f64)> {
        if from.len() < 2 || from.len() != to.len() {
            return None;
        }
        let n = from.len() as f64;
        let mean = |ps: &[Point]| {
            let (x, y) = ps.iter().fold((0.0, 0.0), |a, p| (a.0 + p[0], a.1 + p[1]));
            [x / n, y / n]
        };
        let (cf, ct) = (mean(from), mean(to));
        // The angle that best turns the centred `from` onto the centred `to`.
        let (mut dot, mut cross) = (0.0, 0.0);
        for (p, q) in from.iter().zip(to) {
            let (a, b) = ([p[0] - cf[0], p[1] - cf[1]], [q[0] - ct[0], q[1] - ct[1]]);
            dot += a[0] * b[0] + a[1] * b[1];
            cross += a[0] * b[1] - a[1] * b[0];
        }
        let (sin, cos) = cross.atan2(dot).sin_cos();
        let h = Homography([
            [cos, -sin, ct[0] - (cos * cf[0] - sin * cf[1])],
            [sin, cos, ct[1] - (sin * cf[0] + cos * cf[1])],
            [0.0, 0.0, 1.0],
        ]);
        let mut sum = 0.0;
        for (p, q) in from.iter().zip(to) {
            let r = h.apply(*p)?;
            sum += (r[0] - q[0]).powi(2) + (r[1] - q[1]).powi(2);
        }
        Some((h, (sum / n).sqrt()))
    }

    /// The map taking the four `from` points to the four `to` points (direct linear
    /// transform, solved exactly); `None` for degenerate quads.
    pub fn from_quads(from: &[Point; 4], to: &[Point; 4]) -> Option<Homography> {
        // 8 unknowns (h22 = 1), Gaussian elimination with partial pivoting.
        let mut a = [[0.0f64; 9]; 8];
        for i in 0..4 {
            let ([x, y], [u, v]) = (from[i], to[i]);
            a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
            a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
        }
        for col in 0..8 {
            let pivot = (col..8).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
            if a[pivot][col].abs() < 1e-12 {
                return None;
            }
            a.swap(col, pivot);
            let pivot_row = a[col];
            for (row, r) in a.iter_mut().enumerate() {
                if row != col {
                    let f = r[col] / pivot_row[col];
                    for (v, p) in r.iter_mut().zip(pivot_row.iter()).skip(col) {
                        *v -= f * p;
                    }
                }
            }
        }
        let h: Vec<f64> = (0..8).map(|i| a[i][8] / a[i][i]).collect();
        Some(Homography([
            [h[0], h[1], h[2]],
            [h[3], h[4], h[5]],
            [h[6], h[7], 1.0],
        ]))
    }
}

/// The square lattice of one Alhambra in table coordinates: the fountain cell's centre,
/// the direction of the lattice's x axis, and the pitch (tile plus seam).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lattice {
    /// Centre of cell (0, 0).
    pub origin: Point,
    /// Angle of the x axis, radians.
    pub angle: f64,
    /// Distance between neighbouring cell centres.
    pub pitch: f64,
}

impl Lattice {
    /// The unit vectors of the lattice's x (east) and y (south) axes.
    pub fn axes(&self) -> (Point, Point) {
        let (s, c) = self.angle.sin_cos();
        ([c, s], [-s, c])
    }

    /// The point at lattice coordinates (i, j) (cell centres at integers).
    pub fn point(&self, i: f64, j: f64) -> Point {
        let (u, v) = self.axes();
        [
            self.origin[0] + self.pitch * (i * u[0] + j * v[0]),
            self.origin[1] + self.pitch * (i * u[1] + j * v[1]),
        ]
    }

    /// The corners of cell (i, j), clockwise from its north-west one.
    pub fn cell_corners(&self, i: i32, j: i32) -> [Point; 4] {
        let (i, j) = (f64::from(i), f64::from(j));
        [
            self.point(i - 0.5, j - 0.5),
            self.point(i + 0.5, j - 0.5),
            self.point(i + 0.5, j + 0.5),
            self.point(i - 0.5, j + 0.5),
        ]
    }
}

/// The side a wall band is on after the patch is turned `quarter_turns` clockwise.
pub fn side_after_turns(side: Side, quarter_turns: u8) -> Side {
    (0..quarter_turns % 4).fold(side, |s, _| s.clockwise())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quads_map_exactly_and_invert() {
        let from = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let to = [[10.0, 20.0], [50.0, 22.0], [48.0, 70.0], [12.0, 60.0]];
        let h = Homography::from_quads(&from, &to).expect("a proper quad");
        for (f, t) in from.iter().zip(&to) {
            let p = h.apply(*f).expect("finite");
            assert!((p[0] - t[0]).abs() < 1e-9 && (p[1] - t[1]).abs() < 1e-9);
        }
        let back = h.inverse().expect("invertible").after(&h);
        let p = back.apply([0.3, 0.7]).expect("finite");
        assert!((p[0] - 0.3).abs() < 1e-9 && (p[1] - 0.7).abs() < 1e-9);
    }

    #[test]
    fn a_rigid_fit_finds_the_turn_and_shift_and_what_is_left() {
        let from = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [2.0, 1.0]];
        let (sin, cos) = 0.4f64.sin_cos();
        let to: Vec<Point> = from
            .iter()
            .map(|p| [cos * p[0] - sin * p[1] + 3.0, sin * p[0] + cos * p[1] - 2.0])
            .collect();
        let (h, rms) = Homography::rigid_fit(&from, &to).expect("enough points");
        assert!(rms < 1e-9);
        let p = h.apply([5.0, -1.0]).expect("finite");
        assert!((p[0] - (cos * 5.0 + sin + 3.0)).abs() < 1e-9);
        assert!((p[1] - (sin * 5.0 - cos - 2.0)).abs() < 1e-9);
        // Scaled up by a tenth, the rest shows as the distance left.
        let bigger: Vec<Point> = to.iter().map(|p| [p[0] * 1.1, p[1] * 1.1]).collect();
        let (_, rms) = Homography::rigid_fit(&from, &bigger).expect("enough points");
        assert!(rms > 0.01);
        assert!(Homography::rigid_fit(&from[..1], &to[..1]).is_none());
    }

    #[test]
    fn lattice_cells_are_squares_of_the_pitch() {
        let l = Lattice {
            origin: [100.0, 50.0],
            angle: 0.3,
            pitch: 50.0,
        };
        let c = l.cell_corners(2, -1);
        let d = ((c[1][0] - c[0][0]).powi(2) + (c[1][1] - c[0][1]).powi(2)).sqrt();
        assert!((d - 50.0).abs() < 1e-9);
        let centre = l.point(2.0, -1.0);
        let mid = [(c[0][0] + c[2][0]) / 2.0, (c[0][1] + c[2][1]) / 2.0];
        assert!((centre[0] - mid[0]).abs() < 1e-9 && (centre[1] - mid[1]).abs() < 1e-9);
    }
}
