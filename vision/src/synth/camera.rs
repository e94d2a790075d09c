//! The synthetic camera: a pinhole looking at the table plane (millimetres, z up) with
//! tilt, yaw and radial lens distortion (OpenCV's k1, k2 model), and the "canvas": the
//! undistorted image, larger than the photo, that the scene is painted on before the lens
//! bends it into the final frame.

/// A 3-vector in table millimetres (x, y on the table, z up).
pub(crate) type V3 = [f64; 3];

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Pinhole camera with radial distortion, in the pixel convention of OpenCV (the centre
/// of pixel (i, j) is the point (i, j)).
#[derive(Debug, Clone)]
pub(crate) struct Camera {
    /// Rows: the camera's x (image right), y (image down) and z (viewing) axes in table
    /// coordinates.
    rot: [V3; 3],
    /// Centre of projection in table millimetres.
    pos: V3,
    /// Focal length in pixels.
    pub f: f64,
    /// Principal point.
    pub cx: f64,
    /// Principal point.
    pub cy: f64,
    /// Radial distortion (normalised coordinates).
    pub k1: f64,
    /// Radial distortion (normalised coordinates).
    pub k2: f64,
    /// Photo size.
    pub width: i32,
    /// Photo size.
    pub height: i32,
    /// Where the photo's pixel (0, 0) lies in the canvas.
    pub canvas_origin: [f64; 2],
    /// Canvas size (the undistorted image covering every pixel of the photo).
    pub canvas_size: [i32; 2],
}

/// What a camera is made of, before the canvas is sized.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pose {
    /// Table point at the centre of view.
    pub target: [f64; 2],
    /// Angle between the optical axis and the table normal, radians.
    pub tilt: f64,
    /// Direction (on the table) the camera looks towards, radians.
    pub yaw: f64,
    /// Distance from the camera to the target, millimetres.
    pub dist: f64,
}

impl Camera {
    /// A camera at `pose` with these intrinsics; sizes its canvas.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        pose: Pose,
        f: f64,
        cx: f64,
        cy: f64,
        k1: f64,
        k2: f64,
        width: i32,
        height: i32,
    ) -> Camera {
        let h = [pose.yaw.cos(), pose.yaw.sin(), 0.0];
        let (st, ct) = pose.tilt.sin_cos();
        let z = [st * h[0], st * h[1], -ct];
        let y = [-ct * h[0], -ct * h[1], -st];
        let x = cross(y, z);
        let target = [pose.target[0], pose.target[1], 0.0];
        let pos = [
            target[0] - pose.dist * z[0],
            target[1] - pose.dist * z[1],
            target[2] - pose.dist * z[2],
        ];
        let mut cam = Camera {
            rot: [x, y, z],
            pos,
            f,
            cx,
            cy,
            k1,
            k2,
            width,
            height,
            canvas_origin: [0.0, 0.0],
            canvas_size: [width, height],
        };
        cam.size_canvas();
        cam
    }

    /// Makes the canvas cover the undistorted positions of every photo pixel.
    fn size_canvas(&mut self) {
        let (w, h) = (f64::from(self.width), f64::from(self.height));
        let (mut lo, mut hi) = ([0.0f64, 0.0f64], [w - 1.0, h - 1.0]);
        let n = 32;
        for i in 0..=n {
            let t = f64::from(i) / f64::from(n);
            for p in [
                [t * (w - 1.0), 0.0],
                [t * (w - 1.0), h - 1.0],
                [0.0, t * (h - 1.0)],
                [w - 1.0, t * (h - 1.0)],
            ] {
                let u = self.undistort_px(p);
                for k in 0..2 {
                    lo[k] = lo[k].min(u[k]);
                    hi[k] = hi[k].max(u[k]);
                }
            }
        }
        let ox = (-lo[0]).ceil() + 2.0;
        let oy = (-lo[1]).ceil() + 2.0;
        self.canvas_origin = [ox, oy];
        self.canvas_size = [
            (hi[0] + ox + 3.0).ceil() as i32,
            (hi[1] + oy + 3.0).ceil() as i32,
        ];
    }

    /// The point in camera coordinates.
    pub fn to_cam(&self, p: V3) -> V3 {
        let d = sub(p, self.pos);
        [
            dot(self.rot[0], d),
            dot(self.rot[1], d),
            dot(self.rot[2], d),
        ]
    }

    /// Distance along the optical axis (millimetres).
    pub fn depth(&self, p: V3) -> f64 {
        self.to_cam(p)[2]
    }

    /// Undistorted pixel (photo coordinates) of a table point; `None` behind the camera.
    pub fn ideal(&self, p: V3) -> Option<[f64; 2]> {
        let c = self.to_cam(p);
        if c[2] <= 1.0 {
            return None;
        }
        Some([
            self.f * c[0] / c[2] + self.cx,
            self.f * c[1] / c[2] + self.cy,
        ])
    }

    /// Canvas pixel of a table point.
    pub fn canvas(&self, p: V3) -> Option<[f64; 2]> {
        self.ideal(p)
            .map(|q| [q[0] + self.canvas_origin[0], q[1] + self.canvas_origin[1]])
    }

    /// Final (distorted) photo pixel of a table point.
    pub fn project(&self, p: V3) -> Option<[f64; 2]> {
        self.ideal(p).map(|q| self.distort_px(q))
    }

    /// The radial factor at squared normalised radius `r2`.
    fn radial(&self, r2: f64) -> f64 {
        1.0 + self.k1 * r2 + self.k2 * r2 * r2
    }

    /// Applies the lens to an undistorted photo pixel.
    pub fn distort_px(&self, p: [f64; 2]) -> [f64; 2] {
        let x = (p[0] - self.cx) / self.f;
        let y = (p[1] - self.cy) / self.f;
        let s = self.radial(x * x + y * y);
        [x * s * self.f + self.cx, y * s * self.f + self.cy]
    }

    /// The undistorted photo pixel that the lens sends to distorted pixel `p`.
    pub fn undistort_px(&self, p: [f64; 2]) -> [f64; 2] {
        let x = (p[0] - self.cx) / self.f;
        let y = (p[1] - self.cy) / self.f;
        let s = undistort_scale(self.k1, self.k2, (x * x + y * y).sqrt());
        [x * s * self.f + self.cx, y * s * self.f + self.cy]
    }

    /// The point at height `z` seen at undistorted photo pixel `q`.
    pub fn on_plane(&self, q: [f64; 2], z: f64) -> Option<[f64; 2]> {
        let d = [(q[0] - self.cx) / self.f, (q[1] - self.cy) / self.f, 1.0];
        // Ray direction in table coordinates: R^T d.
        let r = self.rot;
        let dir = [
            r[0][0] * d[0] + r[1][0] * d[1] + r[2][0] * d[2],
            r[0][1] * d[0] + r[1][1] * d[1] + r[2][1] * d[2],
            r[0][2] * d[0] + r[1][2] * d[1] + r[2][2] * d[2],
        ];
        if dir[2] >= -1e-6 {
            return None;
        }
        let t = (z - self.pos[2]) / dir[2];
        Some([self.pos[0] + t * dir[0], self.pos[1] + t * dir[1]])
    }

    /// Pixels per millimetre on the table near table point `p` (at height `z`).
    pub fn scale_at(&self, p: V3) -> f64 {
        let d = self.depth(p).max(1.0);
        self.f / d
    }

    /// The direction on the table that runs to the right in the image, unit length.
    pub fn table_right(&self) -> [f64; 2] {
        let x = self.rot[0];
        let n = (x[0] * x[0] + x[1] * x[1]).sqrt().max(1e-9);
        [x[0] / n, x[1] / n]
    }
}

/// For a distorted normalised radius `rd`, the factor ru / rd (Newton on the radial
/// polynomial, started at ru = rd).
pub(crate) fn undistort_scale(k1: f64, k2: f64, rd: f64) -> f64 {
    if rd < 1e-12 {
        return 1.0;
    }
    let mut r = rd;
    for _ in 0..12 {
        let r2 = r * r;
        let g = r * (1.0 + k1 * r2 + k2 * r2 * r2) - rd;
        let dg = 1.0 + 3.0 * k1 * r2 + 5.0 * k2 * r2 * r2;
        if dg.abs() < 1e-6 {
            break;
        }
        let step = g / dg;
        r -= step;
        if step.abs() < 1e-12 {
            break;
        }
    }
    r / rd
}

/// Whether the radial mapping r -> r (1 + k1 r^2 + k2 r^4) keeps rising up to `r_max`.
pub(crate) fn monotonic(k1: f64, k2: f64, r_max: f64) -> bool {
    (0..=64).all(|i| {
        let r = r_max * f64::from(i) / 64.0;
        let r2 = r * r;
        1.0 + 3.0 * k1 * r2 + 5.0 * k2 * r2 * r2 > 0.25 && 1.0 + k1 * r2 + k2 * r2 * r2 > 0.3
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cam(tilt: f64, k1: f64) -> Camera {
        let pose = Pose {
            target: [100.0, -50.0],
            tilt,
            yaw: 0.7,
            dist: 900.0,
        };
        Camera::new(pose, 1400.0, 960.0, 540.0, k1, 0.02, 1920, 1080)
    }

    #[test]
    fn the_target_projects_to_the_principal_point() {
        let c = cam(0.6, 0.0);
        let p = c.ideal([100.0, -50.0, 0.0]).unwrap_or([0.0, 0.0]);
        assert!(
            (p[0] - 960.0).abs() < 1e-6 && (p[1] - 540.0).abs() < 1e-6,
            "{p:?}"
        );
    }

    #[test]
    fn undistortion_inverts_distortion() {
        for k1 in [-0.35, -0.1, 0.0, 0.08] {
            let c = cam(0.3, k1);
            for p in [[0.0, 0.0], [1919.0, 1079.0], [300.0, 900.0], [960.0, 10.0]] {
                let u = c.undistort_px(p);
                let d = c.distort_px(u);
                assert!(
                    (d[0] - p[0]).abs() < 1e-6 && (d[1] - p[1]).abs() < 1e-6,
                    "{k1} {p:?} {d:?}"
                );
            }
        }
    }

    #[test]
    fn back_projection_inverts_projection() {
        let c = cam(0.8, 0.0);
        let p = [230.0, 40.0, 0.0];
        let q = c.ideal(p).unwrap_or([0.0, 0.0]);
        let b = c.on_plane(q, 0.0).unwrap_or([0.0, 0.0]);
        assert!(
            (b[0] - p[0]).abs() < 1e-6 && (b[1] - p[1]).abs() < 1e-6,
            "{b:?}"
        );
    }

    #[test]
    fn the_image_is_not_mirrored() {
        // Table east then north (counter-clockwise seen from above) must stay
        // counter-clockwise in the image (y down: negative shoelace area).
        let c = cam(0.5, 0.0);
        let pts: Vec<[f64; 2]> = [[0.0, 0.0], [50.0, 0.0], [50.0, 50.0], [0.0, 50.0]]
            .iter()
            .map(|p| c.ideal([p[0], p[1], 0.0]).unwrap_or([0.0, 0.0]))
            .collect();
        let mut area = 0.0;
        for i in 0..4 {
            let (a, b) = (pts[i], pts[(i + 1) % 4]);
            area += a[0] * b[1] - b[0] * a[1];
        }
        assert!(area < 0.0, "{area}");
    }
}
