//! The printed material, drawn once per scene as top-down textures: building tiles
//! (mottled sand, an isometric illustration per type, stone walls mitred at the corners,
//! the octagonal price badge), fountain tiles in the player's colour, money cards, the
//! market board, ArUco marker sheets and the table surface (wood or cloth).

use super::draw::{
    Bgr, add_noise, ellipse, fill, jitter, line, mix, noise_field, opaque, outline, regular, sc,
    shade, solid,
};
use super::plan;
use super::{ArtVariety, TileSet, WallLook};
use alhambra_engine::{Building, Currency, MoneyCard, Side, Tile, Walls};
use opencv::core::{Mat, Point, Scalar};
use opencv::prelude::*;
use opencv::{aruco, core, imgproc};

/// Side of a tile texture in pixels.
pub(crate) const TILE_TEX: i32 = 192;
pub(crate) const S: f64 = TILE_TEX as f64;

/// The badge colour of a building type (BGR).
pub(crate) fn badge_colour(b: Building) -> Bgr {
    match b {
        Building::Fountain => [200.0, 200.0, 200.0],
        Building::Pavilion => [225.0, 165.0, 60.0],
        Building::Seraglio => [50.0, 45.0, 200.0],
        Building::Arcades => [40.0, 85.0, 145.0],
        Building::Chambers => [238.0, 238.0, 236.0],
        Building::Garden => [60.0, 150.0, 55.0],
        Building::Tower => [150.0, 60.0, 140.0],
    }
}

/// The six players' colours (fountain corners), BGR.
pub(crate) const PLAYER_COLOURS: [Bgr; 6] = [
    [40.0, 40.0, 210.0],
    [200.0, 110.0, 30.0],
    [50.0, 160.0, 40.0],
    [30.0, 200.0, 235.0],
    [240.0, 240.0, 240.0],
    [150.0, 50.0, 130.0],
];

/// Isometric projection of the illustrations: ground units to texture pixels.
#[derive(Clone, Copy)]
struct Iso {
    ox: f64,
    oy: f64,
    k: f64,
}

impl Iso {
    fn p(self, x: f64, y: f64, z: f64) -> [f64; 2] {
        [
            self.ox + (x - y) * 0.866 * self.k,
            self.oy + (x + y) * 0.5 * self.k - z * self.k,
        ]
    }

    fn poly(self, pts: &[[f64; 3]]) -> Vec<[f64; 2]> {
        pts.iter().map(|q| self.p(q[0], q[1], q[2])).collect()
    }
}

/// Draws a shaded face with a thin darker outline, like the printed illustrations.
fn face(img: &mut Mat, iso: Iso, pts: &[[f64; 3]], c: Bgr) -> opencv::Result<()> {
    let poly = iso.poly(pts);
    fill(img, &poly, c)?;
    outline(img, &poly, shade(c, 0.6), 1)
}

/// A box standing on the ground: front (+y) and right (+x) faces and the top.
#[allow(clippy::too_many_arguments)]
fn iso_box(
    img: &mut Mat,
    iso: Iso,
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
    z0: f64,
    h: f64,
    c: Bgr,
) -> opencv::Result<()> {
    let z1 = z0 + h;
    face(
        img,
        iso,
        &[[x0, y1, z0], [x1, y1, z0], [x1, y1, z1], [x0, y1, z1]],
        shade(c, 0.7),
    )?;
    face(
        img,
        iso,
        &[[x1, y0, z0], [x1, y1, z0], [x1, y1, z1], [x1, y0, z1]],
        shade(c, 0.86),
    )?;
    face(
        img,
        iso,
        &[[x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]],
        c,
    )
}

/// A flat rectangle on the ground (pool, bed, terrace).
#[allow(clippy::too_many_arguments)]
fn iso_flat(
    img: &mut Mat,
    iso: Iso,
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
    z: f64,
    c: Bgr,
) -> opencv::Result<()> {
    face(
        img,
        iso,
        &[[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]],
        c,
    )
}

/// A pyramid roof over a rectangle at height `z`.
#[allow(clippy::too_many_arguments)]
fn iso_pyramid(
    img: &mut Mat,
    iso: Iso,
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
    z: f64,
    h: f64,
    c: Bgr,
) -> opencv::Result<()> {
    let a = [(x0 + x1) / 2.0, (y0 + y1) / 2.0, z + h];
    face(img, iso, &[[x0, y0, z], [x1, y0, z], a], shade(c, 1.08))?;
    face(img, iso, &[[x0, y0, z], [x0, y1, z], a], shade(c, 0.95))?;
    face(img, iso, &[[x1, y0, z], [x1, y1, z], a], shade(c, 0.85))?;
    face(img, iso, &[[x0, y1, z], [x1, y1, z], a], shade(c, 0.7))
}

/// A gabled roof; the ridge runs along x when `along_x`, else along y. `wall` colours the
/// gable end.
#[allow(clippy::too_many_arguments)]
fn iso_gable(
    img: &mut Mat,
    iso: Iso,
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
    z: f64,
    h: f64,
    c: Bgr,
    wall: Bgr,
    along_x: bool,
) -> opencv::Result<()> {
    let t = z + h;
    if along_x {
        let ym = (y0 + y1) / 2.0;
        face(
            img,
            iso,
            &[[x0, y0, z], [x1, y0, z], [x1, ym, t], [x0, ym, t]],
            shade(c, 1.05),
        )?;
        face(
            img,
            iso,
            &[[x1, y0, z], [x1, y1, z], [x1, ym, t]],
            shade(wall, 0.86),
        )?;
        face(
            img,
            iso,
            &[[x0, y1, z], [x1, y1, z], [x1, ym, t], [x0, ym, t]],
            shade(c, 0.75),
        )
    } else {
        let xm = (x0 + x1) / 2.0;
        face(
            img,
            iso,
            &[[x0, y0, z], [x0, y1, z], [xm, y1, t], [xm, y0, t]],
            shade(c, 1.0),
        )?;
        face(
            img,
            iso,
            &[[x1, y0, z], [x1, y1, z], [xm, y1, t], [xm, y0, t]],
            shade(c, 0.82),
        )?;
        face(
            img,
            iso,
            &[[x0, y1, z], [x1, y1, z], [xm, y1, t]],
            shade(wall, 0.7),
        )
    }
}

/// Arched openings on the front (+y) face of a box: `n` arches between x0 and x1.
#[allow(clippy::too_many_arguments)]
fn arches_front(
    img: &mut Mat,
    iso: Iso,
    x0: f64,
    x1: f64,
    y: f64,
    z0: f64,
    h: f64,
    n: usize,
    c: Bgr,
) -> opencv::Result<()> {
    let face = ArchedFace {
        from: x0,
        to: x1,
        opening: (0.22, 0.78),
        z0,
        h,
        n,
    };
    arches(img, iso, &face, c, |u, z| [u, y, z])
}

/// Arched openings on the right (+x) face of a box.
#[allow(clippy::too_many_arguments)]
fn arches_right(
    img: &mut Mat,
    iso: Iso,
    y0: f64,
    y1: f64,
    x: f64,
    z0: f64,
    h: f64,
    n: usize,
    c: Bgr,
) -> opencv::Result<()> {
    let face = ArchedFace {
        from: y0,
        to: y1,
        opening: (0.25, 0.75),
        z0,
        h,
        n,
    };
    arches(img, iso, &face, c, |u, z| [x, u, z])
}

/// A row of `n` round-topped openings along one face of a box, from `from` to `to` along
/// the face, from height `z0` up to `z0 + h`, each opening the `opening` part of its bay.
struct ArchedFace {
    from: f64,
    to: f64,
    opening: (f64, f64),
    z0: f64,
    h: f64,
    n: usize,
}

/// Draws an arched face; `at(u, z)` places a point of the face in 3-D.
fn arches(
    img: &mut Mat,
    iso: Iso,
    face: &ArchedFace,
    c: Bgr,
    at: impl Fn(f64, f64) -> [f64; 3],
) -> opencv::Result<()> {
    let &ArchedFace {
        from,
        to,
        opening,
        z0,
        h,
        n,
    } = face;
    let w = (to - from) / n as f64;
    for i in 0..n {
        let a = from + w * (i as f64 + opening.0);
        let b = from + w * (i as f64 + opening.1);
        let r = (b - a) / 2.0;
        let mut pts = vec![at(a, z0), at(b, z0), at(b, z0 + h - r)];
        for k in 1..8 {
            let t = std::f64::consts::PI * f64::from(k) / 8.0;
            pts.push(at(a + r + r * t.cos(), z0 + h - r + r * t.sin()));
        }
        pts.push(at(a, z0 + h - r));
        fill(img, &iso.poly(&pts), c)?;
    }
    Ok(())
}

/// A cypress: a tall dark flame of a tree standing at ground point (x, y).
fn cypress(img: &mut Mat, iso: Iso, x: f64, y: f64, h: f64, c: Bgr) -> opencv::Result<()> {
    let base = iso.p(x, y, 0.0);
    let k = iso.k;
    ellipse(
        img,
        [base[0] + 0.15 * k, base[1] - 0.05 * k],
        [0.35 * k, 0.12 * k],
        0.0,
        [40.0, 70.0, 80.0],
    )?;
    ellipse(
        img,
        [base[0], base[1] - h * k * 0.5],
        [0.3 * k, h * k * 0.52],
        0.0,
        c,
    )?;
    ellipse(
        img,
        [base[0] - 0.1 * k, base[1] - h * k * 0.55],
        [0.12 * k, h * k * 0.38],
        0.0,
        mix(c, [90.0, 160.0, 90.0], 0.35),
    )
}

/// A palm: trunk and a crown of fronds.
fn palm(
    img: &mut Mat,
    iso: Iso,
    x: f64,
    y: f64,
    h: f64,
    rng: &mut fastrand::Rng,
) -> opencv::Result<()> {
    let base = iso.p(x, y, 0.0);
    let top = iso.p(x + 0.15, y - 0.1, h);
    line(img, base, top, [40.0, 75.0, 110.0], 4)?;
    let k = iso.k;
    for i in 0..8 {
        let a = std::f64::consts::TAU * (f64::from(i) + 0.3 * rng.f64()) / 8.0;
        let len = k * (0.9 + 0.3 * rng.f64());
        let mid = [
            top[0] + a.cos() * len * 0.55,
            top[1] + a.sin() * len * 0.35 - 0.15 * k,
        ];
        let end = [
            top[0] + a.cos() * len,
            top[1] + a.sin() * len * 0.5 + 0.25 * k,
        ];
        let c = if i % 2 == 0 {
            [45.0, 125.0, 40.0]
        } else {
            [60.0, 150.0, 60.0]
        };
        line(img, top, mid, c, 3)?;
        line(img, mid, end, c, 2)?;
    }
    Ok(())
}

/// A round pool or basin seen from the iso view (an ellipse on the ground).
fn iso_basin(img: &mut Mat, iso: Iso, x: f64, y: f64, r: f64, water: Bgr) -> opencv::Result<()> {
    let c = iso.p(x, y, 0.05);
    let k = iso.k;
    ellipse(
        img,
        c,
        [r * 1.22 * k, r * 0.71 * k],
        0.0,
        [215.0, 225.0, 228.0],
    )?;
    ellipse(img, c, [r * k, r * 0.58 * k], 0.0, water)?;
    ellipse(
        img,
        [c[0] - 0.1 * k * r, c[1] - 0.1 * k * r],
        [r * 0.45 * k, r * 0.2 * k],
        0.0,
        mix(water, [255.0, 255.0, 255.0], 0.4),
    )
}

/// The per-scene look of the tile set: the colours of this edition, jittered slightly.
pub(crate) struct TileArt {
    bg: Mat,
    arts: Vec<Mat>,
    wall: Bgr,
    /// Wall band width, texture pixels.
    wall_width: f64,
    badge: [Bgr; 7],
    set: TileSet,
    /// With [`ArtVariety::Varied`] or [`ArtVariety::Centred`], the other illustration
    /// sets a tile may show.
    others: Vec<Vec<Mat>>,
    /// How far a tile's illustration is shifted at most (share of the tile).
    most_shift: f64,
}

/// Illustration sets drawn for [`ArtVariety::Varied`] and [`ArtVariety::Centred`], the
/// first included.
const VARIANTS: usize = 3;
/// How far a varied tile's illustration is shifted at most, as a share of the tile.
const VARIANT_SHIFT: f64 = 0.06;

const ISO: Iso = Iso {
    ox: S / 2.0,
    oy: S * 0.6,
    k: S / 8.8,
};

impl TileArt {
    /// Draws the sand background and the six illustrations of this scene's tile set.
    pub fn new(
        walls: WallLook,
        set: TileSet,
        variety: ArtVariety,
        rng: &mut fastrand::Rng,
    ) -> opencv::Result<TileArt> {
        let illustrations = |rng: &mut fastrand::Rng| match set {
            TileSet::Iso => iso_illustrations(rng),
            TileSet::Plan => plan::illustrations(rng),
        };
        let (bg, arts) = illustrations(rng)?;
        // Drawn after the first set only when asked for, so that the usual photos stay
        // the same bytes for the same seed.
        let mut others = Vec::new();
        if variety != ArtVariety::Same {
            for _ in 1..VARIANTS {
                others.push(illustrations(rng)?.1);
            }
        }
        let (wall, wall_width) = match (walls, set) {
            (WallLook::Dark, TileSet::Iso) => (jitter([38.0, 58.0, 92.0], 0.08, rng), 0.07),
            (WallLook::Dark, TileSet::Plan) => (jitter([95.0, 100.0, 104.0], 0.08, rng), 0.08),
            (WallLook::Light, _) => (jitter([150.0, 190.0, 215.0], 0.08, rng), 0.10),
        };
        let mut badge = [[0.0; 3]; 7];
        for b in Building::ALL {
            badge[b as usize] = jitter(badge_colour(b), 0.04, rng);
        }
        Ok(TileArt {
            bg,
            arts,
            wall,
            wall_width: (wall_width * S).round(),
            badge,
            set,
            others,
            most_shift: if variety == ArtVariety::Varied {
                VARIANT_SHIFT
            } else {
                0.0
            },
        })
    }
}

/// The mottled sand of this renderer's tile set and its six isometric illustrations.
fn iso_illustrations(rng: &mut fastrand::Rng) -> opencv::Result<(Mat, Vec<Mat>)> {
    let sand = jitter([118.0, 188.0, 226.0], 0.05, rng);
    let mut bg = solid(TILE_TEX, TILE_TEX, core::CV_8UC3, sc(sand))?;
    let coarse = noise_field(TILE_TEX, TILE_TEX, 6, 6, rng)?;
    add_noise(&mut bg, &coarse, 14.0)?;
    let mid = noise_field(TILE_TEX, TILE_TEX, 24, 24, rng)?;
    add_noise(&mut bg, &mid, 8.0)?;
    let fine = noise_field(TILE_TEX, TILE_TEX, 96, 96, rng)?;
    add_noise(&mut bg, &fine, 5.0)?;
    let j = |c: Bgr, rng: &mut fastrand::Rng| jitter(c, 0.05, rng);
    let white = j([222.0, 232.0, 238.0], rng);
    let mut arts = Vec::with_capacity(6);
    for b in Building::SCORING {
        let mut img = bg.clone();
        let iso = ISO;
        match b {
            Building::Pavilion => {
                let water = j([215.0, 165.0, 70.0], rng);
                let roof = j([185.0, 175.0, 45.0], rng);
                iso_flat(
                    &mut img,
                    iso,
                    -2.4,
                    -2.4,
                    2.4,
                    2.4,
                    0.0,
                    mix(sand, white, 0.5),
                )?;
                iso_flat(&mut img, iso, -2.3, 1.4, 0.4, 2.3, 0.02, water)?;
                iso_flat(&mut img, iso, 1.4, -2.3, 2.3, 0.2, 0.02, water)?;
                iso_box(&mut img, iso, -1.3, -1.3, 1.1, 1.1, 0.0, 1.4, white)?;
                arches_front(
                    &mut img,
                    iso,
                    -1.3,
                    1.1,
                    1.1,
                    0.0,
                    1.0,
                    3,
                    [120.0, 110.0, 40.0],
                )?;
                arches_right(
                    &mut img,
                    iso,
                    -1.3,
                    1.1,
                    1.1,
                    0.0,
                    1.0,
                    3,
                    [120.0, 110.0, 40.0],
                )?;
                iso_pyramid(&mut img, iso, -1.5, -1.5, 1.3, 1.3, 1.4, 1.5, roof)?;
                iso_box(&mut img, iso, 1.3, 1.1, 2.2, 2.0, 0.0, 0.8, white)?;
                iso_pyramid(&mut img, iso, 1.2, 1.0, 2.3, 2.1, 0.8, 0.8, roof)?;
                ellipse(
                    &mut img,
                    iso.p(-0.1, -0.1, 2.95),
                    [2.5, 2.5],
                    0.0,
                    [60.0, 190.0, 230.0],
                )?;
            }
            Building::Seraglio => {
                let pink = j([175.0, 165.0, 235.0], rng);
                let red = j([45.0, 50.0, 190.0], rng);
                iso_box(&mut img, iso, -0.5, -2.3, 1.9, -0.6, 0.0, 1.6, pink)?;
                arches_front(&mut img, iso, -0.5, 1.9, -0.6, 0.0, 1.1, 3, shade(red, 0.6))?;
                iso_gable(
                    &mut img, iso, -0.6, -2.4, 2.0, -0.5, 1.6, 0.9, red, pink, false,
                )?;
                iso_box(&mut img, iso, -2.2, -0.5, 0.3, 1.2, 0.0, 1.1, pink)?;
                arches_front(&mut img, iso, -2.2, 0.3, 1.2, 0.0, 0.8, 3, shade(red, 0.6))?;
                iso_gable(
                    &mut img, iso, -2.3, -0.6, 0.4, 1.3, 1.1, 0.8, red, pink, true,
                )?;
                iso_box(&mut img, iso, 0.8, 0.5, 2.1, 2.2, 0.0, 0.9, pink)?;
                iso_pyramid(&mut img, iso, 0.7, 0.4, 2.2, 2.3, 0.9, 0.9, red)?;
            }
            Building::Arcades => {
                let ochre = j([170.0, 200.0, 225.0], rng);
                let brown = j([40.0, 75.0, 135.0], rng);
                let dark = j([35.0, 70.0, 35.0], rng);
                cypress(&mut img, iso, -1.8, -1.9, 3.0, dark)?;
                cypress(&mut img, iso, 0.2, -2.1, 3.4, dark)?;
                cypress(&mut img, iso, 2.0, -1.5, 2.8, dark)?;
                iso_box(&mut img, iso, -2.2, -0.7, 2.0, 0.6, 0.0, 1.2, ochre)?;
                arches_front(
                    &mut img,
                    iso,
                    -2.2,
                    2.0,
                    0.6,
                    0.0,
                    0.95,
                    5,
                    [40.0, 50.0, 70.0],
                )?;
                arches_right(
                    &mut img,
                    iso,
                    -0.7,
                    0.6,
                    2.0,
                    0.0,
                    0.95,
                    1,
                    [40.0, 50.0, 70.0],
                )?;
                iso_gable(
                    &mut img, iso, -2.3, -0.8, 2.1, 0.7, 1.2, 0.7, brown, ochre, true,
                )?;
                cypress(&mut img, iso, -1.6, 1.7, 3.2, dark)?;
                cypress(&mut img, iso, 1.4, 1.9, 2.9, dark)?;
            }
            Building::Chambers => {
                let grey = j([135.0, 138.0, 140.0], rng);
                let window = [70.0, 60.0, 55.0];
                iso_box(&mut img, iso, -1.8, -1.9, 1.3, 0.9, 0.0, 1.6, white)?;
                for row in 0..2 {
                    let z = 0.3 + 0.65 * f64::from(row);
                    for col in 0..4 {
                        let x = -1.6 + 0.75 * f64::from(col);
                        face(
                            &mut img,
                            iso,
                            &[
                                [x, 0.9, z],
                                [x + 0.3, 0.9, z],
                                [x + 0.3, 0.9, z + 0.4],
                                [x, 0.9, z + 0.4],
                            ],
                            window,
                        )?;
                    }
                    for col in 0..3 {
                        let y = -1.7 + 0.85 * f64::from(col);
                        face(
                            &mut img,
                            iso,
                            &[
                                [1.3, y, z],
                                [1.3, y + 0.3, z],
                                [1.3, y + 0.3, z + 0.4],
                                [1.3, y, z + 0.4],
                            ],
                            window,
                        )?;
                    }
                }
                iso_gable(
                    &mut img, iso, -1.9, -2.0, 1.4, 1.0, 1.6, 1.0, grey, white, false,
                )?;
                iso_box(&mut img, iso, -0.6, 1.3, 1.6, 2.3, 0.0, 0.9, white)?;
                arches_front(&mut img, iso, -0.6, 1.6, 2.3, 0.0, 0.7, 3, window)?;
                iso_gable(
                    &mut img, iso, -0.7, 1.2, 1.7, 2.4, 0.9, 0.6, grey, white, true,
                )?;
            }
            Building::Garden => {
                let hedge = j([55.0, 150.0, 65.0], rng);
                let path = mix(sand, white, 0.35);
                iso_flat(&mut img, iso, -2.4, -2.4, 2.4, 2.4, 0.0, path)?;
                for (x0, y0) in [(-2.3, -2.3), (0.45, -2.3), (-2.3, 0.45), (0.45, 0.45)] {
                    iso_box(&mut img, iso, x0, y0, x0 + 1.85, y0 + 1.85, 0.0, 0.3, hedge)?;
                    iso_flat(
                        &mut img,
                        iso,
                        x0 + 0.3,
                        y0 + 0.3,
                        x0 + 1.55,
                        y0 + 1.55,
                        0.31,
                        shade(hedge, 0.75),
                    )?;
                }
                iso_basin(&mut img, iso, 0.0, 0.0, 0.45, [210.0, 160.0, 60.0])?;
                palm(&mut img, iso, -1.4, -1.4, 2.6, rng)?;
                palm(&mut img, iso, 1.4, -1.3, 2.3, rng)?;
                palm(&mut img, iso, -1.3, 1.4, 2.2, rng)?;
                palm(&mut img, iso, 1.4, 1.5, 2.5, rng)?;
            }
            Building::Tower | Building::Fountain => {
                let pink = j([175.0, 120.0, 195.0], rng);
                let purple = j([120.0, 45.0, 115.0], rng);
                let stone = mix(sand, white, 0.3);
                iso_box(&mut img, iso, -1.9, -1.9, 1.9, 1.9, 0.0, 0.3, stone)?;
                iso_box(&mut img, iso, -0.9, -1.0, 0.9, 0.8, 0.3, 3.3, pink)?;
                for z in [1.0, 2.0, 2.9] {
                    face(
                        &mut img,
                        iso,
                        &[
                            [-0.3, 0.8, z],
                            [0.1, 0.8, z],
                            [0.1, 0.8, z + 0.5],
                            [-0.3, 0.8, z + 0.5],
                        ],
                        [60.0, 40.0, 70.0],
                    )?;
                    face(
                        &mut img,
                        iso,
                        &[
                            [0.9, -0.4, z],
                            [0.9, 0.0, z],
                            [0.9, 0.0, z + 0.5],
                            [0.9, -0.4, z + 0.5],
                        ],
                        [60.0, 40.0, 70.0],
                    )?;
                }
                iso_pyramid(&mut img, iso, -1.05, -1.15, 1.05, 0.95, 3.6, 1.0, purple)?;
                iso_box(&mut img, iso, 1.0, 0.9, 1.8, 1.7, 0.3, 1.5, pink)?;
                iso_pyramid(&mut img, iso, 0.9, 0.8, 1.9, 1.8, 1.8, 0.6, purple)?;
            }
        }
        arts.push(img);
    }
    Ok((bg, arts))
}

impl TileArt {
    /// The top-down texture (BGRA, opaque) of a building tile: illustration, walls, badge.
    pub fn tile(&self, tile: &Tile, rng: &mut fastrand::Rng) -> opencv::Result<Mat> {
        let idx = tile.building.scoring_index().unwrap_or(0);
        let mut img = self
            .arts
            .get(idx)
            .map_or_else(|| self.bg.clone(), Mat::clone);
        if !self.others.is_empty() {
            img = self.varied(img, idx, rng)?;
        }
        self.walls(&mut img, tile.walls, rng)?;
        self.price_badge(&mut img, tile.building, tile.price)?;
        match self.set {
            TileSet::Iso => rim(&mut img)?,
            TileSet::Plan => plan::cut_edge(&mut img)?,
        }
        opaque(&img)
    }

    /// One tile's own illustration of building `idx` (see [`ArtVariety::Varied`]): one of
    /// the sets, mirrored or not, shifted a little (the sand reflected in at the edge).
    fn varied(&self, first: Mat, idx: usize, rng: &mut fastrand::Rng) -> opencv::Result<Mat> {
        let pick = rng.usize(0..=self.others.len());
        let base = match pick.checked_sub(1) {
            Some(k) => self
                .others
                .get(k)
                .and_then(|set| set.get(idx))
                .map_or(first, Mat::clone),
            None => first,
        };
        let mut img = base;
        if rng.bool() {
            let mut flipped = Mat::default();
            opencv::core::flip(&img, &mut flipped, 1)?;
            img = flipped;
        }
        let shift = |rng: &mut fastrand::Rng| (2.0 * rng.f64() - 1.0) * self.most_shift * S;
        // Drawn even when centred, so that centred tiles show the pictures varied ones do.
        let (dx, dy) = (shift(rng), shift(rng));
        if self.most_shift == 0.0 {
            return Ok(img);
        }
        let m = Mat::from_slice_2d(&[[1.0, 0.0, dx], [0.0, 1.0, dy]])?;
        let mut moved = Mat::default();
        opencv::imgproc::warp_affine(
            &img,
            &mut moved,
            &m,
            img.size()?,
            opencv::imgproc::INTER_LINEAR,
            opencv::core::BORDER_REFLECT,
            opencv::core::Scalar::default(),
        )?;
        Ok(moved)
    }

    /// The fountain tile: a basin on a paved courtyard, corners in the player's colour
    /// (the second tile set's has no player's colour).
    pub fn fountain(&self, colour: Bgr) -> opencv::Result<Mat> {
        if self.set == TileSet::Plan {
            return opaque(&plan::fountain(&self.bg)?);
        }
        let mut img = self.bg.clone();
        let paving = [190.0, 205.0, 215.0];
        fill(
            &mut img,
            &[
                [16.0, 16.0],
                [S - 16.0, 16.0],
                [S - 16.0, S - 16.0],
                [16.0, S - 16.0],
            ],
            paving,
        )?;
        let joint = shade(paving, 0.8);
        let mut t = 16.0;
        while t <= S - 16.0 {
            line(&mut img, [t, 16.0], [t, S - 16.0], joint, 1)?;
            line(&mut img, [16.0, t], [S - 16.0, t], joint, 1)?;
            t += 20.0;
        }
        let c = [S / 2.0, S / 2.0];
        let ph = std::f64::consts::PI / 8.0;
        fill(&mut img, &regular(c, 62.0, 8, ph), [150.0, 160.0, 168.0])?;
        fill(&mut img, &regular(c, 58.0, 8, ph), [228.0, 234.0, 236.0])?;
        fill(&mut img, &regular(c, 50.0, 8, ph), [205.0, 150.0, 55.0])?;
        ellipse(
            &mut img,
            [c[0] - 12.0, c[1] - 14.0],
            [22.0, 10.0],
            -30.0,
            [235.0, 200.0, 130.0],
        )?;
        fill(&mut img, &regular(c, 20.0, 8, ph), [228.0, 234.0, 236.0])?;
        fill(&mut img, &regular(c, 15.0, 8, ph), [215.0, 170.0, 80.0])?;
        ellipse(&mut img, c, [6.0, 6.0], 0.0, [250.0, 250.0, 250.0])?;
        let leg = 40.0;
        for (x, y, dx, dy) in [
            (0.0, 0.0, 1.0, 1.0),
            (S, 0.0, -1.0, 1.0),
            (S, S, -1.0, -1.0),
            (0.0, S, 1.0, -1.0),
        ] {
            fill(
                &mut img,
                &[[x, y], [x + dx * leg, y], [x, y + dy * leg]],
                colour,
            )?;
            line(
                &mut img,
                [x + dx * leg, y],
                [x, y + dy * leg],
                shade(colour, 0.6),
                2,
            )?;
        }
        rim(&mut img)?;
        opaque(&img)
    }

    /// Stone bands along the walled sides, cut diagonally where two meet.
    fn walls(&self, img: &mut Mat, walls: Walls, rng: &mut fastrand::Rng) -> opencv::Result<()> {
        let w = self.wall_width;
        for side in walls.sides() {
            let before = walls.has(turn(side, 3));
            let after = walls.has(side.clockwise());
            // Band along the north side, then turned to `side`.
            let a = if before { w } else { 0.0 };
            let b = if after { S - w } else { S };
            let band = [[0.0, 0.0], [S, 0.0], [b, w], [a, w]];
            let poly: Vec<[f64; 2]> = band.iter().map(|&p| turn_point(p, side)).collect();
            fill(img, &poly, self.wall)?;
            if self.set == TileSet::Plan {
                for m in plan::merlons(a, b, w) {
                    let poly: Vec<[f64; 2]> = m.iter().map(|&p| turn_point(p, side)).collect();
                    fill(img, &poly, self.wall)?;
                }
            }
            // A lighter coping line on the inner edge and mortar joints between stones.
            let coping = [
                turn_point([a, w - 1.5], side),
                turn_point([b, w - 1.5], side),
            ];
            line(img, coping[0], coping[1], shade(self.wall, 1.5), 2)?;
            let joint = shade(self.wall, 0.6);
            let mid = [
                turn_point([a.max(3.0), w * 0.5], side),
                turn_point([b.min(S - 3.0), w * 0.5], side),
            ];
            line(img, mid[0], mid[1], joint, 1)?;
            let mut x = 8.0 + rng.f64() * 6.0;
            let mut row = 0;
            while x < S - 6.0 {
                let (y0, y1) = if row % 2 == 0 {
                    (1.0, w * 0.5)
                } else {
                    (w * 0.5, w - 2.0)
                };
                if x > a + 2.0 && x < b - 2.0 {
                    line(
                        img,
                        turn_point([x, y0], side),
                        turn_point([x, y1], side),
                        joint,
                        1,
                    )?;
                }
                x += 7.0 + rng.f64() * 5.0;
                row += 1;
            }
            for _ in 0..24 {
                let p = [a + rng.f64() * (b - a), 1.0 + rng.f64() * (w - 3.0)];
                let c = if rng.bool() {
                    shade(self.wall, 1.25)
                } else {
                    shade(self.wall, 0.75)
                };
                ellipse(img, turn_point(p, side), [0.8, 0.8], 0.0, c)?;
            }
        }
        Ok(())
    }

    /// The price badge in the type's colour: octagonal in the lower-right corner (round in
    /// the upper left in the second tile set).
    fn price_badge(&self, img: &mut Mat, b: Building, price: u8) -> opencv::Result<()> {
        let col = self.badge[b as usize];
        let c = match self.set {
            TileSet::Iso => {
                let c = [S * 0.82, S * 0.82];
                let ph = std::f64::consts::PI / 8.0;
                fill(img, &regular(c, 20.0, 8, ph), [235.0, 240.0, 240.0])?;
                fill(img, &regular(c, 17.5, 8, ph), col)?;
                outline(img, &regular(c, 20.0, 8, ph), [40.0, 50.0, 60.0], 1)?;
                c
            }
            TileSet::Plan => {
                let c = [S * 0.2, S * 0.2];
                ellipse(img, c, [18.0, 18.0], 0.0, [40.0, 40.0, 40.0])?;
                ellipse(img, c, [16.0, 16.0], 0.0, col)?;
                c
            }
        };
        let text = price.to_string();
        let font = imgproc::FONT_HERSHEY_DUPLEX;
        let scale = 0.72;
        let mut base = 0;
        let size = imgproc::get_text_size(&text, font, scale, 2, &mut base)?;
        let org = Point::new(
            (c[0] - f64::from(size.width) / 2.0).round() as i32,
            (c[1] + f64::from(size.height) / 2.0).round() as i32,
        );
        let light = col.iter().sum::<f64>() > 600.0;
        let ink = if light {
            [30.0, 30.0, 30.0]
        } else {
            [250.0, 250.0, 250.0]
        };
        imgproc::put_text(
            img,
            &text,
            org,
            font,
            scale,
            sc(ink),
            2,
            imgproc::LINE_AA,
            false,
        )
    }
}

/// The side a number of quarter turns clockwise from `s`.
fn turn(s: Side, quarters: u8) -> Side {
    (0..quarters).fold(s, |s, _| s.clockwise())
}

/// A point of the north band turned to lie along `side` (texture coordinates).
fn turn_point(p: [f64; 2], side: Side) -> [f64; 2] {
    match side {
        Side::North => p,
        Side::East => [S - p[1], p[0]],
        Side::South => [S - p[0], S - p[1]],
        Side::West => [p[1], S - p[0]],
    }
}

/// The worn, darker cut edge of a cardboard tile.
fn rim(img: &mut Mat) -> opencv::Result<()> {
    let poly = [
        [0.5, 0.5],
        [S - 0.5, 0.5],
        [S - 0.5, S - 0.5],
        [0.5, S - 0.5],
    ];
    outline(img, &poly, [70.0, 95.0, 115.0], 2)?;
    let inner = [
        [2.5, 2.5],
        [S - 2.5, 2.5],
        [S - 2.5, S - 2.5],
        [2.5, S - 2.5],
    ];
    outline(img, &inner, [150.0, 205.0, 235.0], 1)
}

/// Pixels per millimetre of the card, board and sheet textures.
pub(crate) const PRINT_PX_PER_MM: f64 = 2.4;

/// Colour of a currency (BGR).
fn currency_colour(c: Currency) -> Bgr {
    match c {
        Currency::Yellow => [40.0, 205.0, 240.0],
        Currency::Green => [70.0, 160.0, 60.0],
        Currency::Blue => [205.0, 125.0, 40.0],
        Currency::Orange => [30.0, 125.0, 240.0],
    }
}

/// Width and height of a money card, millimetres.
pub(crate) const CARD_MM: [f64; 2] = [56.0, 87.0];

/// A money card (face up) or its back (`None`), BGRA with transparent rounded corners.
pub(crate) fn card(card: Option<MoneyCard>) -> opencv::Result<Mat> {
    let (w, h) = (
        (CARD_MM[0] * PRINT_PX_PER_MM).round(),
        (CARD_MM[1] * PRINT_PX_PER_MM).round(),
    );
    let mut img = solid(w as i32, h as i32, core::CV_8UC4, Scalar::all(0.0))?;
    let r = 8.0;
    let rounded = rounded_rect(0.0, 0.0, w - 1.0, h - 1.0, r);
    match card {
        Some(m) => {
            let col = currency_colour(m.currency);
            fill(&mut img, &rounded, [245.0, 248.0, 248.0])?;
            fill(
                &mut img,
                &rounded_rect(6.0, 6.0, w - 7.0, h - 7.0, r - 3.0),
                col,
            )?;
            fill(
                &mut img,
                &rounded_rect(20.0, 36.0, w - 21.0, h - 37.0, 6.0),
                mix(col, [255.0, 255.0, 255.0], 0.45),
            )?;
            ellipse(
                &mut img,
                [w / 2.0, h / 2.0],
                [w * 0.28, w * 0.28],
                0.0,
                shade(col, 0.75),
            )?;
            ellipse(
                &mut img,
                [w / 2.0, h / 2.0],
                [w * 0.23, w * 0.23],
                0.0,
                mix(col, [0.0, 215.0, 255.0], 0.5),
            )?;
            let text = m.value.to_string();
            let font = imgproc::FONT_HERSHEY_TRIPLEX;
            for (x, y, s) in [
                (12.0, 30.0, 0.9),
                (w - 30.0, h - 12.0, 0.9),
                (w / 2.0 - 12.0, h / 2.0 + 13.0, 1.3),
            ] {
                imgproc::put_text(
                    &mut img,
                    &text,
                    Point::new(x as i32, y as i32),
                    font,
                    s,
                    sc([30.0, 30.0, 30.0]),
                    2,
                    imgproc::LINE_AA,
                    false,
                )?;
            }
        }
        None => {
            let back = [60.0, 40.0, 95.0];
            fill(&mut img, &rounded, [230.0, 235.0, 235.0])?;
            fill(
                &mut img,
                &rounded_rect(5.0, 5.0, w - 6.0, h - 6.0, r - 3.0),
                back,
            )?;
            let mut y = 14.0;
            while y < h - 10.0 {
                let mut x = 14.0 + if ((y as i32) / 16) % 2 == 0 { 0.0 } else { 8.0 };
                while x < w - 10.0 {
                    fill(
                        &mut img,
                        &regular([x, y], 5.0, 4, 0.0),
                        [70.0, 150.0, 200.0],
                    )?;
                    x += 16.0;
                }
                y += 16.0;
            }
        }
    }
    Ok(img)
}

/// A rectangle with rounded corners as a polygon.
fn rounded_rect(x0: f64, y0: f64, x1: f64, y1: f64, r: f64) -> Vec<[f64; 2]> {
    let mut p = Vec::with_capacity(28);
    let corners = [
        (x1 - r, y0 + r, -90.0),
        (x1 - r, y1 - r, 0.0),
        (x0 + r, y1 - r, 90.0),
        (x0 + r, y0 + r, 180.0),
    ];
    for (cx, cy, start) in corners {
        for k in 0..=6 {
            let a = (start + 15.0 * f64::from(k)).to_radians();
            p.push([cx + r * a.cos(), cy + r * a.sin()]);
        }
    }
    p
}

/// The market board: four spaces framed in the currencies' colours, for tiles of
/// `tile_mm`. Returns the texture and its size in millimetres.
pub(crate) fn market(tile_mm: f64, rng: &mut fastrand::Rng) -> opencv::Result<(Mat, [f64; 2])> {
    let space = tile_mm + 10.0;
    let size_mm = [4.0 * space + 14.0, space + 26.0];
    let k = PRINT_PX_PER_MM;
    let (w, h) = (
        (size_mm[0] * k).round() as i32,
        (size_mm[1] * k).round() as i32,
    );
    let base = jitter([40.0, 55.0, 120.0], 0.08, rng);
    let mut img = solid(w, h, core::CV_8UC3, sc(base))?;
    let n = noise_field(w, h, 20, 6, rng)?;
    add_noise(&mut img, &n, 10.0)?;
    // Ornament: a lattice of lighter diamonds.
    let mut x = 8.0;
    while x < f64::from(w) {
        let mut y = 8.0;
        while y < f64::from(h) {
            outline(&mut img, &regular([x, y], 6.0, 4, 0.0), shade(base, 1.4), 1)?;
            y += 16.0;
        }
        x += 16.0;
    }
    outline(
        &mut img,
        &[
            [3.0, 3.0],
            [f64::from(w) - 4.0, 3.0],
            [f64::from(w) - 4.0, f64::from(h) - 4.0],
            [3.0, f64::from(h) - 4.0],
        ],
        [60.0, 170.0, 210.0],
        3,
    )?;
    for (i, c) in Currency::ALL.into_iter().enumerate() {
        let x0 = (7.0 + space * i as f64) * k;
        let y0 = 20.0 * k;
        let poly = [
            [x0, y0],
            [x0 + space * k, y0],
            [x0 + space * k, y0 + space * k],
            [x0, y0 + space * k],
        ];
        fill(&mut img, &poly, currency_colour(c))?;
        let inset = 3.0 * k;
        let inner = [
            [x0 + inset, y0 + inset],
            [x0 + space * k - inset, y0 + inset],
            [x0 + space * k - inset, y0 + space * k - inset],
            [x0 + inset, y0 + space * k - inset],
        ];
        fill(
            &mut img,
            &inner,
            mix(currency_colour(c), [230.0, 230.0, 230.0], 0.5),
        )?;
        ellipse(
            &mut img,
            [x0 + space * k / 2.0, y0 - 8.0 * k],
            [6.0 * k, 6.0 * k],
            0.0,
            currency_colour(c),
        )?;
    }
    Ok((opaque(&img)?, size_mm))
}

/// Centre of market space `i` relative to the board's centre, millimetres (x along the
/// board, y towards its "south").
pub(crate) fn market_space(tile_mm: f64, i: usize) -> [f64; 2] {
    let space = tile_mm + 10.0;
    let size = [4.0 * space + 14.0, space + 26.0];
    [
        7.0 + space * (i as f64 + 0.5) - size[0] / 2.0,
        20.0 + space / 2.0 - size[1] / 2.0,
    ]
}

/// Where the markers of a sheet lie: pixels per millimetre of its texture, the pixel size
/// of each marker cell, the texture size and the top-left pixel of each marker.
pub(crate) struct SheetGeometry {
    /// Texture pixels per millimetre.
    pub px_per_mm: f64,
    /// Pixels per marker cell (a marker is 6 cells wide with its border).
    pub cell: i32,
    /// Texture size in pixels.
    pub size_px: [i32; 2],
    /// Top-left pixel of each marker.
    pub origins: Vec<[i32; 2]>,
}

impl SheetGeometry {
    /// The layout of `n` markers of `marker_mm` side by side with `margin_mm` around each.
    pub fn new(n: usize, marker_mm: f64, margin_mm: f64) -> SheetGeometry {
        let n = n.max(1);
        // Whole pixels per marker cell keep the print crisp.
        let cell = ((marker_mm * PRINT_PX_PER_MM * 1.5 / 6.0).round() as i32).max(4);
        let px_per_mm = f64::from(cell * 6) / marker_mm;
        let margin = (margin_mm * px_per_mm).round() as i32;
        let side = cell * 6;
        let n32 = n as i32;
        let size_px = [n32 * side + (n32 + 1) * margin, side + 2 * margin];
        let origins = (0..n32)
            .map(|i| [margin + i * (side + margin), margin])
            .collect();
        SheetGeometry {
            px_per_mm,
            cell,
            size_px,
            origins,
        }
    }

    /// Sheet size in millimetres.
    pub fn size_mm(&self) -> [f64; 2] {
        [
            f64::from(self.size_px[0]) / self.px_per_mm,
            f64::from(self.size_px[1]) / self.px_per_mm,
        ]
    }

    /// Centre of marker `i` relative to the sheet's centre, millimetres.
    pub fn centre_mm(&self, i: usize) -> [f64; 2] {
        let o = self.origins.get(i).copied().unwrap_or([0, 0]);
        let half = f64::from(self.cell * 6) / 2.0;
        [
            (f64::from(o[0]) + half - f64::from(self.size_px[0]) / 2.0) / self.px_per_mm,
            (f64::from(o[1]) + half - f64::from(self.size_px[1]) / 2.0) / self.px_per_mm,
        ]
    }
}

/// A sheet of paper with ArUco markers (DICT_4X4_50) laid out by [`SheetGeometry`], with
/// a small caption under each (BGRA).
pub(crate) fn marker_sheet(
    ids: &[i32],
    g: &SheetGeometry,
    marker_mm: f64,
    rng: &mut fastrand::Rng,
) -> opencv::Result<Mat> {
    let [w, h] = g.size_px;
    let paper = jitter([236.0, 240.0, 242.0], 0.03, rng);
    let mut img = solid(w, h, core::CV_8UC3, sc(paper))?;
    let dict = aruco::get_predefined_dictionary(aruco::PREDEFINED_DICTIONARY_NAME::DICT_4X4_50)?;
    let side = g.cell * 6;
    for (&id, o) in ids.iter().zip(&g.origins) {
        let mut m = Mat::default();
        aruco::draw_marker(&dict, id, side, &mut m, 1)?;
        let mut bgr = Mat::default();
        imgproc::cvt_color(&m, &mut bgr, imgproc::COLOR_GRAY2BGR, 0)?;
        if o[0] + side <= w && o[1] + side <= h {
            let mut roi = Mat::roi_mut(&mut img, core::Rect::new(o[0], o[1], side, side))?;
            bgr.copy_to(&mut roi)?;
        }
        let label = format!("id {id}  {marker_mm:.0} mm");
        let below = (h - o[1] - side).max(4);
        let org = Point::new(o[0], o[1] + side + below * 3 / 4);
        imgproc::put_text(
            &mut img,
            &label,
            org,
            imgproc::FONT_HERSHEY_SIMPLEX,
            f64::from(below) / 60.0,
            sc([150.0, 150.0, 150.0]),
            1,
            imgproc::LINE_AA,
            false,
        )?;
    }
    let grain = noise_field(w, h, w / 8, h / 8, rng)?;
    add_noise(&mut img, &grain, 3.0)?;
    opaque(&img)
}

/// The table surface seen from above: `w` x `h` pixels at `px_per_mm`, wood planks with
/// grain running along the x axis, or cloth.
pub(crate) fn table(
    w: i32,
    h: i32,
    px_per_mm: f64,
    rng: &mut fastrand::Rng,
) -> opencv::Result<Mat> {
    let kind = rng.u8(0..10);
    let mm = |v: f64| (v * px_per_mm).max(1.0);
    if kind < 7 {
        // Wood: planks along x, each with its own tone, streaky grain and knots.
        let woods: [Bgr; 5] = [
            [95.0, 140.0, 185.0],
            [60.0, 95.0, 140.0],
            [40.0, 60.0, 95.0],
            [120.0, 165.0, 200.0],
            [70.0, 110.0, 150.0],
        ];
        let base = jitter(woods[rng.usize(0..woods.len())], 0.08, rng);
        let mut img = solid(w, h, core::CV_8UC3, sc(base))?;
        let grain_across =
            noise_field(w, h, (w / 40).max(2), (f64::from(h) / mm(1.2)) as i32, rng)?;
        let grain_fine = noise_field(w, h, (w / 12).max(2), (f64::from(h) / mm(0.5)) as i32, rng)?;
        let blotch = noise_field(
            w,
            h,
            (f64::from(w) / mm(120.0)) as i32 + 2,
            (f64::from(h) / mm(40.0)) as i32 + 2,
            rng,
        )?;
        let plank = mm(90.0 + rng.f64() * 80.0);
        let planks = (f64::from(h) / plank).ceil() as usize + 1;
        let tones: Vec<f32> = (0..planks).map(|_| 0.85 + 0.3 * rng.f32()).collect();
        let ga = grain_across.data_typed::<f32>()?.to_vec();
        let gf = grain_fine.data_typed::<f32>()?.to_vec();
        let bl = blotch.data_typed::<f32>()?.to_vec();
        let data = img.data_bytes_mut()?;
        let seam = mm(1.0) as f32;
        for y in 0..h as usize {
            let pi = (y as f64 / plank) as usize;
            let tone = tones.get(pi).copied().unwrap_or(1.0);
            let within = (y as f64 - pi as f64 * plank) as f32;
            let edge = within.min(plank as f32 - within);
            let seam_dark = if edge < seam {
                0.45 + 0.35 * edge / seam
            } else {
                1.0
            };
            for x in 0..w as usize {
                let i = y * w as usize + x;
                let g = 1.0 + 0.12 * ga[i] + 0.06 * gf[i] + 0.08 * bl[i];
                let f = g * tone * seam_dark;
                for c in 0..3 {
                    let v = &mut data[i * 3 + c];
                    *v = (f32::from(*v) * f).clamp(0.0, 255.0) as u8;
                }
            }
        }
        Ok(img)
    } else {
        // Cloth: felt or linen with a fine weave and soft folds.
        let cloths: [Bgr; 5] = [
            [60.0, 110.0, 40.0],
            [120.0, 70.0, 40.0],
            [70.0, 70.0, 72.0],
            [150.0, 185.0, 205.0],
            [60.0, 50.0, 130.0],
        ];
        let base = jitter(cloths[rng.usize(0..cloths.len())], 0.08, rng);
        let mut img = solid(w, h, core::CV_8UC3, sc(base))?;
        let folds = noise_field(
            w,
            h,
            (f64::from(w) / mm(150.0)) as i32 + 2,
            (f64::from(h) / mm(150.0)) as i32 + 2,
            rng,
        )?;
        add_noise(&mut img, &folds, 14.0)?;
        let weave = noise_field(
            w,
            h,
            (f64::from(w) / mm(0.8)) as i32,
            (f64::from(h) / mm(0.8)) as i32,
            rng,
        )?;
        add_noise(&mut img, &weave, 9.0)?;
        Ok(img)
    }
}
