//! One table scene from a seed: the Alhambras and the clutter laid out in millimetres, a
//! camera fitted so every Alhambra is in view at the wanted tile size, and the painting of
//! it all onto the undistorted canvas.

use super::art::{self, CARD_MM, PLAYER_COLOURS, TileArt};
use super::camera::{Camera, Pose, monotonic};
use super::draw::{Bgr, jitter, shade};
use super::layout::{
    self, Grown, PlayerLayout, Poly, TableTile, any_too_close, centroid, rect, slide_in, square,
};
use super::params::{Ranges, Span, between, normal};
use super::raster::{self, Cup, Hand, blit, darken, hull, low_mask, mask_poly, soften};
use super::{ArtVariety, Difficulty, TileSet, WallLook};
use alhambra_engine::{MoneyCard, Tile, catalogue, money_cards};
use opencv::core::{Mat, Point2f, Scalar, Size, Vector};
use opencv::{core, imgproc};
use std::f64::consts::{PI, TAU};

/// A sheet of markers on the table.
#[derive(Debug, Clone)]
pub(crate) struct Sheet {
    /// Marker ids, left to right.
    pub ids: Vec<i32>,
    /// Centre, millimetres.
    pub center: [f64; 2],
    /// Direction of the sheet's x axis.
    pub angle: f64,
    /// White margin around each marker, millimetres.
    pub margin: f64,
}

impl Sheet {
    fn geometry(&self, marker_mm: f64) -> art::SheetGeometry {
        art::SheetGeometry::new(self.ids.len(), marker_mm, self.margin)
    }

    fn size(&self, marker_mm: f64) -> [f64; 2] {
        self.geometry(marker_mm).size_mm()
    }

    fn poly(&self, marker_mm: f64) -> Poly {
        let s = self.size(marker_mm);
        rect(self.center, self.angle, s[0], s[1]).to_vec()
    }
}

/// A money card on the table.
#[derive(Debug, Clone)]
struct CardOnTable {
    card: Option<MoneyCard>,
    center: [f64; 2],
    angle: f64,
}

/// The market board on the table.
#[derive(Debug, Clone)]
struct Market {
    center: [f64; 2],
    angle: f64,
    size: [f64; 2],
    texture: Mat,
}

/// The cup.
#[derive(Debug, Clone)]
struct CupSpec {
    center: [f64; 2],
    radius: f64,
    height: f64,
    colour: Bgr,
    content: Bgr,
    handle: f64,
}

/// A hand reaching over an Alhambra.
#[derive(Debug, Clone)]
struct HandSpec {
    /// Palm centre over the table, millimetres, and its height.
    palm: [f64; 3],
    /// Where the arm enters, photo pixels (outside the frame).
    entry: [f64; 2],
    skin: Bgr,
    sleeve: Option<Bgr>,
    right: bool,
    curl: [f64; 5],
    spread: f64,
}

/// Everything on the table and the camera looking at it.
pub(crate) struct Scene {
    /// Tile side, millimetres.
    pub tile_mm: f64,
    /// Tile thickness, millimetres.
    pub thickness: f64,
    /// One per player.
    pub players: Vec<PlayerLayout>,
    /// Marker sheets (the first is always fully in view).
    pub sheets: Vec<Sheet>,
    /// Printed side of each marker, millimetres.
    pub marker_mm: f64,
    /// Reserve tiles and market tiles.
    loose: Vec<TableTile>,
    cards: Vec<CardOnTable>,
    market: Option<Market>,
    cup: Option<CupSpec>,
    hand: Option<HandSpec>,
    /// Horizontal shadow displacement per millimetre of height.
    light: [f64; 2],
    /// The camera.
    pub camera: Camera,
    /// Tilt in degrees (for the labels).
    pub tilt_deg: f64,
    /// Yaw in degrees (for the labels).
    pub yaw_deg: f64,
}

fn angle_of(v: [f64; 2]) -> f64 {
    v[1].atan2(v[0])
}

fn unit(a: f64) -> [f64; 2] {
    [a.cos(), a.sin()]
}

/// The camera's intrinsics and pose angles, drawn before the layout.
struct Optics {
    f: f64,
    cx: f64,
    cy: f64,
    k1: f64,
    k2: f64,
    tilt: f64,
    yaw: f64,
    width: i32,
    height: i32,
}

impl Optics {
    fn draw(r: &Ranges, width: i32, height: i32, rng: &mut fastrand::Rng) -> Optics {
        let (w, h) = (f64::from(width), f64::from(height));
        let hfov = r.hfov_deg.draw(rng).to_radians();
        let f = (w / 2.0) / (hfov / 2.0).tan();
        let cx = (w - 1.0) / 2.0 + normal(rng) * 0.01 * w;
        let cy = (h - 1.0) / 2.0 + normal(rng) * 0.01 * h;
        let mut k1 = r.k1.draw(rng);
        let mut k2 = k1 * Span(-0.4, 0.6).draw(rng);
        let corner = ((w * w + h * h).sqrt() / 2.0 / f) * 1.7;
        while !monotonic(k1, k2, corner) {
            k1 *= 0.8;
            k2 *= 0.8;
        }
        // Tilt: hard scenes lean towards the steep end of their range.
        let t = rng.f64();
        let t = if r.tilt_deg.1 > 40.0 { t.sqrt() } else { t };
        let tilt = (r.tilt_deg.0 + (r.tilt_deg.1 - r.tilt_deg.0) * t).to_radians();
        let yaw = rng.f64() * TAU;
        Optics {
            f,
            cx,
            cy,
            k1,
            k2,
            tilt,
            yaw,
            width,
            height,
        }
    }

    fn camera(&self, target: [f64; 2], dist: f64) -> Camera {
        let pose = Pose {
            target,
            tilt: self.tilt,
            yaw: self.yaw,
            dist,
        };
        Camera::new(
            pose,
            self.f,
            self.cx,
            self.cy,
            self.k1,
            self.k2,
            self.width,
            self.height,
        )
    }
}

/// Median over a list (0 for none).
fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Mean side length of a quad.
fn quad_size(q: &[[f64; 2]; 4]) -> f64 {
    (0..4)
        .map(|i| {
            ((q[i][0] - q[(i + 1) % 4][0]).powi(2) + (q[i][1] - q[(i + 1) % 4][1]).powi(2)).sqrt()
        })
        .sum::<f64>()
        / 4.0
}

/// Fits the camera distance and target so that every point is inside the photo with a
/// margin; returns `None` when it cannot be done.
fn fit(
    optics: &Optics,
    points: &[[f64; 3]],
    want_px: f64,
    tile_mm: f64,
    rng: &mut fastrand::Rng,
) -> Option<Camera> {
    let (w, h) = (f64::from(optics.width), f64::from(optics.height));
    let margin = 0.045 * w.min(h);
    let mut dist = optics.f * tile_mm / want_px;
    let mut target = centroid(points.iter().map(|p| [p[0], p[1]]));
    let bbox = |cam: &Camera| -> Option<([f64; 2], [f64; 2])> {
        let mut lo = [f64::MAX; 2];
        let mut hi = [f64::MIN; 2];
        for &p in points {
            let q = cam.project(p)?;
            for k in 0..2 {
                lo[k] = lo[k].min(q[k]);
                hi[k] = hi[k].max(q[k]);
            }
        }
        Some((lo, hi))
    };
    let inside = |lo: [f64; 2], hi: [f64; 2], m: f64| {
        lo[0] >= m && lo[1] >= m && hi[0] <= w - 1.0 - m && hi[1] <= h - 1.0 - m
    };
    for _ in 0..40 {
        let cam = optics.camera(target, dist);
        let Some((lo, hi)) = bbox(&cam) else {
            dist *= 1.4;
            continue;
        };
        let ratio =
            ((hi[0] - lo[0]) / (w - 2.0 * margin)).max((hi[1] - lo[1]) / (h - 2.0 * margin));
        let centre = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
        let off = ((centre[0] - optics.cx).powi(2) + (centre[1] - optics.cy).powi(2)).sqrt();
        if inside(lo, hi, margin) && off < 0.03 * w {
            // Use some of the slack: scenes are not always centred.
            let slack = [
                ((w - 2.0 * margin) - (hi[0] - lo[0])) / 2.0,
                ((h - 2.0 * margin) - (hi[1] - lo[1])) / 2.0,
            ];
            let shift = [
                slack[0] * (rng.f64() * 1.4 - 0.7),
                slack[1] * (rng.f64() * 1.4 - 0.7),
            ];
            let aim = cam.undistort_px([optics.cx - shift[0], optics.cy - shift[1]]);
            if let Some(t2) = cam.on_plane(aim, 0.0) {
                let moved = optics.camera(t2, dist);
                if let Some((lo2, hi2)) = bbox(&moved)
                    && inside(lo2, hi2, margin * 0.7)
                {
                    return Some(moved);
                }
            }
            return Some(cam);
        }
        if ratio > 0.999 {
            dist *= ratio.max(1.01) * 1.01;
        }
        if let Some(t) = cam.on_plane(cam.undistort_px(centre), 0.0) {
            target = t;
        }
    }
    None
}

impl Scene {
    /// Every Alhambra laid loosely (see [`super::Laying::Loose`]).
    pub fn loosen(&mut self, rng: &mut fastrand::Rng) {
        for p in &mut self.players {
            p.loosen(rng);
        }
    }

    /// Lays out a scene and fits its camera.
    pub fn build(
        difficulty: Difficulty,
        players: u8,
        width: i32,
        height: i32,
        rng: &mut fastrand::Rng,
    ) -> Scene {
        let r = Ranges::of(difficulty);
        let tile_mm = 45.0 + rng.f64() * 10.0;
        let thickness = 1.8 + rng.f64() * 0.6;
        let pitch = tile_mm + 0.2 + rng.f64() * 0.9;
        let optics = Optics::draw(&r, width, height, rng);
        let want_px = r.tile_px.draw(rng);
        let cells = f64::from(width) * f64::from(height) / (want_px * want_px);
        let mut budget = (cells * 0.2).clamp(f64::from(players), 200.0);
        let marker_mm = if rng.f64() < 0.75 {
            40.0
        } else {
            [30.0, 50.0, 60.0][rng.usize(0..3)]
        };
        let right = {
            let probe = optics.camera([0.0, 0.0], 1000.0);
            angle_of(probe.table_right())
        };
        let mut best: Option<(Vec<PlayerLayout>, Sheet, Vec<Tile>, Camera)> = None;
        for attempt in 0..10 {
            let mut deck: Vec<Tile> = catalogue().to_vec();
            rng.shuffle(&mut deck);
            let per = budget / f64::from(players);
            let mut laid: Vec<PlayerLayout> = Vec::new();
            let mut polys: Vec<Poly> = Vec::new();
            for p in 0..players {
                let cap = (2.0 * per).round().clamp(0.0, 30.0) as usize;
                let n = rng.usize(0..=cap).min(deck.len());
                let grown: Grown = layout::grow(&mut deck, n, rng);
                let angle = rng.f64() * TAU;
                let mut pl = layout::lay(
                    &grown,
                    tile_mm,
                    pitch,
                    angle,
                    r.placement_jitter,
                    usize::from(p) % PLAYER_COLOURS.len(),
                    rng,
                );
                let body = pl.polys(tile_mm);
                if !polys.is_empty() {
                    let gap = if rng.f64() < r.close_pair {
                        1.5 + rng.f64() * 4.5
                    } else {
                        20.0 + rng.f64() * 100.0
                    };
                    let side = if rng.bool() { 0.0 } else { PI };
                    let dir = if rng.f64() < 0.25 {
                        rng.f64() * TAU
                    } else {
                        right + side + normal(rng) * 0.45
                    };
                    let anchor = centroid(polys.iter().flat_map(|q| q.iter().copied()));
                    let d = slide_in(&body, unit(dir), anchor, &polys, gap);
                    pl.shift(d);
                }
                polys.extend(pl.polys(tile_mm));
                laid.push(pl);
            }
            // The marker sheet beside them.
            let n_ids = if rng.f64() < 0.7 { 1 } else { 2 };
            let mut ids: Vec<i32> = Vec::new();
            while ids.len() < n_ids {
                let id = rng.i32(0..50);
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            let mut sheet = Sheet {
                ids,
                center: [0.0, 0.0],
                angle: rng.f64() * TAU,
                margin: 8.0 + rng.f64() * 8.0,
            };
            let body = vec![sheet.poly(marker_mm)];
            let anchor = centroid(polys.iter().flat_map(|q| q.iter().copied()));
            let dir = if rng.f64() < 0.5 {
                rng.f64() * TAU
            } else {
                right + if rng.bool() { 0.0 } else { PI } + normal(rng) * 0.5
            };
            let d = slide_in(&body, unit(dir), anchor, &polys, 15.0 + rng.f64() * 80.0);
            sheet.center = [d[0], d[1]];
            let mut points: Vec<[f64; 3]> = polys
                .iter()
                .flat_map(|q| q.iter().map(|p| [p[0], p[1], thickness]))
                .collect();
            points.extend(sheet.poly(marker_mm).iter().map(|p| [p[0], p[1], 0.0]));
            let Some(cam) = fit(&optics, &points, want_px, tile_mm, rng) else {
                // Too much to frame at this tile size: fewer tiles next time, rather than
                // ending in the one-fountain fallback (a scene must have its 2-6 players).
                budget *= 0.6;
                continue;
            };
            let px = median(
                laid.iter()
                    .flat_map(|pl| pl.tiles.iter())
                    .filter_map(|(_, _, t)| {
                        let q = t
                            .corners(tile_mm)
                            .map(|c| cam.project([c[0], c[1], thickness]));
                        Some(quad_size(&[q[0]?, q[1]?, q[2]?, q[3]?]))
                    })
                    .collect(),
            );
            let good = px >= r.tile_px.0 * 0.9 || attempt == 9;
            best = Some((laid, sheet, deck, cam));
            if good {
                break;
            }
            budget *= 0.6;
        }
        let (players_laid, sheet, mut deck, camera) = match best {
            Some(b) => b,
            None => {
                // Could not fit anything: a lone fountain per player far apart never fails,
                // but keep a safe fallback anyway (one fountain, one marker).
                let grown = layout::grow(&mut Vec::new(), 0, rng);
                let pl = layout::lay(&grown, tile_mm, pitch, 0.0, (0.0, 0.0), 0, rng);
                let sheet = Sheet {
                    ids: vec![0],
                    center: [0.0, 120.0],
                    angle: 0.0,
                    margin: 10.0,
                };
                let cam = optics.camera([0.0, 60.0], 1500.0);
                (vec![pl], sheet, Vec::new(), cam)
            }
        };
        let light_az = rng.f64() * TAU;
        let light_slope = 0.25 + rng.f64() * 0.7;
        let mut scene = Scene {
            tile_mm,
            thickness,
            players: players_laid,
            sheets: vec![sheet],
            marker_mm,
            loose: Vec::new(),
            cards: Vec::new(),
            market: None,
            cup: None,
            hand: None,
            light: [light_az.cos() * light_slope, light_az.sin() * light_slope],
            tilt_deg: optics.tilt.to_degrees(),
            yaw_deg: optics.yaw.to_degrees(),
            camera,
        };
        scene.add_clutter(&r, &mut deck, rng);
        if rng.f64() < r.hand {
            scene.add_hand(rng);
        }
        scene
    }

    fn alhambra_polys(&self) -> Vec<Poly> {
        self.players
            .iter()
            .flat_map(|p| p.polys(self.tile_mm))
            .collect()
    }

    /// A random table point seen in the photo (`margin` as a fraction of the frame; negative
    /// keeps away from the edges).
    fn view_point(&self, margin: f64, rng: &mut fastrand::Rng) -> Option<[f64; 2]> {
        let (w, h) = (f64::from(self.camera.width), f64::from(self.camera.height));
        let x = -margin * w + rng.f64() * w * (1.0 + 2.0 * margin);
        let y = -margin * h + rng.f64() * h * (1.0 + 2.0 * margin);
        self.camera.on_plane(self.camera.undistort_px([x, y]), 0.0)
    }

    fn in_view(&self, p: [f64; 2], slack: f64) -> bool {
        let (w, h) = (f64::from(self.camera.width), f64::from(self.camera.height));
        self.camera.project([p[0], p[1], 0.0]).is_some_and(|q| {
            q[0] > -slack * w
                && q[1] > -slack * h
                && q[0] < w * (1.0 + slack)
                && q[1] < h * (1.0 + slack)
        })
    }

    fn add_clutter(&mut self, r: &Ranges, deck: &mut Vec<Tile>, rng: &mut fastrand::Rng) {
        let al = self.alhambra_polys();
        let mut blocked: Vec<Poly> = self.sheets.iter().map(|s| s.poly(self.marker_mm)).collect();
        // A second marker sheet somewhere free, sometimes.
        if rng.f64() < 0.3 {
            for _ in 0..30 {
                let Some(c) = self.view_point(-0.08, rng) else {
                    continue;
                };
                let mut id = rng.i32(0..50);
                while self.sheets.iter().any(|s| s.ids.contains(&id)) {
                    id = (id + 1) % 50;
                }
                let s = Sheet {
                    ids: vec![id],
                    center: c,
                    angle: rng.f64() * TAU,
                    margin: 8.0 + rng.f64() * 8.0,
                };
                let p = vec![s.poly(self.marker_mm)];
                if !any_too_close(&p, &al, 15.0) && !any_too_close(&p, &blocked, 10.0) {
                    blocked.extend(p);
                    self.sheets.push(s);
                    break;
                }
            }
        }
        // Loose reserve tiles beside each Alhambra, some at odd angles.
        let mut loose_polys: Vec<Poly> = Vec::new();
        for pi in 0..self.players.len() {
            let extra = between(rng, r.reserve.0, r.reserve.1);
            let mut tiles: Vec<Tile> = self.players[pi].unplaced.clone();
            for _ in 0..extra {
                if let Some(t) = deck.pop() {
                    tiles.push(t);
                }
            }
            tiles.truncate(6);
            let base_angle = self.players[pi].tiles.first().map_or(0.0, |t| t.2.angle);
            let centre = self.players[pi].centroid();
            for t in tiles {
                let angle = if rng.bool() {
                    base_angle + normal(rng) * 0.05
                } else {
                    rng.f64() * TAU
                };
                let body = vec![square([0.0, 0.0], angle, self.tile_mm).to_vec()];
                let mut others = al.clone();
                others.extend(blocked.iter().cloned());
                others.extend(loose_polys.iter().cloned());
                let d = slide_in(
                    &body,
                    unit(rng.f64() * TAU),
                    centre,
                    &others,
                    r.reserve_gap.draw(rng),
                );
                let tt = TableTile {
                    tile: Some(t),
                    center: d,
                    angle,
                    base_z: 0.0,
                };
                if self.in_view(d, 0.05) {
                    loose_polys.push(tt.corners(self.tile_mm).to_vec());
                    self.loose.push(tt);
                }
            }
        }
        blocked.extend(loose_polys);
        // The market board with its tiles.
        if rng.f64() < 0.6 {
            let mut tex_rng = fastrand::Rng::with_seed(rng.u64(..));
            if let Ok((texture, size)) = art::market(self.tile_mm, &mut tex_rng) {
                for _ in 0..40 {
                    let Some(c) = self.view_point(0.05, rng) else {
                        continue;
                    };
                    let angle = rng.f64() * TAU;
                    let poly = vec![rect(c, angle, size[0], size[1]).to_vec()];
                    if any_too_close(&poly, &al, 12.0) || any_too_close(&poly, &blocked, 5.0) {
                        continue;
                    }
                    blocked.extend(poly);
                    for i in 0..4 {
                        if rng.f64() < 0.15 {
                            continue;
                        }
                        let Some(t) = deck.pop() else { break };
                        let o = art::market_space(self.tile_mm, i);
                        let e = unit(angle);
                        let s = [e[1], -e[0]];
                        let (ox, oy) = (o[0] + normal(rng) * 0.8, o[1] + normal(rng) * 0.8);
                        let center = [c[0] + ox * e[0] + oy * s[0], c[1] + ox * e[1] + oy * s[1]];
                        self.loose.push(TableTile {
                            tile: Some(t),
                            center,
                            angle: angle + normal(rng) * 0.03,
                            base_z: 2.0,
                        });
                    }
                    self.market = Some(Market {
                        center: c,
                        angle,
                        size,
                        texture,
                    });
                    break;
                }
            }
        }
        // A cup.
        if rng.f64() < 0.5 {
            for _ in 0..30 {
                let Some(c) = self.view_point(0.02, rng) else {
                    continue;
                };
                let radius = 35.0 + rng.f64() * 12.0;
                let poly = vec![super::draw::regular(c, radius + 8.0, 12, 0.0)];
                if any_too_close(&poly, &al, 10.0) || any_too_close(&poly, &blocked, 3.0) {
                    continue;
                }
                blocked.extend(poly);
                let colours: [Bgr; 6] = [
                    [235.0, 238.0, 240.0],
                    [40.0, 40.0, 170.0],
                    [150.0, 100.0, 40.0],
                    [50.0, 50.0, 55.0],
                    [80.0, 170.0, 220.0],
                    [120.0, 150.0, 90.0],
                ];
                let contents: [Bgr; 3] = [
                    [25.0, 45.0, 70.0],
                    [200.0, 220.0, 230.0],
                    [40.0, 40.0, 40.0],
                ];
                self.cup = Some(CupSpec {
                    center: c,
                    radius,
                    height: 80.0 + rng.f64() * 40.0,
                    colour: jitter(colours[rng.usize(0..colours.len())], 0.05, rng),
                    content: contents[rng.usize(0..contents.len())],
                    handle: rng.f64() * TAU,
                });
                break;
            }
        }
        // Money cards, in little piles.
        let mut cards_left = between(rng, r.cards.0, r.cards.1);
        let mut money = money_cards();
        rng.shuffle(&mut money);
        let mut tries = 0;
        while cards_left > 0 && tries < 60 {
            tries += 1;
            let Some(c) = self.view_point(0.05, rng) else {
                continue;
            };
            let angle = rng.f64() * TAU;
            let poly = vec![rect(c, angle, CARD_MM[0] + 20.0, CARD_MM[1] + 20.0).to_vec()];
            if any_too_close(&poly, &al, 4.0) || any_too_close(&poly, &blocked, 2.0) {
                continue;
            }
            let pile = between(rng, 1, 4).min(cards_left);
            for _ in 0..pile {
                let card = money.pop().filter(|_| rng.f64() > 0.2);
                let center = [c[0] + normal(rng) * 6.0, c[1] + normal(rng) * 6.0];
                self.cards.push(CardOnTable {
                    card,
                    center,
                    angle: angle + normal(rng) * 0.2,
                });
            }
            blocked.extend(poly);
            cards_left -= pile;
        }
    }

    fn add_hand(&mut self, rng: &mut fastrand::Rng) {
        let candidates: Vec<usize> = (0..self.players.len())
            .filter(|&i| self.players[i].tiles.len() > 1)
            .collect();
        let pi = if candidates.is_empty() {
            rng.usize(0..self.players.len().max(1))
        } else {
            candidates[rng.usize(0..candidates.len())]
        };
        let Some(pl) = self.players.get(pi) else {
            return;
        };
        let Some((_, _, t)) = pl.tiles.get(rng.usize(0..pl.tiles.len().max(1))) else {
            return;
        };
        let palm = [
            t.center[0] + normal(rng) * 0.3 * self.tile_mm,
            t.center[1] + normal(rng) * 0.3 * self.tile_mm,
            50.0 + rng.f64() * 110.0,
        ];
        let (w, h) = (f64::from(self.camera.width), f64::from(self.camera.height));
        let side = rng.f64();
        let along = 0.1 + 0.8 * rng.f64();
        let out = 0.25 * w.max(h);
        let entry = if side < 0.45 {
            [along * w, h + out]
        } else if side < 0.65 {
            [-out, along * h]
        } else if side < 0.85 {
            [w + out, along * h]
        } else {
            [along * w, -out]
        };
        let skins: [Bgr; 6] = [
            [150.0, 180.0, 230.0],
            [120.0, 155.0, 215.0],
            [95.0, 135.0, 195.0],
            [75.0, 110.0, 165.0],
            [55.0, 80.0, 125.0],
            [40.0, 60.0, 95.0],
        ];
        let sleeves: [Bgr; 5] = [
            [120.0, 60.0, 30.0],
            [40.0, 40.0, 40.0],
            [200.0, 200.0, 200.0],
            [40.0, 40.0, 150.0],
            [60.0, 120.0, 60.0],
        ];
        self.hand = Some(HandSpec {
            palm,
            entry,
            skin: jitter(skins[rng.usize(0..skins.len())], 0.05, rng),
            sleeve: (rng.f64() < 0.6).then(|| sleeves[rng.usize(0..sleeves.len())]),
            right: rng.bool(),
            curl: [0; 5].map(|_| 0.6 + 0.4 * rng.f64()),
            spread: 0.1 + 0.25 * rng.f64(),
        });
    }

    /// Canvas corners of a tile's top face.
    fn top_quad(&self, t: &TableTile) -> Option<[[f64; 2]; 4]> {
        let z = t.base_z + self.thickness;
        let c = t.corners(self.tile_mm);
        Some([
            self.camera.canvas([c[0][0], c[0][1], z])?,
            self.camera.canvas([c[1][0], c[1][1], z])?,
            self.camera.canvas([c[2][0], c[2][1], z])?,
            self.camera.canvas([c[3][0], c[3][1], z])?,
        ])
    }

    /// The canvas outline of a flat rectangle on the table at height `z`.
    fn canvas_poly(&self, poly: &[[f64; 2]], z: f64) -> Option<Vec<[f64; 2]>> {
        poly.iter()
            .map(|p| self.camera.canvas([p[0], p[1], z]))
            .collect()
    }

    fn quad4(&self, poly: &[[f64; 2]; 4], z: f64) -> Option<[[f64; 2]; 4]> {
        let v = self.canvas_poly(poly, z)?;
        Some([v[0], v[1], v[2], v[3]])
    }

    /// Paints the scene on a fresh canvas; returns it and the mask of what the hand and the
    /// cup hide.
    pub fn paint(
        &self,
        walls: WallLook,
        tiles: TileSet,
        variety: ArtVariety,
        rng: &mut fastrand::Rng,
    ) -> opencv::Result<(Mat, Mat)> {
        let cam = &self.camera;
        let size = Size::new(cam.canvas_size[0], cam.canvas_size[1]);
        let mut canvas = self.table(size, rng)?;
        let mut occluder = Mat::new_rows_cols_with_default(
            size.height,
            size.width,
            core::CV_8UC1,
            Scalar::all(0.0),
        )?;

        // Contact shadows of everything lying on the table.
        let down = 2;
        let mut shadow = low_mask(size, down)?;
        let cast = |poly: &[[f64; 2]], height: f64, shadow: &mut Mat| -> opencv::Result<()> {
            let moved: Vec<[f64; 2]> = poly
                .iter()
                .map(|p| [p[0] + self.light[0] * height, p[1] + self.light[1] * height])
                .collect();
            if let Some(c) = self.canvas_poly(&moved, 0.0) {
                mask_poly(shadow, &c, f64::from(down), 255.0)?;
            }
            Ok(())
        };
        for t in self.all_tiles() {
            cast(
                &t.corners(self.tile_mm),
                t.base_z + self.thickness,
                &mut shadow,
            )?;
        }
        for c in &self.cards {
            cast(
                &rect(c.center, c.angle, CARD_MM[0], CARD_MM[1]),
                0.4,
                &mut shadow,
            )?;
        }
        if let Some(m) = &self.market {
            cast(
                &rect(m.center, m.angle, m.size[0], m.size[1]),
                2.0,
                &mut shadow,
            )?;
        }
        if let Some(cup) = &self.cup {
            let base = super::draw::regular(cup.center, cup.radius, 24, 0.0);
            let mut both = base.clone();
            both.extend(base.iter().map(|p| {
                [
                    p[0] + self.light[0] * cup.height,
                    p[1] + self.light[1] * cup.height,
                ]
            }));
            cast(&hull(&both), 0.0, &mut shadow)?;
        }
        let blur =
            (self.tile_mm * 0.05 * cam.scale_at([0.0, 0.0, 0.0]) / f64::from(down)).clamp(0.8, 6.0);
        soften(&mut shadow, blur)?;
        darken(&mut canvas, &shadow, 0.35 + rng.f32() * 0.2)?;

        // Marker sheets.
        for s in &self.sheets {
            let mut tex_rng = fastrand::Rng::with_seed(rng.u64(..));
            let g = s.geometry(self.marker_mm);
            let tex = art::marker_sheet(&s.ids, &g, self.marker_mm, &mut tex_rng)?;
            let size_mm = g.size_mm();
            if let Some(q) = self.quad4(&rect(s.center, s.angle, size_mm[0], size_mm[1]), 0.1) {
                blit(&mut canvas, &tex, &q)?;
            }
        }
        // The market board.
        if let Some(m) = &self.market {
            let r = rect(m.center, m.angle, m.size[0], m.size[1]);
            self.slab(&mut canvas, &r, 0.0, 2.0, [30.0, 40.0, 70.0])?;
            if let Some(q) = self.quad4(&r, 2.0) {
                blit(&mut canvas, &m.texture, &q)?;
            }
        }
        // Money cards.
        for c in &self.cards {
            let tex = art::card(c.card)?;
            if let Some(q) = self.quad4(&rect(c.center, c.angle, CARD_MM[0], CARD_MM[1]), 0.4) {
                blit(&mut canvas, &tex, &q)?;
            }
        }
        // Tiles, far ones first so near edges overlap them.
        let art = TileArt::new(walls, tiles, variety, rng)?;
        let mut cache: Vec<Option<Mat>> = vec![None; catalogue().len()];
        let fountains: Vec<Mat> = PLAYER_COLOURS
            .iter()
            .map(|&c| art.fountain(c))
            .collect::<opencv::Result<_>>()?;
        let mut order: Vec<(f64, &TableTile, Option<usize>)> = Vec::new();
        for pl in &self.players {
            for (_, _, t) in &pl.tiles {
                order.push((
                    cam.depth([t.center[0], t.center[1], 0.0]),
                    t,
                    Some(pl.colour),
                ));
            }
        }
        for t in &self.loose {
            order.push((cam.depth([t.center[0], t.center[1], 0.0]), t, None));
        }
        order.sort_by(|a, b| b.0.total_cmp(&a.0));
        let edge: Bgr = jitter([62.0, 78.0, 92.0], 0.1, rng);
        for (_, t, colour) in order {
            let Some(q) = self.top_quad(t) else { continue };
            let c = t.corners(self.tile_mm);
            self.slab(&mut canvas, &c, t.base_z, t.base_z + self.thickness, edge)?;
            let tex = match t.tile {
                Some(tile) => {
                    let i = usize::from(tile.id);
                    if cache.get(i).is_some_and(Option::is_none) {
                        let tex = art.tile(&tile, rng)?;
                        cache[i] = Some(tex);
                    }
                    cache.get(i).and_then(Option::as_ref)
                }
                None => fountains.get(colour.unwrap_or(0) % fountains.len()),
            };
            if let Some(tex) = tex {
                // Tiles differ a little in print and in how they catch the light.
                let gain = (1.0 + normal(rng) * 0.035).clamp(0.88, 1.12) as f32;
                raster::blit_gain(&mut canvas, tex, &q, gain)?;
            }
        }
        if let Some(cup) = &self.cup {
            self.cup_shape(cup).paint(&mut canvas, &mut occluder)?;
        }
        if let Some(h) = &self.hand {
            self.hand_shape(h).paint(&mut canvas, &mut occluder)?;
        }
        Ok((canvas, occluder))
    }

    /// Every tile on the table: the Alhambras' and the loose ones.
    fn all_tiles(&self) -> impl Iterator<Item = &TableTile> {
        self.players
            .iter()
            .flat_map(|p| p.tiles.iter().map(|t| &t.2))
            .chain(self.loose.iter())
    }

    /// The visible sides of a flat slab (a tile's or board's cut edge) between heights.
    fn slab(
        &self,
        canvas: &mut Mat,
        c: &[[f64; 2]; 4],
        z0: f64,
        z1: f64,
        colour: Bgr,
    ) -> opencv::Result<()> {
        let mut pts = Vec::with_capacity(8);
        for p in c {
            for z in [z0, z1] {
                if let Some(q) = self.camera.canvas([p[0], p[1], z]) {
                    pts.push(q);
                }
            }
        }
        raster::polygon(canvas, &hull(&pts), colour)?;
        // The lower half of the edge is in the slab's own shade.
        let lower: Vec<[f64; 2]> = c
            .iter()
            .filter_map(|p| self.camera.canvas([p[0], p[1], z0]))
            .collect();
        if lower.len() == 4 {
            raster::polygon(canvas, &lower, shade(colour, 0.7))
        } else {
            Ok(())
        }
    }

    /// The table surface warped onto a new canvas.
    fn table(&self, size: Size, rng: &mut fastrand::Rng) -> opencv::Result<Mat> {
        let cam = &self.camera;
        let corners = [
            [0.0, 0.0],
            [f64::from(size.width), 0.0],
            [f64::from(size.width), f64::from(size.height)],
            [0.0, f64::from(size.height)],
        ];
        let o = cam.canvas_origin;
        let table: Vec<[f64; 2]> = corners
            .iter()
            .filter_map(|c| cam.on_plane([c[0] - o[0], c[1] - o[1]], 0.0))
            .collect();
        // The texture's axes: along the camera's view, turned a little.
        let right = cam.table_right();
        let turn = if rng.bool() { 0.0 } else { PI / 2.0 } + normal(rng) * 0.2;
        let mut a = angle_of(right) + turn;
        let frame = |a: f64| {
            let e = unit(a);
            let n = [-e[1], e[0]];
            let (mut lo, mut hi) = ([f64::MAX; 2], [f64::MIN; 2]);
            for p in &table {
                let u = [p[0] * e[0] + p[1] * e[1], p[0] * n[0] + p[1] * n[1]];
                for k in 0..2 {
                    lo[k] = lo[k].min(u[k]);
                    hi[k] = hi[k].max(u[k]);
                }
            }
            (e, n, lo, hi)
        };
        let (mut e, mut n, mut lo, mut hi) = frame(a);
        let texture_corner =
            |e: [f64; 2], n: [f64; 2], u: f64, v: f64| [u * e[0] + v * n[0], u * e[1] + v * n[1]];
        let all_in_front = |e, n, lo: [f64; 2], hi: [f64; 2]| {
            [
                [lo[0], lo[1]],
                [hi[0], lo[1]],
                [hi[0], hi[1]],
                [lo[0], hi[1]],
            ]
            .iter()
            .all(|c| {
                cam.depth({
                    let p = texture_corner(e, n, c[0], c[1]);
                    [p[0], p[1], 0.0]
                }) > 5.0
            })
        };
        if !all_in_front(e, n, lo, hi) {
            a = angle_of(right);
            (e, n, lo, hi) = frame(a);
        }
        let span = [(hi[0] - lo[0]).max(1.0), (hi[1] - lo[1]).max(1.0)];
        let near = corners
            .iter()
            .filter_map(|c| cam.on_plane([c[0] - o[0], c[1] - o[1]], 0.0))
            .map(|p| cam.scale_at([p[0], p[1], 0.0]))
            .fold(0.0, f64::max);
        let ppm = near.min(1800.0 / span[0].max(span[1])).max(0.05);
        let (tw, th) = (
            (span[0] * ppm).ceil() as i32 + 2,
            (span[1] * ppm).ceil() as i32 + 2,
        );
        let tex = art::table(tw, th, ppm, rng)?;
        let src: Vector<Point2f> = [
            [0.0, 0.0],
            [f64::from(tw), 0.0],
            [f64::from(tw), f64::from(th)],
            [0.0, f64::from(th)],
        ]
        .iter()
        .map(|p| Point2f::new(p[0] as f32 - 0.5, p[1] as f32 - 0.5))
        .collect();
        let mut dst: Vector<Point2f> = Vector::new();
        for c in [
            [lo[0], lo[1]],
            [lo[0] + f64::from(tw) / ppm, lo[1]],
            [lo[0] + f64::from(tw) / ppm, lo[1] + f64::from(th) / ppm],
            [lo[0], lo[1] + f64::from(th) / ppm],
        ] {
            let p = texture_corner(e, n, c[0], c[1]);
            let q = cam.canvas([p[0], p[1], 0.0]).unwrap_or([0.0, 0.0]);
            dst.push(Point2f::new(q[0] as f32, q[1] as f32));
        }
        let hm = imgproc::get_perspective_transform(&src, &dst, core::DECOMP_LU)?;
        let mut canvas = Mat::default();
        imgproc::warp_perspective(
            &tex,
            &mut canvas,
            &hm,
            size,
            imgproc::INTER_LINEAR,
            core::BORDER_REFLECT,
            Scalar::all(0.0),
        )?;
        Ok(canvas)
    }

    fn cup_shape(&self, c: &CupSpec) -> Cup {
        let ring = |r: f64, z: f64| -> Vec<[f64; 2]> {
            (0..32)
                .filter_map(|i| {
                    let a = TAU * f64::from(i) / 32.0;
                    self.camera
                        .canvas([c.center[0] + r * a.cos(), c.center[1] + r * a.sin(), z])
                })
                .collect()
        };
        let e = unit(c.handle);
        let handle: Vec<[f64; 2]> = (0..=8)
            .filter_map(|i| {
                let t = PI * f64::from(i) / 8.0;
                let out = c.radius + 18.0 * t.sin();
                let z = c.height * 0.3 + c.height * 0.45 * f64::from(i) / 8.0;
                self.camera
                    .canvas([c.center[0] + e[0] * out, c.center[1] + e[1] * out, z])
            })
            .collect();
        let s = self.camera.scale_at([c.center[0], c.center[1], c.height]);
        Cup {
            base: ring(c.radius * 0.9, 0.0),
            rim: ring(c.radius, c.height),
            inner: ring(c.radius - 4.0, c.height),
            handle,
            handle_width: (8.0 * s).max(1.0),
            colour: c.colour,
            content: c.content,
        }
    }

    fn hand_shape(&self, h: &HandSpec) -> Hand {
        let cam = &self.camera;
        let o = cam.canvas_origin;
        let palm = cam.canvas(h.palm).unwrap_or([0.0, 0.0]);
        let s = cam.scale_at(h.palm);
        let entry = [h.entry[0] + o[0], h.entry[1] + o[1]];
        let d = [palm[0] - entry[0], palm[1] - entry[1]];
        let len = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1.0);
        let f = [d[0] / len, d[1] / len];
        let side = [-f[1], f[0]];
        let at = |a: f64, b: f64| {
            [
                palm[0] + f[0] * a * s + side[0] * b * s,
                palm[1] + f[1] * a * s + side[1] * b * s,
            ]
        };
        let rot = |v: [f64; 2], ang: f64| {
            let (sn, cs) = ang.sin_cos();
            [v[0] * cs - v[1] * sn, v[0] * sn + v[1] * cs]
        };
        let mut polys = Vec::new();
        let mut strokes = Vec::new();
        let mut blobs = Vec::new();
        // Forearm from beyond the frame to the wrist.
        let wrist = at(-55.0, 0.0);
        let far = [entry[0] - f[0] * 200.0 * s, entry[1] - f[1] * 200.0 * s];
        let half = |p: [f64; 2], w: f64| {
            [
                [p[0] + side[0] * w * s, p[1] + side[1] * w * s],
                [p[0] - side[0] * w * s, p[1] - side[1] * w * s],
            ]
        };
        let (w1, w2) = (half(wrist, 30.0), half(far, 42.0));
        polys.push((vec![w1[0], w2[0], w2[1], w1[1]], h.skin));
        if let Some(sl) = h.sleeve {
            let start = 55.0 + 120.0 + 80.0 * h.curl[0];
            let cuff = at(-start, 0.0);
            let (c1, c2) = (half(cuff, 44.0), half(far, 52.0));
            polys.push((vec![c1[0], c2[0], c2[1], c1[1]], sl));
            // Folds: darker creases across the sleeve.
            for k in 0..5 {
                let a = start + 25.0 + 45.0 * k as f64 + 15.0 * h.curl[k];
                let tilt = (h.curl[(k + 2) % 5] - 0.8) * 40.0;
                let (p, q) = (at(-a - tilt, -40.0), at(-a + tilt, 40.0));
                let (p2, q2) = (at(-a - tilt - 6.0, -40.0), at(-a + tilt - 6.0, 40.0));
                polys.push((vec![p, q, q2, p2], shade(sl, 0.8)));
            }
        }
        let angle = f[1].atan2(f[0]).to_degrees();
        blobs.push((at(-5.0, 0.0), [50.0 * s, 43.0 * s], angle, h.skin));
        // Four fingers from the knuckles, spread and more or less curled.
        let hand_side = if h.right { 1.0 } else { -1.0 };
        for (i, (across, length)) in [(-26.0, 62.0), (-9.0, 74.0), (9.0, 70.0), (25.0, 56.0)]
            .into_iter()
            .enumerate()
        {
            let base = at(38.0, across * hand_side);
            let spread = (i as f64 - 1.5) * h.spread * hand_side * 0.5;
            let dir = rot(f, spread);
            let l = length * h.curl[i + 1] * s;
            let tip = [base[0] + dir[0] * l, base[1] + dir[1] * l];
            strokes.push((base, tip, 17.0 * s, h.skin));
        }
        let tb = at(0.0, -40.0 * hand_side);
        let tdir = rot(f, -0.9 * hand_side);
        let tl = 55.0 * h.curl[0] * s;
        strokes.push((
            tb,
            [tb[0] + tdir[0] * tl, tb[1] + tdir[1] * tl],
            21.0 * s,
            h.skin,
        ));
        // Shadow on the table below (and on the tiles).
        let ground = [
            h.palm[0] + self.light[0] * h.palm[2],
            h.palm[1] + self.light[1] * h.palm[2],
            0.0,
        ];
        let g = cam.canvas(ground).unwrap_or(palm);
        Hand {
            polys,
            strokes,
            blobs,
            shadow_shift: [g[0] - palm[0], g[1] - palm[1]],
            shadow_blur: (h.palm[2] * 0.12 * s).max(2.0),
            shadow_strength: 0.45,
        }
    }

    /// Whether a hand reaches into the photo.
    pub fn has_hand(&self) -> bool {
        self.hand.is_some()
    }

    /// Marker corners (photo pixels, top-left first, clockwise) for every marker drawn.
    pub fn marker_corners(&self) -> Vec<(i32, [[f64; 2]; 4])> {
        let mut out = Vec::new();
        for s in &self.sheets {
            let g = s.geometry(self.marker_mm);
            let e = unit(s.angle);
            let n = [e[1], -e[0]];
            for (i, &id) in s.ids.iter().enumerate() {
                let m = g.centre_mm(i);
                let c = [
                    s.center[0] + m[0] * e[0] + m[1] * n[0],
                    s.center[1] + m[0] * e[1] + m[1] * n[1],
                ];
                let q = rect(c, s.angle, self.marker_mm, self.marker_mm);
                let p: Option<Vec<[f64; 2]>> = q
                    .iter()
                    .map(|p| self.camera.project([p[0], p[1], 0.1]))
                    .collect();
                if let Some(p) = p {
                    out.push((id, [p[0], p[1], p[2], p[3]]));
                }
            }
        }
        out
    }
}
