//! Test helpers: a pinhole camera with radial/tangential distortion that renders a
//! chessboard seen from a given pose (supersampled, blurred, with noise), and temp folders.

#![allow(dead_code)]

use opencv::core::{CV_8UC1, Mat, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;
use std::path::PathBuf;

/// A camera with known intrinsics.
#[derive(Debug, Clone, Copy)]
pub struct Cam {
    pub w: i32,
    pub h: i32,
    pub fx: f64,
    pub fy: f64,
    pub cx: f64,
    pub cy: f64,
    pub k1: f64,
    pub k2: f64,
    pub p1: f64,
    pub p2: f64,
}

impl Cam {
    /// Normalised undistorted -> normalised distorted (OpenCV's model, k3 = 0).
    pub fn distort(&self, x: f64, y: f64) -> (f64, f64) {
        let r2 = x * x + y * y;
        let radial = 1.0 + self.k1 * r2 + self.k2 * r2 * r2;
        (
            x * radial + 2.0 * self.p1 * x * y + self.p2 * (r2 + 2.0 * x * x),
            y * radial + self.p1 * (r2 + 2.0 * y * y) + 2.0 * self.p2 * x * y,
        )
    }

    /// Inverse of [`Cam::distort`] by fixed-point iteration.
    pub fn undistort(&self, xd: f64, yd: f64) -> (f64, f64) {
        let (mut x, mut y) = (xd, yd);
        for _ in 0..20 {
            let r2 = x * x + y * y;
            let radial = 1.0 + self.k1 * r2 + self.k2 * r2 * r2;
            let dx = 2.0 * self.p1 * x * y + self.p2 * (r2 + 2.0 * x * x);
            let dy = self.p1 * (r2 + 2.0 * y * y) + 2.0 * self.p2 * x * y;
            x = (xd - dx) / radial;
            y = (yd - dy) / radial;
        }
        (x, y)
    }

    /// Pixel of a camera-frame point.
    pub fn project(&self, p: [f64; 3]) -> (f64, f64) {
        let (xd, yd) = self.distort(p[0] / p[2], p[1] / p[2]);
        (self.fx * xd + self.cx, self.fy * yd + self.cy)
    }
}

/// Rotation matrix of a rotation about x, then y, then z (degrees), R = Rz * Ry * Rx.
pub fn rotation(rx: f64, ry: f64, rz: f64) -> [[f64; 3]; 3] {
    let (sx, cx) = rx.to_radians().sin_cos();
    let (sy, cy) = ry.to_radians().sin_cos();
    let (sz, cz) = rz.to_radians().sin_cos();
    let rxm = [[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]];
    let rym = [[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]];
    let rzm = [[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]];
    mul(&rzm, &mul(&rym, &rxm))
}

pub fn mul(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut o = [[0.0; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            o[r][c] = (0..3).map(|k| a[r][k] * b[k][c]).sum();
        }
    }
    o
}

fn inv3(m: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    let d = 1.0 / det;
    [
        [
            (m[1][1] * m[2][2] - m[1][2] * m[2][1]) * d,
            (m[0][2] * m[2][1] - m[0][1] * m[2][2]) * d,
            (m[0][1] * m[1][2] - m[0][2] * m[1][1]) * d,
        ],
        [
            (m[1][2] * m[2][0] - m[1][0] * m[2][2]) * d,
            (m[0][0] * m[2][2] - m[0][2] * m[2][0]) * d,
            (m[0][2] * m[1][0] - m[0][0] * m[1][2]) * d,
        ],
        [
            (m[1][0] * m[2][1] - m[1][1] * m[2][0]) * d,
            (m[0][1] * m[2][0] - m[0][0] * m[2][1]) * d,
            (m[0][0] * m[1][1] - m[0][1] * m[1][0]) * d,
        ],
    ]
}

/// A chessboard of `cols` x `rows` inner corners, `sq` mm squares, on white paper one
/// square wider all round, lying on a darker table.
#[derive(Debug, Clone, Copy)]
pub struct Board {
    pub cols: u32,
    pub rows: u32,
    pub sq: f64,
}

impl Board {
    fn centre(&self) -> [f64; 3] {
        [
            f64::from(self.cols - 1) * self.sq / 2.0,
            f64::from(self.rows - 1) * self.sq / 2.0,
            0.0,
        ]
    }

    fn shade(&self, bx: f64, by: f64) -> f64 {
        let s = self.sq;
        let (w, h) = (f64::from(self.cols) * s, f64::from(self.rows) * s);
        if bx < -2.0 * s || by < -2.0 * s || bx > w + s || by > h + s {
            return 70.0 + 20.0 * ((bx * 0.05).sin() * (by * 0.07).cos()); // table
        }
        if bx < -s || by < -s || bx >= w || by >= h {
            return 215.0; // the paper's white border
        }
        let i = ((bx + s) / s).floor() as i64;
        let j = ((by + s) / s).floor() as i64;
        if (i + j) % 2 == 0 { 35.0 } else { 215.0 }
    }
}

/// A pose: rotation and translation board -> camera.
#[derive(Debug, Clone, Copy)]
pub struct Pose {
    pub r: [[f64; 3]; 3],
    pub t: [f64; 3],
}

impl Pose {
    pub fn apply(&self, p: [f64; 3]) -> [f64; 3] {
        let r = &self.r;
        [
            r[0][0] * p[0] + r[0][1] * p[1] + r[0][2] * p[2] + self.t[0],
            r[1][0] * p[0] + r[1][1] * p[1] + r[1][2] * p[2] + self.t[1],
            r[2][0] * p[0] + r[2][1] * p[1] + r[2][2] * p[2] + self.t[2],
        ]
    }
}

/// The pose that tilts the board by (rx, ry, rz) degrees and puts its centre at pixel
/// (u, v) at depth z, pushed back until every inner corner (and the white border
/// around them) is inside the frame with a margin.
pub fn pose_at(cam: &Cam, board: &Board, rot: (f64, f64, f64), u: f64, v: f64, z: f64) -> Pose {
    let r = rotation(rot.0, rot.1, rot.2);
    let bc = board.centre();
    let mut z = z;
    loop {
        let (xn, yn) = cam.undistort((u - cam.cx) / cam.fx, (v - cam.cy) / cam.fy);
        let c = [xn * z, yn * z, z];
        let rb = Pose { r, t: [0.0; 3] }.apply(bc);
        let pose = Pose {
            r,
            t: [c[0] - rb[0], c[1] - rb[1], c[2] - rb[2]],
        };
        let s = board.sq;
        let (w, h) = (f64::from(board.cols - 1) * s, f64::from(board.rows - 1) * s);
        let ok = [[-s, -s], [w + s, -s], [w + s, h + s], [-s, h + s]]
            .iter()
            .all(|p| {
                let q = pose.apply([p[0], p[1], 0.0]);
                let (x, y) = cam.project(q);
                x > 4.0 && y > 4.0 && x < f64::from(cam.w) - 5.0 && y < f64::from(cam.h) - 5.0
            });
        if ok {
            return pose;
        }
        z *= 1.03;
    }
}

/// Each output subsample's undistorted normalised ray, computed once per camera.
pub struct RayMap {
    cam: Cam,
    rays: Vec<(f32, f32)>,
}

/// Subsamples per pixel along each axis.
const SS: i32 = 3;

impl RayMap {
    pub fn new(cam: &Cam) -> Self {
        let mut rays = Vec::with_capacity((cam.w * cam.h * SS * SS) as usize);
        for v in 0..cam.h {
            for u in 0..cam.w {
                for sy in 0..SS {
                    for sx in 0..SS {
                        let pu = f64::from(u) + (f64::from(sx) + 0.5) / f64::from(SS) - 0.5;
                        let pv = f64::from(v) + (f64::from(sy) + 0.5) / f64::from(SS) - 0.5;
                        let (x, y) = cam.undistort((pu - cam.cx) / cam.fx, (pv - cam.cy) / cam.fy);
                        rays.push((x as f32, y as f32));
                    }
                }
            }
        }
        Self { cam: *cam, rays }
    }
}

/// Renders the board from `pose` through `cam`: 3x3 supersampling, blur sigma 0.6 px,
/// uniform noise of +-3 grey levels (deterministic from `seed`).
pub fn render(cam: &Cam, board: &Board, pose: &Pose, seed: u64) -> Mat {
    render_with(&RayMap::new(cam), board, pose, seed)
}

/// [`render`] with the camera's rays computed beforehand.
pub fn render_with(map: &RayMap, board: &Board, pose: &Pose, seed: u64) -> Mat {
    let cam = &map.cam;
    let r = &pose.r;
    // Board plane point (bx, by, 1) -> camera ray: G = [r1 r2 t].
    let g = [
        [r[0][0], r[0][1], pose.t[0]],
        [r[1][0], r[1][1], pose.t[1]],
        [r[2][0], r[2][1], pose.t[2]],
    ];
    let gi = inv3(&g);
    let n = (SS * SS) as usize;
    let data: Vec<u8> = map
        .rays
        .chunks_exact(n)
        .map(|samples| {
            let acc: f64 = samples
                .iter()
                .map(|&(x, y)| {
                    let (x, y) = (f64::from(x), f64::from(y));
                    let b0 = gi[0][0] * x + gi[0][1] * y + gi[0][2];
                    let b1 = gi[1][0] * x + gi[1][1] * y + gi[1][2];
                    let b2 = gi[2][0] * x + gi[2][1] * y + gi[2][2];
                    if b2 > 0.0 {
                        board.shade(b0 / b2, b1 / b2)
                    } else {
                        70.0
                    }
                })
                .sum();
            (acc / n as f64).round() as u8
        })
        .collect();
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let img = Mat::new_rows_cols_with_data(cam.h, cam.w, &data)
        .expect("mat")
        .try_clone()
        .expect("clone");
    let mut blurred = Mat::default();
    imgproc::gaussian_blur(
        &img,
        &mut blurred,
        Size::new(0, 0),
        0.6,
        0.6,
        opencv::core::BORDER_REFLECT,
    )
    .expect("blur");
    let bytes = blurred.data_bytes_mut().expect("bytes");
    for b in bytes.iter_mut() {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let noise = (rng % 7) as i32 - 3;
        *b = (i32::from(*b) + noise).clamp(0, 255) as u8;
    }
    blurred
}

/// A blank grey frame (no board in it).
pub fn blank(w: i32, h: i32) -> Mat {
    Mat::new_rows_cols_with_default(h, w, CV_8UC1, Scalar::all(128.0)).expect("mat")
}

/// A fresh empty temporary folder for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("alhambra-cal-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Twelve varied poses (tilts up to 40 degrees, board across the frame).
pub fn twelve_poses(cam: &Cam, board: &Board) -> Vec<Pose> {
    let (w, h) = (f64::from(cam.w), f64::from(cam.h));
    // (rx, ry, rz) degrees, centre as a fraction of the frame, board width / frame width.
    type Spec = ((f64, f64, f64), f64, f64, f64);
    let spec: [Spec; 12] = [
        ((0.0, 0.0, 0.0), 0.5, 0.5, 0.62),
        ((30.0, 0.0, 5.0), 0.35, 0.32, 0.58),
        ((-30.0, 0.0, -5.0), 0.65, 0.68, 0.58),
        ((0.0, 35.0, 10.0), 0.3, 0.66, 0.6),
        ((0.0, -35.0, -10.0), 0.7, 0.34, 0.6),
        ((25.0, 25.0, 20.0), 0.36, 0.36, 0.62),
        ((-25.0, 25.0, -15.0), 0.64, 0.36, 0.62),
        ((25.0, -25.0, 15.0), 0.36, 0.64, 0.64),
        ((-25.0, -25.0, -20.0), 0.64, 0.64, 0.64),
        ((40.0, 0.0, 0.0), 0.5, 0.5, 0.66),
        ((0.0, 40.0, 0.0), 0.5, 0.5, 0.66),
        ((15.0, -10.0, 30.0), 0.5, 0.5, 0.55),
    ];
    let span = f64::from(board.cols + 1) * board.sq;
    spec.iter()
        .map(|&(rot, fu, fv, frac)| {
            // Start at the depth where the board spans `frac` of the frame width (then
            // `pose_at` backs off until it fits).
            let z = cam.fx * span / (w * (frac + 0.2));
            pose_at(cam, board, rot, fu * w, fv * h, z)
        })
        .collect()
}
