//! A second tile set, drawn unlike the first in every way the scanner might lean on:
//! buildings seen from above (roofs, domes, hedges) on grey-green paving instead of
//! isometric illustrations on sand, crenellated grey walls, a round price badge in the
//! upper-left corner, a fountain on a lawn with no player's colour, and no drawn rim.
//! Photos of it check that one labelled photo teaches the scanner a tile set it has
//! never seen, as the real game's art will.

use super::art::{S, TILE_TEX};
use super::draw::{
    Bgr, add_noise, ellipse, fill, jitter, line, mix, noise_field, outline, regular, sc, shade,
    solid,
};
use alhambra_engine::Building;
use opencv::core::{self, Mat};

/// A filled axis-aligned rectangle, texture pixels.
fn rect(img: &mut Mat, x0: f64, y0: f64, x1: f64, y1: f64, c: Bgr) -> opencv::Result<()> {
    fill(img, &[[x0, y0], [x1, y0], [x1, y1], [x0, y1]], c)
}

/// A roof seen from above: a soft shadow to the lower right, the roof, its ridge.
fn roof(img: &mut Mat, x0: f64, y0: f64, x1: f64, y1: f64, c: Bgr) -> opencv::Result<()> {
    rect(
        img,
        x0 + 5.0,
        y0 + 5.0,
        x1 + 5.0,
        y1 + 5.0,
        [70.0, 85.0, 80.0],
    )?;
    rect(img, x0, y0, x1, y1, c)?;
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    if x1 - x0 >= y1 - y0 {
        let h = (y1 - y0) / 2.0;
        fill(
            img,
            &[[x0, y0], [x1, y0], [x1 - h, cy], [x0 + h, cy]],
            shade(c, 1.15),
        )?;
        line(img, [x0 + h, cy], [x1 - h, cy], shade(c, 0.6), 2)
    } else {
        let h = (x1 - x0) / 2.0;
        fill(
            img,
            &[[x0, y0], [cx, y0 + h], [cx, y1 - h], [x0, y1]],
            shade(c, 1.15),
        )?;
        line(img, [cx, y0 + h], [cx, y1 - h], shade(c, 0.6), 2)
    }
}

/// A dome or a round tree crown seen from above, lit from the upper left.
fn dome(img: &mut Mat, c: [f64; 2], r: f64, col: Bgr) -> opencv::Result<()> {
    ellipse(
        img,
        [c[0] + r * 0.25, c[1] + r * 0.25],
        [r, r],
        0.0,
        [70.0, 85.0, 80.0],
    )?;
    ellipse(img, c, [r, r], 0.0, col)?;
    ellipse(
        img,
        [c[0] - r * 0.3, c[1] - r * 0.3],
        [r * 0.45, r * 0.45],
        0.0,
        shade(col, 1.3),
    )
}

/// The paving every tile of this set is printed on, and the six buildings on it.
pub(crate) fn illustrations(rng: &mut fastrand::Rng) -> opencv::Result<(Mat, Vec<Mat>)> {
    let paving = jitter([150.0, 172.0, 160.0], 0.05, rng);
    let mut bg = solid(TILE_TEX, TILE_TEX, core::CV_8UC3, sc(paving))?;
    let coarse = noise_field(TILE_TEX, TILE_TEX, 5, 5, rng)?;
    add_noise(&mut bg, &coarse, 10.0)?;
    let fine = noise_field(TILE_TEX, TILE_TEX, 70, 70, rng)?;
    add_noise(&mut bg, &fine, 7.0)?;
    let j = |c: Bgr, rng: &mut fastrand::Rng| jitter(c, 0.06, rng);
    let mut arts = Vec::with_capacity(6);
    for b in Building::SCORING {
        let mut img = bg.clone();
        match b {
            Building::Pavilion => {
                let water = j([200.0, 150.0, 60.0], rng);
                for (x, y) in [(40.0, 40.0), (152.0, 40.0), (40.0, 152.0), (152.0, 152.0)] {
                    ellipse(&mut img, [x, y], [18.0, 18.0], 0.0, water)?;
                }
                let stone = j([200.0, 215.0, 225.0], rng);
                rect(&mut img, 55.0, 55.0, 137.0, 137.0, stone)?;
                dome(&mut img, [96.0, 96.0], 32.0, j([160.0, 170.0, 70.0], rng))?;
            }
            Building::Seraglio => {
                let tiles = j([50.0, 90.0, 200.0], rng);
                roof(&mut img, 30.0, 30.0, 160.0, 80.0, tiles)?;
                roof(&mut img, 30.0, 80.0, 80.0, 165.0, tiles)?;
                rect(
                    &mut img,
                    95.0,
                    95.0,
                    160.0,
                    160.0,
                    j([190.0, 190.0, 230.0], rng),
                )?;
                ellipse(
                    &mut img,
                    [127.0, 127.0],
                    [14.0, 14.0],
                    0.0,
                    [180.0, 140.0, 60.0],
                )?;
            }
            Building::Arcades => {
                let roof_c = j([60.0, 110.0, 170.0], rng);
                roof(&mut img, 25.0, 70.0, 168.0, 115.0, roof_c)?;
                let arch = [50.0, 60.0, 80.0];
                let mut x = 32.0;
                while x < 160.0 {
                    ellipse(&mut img, [x + 8.0, 122.0], [7.0, 5.0], 0.0, arch)?;
                    x += 22.0;
                }
                let tree = j([50.0, 105.0, 45.0], rng);
                for x in [40.0, 96.0, 152.0] {
                    dome(&mut img, [x, 38.0], 14.0, tree)?;
                    dome(&mut img, [x, 158.0], 12.0, tree)?;
                }
            }
            Building::Chambers => {
                let slate = j([120.0, 115.0, 110.0], rng);
                roof(&mut img, 28.0, 28.0, 164.0, 62.0, slate)?;
                roof(&mut img, 28.0, 130.0, 164.0, 164.0, slate)?;
                roof(&mut img, 28.0, 62.0, 62.0, 130.0, slate)?;
                roof(&mut img, 130.0, 62.0, 164.0, 130.0, slate)?;
                rect(
                    &mut img,
                    62.0,
                    62.0,
                    130.0,
                    130.0,
                    j([190.0, 205.0, 215.0], rng),
                )?;
                for k in 0..3 {
                    let x = 75.0 + 20.0 * f64::from(k);
                    ellipse(&mut img, [x, 96.0], [4.0, 4.0], 0.0, [60.0, 120.0, 60.0])?;
                }
            }
            Building::Garden => {
                let lawn = j([70.0, 160.0, 90.0], rng);
                let path = mix(paving, [210.0, 220.0, 225.0], 0.4);
                rect(&mut img, 22.0, 22.0, 170.0, 170.0, path)?;
                for (x, y) in [(26.0, 26.0), (100.0, 26.0), (26.0, 100.0), (100.0, 100.0)] {
                    rect(&mut img, x, y, x + 66.0, y + 66.0, lawn)?;
                    for _ in 0..9 {
                        let p = [x + 6.0 + rng.f64() * 54.0, y + 6.0 + rng.f64() * 54.0];
                        let c = if rng.bool() {
                            [60.0, 60.0, 210.0]
                        } else {
                            [60.0, 210.0, 230.0]
                        };
                        ellipse(&mut img, p, [2.5, 2.5], 0.0, c)?;
                    }
                }
                ellipse(
                    &mut img,
                    [96.0, 96.0],
                    [16.0, 16.0],
                    0.0,
                    [190.0, 150.0, 70.0],
                )?;
            }
            Building::Tower | Building::Fountain => {
                let stone = j([140.0, 150.0, 175.0], rng);
                let c = [96.0, 96.0];
                ellipse(
                    &mut img,
                    [c[0] + 8.0, c[1] + 8.0],
                    [58.0, 58.0],
                    0.0,
                    [70.0, 85.0, 80.0],
                )?;
                ellipse(&mut img, c, [58.0, 58.0], 0.0, stone)?;
                for p in regular(c, 52.0, 16, 0.0) {
                    ellipse(&mut img, p, [5.0, 5.0], 0.0, shade(stone, 0.7))?;
                }
                let cone = j([110.0, 60.0, 150.0], rng);
                ellipse(&mut img, c, [40.0, 40.0], 0.0, cone)?;
                for p in regular(c, 40.0, 12, 0.2) {
                    line(&mut img, c, p, shade(cone, 0.7), 2)?;
                }
            }
        }
        arts.push(img);
    }
    Ok((bg, arts))
}

/// The fountain tile of this set: a round basin on a lawn, the same for every player.
pub(crate) fn fountain(bg: &Mat) -> opencv::Result<Mat> {
    let mut img = bg.clone();
    let c = [S / 2.0, S / 2.0];
    rect(
        &mut img,
        14.0,
        14.0,
        S - 14.0,
        S - 14.0,
        [80.0, 150.0, 95.0],
    )?;
    ellipse(&mut img, c, [70.0, 70.0], 0.0, [200.0, 210.0, 215.0])?;
    ellipse(&mut img, c, [60.0, 60.0], 0.0, [190.0, 140.0, 50.0])?;
    ellipse(&mut img, c, [18.0, 18.0], 0.0, [225.0, 230.0, 232.0])?;
    ellipse(&mut img, c, [8.0, 8.0], 0.0, [230.0, 190.0, 120.0])?;
    for p in regular(c, 70.0, 4, std::f64::consts::FRAC_PI_4) {
        let q = [c[0] + (p[0] - c[0]) * 1.15, c[1] + (p[1] - c[1]) * 1.15];
        ellipse(&mut img, q, [9.0, 9.0], 0.0, [50.0, 110.0, 60.0])?;
    }
    cut_edge(&mut img)?;
    Ok(img)
}

/// The thin dark cut edge of this set's tiles (no drawn rim).
pub(crate) fn cut_edge(img: &mut Mat) -> opencv::Result<()> {
    let square = [
        [0.5, 0.5],
        [S - 0.5, 0.5],
        [S - 0.5, S - 0.5],
        [0.5, S - 0.5],
    ];
    outline(img, &square, [60.0, 70.0, 70.0], 1)
}

/// Merlons along the inner edge of a wall band running from `a` to `b` along the north
/// side (texture coordinates before turning), `w` deep.
pub(crate) fn merlons(a: f64, b: f64, w: f64) -> Vec<[[f64; 2]; 4]> {
    let step = 14.0;
    let depth = (w * 0.45).max(3.0);
    let mut out = Vec::new();
    let mut x = a + 5.0;
    while x + 7.0 < b - 3.0 {
        out.push([[x, w], [x + 7.0, w], [x + 7.0, w + depth], [x, w + depth]]);
        x += step;
    }
    out
}
