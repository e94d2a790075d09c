//! The statistical models a profile is made of: diagonal Gaussians with capped z-scores
//! (how far a cell reads from a building) and the quadratic discriminant that tells a wall
//! from an open side, saved in the profile's JSON.

use super::*;

/// A diagonal Gaussian over a feature vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "GaussianFile", into = "GaussianFile")]
pub struct Gaussian {
    /// How many samples it was learned from.
    pub n: u32,
    /// Mean per dimension.
    pub mean: Vec<f32>,
    /// Variance per dimension (never below the floor).
    pub var: Vec<f32>,
    /// The log-likelihood's constant part, -1/2 of the sum of the variances' logarithms:
    /// computed once, not per cell look.
    log_norm: f32,
}

/// A Gaussian as saved in a profile.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct GaussianFile {
    n: u32,
    mean: Vec<f32>,
    var: Vec<f32>,
}

impl From<GaussianFile> for Gaussian {
    fn from(g: GaussianFile) -> Gaussian {
        Gaussian::new(g.n, g.mean, g.var)
    }
}

impl From<Gaussian> for GaussianFile {
    fn from(g: Gaussian) -> GaussianFile {
        GaussianFile {
            n: g.n,
            mean: g.mean,
            var: g.var,
        }
    }
}

/// A quadratic discriminant between two classes of feature vectors: each class a
/// Gaussian with its full covariance (shrunk a third of the way to the two classes'
/// pooled one), and the log-odds of the first. Unlike diagonal Gaussians it counts
/// correlated features (a wall band's colour and the line along its inner edge) once, and
/// weighs each by how well it separates the classes in the labelled photo, whatever the
/// walls look like there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Discriminant {
    /// The first class, then the second.
    pub classes: [ClassShape; 2],
}

/// One class of a [`Discriminant`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassShape {
    /// Mean per feature.
    pub mean: Vec<f32>,
    /// The covariance's Cholesky factor, lower triangle, row-major (d x d).
    pub chol: Vec<f32>,
    /// Half the logarithm of the covariance's determinant.
    pub half_log_det: f32,
}

/// Log-odds past this are not believed: one odd feature (glare, a finger) must not decide
/// a side alone.
pub(super) const LOG_ODDS_CAP: f32 = 12.0;

impl ClassShape {
    /// Log-likelihood up to a constant shared by every class of the same dimension.
    pub(super) fn log_likelihood(&self, x: &[f32]) -> f32 {
        self.log_likelihood_about(x, &self.mean)
    }

    /// [`ClassShape::log_likelihood`] with the class moved to `mean`.
    pub(super) fn log_likelihood_about(&self, x: &[f32], mean: &[f32]) -> f32 {
        let d = self.mean.len();
        // Forward substitution: L y = x - mean, then |y|^2 is the squared Mahalanobis
        // distance.
        let mut y = vec![0f32; d];
        let mut maha = 0f32;
        for i in 0..d {
            let row = &self.chol[i * d..i * d + i];
            let s = x.get(i).copied().unwrap_or(0.0)
                - mean.get(i).copied().unwrap_or(0.0)
                - row.iter().zip(&y[..i]).map(|(l, y)| l * y).sum::<f32>();
            y[i] = s / self.chol[i * d + i];
            maha += y[i] * y[i];
        }
        -0.5 * maha - self.half_log_det
    }
}

impl Discriminant {
    /// Learns from samples of the first class (`a`) and of the second (`b`); `None` with
    /// too few of either or when the features are degenerate.
    pub fn learn(a: &[&[f32]], b: &[&[f32]]) -> Option<Discriminant> {
        let d = a.first()?.len();
        if a.len() < 2 || b.len() < 2 || a.iter().chain(b).any(|x| x.len() != d) {
            return None;
        }
        let moments = |xs: &[&[f32]]| -> (Vec<f64>, Vec<f64>) {
            let mut m = vec![0f64; d];
            for x in xs {
                for (mi, xi) in m.iter_mut().zip(x.iter()) {
                    *mi += f64::from(*xi);
                }
            }
            m.iter_mut().for_each(|v| *v /= xs.len() as f64);
            let mut cov = vec![0f64; d * d];
            for x in xs {
                for i in 0..d {
                    let di = f64::from(x[i]) - m[i];
                    for j in 0..d {
                        cov[i * d + j] += di * (f64::from(x[j]) - m[j]);
                    }
                }
            }
            cov.iter_mut().for_each(|v| *v /= (xs.len() - 1) as f64);
            (m, cov)
        };
        let ((ma, ca), (mb, cb)) = (moments(a), moments(b));
        let (na, nb) = (a.len() as f64, b.len() as f64);
        let pooled: Vec<f64> = ca
            .iter()
            .zip(&cb)
            .map(|(x, y)| (x * (na - 1.0) + y * (nb - 1.0)) / (na + nb - 2.0))
            .collect();
        let shape = |mean: Vec<f64>, cov: Vec<f64>| -> Option<ClassShape> {
            let mut m: Vec<f64> = cov
                .iter()
                .zip(&pooled)
                .map(|(c, p)| c * (2.0 / 3.0) + p / 3.0)
                .collect();
            // A little ridge: a feature that never varies in the labelled photo must not
            // get an unbounded weight.
            for i in 0..d {
                m[i * d + i] = m[i * d + i] * 1.05 + 1e-6;
            }
            cholesky(&mut m, d)?;
            let half_log_det = (0..d).map(|i| m[i * d + i].ln()).sum::<f64>();
            Some(ClassShape {
                mean: mean.iter().map(|v| *v as f32).collect(),
                chol: m.iter().map(|v| *v as f32).collect(),
                half_log_det: half_log_det as f32,
            })
        };
        Some(Discriminant {
            classes: [shape(ma, ca)?, shape(mb, cb)?],
        })
    }

    /// The log-odds of the first class.
    pub fn log_odds(&self, x: &[f32]) -> f32 {
        let [a, b] = &self.classes;
        (a.log_likelihood(x) - b.log_likelihood(x)).clamp(-LOG_ODDS_CAP, LOG_ODDS_CAP)
    }

    /// Whether both classes have dimension `d` and usable factors.
    pub(super) fn fits(&self, d: usize) -> bool {
        self.classes.iter().all(|c| {
            c.mean.len() == d
                && c.chol.len() == d * d
                && (0..d).all(|i| c.chol[i * d + i] > 0.0)
                && c.half_log_det.is_finite()
        })
    }
}

/// Factors a symmetric positive definite `d` x `d` matrix in place into its lower
/// Cholesky factor (the upper triangle is zeroed); `None` when it is not positive definite.
fn cholesky(m: &mut [f64], d: usize) -> Option<()> {
    for j in 0..d {
        let mut sum = m[j * d + j];
        for k in 0..j {
            sum -= m[j * d + k] * m[j * d + k];
        }
        if sum <= 0.0 || !sum.is_finite() {
            return None;
        }
        let l = sum.sqrt();
        m[j * d + j] = l;
        for i in j + 1..d {
            let mut s = m[i * d + j];
            for k in 0..j {
                s -= m[i * d + k] * m[j * d + k];
            }
            m[i * d + j] = s / l;
        }
        for i in 0..j {
            m[i * d + j] = 0.0;
        }
    }
    Some(())
}

/// Per-dimension squared z-scores are capped here, so one odd block (glare, a finger)
/// cannot outweigh the rest.
pub(super) const Z2_CAP: f32 = 9.0;

impl Gaussian {
    /// Learns from samples, shrinking the variance toward `pooled` (for classes with few
    /// samples) and flooring it.
    pub fn learn(
        samples: &[&[f32]],
        pooled: Option<&[f32]>,
        floor: impl Fn(usize) -> f32,
    ) -> Option<Gaussian> {
        let first = samples.first()?;
        let d = first.len();
        let n = samples.len() as f32;
        let mut mean = vec![0f32; d];
        for s in samples {
            for (m, v) in mean.iter_mut().zip(s.iter()) {
                *m += v / n;
            }
        }
        let mut var = vec![0f32; d];
        for s in samples {
            for ((v, m), x) in var.iter_mut().zip(&mean).zip(s.iter()) {
                *v += (x - m) * (x - m) / n;
            }
        }
        const PRIOR: f32 = 5.0;
        for (i, v) in var.iter_mut().enumerate() {
            let prior = pooled.map_or(*v, |p| p[i]);
            *v = ((n * *v + PRIOR * prior) / (n + PRIOR)).max(floor(i));
        }
        Some(Gaussian::new(samples.len() as u32, mean, var))
    }

    /// A Gaussian of these moments.
    pub fn new(n: u32, mean: Vec<f32>, var: Vec<f32>) -> Gaussian {
        let log_norm = var.iter().map(|v| -0.5 * v.ln()).sum();
        Gaussian {
            n,
            mean,
            var,
            log_norm,
        }
    }

    /// Mean capped squared z-score: 1 is typical, larger is less alike.
    pub fn distance(&self, x: &[f32]) -> f32 {
        let d = self.mean.len().min(x.len()).max(1);
        let sum: f32 = (0..d)
            .map(|i| ((x[i] - self.mean[i]).powi(2) / self.var[i]).min(Z2_CAP))
            .sum();
        sum / d as f32
    }

    /// [`Gaussian::distance`] of four points at once, each summed in the same order as
    /// alone (so each is the same to the bit): four independent sums keep the processor
    /// busy where one waits on each addition.
    pub fn distances4(&self, xs: &[[f32; BLOCK_DIMS]; 4]) -> [f32; 4] {
        let d = self.mean.len().clamp(1, BLOCK_DIMS);
        let mut sums = [0f32; 4];
        for (i, (m, v)) in self.mean.iter().zip(&self.var).take(d).enumerate() {
            for (sum, x) in sums.iter_mut().zip(xs) {
                *sum += ((x[i] - m).powi(2) / v).min(Z2_CAP);
            }
        }
        sums.map(|s| s / d as f32)
    }

    /// Log-likelihood up to a constant shared by Gaussians of the same dimension.
    pub fn log_likelihood(&self, x: &[f32]) -> f32 {
        let z: f32 = x
            .iter()
            .zip(&self.mean)
            .zip(&self.var)
            .map(|((x, m), v)| -0.5 * ((x - m).powi(2) / v).min(Z2_CAP))
            .sum();
        z + self.log_norm
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_distances_at_once_are_each_the_same_to_the_bit_as_alone() {
        let mut rng = fastrand::Rng::with_seed(11);
        let mut v =
            |scale: f32| -> Vec<f32> { (0..BLOCK_DIMS).map(|_| rng.f32() * scale).collect() };
        let g = Gaussian::new(10, v(1.0), v(0.01).into_iter().map(|x| x + 1e-4).collect());
        let mut xs = [[0f32; BLOCK_DIMS]; 4];
        for x in &mut xs {
            x.copy_from_slice(&v(1.2));
        }
        // One point on the mean: a sum of zeros.
        xs[3].copy_from_slice(&g.mean);
        let four = g.distances4(&xs);
        for (x, d) in xs.iter().zip(four) {
            assert_eq!(d.to_bits(), g.distance(x).to_bits());
        }
    }

    #[test]
    fn the_discriminant_counts_a_repeated_feature_once() {
        // Class a around 1, class b around 0, in one noisy feature copied three times:
        // the copies add no evidence, so the log-odds must be those of the one feature
        // (equal spreads: linear, zero midway, about 1/var x the offset from it).
        let mut rng = fastrand::Rng::with_seed(3);
        let draw = |centre: f32, rng: &mut fastrand::Rng| -> Vec<f32> {
            let v = centre + (rng.f32() - 0.5) * 1.2;
            vec![v, v, v]
        };
        let a: Vec<Vec<f32>> = (0..400).map(|_| draw(1.0, &mut rng)).collect();
        let b: Vec<Vec<f32>> = (0..400).map(|_| draw(0.0, &mut rng)).collect();
        let (ra, rb): (Vec<&[f32]>, Vec<&[f32]>) = (
            a.iter().map(|v| &v[..]).collect(),
            b.iter().map(|v| &v[..]).collect(),
        );
        let d = Discriminant::learn(&ra, &rb).expect("learns");
        assert!(d.fits(3));
        let mid = d.log_odds(&[0.5, 0.5, 0.5]);
        assert!(mid.abs() < 0.3, "log-odds midway {mid}");
        // Uniform noise of width 1.2: variance 0.12; one feature at 1.0 gives about
        // 0.5 / 0.12 = 4.2 (three counted apart would give three times as much).
        let at_a = d.log_odds(&[1.0, 1.0, 1.0]);
        assert!(at_a > 2.5 && at_a < 6.0, "log-odds at a's mean {at_a}");
        assert!(d.log_odds(&[0.0, 0.0, 0.0]) < -2.5);
        // Too few samples, or of different sizes: nothing learned.
        assert!(Discriminant::learn(&ra[..1], &rb).is_none());
        assert!(Discriminant::learn(&[&[1.0][..], &[2.0][..]], &rb).is_none());
    }
}
