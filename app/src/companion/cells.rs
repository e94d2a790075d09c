//! Where an Alhambra's cells lie in the picture: each tile's corners as the scanner read
//! them, turned into the accepted layout's frame (the tracker may have turned the reading
//! a quarter to agree with it), and the lattice through them for cells no tile was read
//! on (a tile the players add by hand). What the overlay draws on and what a click picks.

use alhambra_engine::{Pos, Side};
use alhambra_vision::ScannedAlhambra;
use alhambra_vision::geometry::{Homography, Point, UNIT_CELL};
use std::collections::BTreeMap;

/// One Alhambra's cells in image pixels, in its accepted layout's frame.
#[derive(Debug, Clone, Default)]
pub struct Cells {
    /// The corners of each cell read (north-west first, clockwise, in the layout's frame).
    quads: BTreeMap<Pos, [Point; 4]>,
    /// Layout cell coordinates (a cell's centre at its integer x, y) to image pixels.
    grid: Option<Homography>,
}

impl Cells {
    /// The cells of `read`, one Alhambra of a scan, whose cell `p` is the accepted
    /// layout's `p` turned clockwise `turns` times.
    pub fn of(read: &ScannedAlhambra, turns: u8) -> Cells {
        let mut quads = BTreeMap::new();
        for t in &read.tiles {
            let Some(corners) = t.corners_px else {
                continue;
            };
            let pos = turned(Pos::new(t.x, t.y), turns);
            // The scan's north-west corner is the layout's north-east after a quarter
            // turn clockwise, and so on.
            let q: [Point; 4] = std::array::from_fn(|k| {
                let c = corners[(k + 4 - usize::from(turns % 4)) % 4];
                [f64::from(c[0]), f64::from(c[1])]
            });
            quads.insert(pos, q);
        }
        let (from, to): (Vec<Point>, Vec<Point>) = quads
            .iter()
            .flat_map(|(p, q)| {
                let c = [f64::from(p.x), f64::from(p.y)];
                UNIT_CELL
                    .iter()
                    .zip(q)
                    .map(move |(u, px)| ([c[0] + u[0], c[1] + u[1]], *px))
            })
            .unzip();
        let grid = Homography::fit(&from, &to);
        Cells { quads, grid }
    }

    /// Whether no cell is known.
    pub fn is_empty(&self) -> bool {
        self.quads.is_empty()
    }

    /// The corners of cell `pos`: as read, or on the lattice through the cells read.
    pub fn quad(&self, pos: Pos) -> Option<[Point; 4]> {
        if let Some(q) = self.quads.get(&pos) {
            return Some(*q);
        }
        let grid = self.grid.as_ref()?;
        let c = [f64::from(pos.x), f64::from(pos.y)];
        let mut out = [[0.0; 2]; 4];
        for (o, u) in out.iter_mut().zip(UNIT_CELL) {
            *o = grid.apply([c[0] + u[0], c[1] + u[1]])?;
        }
        Some(out)
    }

    /// The ends of side `side` of cell `pos` in the picture.
    pub fn side(&self, pos: Pos, side: Side) -> Option<(Point, Point)> {
        let q = self.quad(pos)?;
        let (a, b) = match side {
            Side::North => (0, 1),
            Side::East => (1, 2),
            Side::South => (2, 3),
            Side::West => (3, 0),
        };
        Some((q[a], q[b]))
    }

    /// The cell under image point `p`: a cell read whose quad holds it, else the lattice's
    /// cell there when it lies within `reach` cells of one read (a tile the scanner missed
    /// beside the Alhambra), else none.
    pub fn cell_at(&self, p: Point, reach: i32) -> Option<Pos> {
        if let Some((pos, _)) = self.quads.iter().find(|(_, q)| inside(q, p)) {
            return Some(*pos);
        }
        let g = self.grid.as_ref()?.inverse()?.apply(p)?;
        let pos = Pos::new(g[0].round() as i32, g[1].round() as i32);
        let near = self
            .quads
            .keys()
            .any(|q| (q.x - pos.x).abs() <= reach && (q.y - pos.y).abs() <= reach);
        near.then_some(pos)
    }
}

/// Cell `p` of a scan's reading as the accepted layout numbers it, the tracker having
/// turned the reading clockwise `turns` times.
pub fn turned(p: Pos, turns: u8) -> Pos {
    (0..turns % 4).fold(p, |p, _| p.rotated_clockwise())
}

/// Whether `p` lies inside the convex quad `q`.
fn inside(q: &[Point; 4], p: Point) -> bool {
    let cross = |a: Point, b: Point| (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
    let signs: Vec<f64> = (0..4).map(|k| cross(q[k], q[(k + 1) % 4])).collect();
    signs.iter().all(|&s| s >= 0.0) || signs.iter().all(|&s| s <= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alhambra_engine::{Building, Walls};
    use alhambra_vision::ScannedTile;

    /// A read Alhambra of 10-pixel cells, cell (x, y) centred on (100 + 10x, 100 + 10y).
    fn read(cells: &[(i32, i32)]) -> ScannedAlhambra {
        ScannedAlhambra {
            fountain_px: [100.0, 100.0],
            tiles: cells
                .iter()
                .map(|&(x, y)| {
                    let c = [100.0 + 10.0 * x as f32, 100.0 + 10.0 * y as f32];
                    ScannedTile {
                        x,
                        y,
                        building: Building::Garden,
                        walls: Walls::NONE,
                        confidence: None,
                        corners_px: Some(
                            UNIT_CELL
                                .map(|u| [c[0] + 10.0 * u[0] as f32, c[1] + 10.0 * u[1] as f32]),
                        ),
                        occluded: false,
                    }
                })
                .collect(),
        }
    }

    #[test]
    fn a_click_picks_the_cell_under_it_turned_into_the_layouts_frame() {
        let a = read(&[(0, 0), (1, 0)]);
        let upright = Cells::of(&a, 0);
        assert_eq!(upright.cell_at([111.0, 102.0], 1), Some(Pos::new(1, 0)));
        // An empty cell beside the Alhambra, on its lattice; none far off.
        assert_eq!(upright.cell_at([100.0, 111.0], 1), Some(Pos::new(0, 1)));
        assert_eq!(upright.cell_at([160.0, 160.0], 1), None);
        // The tracker turned the reading a quarter: the scan's (1, 0) is the layout's
        // (0, 1), and its north side lies where the scan's west side was.
        let turned = Cells::of(&a, 1);
        assert_eq!(turned.cell_at([111.0, 102.0], 1), Some(Pos::new(0, 1)));
        let north = turned.side(Pos::new(0, 1), Side::North);
        let west_read = upright.side(Pos::new(1, 0), Side::West);
        let same = |a: Option<(Point, Point)>, b: Option<(Point, Point)>| match (a, b) {
            (Some((a0, a1)), Some((b0, b1))) => {
                let d = |p: Point, q: Point| (p[0] - q[0]).hypot(p[1] - q[1]);
                (d(a0, b0) < 1e-6 && d(a1, b1) < 1e-6) || (d(a0, b1) < 1e-6 && d(a1, b0) < 1e-6)
            }
            _ => false,
        };
        assert!(same(north, west_read), "{north:?} vs {west_read:?}");
    }
}
