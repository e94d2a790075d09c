//! The tile lattice in a window of the photo: the directions along which its edges line
//! up, and the period and phase of the tiles' borders along each axis (a comb over the
//! edge energy). The scanner anchors each fountain's grid on what this finds.

use super::ScanError;
use opencv::core::Mat;
use opencv::imgproc;
use opencv::prelude::*;

/// The directions (radians in [0, pi/2), best first, at most three) along which the
/// window's edges look most like a lattice of tiles: for every direction, the edge energy
/// projected on the two axes it sets is scored by the lattice comb. A table's grain or the
/// art's slanted lines can be the strongest edges but are not a lattice on both axes.
pub(super) fn lattice_directions(grey: &Mat, expected: f64) -> Result<Vec<f64>, ScanError> {
    let (gx, gy) = gradients(grey)?;
    let n = grey.cols() as usize;
    let (gx, gy) = (gx.data_typed::<f32>()?, gy.data_typed::<f32>()?);
    // The disc inside the window, so that every direction sees the same pixels; faint
    // gradients (noise, cloth) left out.
    let half = n as f64 / 2.0;
    let mut edges: Vec<(f64, f64, f64, f64)> = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let (ex, ey) = (f64::from(gx[y * n + x]), f64::from(gy[y * n + x]));
            let (dx, dy) = (x as f64 + 0.5 - half, y as f64 + 0.5 - half);
            if ex * ex + ey * ey >= 64.0 && dx * dx + dy * dy < half * half {
                edges.push((dx, dy, ex, ey));
            }
        }
    }
    let project = |angle: f64, share: bool| -> EdgeProfiles {
        let (s, c) = angle.sin_cos();
        let mut profiles = EdgeProfiles {
            x: vec![0.0; n],
            y: vec![0.0; n],
        };
        // Each edge's weight is shared between the two nearest bins: dropped whole into one,
        // pixel centres seen at 45 degrees (0.71 px apart) fill the bins unevenly in a
        // near-periodic pattern (29 px, from 41/29 ~ sqrt 2) that the comb took for a
        // lattice, on every window whose edges are faint and many (a blurred photo).
        // (Shared only for the comb: whole bins keep lines seen exactly along their
        // direction sharper, which is what the fine turn below looks for.)
        let splat = |profile: &mut [f64], at: f64, w: f64| {
            if !share {
                if at >= 0.0 && (at as usize) < n {
                    profile[at as usize] += w;
                }
                return;
            }
            let at = at - 0.5;
            if at < 0.0 {
                return;
            }
            let i = at as usize;
            let t = at - i as f64;
            if i < n {
                profile[i] += w * (1.0 - t);
            }
            if i + 1 < n {
                profile[i + 1] += w * t;
            }
        };
        for &(dx, dy, ex, ey) in &edges {
            let (u, v) = (dx * c + dy * s + half, -dx * s + dy * c + half);
            splat(&mut profiles.x, u, (ex * c + ey * s).abs());
            splat(&mut profiles.y, v, (-ex * s + ey * c).abs());
        }
        profiles
    };
    // Which directions show a lattice: a coarse comb every few degrees ...
    const STEP_DEG: f64 = 3.0;
    let steps = (90.0 / STEP_DEG) as usize;
    let scores: Vec<f64> = (0..steps)
        .map(|k| {
            let profiles = project((k as f64 * STEP_DEG).to_radians(), true);
            lattice_period(&profiles, expected, (0.55, 1.8), true, None).map_or(0.0, |c| c.score)
        })
        .collect();
    let mut peaks: Vec<(f64, f64)> = (0..steps)
        .filter(|&k| {
            let (l, c, r) = (
                scores[(k + steps - 1) % steps],
                scores[k],
                scores[(k + 1) % steps],
            );
            c > 0.0 && c >= l && c > r
        })
        .map(|k| (scores[k], k as f64 * STEP_DEG))
        .collect();
    peaks.sort_by(|a, b| b.0.total_cmp(&a.0));
    peaks.truncate(3);
    // ... and exactly where: lines seen exactly along their direction project to the
    // sharpest profiles (the comb forgives a pixel, so it cannot tell).
    let sharpness = |p: &EdgeProfiles| -> f64 { p.x.iter().chain(&p.y).map(|v| v * v).sum() };
    Ok(peaks
        .into_iter()
        .map(|(_, at)| {
            // Half degrees over the comb's step, then quarter degrees around the best.
            let sharpest = |centre: f64, step: f64, n: i32| -> f64 {
                (-n..=n)
                    .map(|k| centre + f64::from(k) * step)
                    .map(|a| {
                        (
                            sharpness(&project(a.rem_euclid(90.0).to_radians(), false)),
                            a,
                        )
                    })
                    .fold(
                        (f64::NEG_INFINITY, centre),
                        |b, x| if x.0 > b.0 { x } else { b },
                    )
                    .1
            };
            sharpest(sharpest(at, 0.5, 3), 0.25, 1)
                .rem_euclid(90.0)
                .to_radians()
        })
        .collect())
}

/// How far the lattice's lines lean from the window's axes, radians: (x axis, y axis).
/// Lines along the y axis have gradients near horizontal, leaning by the y axis's tilt;
/// lines along the x axis have gradients near vertical, leaning by the x axis's tilt.
pub(super) fn axis_tilts(grey: &Mat) -> Result<(f64, f64), ScanError> {
    let (gx, gy) = gradients(grey)?;
    let (gx, gy) = (gx.data_typed::<f32>()?, gy.data_typed::<f32>()?);
    const BINS: usize = 41; // half-degree bins over +-10 degrees
    let limit = 10f64.to_radians();
    let mut lean_x = [0f64; BINS];
    let mut lean_y = [0f64; BINS];
    for (x, y) in gx.iter().zip(gy) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        let m = x.hypot(y);
        if m < 8.0 {
            continue;
        }
        // Gradient mostly along x: a line along y, leaning by atan(y/x).
        let (lean, hist) = if x.abs() > y.abs() {
            ((y / x).atan(), &mut lean_y)
        } else {
            (-(x / y).atan(), &mut lean_x)
        };
        if lean.abs() < limit {
            let bin = (((lean + limit) / (2.0 * limit)) * (BINS - 1) as f64).round() as usize;
            hist[bin.min(BINS - 1)] += m;
        }
    }
    let peak = |h: &[f64; BINS]| -> f64 {
        let smooth: Vec<f64> = (0..BINS)
            .map(|i| h[i.saturating_sub(1)] + 2.0 * h[i] + h[(i + 1).min(BINS - 1)])
            .collect();
        let i = (0..BINS)
            .max_by(|&a, &b| smooth[a].total_cmp(&smooth[b]))
            .unwrap_or(BINS / 2);
        (i as f64 / (BINS - 1) as f64) * 2.0 * limit - limit
    };
    Ok((peak(&lean_x), peak(&lean_y)))
}

pub(super) fn gradients(grey: &Mat) -> Result<(Mat, Mat), ScanError> {
    let mut gx = Mat::default();
    let mut gy = Mat::default();
    imgproc::sobel(
        grey,
        &mut gx,
        opencv::core::CV_32F,
        1,
        0,
        3,
        1.0,
        0.0,
        opencv::core::BORDER_REPLICATE,
    )?;
    imgproc::sobel(
        grey,
        &mut gy,
        opencv::core::CV_32F,
        0,
        1,
        3,
        1.0,
        0.0,
        opencv::core::BORDER_REPLICATE,
    )?;
    Ok((gx, gy))
}

/// A lattice's period and phase along one axis, window pixels.
pub(super) type Period = (f64, f64);

/// Period and phases of the tile borders of an axis-aligned window: the comb of period
/// `range` x `expected` pixels whose teeth meet the most edge energy along both axes,
/// compared with a comb half a period off (borders are lines, the middle of a tile is
/// not, whatever its picture; the comparison also rejects half and double periods).
/// Returns (period, phase) along x and along y, and how well the comb fits. With `avoid`
/// (a period found before), the best other peak at least [`RUNNER_UP_APART`] from it.
pub(super) fn lattice_period(
    profiles: &EdgeProfiles,
    expected: f64,
    range: (f64, f64),
    coarse: bool,
    avoid: Option<f64>,
) -> Option<Comb> {
    let EdgeProfiles { x: px, y: py } = profiles;
    let n = px.len();
    // A coarse look (which directions hold a lattice at all) steps wider.
    let (phase_step, period_step) = if coarse { (1.0, 1.0) } else { (0.5, 0.25) };
    if n < 2 {
        return None;
    }
    // The profiles at a quarter of a pixel, and the best of each point and its neighbours a
    // pixel away (a tooth may miss a border by a pixel): the comb then only looks values up.
    const SUB: f64 = 4.0;
    let fine = |p: &[f64]| -> Vec<f64> {
        (0..=(n - 1) * SUB as usize)
            .map(|k| {
                let x = k as f64 / SUB;
                let i = (x.floor() as usize).min(n - 1);
                let t = x - i as f64;
                p[i] * (1.0 - t) + p[(i + 1).min(n - 1)] * t
            })
            .collect()
    };
    let near_max = |f: &[f64]| -> Vec<f64> {
        let s = SUB as usize;
        (0..f.len())
            .map(|k| {
                let before = k.checked_sub(s).map_or(0.0, |j| f[j]);
                let after = f.get(k + s).copied().unwrap_or(0.0);
                f[k].max(before).max(after)
            })
            .collect()
    };
    let (fx, fy) = (fine(px), fine(py));
    let (px, py) = ((near_max(&fx), fx), (near_max(&fy), fy));
    let last = (n - 1) as f64;
    let comb = |(on_line, plain): &(Vec<f64>, Vec<f64>), period: f64, phase: f64| -> f64 {
        let (mut on, mut off, mut count) = (0.0, 0.0, 0.0f64);
        let mut x = phase;
        while x + period / 2.0 < last {
            // Non-negative: adding a half and truncating rounds (and is inlined).
            on += on_line[(x * SUB + 0.5) as usize];
            off += plain[((x + period / 2.0) * SUB + 0.5) as usize];
            count += 1.0;
            x += period;
        }
        if count < 2.0 {
            f64::NEG_INFINITY
        } else {
            (on - off) / count
        }
    };
    let best_phase = |p: &(Vec<f64>, Vec<f64>), period: f64| -> (f64, f64) {
        let mut best = (f64::NEG_INFINITY, 0.0);
        let mut phase = 0.0;
        while phase < period {
            let s = comb(p, period, phase);
            if s > best.0 {
                best = (s, phase);
            }
            phase += phase_step;
        }
        best
    };
    let mut scored: Vec<(f64, f64)> = Vec::new();
    let mut period = range.0 * expected;
    while period <= range.1 * expected {
        let (sx, _) = best_phase(&px, period);
        let (sy, _) = best_phase(&py, period);
        scored.push((sx + sy, period));
        period += period_step;
    }
    // The best period, or with `avoid` the best peak of the comb's score away from it
    // (not the best one's flank just outside the zone avoided).
    let peak = |k: usize| {
        let s = scored[k].0;
        (k == 0 || scored[k - 1].0 <= s) && scored.get(k + 1).is_none_or(|n| n.0 <= s)
    };
    let best = (0..scored.len())
        .filter(|&k| match avoid {
            None => true,
            Some(a) => peak(k) && (scored[k].1 / a - 1.0).abs() >= RUNNER_UP_APART,
        })
        .map(|k| scored[k])
        .fold(None, |b: Option<(f64, f64)>, x| {
            if b.is_none_or(|b| x.0 > b.0) {
                Some(x)
            } else {
                b
            }
        });
    let (score, joint) = best.filter(|b| b.0 > 0.0)?;
    if coarse {
        return Some(Comb {
            periods: [(joint, 0.0), (joint, 0.0)],
            score,
            joint,
        });
    }
    // Then each axis on its own near the joint period: the table plane may stretch one
    // axis more than the other (an affine plane under a tilted camera).
    let refine = |p: &(Vec<f64>, Vec<f64>)| -> (f64, f64) {
        let mut best = (f64::NEG_INFINITY, joint, 0.0);
        let mut period = 0.85 * joint;
        while period <= 1.15 * joint {
            let (s, f) = best_phase(p, period);
            if s > best.0 {
                best = (s, period, f);
            }
            period += 0.125;
        }
        (best.1, best.2)
    };
    let ((period_x, phase_x), (period_y, phase_y)) = (refine(&px), refine(&py));
    Some(Comb {
        periods: [(period_x, phase_x), (period_y, phase_y)],
        score,
        joint,
    })
}

/// How far apart (relative) a runner-up period must lie from the best one: beyond what the
/// per-axis refinement (15%) could move the best.
const RUNNER_UP_APART: f64 = 0.15;

/// A lattice the comb found in a window.
#[derive(Debug, Clone, Copy)]
pub(super) struct Comb {
    /// Period and phase along each window axis, refined per axis.
    pub(super) periods: [Period; 2],
    /// How much more edge lies on its lines than between them.
    pub(super) score: f64,
    /// The period both axes shared before refinement.
    pub(super) joint: f64,
}

/// Edge energy of a square window summed down its columns (x) and along its rows (y):
/// where the lattice's lines cross each axis.
#[derive(Debug)]
pub(super) struct EdgeProfiles {
    x: Vec<f64>,
    y: Vec<f64>,
}

pub(super) fn edge_profiles(grey: &Mat) -> Result<EdgeProfiles, ScanError> {
    let (gx, gy) = gradients(grey)?;
    let n = grey.cols() as usize;
    let (gx, gy) = (gx.data_typed::<f32>()?, gy.data_typed::<f32>()?);
    let mut px = vec![0f64; n];
    let mut py = vec![0f64; n];
    for y in 0..n {
        for x in 0..n {
            px[x] += f64::from(gx[y * n + x].abs());
            py[y] += f64::from(gy[y * n + x].abs());
        }
    }
    Ok(EdgeProfiles { x: px, y: py })
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{CV_8UC1, Point as CvPoint, Scalar, Size};

    /// A grey window with tile borders every `pitch` pixels (phase `phase`) along the axes
    /// of a lattice turned by `angle_deg`, and, when `grain`, many stronger lines at
    /// `grain_deg` at uneven spacings (a wood table's grain).
    fn window(pitch: f64, phase: f64, angle_deg: f64, grain: Option<f64>) -> Mat {
        let n = 160;
        let mut m = match Mat::new_rows_cols_with_default(n, n, CV_8UC1, Scalar::all(150.0)) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        let centre = [f64::from(n) / 2.0, f64::from(n) / 2.0];
        let line = |m: &mut Mat, angle: f64, offset: f64, value: f64, width: i32| {
            // The line of points whose projection on the direction `angle` is `offset`.
            let (s, c) = angle.to_radians().sin_cos();
            let base = [centre[0] + c * offset, centre[1] + s * offset];
            let (a, b) = (
                CvPoint::new((base[0] - s * 300.0) as i32, (base[1] + c * 300.0) as i32),
                CvPoint::new((base[0] + s * 300.0) as i32, (base[1] - c * 300.0) as i32),
            );
            if let Err(e) = imgproc::line(m, a, b, Scalar::all(value), width, imgproc::LINE_AA, 0) {
                panic!("{e}");
            }
        };
        for k in -6..=6 {
            let offset = phase + f64::from(k) * pitch;
            line(&mut m, angle_deg, offset, 60.0, 2);
            line(&mut m, angle_deg + 90.0, offset, 60.0, 2);
        }
        if let Some(g) = grain {
            // Spacings of 3 to 10 px drawn from a fixed sequence: no period of their own.
            let mut rng = fastrand::Rng::with_seed(7);
            let mut offset = -100.0;
            let mut k = 0;
            while offset < 100.0 {
                line(&mut m, g, offset, if k % 2 == 0 { 190.0 } else { 110.0 }, 1);
                offset += 3.0 + 7.0 * rng.f64();
                k += 1;
            }
        }
        m
    }

    fn quarter_turn_gap(a: f64, b_deg: f64) -> f64 {
        let d = (a.to_degrees() - b_deg).rem_euclid(90.0);
        d.min(90.0 - d)
    }

    /// Asserts that the first lattice direction found in `grey` (32 px tiles) is within 1.5
    /// degrees of `degrees`, up to quarter turns.
    fn assert_first_direction(grey: &Mat, degrees: f64) {
        let dirs = match lattice_directions(grey, 32.0) {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        let Some(&first) = dirs.first() else {
            panic!("no direction")
        };
        assert!(
            quarter_turn_gap(first, degrees) < 1.5,
            "first direction {:.1} degrees, lattice at {degrees}",
            first.to_degrees()
        );
    }

    #[test]
    fn the_lattice_direction_beats_a_stronger_grain() {
        let grey = window(32.0, 7.0, 20.0, Some(62.0));
        // The grain holds the most edge energy: the strongest gradient direction is its.
        let (gx, gy) = match gradients(&grey) {
            Ok(g) => g,
            Err(e) => panic!("{e}"),
        };
        let (gx, gy) = match (gx.data_typed::<f32>(), gy.data_typed::<f32>()) {
            (Ok(x), Ok(y)) => (x.to_vec(), y.to_vec()),
            _ => panic!("gradients are not f32"),
        };
        let mut hist = [0f64; 90];
        for (x, y) in gx.iter().zip(&gy) {
            let a = f64::from(*y)
                .atan2(f64::from(*x))
                .to_degrees()
                .rem_euclid(90.0);
            hist[(a as usize).min(89)] += f64::from(x.hypot(*y));
        }
        let strongest = (0..90)
            .max_by(|&a, &b| hist[a].total_cmp(&hist[b]))
            .unwrap_or(0);
        assert!(
            quarter_turn_gap((strongest as f64 + 0.5).to_radians(), 62.0) < 3.0,
            "the grain should be the strongest edges, the strongest are at {strongest}"
        );
        assert_first_direction(&grey, 20.0);
    }

    #[test]
    fn dense_faint_edges_show_no_lattice_at_45_degrees() {
        // A soft lattice at 20 degrees under grain in every direction (a blurred, noisy
        // photo): many faint edges, which binned whole showed a false lattice at 45.
        let grey = window(32.0, 7.0, 20.0, None);
        let mut noisy = Mat::default();
        let mut noise = match Mat::new_rows_cols_with_default(
            grey.rows(),
            grey.cols(),
            opencv::core::CV_8UC1,
            Scalar::all(0.0),
        ) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        if let Err(e) = opencv::core::randu(&mut noise, &Scalar::all(0.0), &Scalar::all(60.0)) {
            panic!("{e}");
        }
        let mut soft = Mat::default();
        let smoothed = imgproc::gaussian_blur(
            &grey,
            &mut soft,
            Size::new(0, 0),
            2.0,
            2.0,
            opencv::core::BORDER_REPLICATE,
        )
        .and_then(|()| opencv::core::add(&soft, &noise, &mut noisy, &Mat::default(), -1));
        if let Err(e) = smoothed {
            panic!("{e}");
        }
        // Binned whole, the false lattice at 45 degrees scored above the real one.
        assert_first_direction(&noisy, 20.0);
    }

    #[test]
    fn the_runner_up_period_is_the_other_lattice() {
        // Strong lines every 40 px (a neighbour's lattice, or the art's) over weaker ones
        // every 28 px (the tiles'): the best period is 40, the runner-up 28.
        let line = |x: usize, period: usize| {
            let r = x % period;
            r == 0 || r == 1 || r == period - 1
        };
        let profile: Vec<f64> = (0..160)
            .map(|x| {
                let strong = if line(x, 40) { 2.0 } else { 0.0 };
                let weak = if line(x + 6, 28) { 1.0 } else { 0.0 };
                0.1 + strong + weak
            })
            .collect();
        let profiles = EdgeProfiles {
            x: profile.clone(),
            y: profile,
        };
        let range = (0.78, 1.28);
        let Some(best) = lattice_period(&profiles, 32.0, range, false, None) else {
            panic!("no lattice found")
        };
        assert!(
            (best.joint - 40.0).abs() < 1.0,
            "best period {}",
            best.joint
        );
        let Some(next) = lattice_period(&profiles, 32.0, range, false, Some(best.joint)) else {
            panic!("no runner-up found")
        };
        assert!(
            (next.joint - 28.0).abs() < 1.0,
            "runner-up period {}",
            next.joint
        );
        assert!(next.score < best.score);
    }

    #[test]
    fn the_comb_finds_pitch_and_phase() {
        let grey = window(36.0, 5.0, 0.0, None);
        let profiles = match edge_profiles(&grey) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        let Some(Comb {
            periods: [(px, fx), (py, fy)],
            ..
        }) = lattice_period(&profiles, 32.0, (0.8, 1.25), false, None)
        else {
            panic!("no lattice found")
        };
        for (period, phase) in [(px, fx), (py, fy)] {
            // Good enough for growing, which looks a fifth of a cell around every cell: each
            // border the comb puts in the window lies within a tenth of a tile of a true one
            // (borders at 80 + 5 + 36k).
            let mut x = phase;
            while x < 160.0 {
                let k = ((x - 85.0) / 36.0).round();
                let off = (x - (85.0 + 36.0 * k)).abs();
                assert!(
                    off < 3.2,
                    "border at {x:.1} is {off:.1} px off (period {period}, phase {phase})"
                );
                x += period;
            }
        }
    }
}
