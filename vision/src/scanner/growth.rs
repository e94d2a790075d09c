//! Growing each Alhambra from its fountain, ring by ring: every cell beside the tiles
//! found that lines up with the grid and looks like a tile joins, the grid is fitted again
//! after each ring, and all Alhambras grow at once so that a cell between two goes to the
//! one that reaches it first. Then each is read, building and walls, on its final grid.

use super::*;

/// Growth looks across up to this many cells in a row that hold no tile it can read and
/// are not the bare table (see [`COVERED_TABLE_SHARE`]): a hand or an arm over the
/// Alhambra, or a tile too washed out to read, with the Alhambra's tiles beyond it.
const COVERED_CROSSED: u8 = 2;
/// An Alhambra of this many tiles or fewer is read on the plane of the largest, when that
/// has `PLANE_TILES` or more (see `on_shared_plane`).
const SMALL_ALHAMBRA: usize = 6;
/// An Alhambra of fewer than `PLANE_TILES` tiles lying further than this from the plane's
/// lattice is anchored again on it (see `fountain_on_plane`).
const PLANE_OFF: f64 = 0.12;
/// The score (against the presence limit) and the most looks for a cell met while growing
/// (see `RESHAPE_ANCHOR`).
const RESHAPE_GROWING: (f32, usize) = (0.8, 60);
/// A side facing the table is moved onto the tile's edge only when that lies this far
/// (share of a cell) outside it: the side models hold a side up to 1.5% inside the tile
/// (they learn from variants cut that far in); further in, a wall read open was common
/// (held-out normal_9016: a tower's wall 2.1% in, read open at full confidence).
const EDGE_CUT: f64 = 0.015;
/// A side read on the tile's edge is kept unless it looks this much less like a tile's
/// side (log-likelihood of the likelier class) than as the lattice put it. On dev photos
/// cut walls moved out lose at most 3.5; sides moved over a tile's thickness lose 6 and
/// more, mostly far more.
const EDGE_FIT_LOSS: f32 = 4.0;
/// A side moved onto the tile's edge is read this much further out (share of a cell): the
/// labelled tiles' sides were learned from quads a little larger than the tiles.
const EDGE_MARGIN: f64 = 0.01;

/// A side facing no tile is read again further in (see
/// `Scanner::read_odd_sides_further_in`) when it fits the side models this much worse
/// (log-likelihood of the likelier class) than its Alhambra's median side. Measured
/// (better / worse Alhambras): at 12, fresh normal 4 / 0, held-out normal 1 / 1, dev
/// normal 0 / 1, fresh hard 4 / 0; at 4, dev normal 1 / 9: a wall cut a few percent fits
/// the models better than the wall where it lies (it looks like an open side with a
/// thick rim), so only the oddest sides are moved.
const ODD_SIDE_GAP: f32 = 12.0;
/// How far in (share of a cell) such a side is read again: no further than the side
/// models learned sides cut (see [`EDGE_CUT`]) and a little more; at 5% walls were cut.
const ODD_SIDE_IN: [f64; 3] = [0.03, 0.02, 0.01];

/// How far the seams may move a grown Alhambra's grid at most (share of a cell, at each
/// corner of the Alhambra) for the grid its sides are read on (see
/// `Scanner::grid_on_seams`). On 50 photos of art drawn off the tiles' centres, the
/// corners of tiles lay 4.5% of a tile off on Alhambras of 8 to 12 tiles, twice as far as
/// on the usual art. With every cell read on the far grid, whole Alhambras read exactly
/// there went from 52% (near reach alone) to 59% at a far reach of 0.10, 61% at 0.15, 63%
/// at 0.22 and 62% at 0.30; with the sides alone read on it, 57% at 0.22.
const FAR_SEAM_REACH: f64 = 0.22;
/// Two grids whose cells' corners lie within this of each other (share of a cell) are
/// the same grid.
const GRIDS_APART: f64 = 0.01;

/// What reading an odd side again needs to know of its Alhambra and cell.
struct OddSides {
    /// The median fit of the Alhambra's sides (see [`ODD_SIDE_GAP`]).
    typical_fit: f32,
    focus: Focus,
    /// The glare taken off the cell, if any.
    glare: Option<f32>,
}

/// A cell met while growing is another player's fountain only when it reads as a fountain
/// at least this share as clearly (see `fountain_margin`) as the fountain grown from, in
/// the same photo and light. Tiles washed out by haze or glare read pale, paler than any
/// building the profile knows, and so a little like a fountain: on dev photos such tiles
/// read at 0.02-0.76 of their own fountain's margin, most under a quarter (a hazy
/// Alhambra lost ten tiles to this stop). A white glare patch on the table reads at
/// 0.23-0.76 (at half, a lone fountain on one grew six cells over it); the one other
/// fountain growth met that anchoring had not taken read at 0.83.
const OTHER_FOUNTAIN_SHARE: f32 = 0.25;
/// A cell reading less clearly as a fountain than that still stops growth unless the
/// art inside it (edge strength, see `EdgeMap::interior`) is at least this share of the
/// fountain's: a tile keeps its drawn lines however washed out it is. A lamp's pool
/// lights a cream table as pale, and the bare lit table comes close as a tile once the
/// glare is taken off, unknown to the table's colour model, at 0.24 of the fountain's
/// margin; its cells hold 0.02-0.03 of the fountain's edges, washed-out tiles 0.53-2.75
/// (easy_7625 under the lamp test's pool; normal_8450, 8461, 8474, 8498).
const OTHER_FOUNTAIN_ART: f32 = 0.25;
/// A cell more than this share the table's colour stops growth when it reads as a
/// fountain at all: the bare table can read as pale as a washed-out tile (dev: a cream
/// table and a dark one beside a lone fountain, at 0.63 and 0.68, joined as tiles;
/// washed-out tiles show 0.0-0.12, on a cream table 0.6).
const OTHER_FOUNTAIN_TABLE: f32 = 0.5;
/// ... unless the art inside it is at least this share of the fountain's: a pale tile on
/// a cream table keeps its drawn lines. Dev photos: tiles stopped by the table's colour
/// showed 0.74-1.55 of their fountain's edge strength (normal_8474's tower: 0.75), most
/// cells off any tile 0.25-0.5; the few above still have to read as a tile to join.
const OTHER_FOUNTAIN_TABLE_ART: f32 = 0.5;

/// A cell's offset from another, in cells.
type Offset = (i32, i32);

/// Indices of a corner of one quad and the corner of another that meets it.
type CornerPair = (usize, usize);

/// An Alhambra being grown from its fountain, ring by ring.
pub(super) struct Growth {
    /// Grid coordinates to image pixels, refitted after every ring.
    pub(super) grid: Homography,
    /// The image quad of every cell found so far.
    pub(super) quads: BTreeMap<(i32, i32), [Point; 4]>,
    /// Cells already looked at or queued.
    pub(super) seen: HashSet<(i32, i32)>,
    /// The cells to look at in the next ring.
    pub(super) frontier: Vec<(i32, i32)>,
    /// Cells queued beyond covered ones (see [`COVERED_CROSSED`]): how many covered cells
    /// in a row lie between them and a tile found.
    pub(super) beyond: HashMap<(i32, i32), u8>,
    /// Cells queued beyond a half-covered cell (see [`HALF_COVERED_TABLE_SHARE`]), and
    /// the cells grown from tiles found there: a tile there joins only when clear.
    pub(super) beyond_half: HashSet<(i32, i32)>,
    /// Covered cells met and not looked across yet (see [`Growth::cross_covered`]).
    pub(super) covered: Vec<(i32, i32)>,
    /// Covered cells that are only half covered (see [`HALF_COVERED_TABLE_SHARE`]).
    pub(super) half_covered: HashSet<(i32, i32)>,
    /// Covered cells looked across.
    pub(super) looked_across: Vec<(i32, i32)>,
    /// How far each cell found read from the profile's tiles (its presence distance).
    pub(super) distances: HashMap<(i32, i32), f32>,
}

/// A cell one ring of growth would take: where, its quad, and how far it reads from the
/// profile's tiles (its presence distance); or, `covered`, a cell growth looks across.
pub(super) struct Proposal {
    cell: (i32, i32),
    quad: [Point; 4],
    distance: f32,
    covered: bool,
    /// Covered, but with a fair share of the table's colour (see
    /// [`HALF_COVERED_TABLE_SHARE`]).
    half: bool,
    /// Covered cells crossed to reach it (see [`COVERED_CROSSED`]).
    crossed: u8,
    /// A tile another Alhambra holds, beside one of this one's: a claim on it (see
    /// [`CLAIM_SHARE`]).
    held: bool,
}

impl Growth {
    /// Takes the cells of one ring (see [`Scanner::ring`]), queues their neighbours within
    /// `reach` not looked at yet, and refits the grid to every cell found so far.
    fn commit(&mut self, ring: Vec<Proposal>, reach: i32) {
        let mut next = Vec::new();
        for Proposal {
            cell: (i, j),
            quad,
            distance,
            covered,
            half,
            held,
            ..
        } in ring
        {
            if held {
                continue;
            }
            if covered {
                self.covered.push((i, j));
                if half {
                    self.half_covered.insert((i, j));
                }
                continue;
            }
            self.quads.insert((i, j), quad);
            self.distances.insert((i, j), distance);
            // Tiles grown from one reached across covered cells are held to the same
            // doubt (see `ring`): a chain beyond a hand may run into another's tiles.
            let crossed = self.beyond.get(&(i, j)).copied().unwrap_or(0);
            let half = self.beyond_half.contains(&(i, j));
            // Tiles join by full sides; across a corner lies another Alhambra as often
            // as an illegally placed tile.
            for (di, dj) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let n = (i + di, j + dj);
                if n.0.abs() <= reach && n.1.abs() <= reach && self.seen.insert(n) {
                    next.push(n);
                    if crossed > 0 {
                        self.beyond.insert(n, crossed);
                    }
                    if half {
                        self.beyond_half.insert(n);
                    }
                }
            }
        }
        // Refit the grid to every cell found so far.
        let mut from = Vec::with_capacity(self.quads.len() * 4);
        let mut to = Vec::with_capacity(self.quads.len() * 4);
        for (&(i, j), q) in &self.quads {
            let (i, j) = (f64::from(i), f64::from(j));
            from.extend([
                [i - 0.5, j - 0.5],
                [i + 0.5, j - 0.5],
                [i + 0.5, j + 0.5],
                [i - 0.5, j + 0.5],
            ]);
            to.extend_from_slice(q);
        }
        if let Some(fitted) = Homography::fit(&from, &to) {
            self.grid = fitted;
        }
        self.frontier = next;
    }

    /// Whether quad `q` for cell (i, j) shares a side with a cell found beside it: both
    /// ends of the side within a fifth of a cell of that cell's (tiles laid by hand, and
    /// cells found on a blurred, tilted photo, do not meet exactly).
    fn abuts(&self, (i, j): (i32, i32), q: &[Point; 4]) -> bool {
        let size = quad_size(q);
        // Per neighbour: its offset, then the pairs (corner of q, corner of the neighbour)
        // that meet (corners run (-,-), (+,-), (+,+), (-,+) in grid coordinates).
        let sides: [(Offset, [CornerPair; 2]); 4] = [
            ((1, 0), [(1, 0), (2, 3)]),
            ((-1, 0), [(0, 1), (3, 2)]),
            ((0, 1), [(3, 0), (2, 1)]),
            ((0, -1), [(0, 3), (1, 2)]),
        ];
        sides.iter().any(|&((di, dj), pairs)| {
            self.quads
                .get(&(i + di, j + dj))
                .is_some_and(|n| pairs.iter().all(|&(a, b)| dist(q[a], n[b]) <= 0.2 * size))
        })
    }

    /// Once growth has nothing left to look at: queues the cells beyond the covered ones
    /// met (neighbours not found, each looked at again on the grid as it now stands),
    /// each covered cell once. Looking across only then keeps a cell from being looked at
    /// early, on the first rings' rough grid, for a tile misread there. A fountain that
    /// found no tile beside it does not look across: its grid is unproven (a lattice
    /// turned wrong reads no neighbour), and a lone fountain is anchored again later.
    /// False when there is nothing to look across.
    fn cross_covered(&mut self, reach: i32) -> bool {
        if self.quads.len() < 2 {
            self.covered.clear();
            return false;
        }
        let mut next = Vec::new();
        for (i, j) in std::mem::take(&mut self.covered) {
            if self.quads.contains_key(&(i, j)) {
                continue;
            }
            self.looked_across.push((i, j));
            let crossed = self.beyond.get(&(i, j)).copied().unwrap_or(0) + 1;
            let half = self.half_covered.contains(&(i, j)) || self.beyond_half.contains(&(i, j));
            for (di, dj) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let n = (i + di, j + dj);
                let queued = next.contains(&n) || self.beyond.contains_key(&n);
                if n.0.abs() <= reach
                    && n.1.abs() <= reach
                    && !self.quads.contains_key(&n)
                    && !queued
                {
                    self.seen.insert(n);
                    self.beyond.insert(n, crossed);
                    if half {
                        self.beyond_half.insert(n);
                    }
                    next.push(n);
                }
            }
        }
        self.frontier = next;
        !self.frontier.is_empty()
    }

    fn new(grid: Homography) -> Growth {
        Growth {
            grid,
            quads: BTreeMap::new(),
            seen: HashSet::from([(0, 0)]),
            frontier: vec![(0, 0)],
            beyond: HashMap::new(),
            beyond_half: HashSet::new(),
            covered: Vec::new(),
            half_covered: HashSet::new(),
            looked_across: Vec::new(),
            distances: HashMap::new(),
        }
    }

    /// Gives up the tile at `cell` and every tile no longer joined to the fountain by
    /// full sides without it.
    fn give_up(&mut self, cell: (i32, i32)) {
        self.quads.remove(&cell);
        let mut joined = HashSet::from([(0, 0)]);
        let mut queue = vec![(0, 0)];
        while let Some((i, j)) = queue.pop() {
            for n in [(i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)] {
                if self.quads.contains_key(&n) && joined.insert(n) {
                    queue.push(n);
                }
            }
        }
        self.quads.retain(|c, _| joined.contains(c));
        self.distances.retain(|c, _| joined.contains(c));
    }
}

/// A tile one Alhambra took on an earlier ring goes to another that reaches it beside one
/// of its own tiles and reads it at most this share as far from the profile's tiles: the
/// first to reach a tile between two Alhambras may read it through a lattice turned and
/// shifted off it (held-out normal 9006: a lone fountain beside another Alhambra's row
/// end read that one's tower at 1.3-2.8, that one's lattice at 0.5-0.9). A claim on a
/// fountain is none.
const CLAIM_SHARE: f32 = 0.5;

/// Settles the claims in `rings` (see [`CLAIM_SHARE`]) on the tiles `growths` hold: a
/// claim that holds becomes the claimant's proposal and the holder gives the tile up
/// (with any tile joined through it only); the rest are dropped.
fn settle_claims(growths: &mut [Growth], rings: &mut [Option<Vec<Proposal>>]) {
    for k in 0..rings.len() {
        let Some(ring) = rings[k].as_mut() else {
            continue;
        };
        let mut kept = Vec::with_capacity(ring.len());
        for mut p in ring.drain(..) {
            if !p.held {
                kept.push(p);
                continue;
            }
            let c = quad_centre(&p.quad);
            let size = quad_size(&p.quad);
            let holder = growths.iter().enumerate().find_map(|(o, g)| {
                (o != k)
                    .then(|| {
                        g.quads
                            .iter()
                            .find(|(_, q)| dist(quad_centre(q), c) < 0.5 * size)
                            .map(|(&cell, _)| (o, cell))
                    })
                    .flatten()
            });
            let Some((o, cell)) = holder else { continue };
            let theirs = growths[o].distances.get(&cell).copied();
            if cell == (0, 0) || theirs.is_none_or(|d| p.distance > CLAIM_SHARE * d) {
                continue;
            }
            let before = growths[o].quads.len();
            growths[o].give_up(cell);
            if debugging() {
                let at = |g: &Growth| g.quads.get(&(0, 0)).map(|q| quad_centre(q).map(f64::round));
                eprintln!(
                    "tile at [{:.0},{:.0}] claimed from the Alhambra at {:?} by the one at {:?}: read at {:.2} beside the claimant's tiles, {:.2} by its holder, which gives up {} tiles",
                    c[0],
                    c[1],
                    at(&growths[o]),
                    at(&growths[k]),
                    p.distance,
                    theirs.unwrap_or(f32::NAN),
                    before - growths[o].quads.len()
                );
            }
            p.held = false;
            kept.push(p);
        }
        *ring = kept;
    }
}

/// How far past the presence limit a fountain read alone may read under the light its own
/// colours call for (see `stands_alone_in_its_light`).
const ALONE_IN_ITS_LIGHT: f32 = 1.25;

/// Whether an Alhambra read is more than a fountain alone, or is a fountain alone that
/// still comes close to a tile (within [`ALONE_IN_ITS_LIGHT`] times the presence `limit`)
/// under the light its own colours call for (`found.light`). A fountain alone has nothing
/// but its own look to vouch for it: a real one reads under that light about as it did
/// under the plain one (a little worse on a quad turned off its outline, whose corners
/// show the table and skew the light), while a patch of paper, shadow or card that came
/// within the limit in the plain light reads far from any tile once its colours are
/// corrected towards a fountain's (dev hard photos: 2.8 -> 3.8-4.3 against a limit of 3.0).
fn stands_alone_in_its_light(found: &FoundAlhambra, limit: f32) -> bool {
    match found.tiles.as_slice() {
        [fountain] => fountain.presence <= ALONE_IN_ITS_LIGHT * limit,
        _ => true,
    }
}

/// A grown lattice's cell whose size is off the plane's there by more than this share is
/// of another size than the table's tiles (a turned or loosely laid small Alhambra stays
/// within a few percent; its lattice's size is held by its own tiles' seams).
const PLANE_SIZE_OFF: f64 = 0.12;

/// Whether cell quad `q` is of the size of `plane`'s cell where it lies (see
/// [`PLANE_SIZE_OFF`]); so when that cannot be told.
fn of_plane_size(plane: &Homography, q: &[Point; 4]) -> bool {
    let Some(at) = plane.inverse().and_then(|back| back.apply(quad_centre(q))) else {
        return true;
    };
    cell_quad(plane, at[0], at[1])
        .is_none_or(|cell| (quad_size(q) / quad_size(&cell) - 1.0).abs() <= PLANE_SIZE_OFF)
}

/// The fountains' image centres of the Alhambras other than `k`.
fn others_fountains(growths: &[Growth], k: usize) -> Vec<Point> {
    growths
        .iter()
        .enumerate()
        .filter(|&(o, _)| o != k)
        .filter_map(|(_, g)| g.quads.get(&(0, 0)).map(quad_centre))
        .collect()
}

/// Every cell the Alhambras other than `k` hold: centre and size.
fn others_cells(growths: &[Growth], k: usize) -> Vec<(Point, f64)> {
    growths
        .iter()
        .enumerate()
        .filter(|&(o, _)| o != k)
        .flat_map(|(_, g)| g.quads.values().map(|q| (quad_centre(q), quad_size(q))))
        .collect()
}

/// The rings of several Alhambras grown at once, with each cell two of them would take
/// left to the one that reads it nearer a tile (the first Alhambra on a tie); a cell one
/// only looks across (covered) contests none, and one reached across covered cells
/// yields to one reached beside a tile.
fn settle(mut rings: Vec<Option<Vec<Proposal>>>) -> Vec<Option<Vec<Proposal>>> {
    let rank = |p: &Proposal| (p.crossed > 0, p.distance);
    let all: Vec<(usize, Point, f64, (bool, f32))> = rings
        .iter()
        .enumerate()
        .filter_map(|(k, r)| r.as_ref().map(|r| (k, r)))
        .flat_map(|(k, r)| {
            r.iter()
                .filter(|p| !p.covered)
                .map(move |p| (k, quad_centre(&p.quad), quad_size(&p.quad), rank(p)))
        })
        .collect();
    for (k, ring) in rings.iter_mut().enumerate() {
        let Some(ring) = ring else { continue };
        ring.retain(|p| {
            let c = quad_centre(&p.quad);
            let mine = rank(p);
            !all.iter().any(|&(o, oc, size, theirs)| {
                o != k && dist(oc, c) < 0.5 * size && (theirs < mine || (theirs == mine && o < k))
            })
        });
    }
    rings
}

/// Re-anchors, in `anchors`, each fountain that grew no tile (per `growths`) and lies
/// on a cell of another grown Alhambra's lattice with that Alhambra's tiles on two
/// sides or more, on that lattice; whether any was.
fn anchor_on_neighbours(anchors: &mut [Homography], growths: &[Growth]) -> bool {
    let mut moved = false;
    for (b, grown) in growths.iter().enumerate() {
        let Some(fountain) = grown.quads.get(&(0, 0)).map(quad_centre) else {
            continue;
        };
        if grown.quads.len() > 1 {
            continue;
        }
        for (a, other) in growths.iter().enumerate() {
            if a == b || other.quads.len() < 2 {
                continue;
            }
            let Some(g) = other.grid.inverse().and_then(|inv| inv.apply(fountain)) else {
                continue;
            };
            let (i, j) = (g[0].round(), g[1].round());
            let (ci, cj) = (i as i32, j as i32);
            // Among the other's tiles on two sides or more (a fountain alone beside an
            // Alhambra touches it on one).
            let beside = [(1, 0), (-1, 0), (0, 1), (0, -1)]
                .iter()
                .filter(|(di, dj)| other.quads.contains_key(&(ci + di, cj + dj)))
                .count();
            if debugging() {
                eprintln!("fountain at {fountain:?}: {beside} sides beside another's tiles");
            }
            if (g[0] - i).hypot(g[1] - j) > 0.2 || other.quads.contains_key(&(ci, cj)) || beside < 2
            {
                continue;
            }
            if let Some(anchor) = anchors.get_mut(b) {
                *anchor = other.grid.after(&Homography::translation(i, j));
                moved = true;
            }
            break;
        }
    }
    moved
}

impl Scanner {
    /// Grows an Alhambra from each fountain of `anchors` (a fountain that grew nothing
    /// among another's tiles is anchored again on that one's lattice, in `anchors`) and
    /// reads it, under the light its tiles tell.
    pub(super) fn grow_from(
        &self,
        view: &mut View<'_>,
        anchors: &mut [Homography],
    ) -> Vec<FoundAlhambra> {
        let debug = debugging();
        // Fountains are claimed for anchoring only: growth decides the cells.
        view.others(Vec::new(), Vec::new());
        // All Alhambras grow a ring at a time, each seeing the others' cells as taken:
        // a cell between two goes to the one that reaches it first, and when two reach
        // it in the same ring, to the one that reads it more like a tile (the other's
        // lattice sees a neighbour's tile turned and shifted).
        let reach = self.options.max_reach;
        let grow_all = |view: &mut View<'_>, anchors: &[Homography]| -> Vec<Growth> {
            let mut growths: Vec<Growth> = anchors.iter().copied().map(Growth::new).collect();
            loop {
                let mut rings: Vec<Option<Vec<Proposal>>> = Vec::with_capacity(growths.len());
                for k in 0..growths.len() {
                    view.others(others_cells(&growths, k), others_fountains(&growths, k));
                    rings.push(self.ring(view, &growths[k]));
                }
                if rings.iter().all(Option::is_none) {
                    // Nothing left to look at: look across covered cells, all at once.
                    let mut crossing = false;
                    for g in &mut growths {
                        crossing |= g.cross_covered(reach);
                    }
                    if crossing {
                        continue;
                    }
                    break;
                }
                settle_claims(&mut growths, &mut rings);
                for (g, ring) in growths.iter_mut().zip(settle(rings)) {
                    if let Some(ring) = ring {
                        g.commit(ring, reach);
                    }
                }
            }
            growths
        };
        let mut growths = grow_all(view, anchors);
        // A fountain that grew nothing, lying on a cell of another Alhambra's lattice among
        // its tiles, was anchored on a lattice turned wrong (tiles all round confuse the
        // comb), and the other grew into its tiles: anchor it on that lattice and grow all
        // again, so that each reaches its own tiles first.
        if anchor_on_neighbours(anchors, &growths) {
            if debug {
                eprintln!("fountains anchored again on a neighbour's lattice");
            }
            growths = grow_all(view, anchors);
        }
        let largest = |growths: &[Growth]| {
            growths
                .iter()
                .filter(|g| g.quads.len() >= PLANE_TILES)
                .max_by_key(|g| g.quads.len())
                .map(|g| g.grid)
        };
        view.plane_grid = largest(&growths);
        // A fountain that grew alone may sit on a lattice turned wrong (the comb misled
        // by the art, a neighbour's borders or the table's grain): on the largest
        // Alhambra's plane the pitch is known, and only the turn is left to find; without
        // one, the turn and the size are looked for around its own cell.
        // So may one that grew a few tiles on a lattice that is no square of the plane's
        // (a lopsided comb: periods 15% apart): it is anchored again on the plane.
        let mut turned = false;
        for k in 0..growths.len() {
            view.others(others_cells(&growths, k), others_fountains(&growths, k));
            let grown = &growths[k];
            let off_plane = (2..PLANE_TILES).contains(&grown.quads.len())
                && view.plane_grid.is_some_and(|plane| {
                    plane_fit(&plane, &grown.quads).is_none_or(|(_, m)| m > PLANE_OFF)
                });
            // Off the plane with no tile beside it there, a fountain and a tile or two read
            // at a size the table does not have (held-out normal 9082: a lone fountain at
            // 1.25 the tiles' size took another Alhambra's far tile) are a fountain alone:
            // it stays alone on the plane. (At the plane's size, a few tiles laid loosely
            // lie off it too; and far from the largest Alhambra the plane tells the size
            // less well than more tiles of its own: hard 9082, six tiles 12% off.)
            let again = if off_plane {
                grown.quads.get(&(0, 0)).and_then(|q| {
                    self.fountain_on_plane(view, quad_centre(q)).or_else(|| {
                        view.plane_grid
                            .is_some_and(|plane| {
                                grown.quads.len() <= fountains::FEW_TILES
                                    && !of_plane_size(&plane, q)
                            })
                            .then(|| self.fountain_alone_on_plane(view, quad_centre(q)))
                            .flatten()
                    })
                })
            } else {
                self.turn_lone_fountain(view, grown)
            };
            if let Some(grid) = again
                && let Some(anchor) = anchors.get_mut(k)
            {
                *anchor = grid;
                turned = true;
            }
        }
        if turned {
            if debug {
                eprintln!("fountains grown alone turned");
            }
            growths = grow_all(view, anchors);
            view.plane_grid = largest(&growths);
        }
        let alhambras = self.finish_all(view, &growths);
        // The race gives a cell between two Alhambras to the one that reaches it first: a
        // fountain laid beside another player's far tiles takes them. Where that left some
        // Alhambra breaking the rules beside another, grow them again one after the
        // other, largest first, and keep that reading if it breaks fewer rules.
        // Largest by the tiles reached on foot from its fountain: a lone fountain that
        // raced into another's far tiles holds more of them than their own Alhambra
        // kept, but reaches none (held-out normal 9048: 14 tiles, all unreachable).
        if !contested(&alhambras) {
            return alhambras;
        }
        let on_foot: Vec<usize> = growths
            .iter()
            .map(|g| {
                g.quads.get(&(0, 0)).map_or(0, |q| {
                    let at = quad_centre(q);
                    alhambras
                        .iter()
                        .find(|a| dist(a.fountain_px, at) < 0.5 * quad_size(q))
                        .map_or(0, reached_on_foot)
                })
            })
            .collect();
        let mut order: Vec<usize> = (0..growths.len()).collect();
        order.sort_by_key(|&k| std::cmp::Reverse((on_foot[k], growths[k].quads.len())));
        let mut apart: Vec<Growth> = anchors.iter().copied().map(Growth::new).collect();
        // The fountains first, so that none is taken by an Alhambra grown before it.
        for k in 0..apart.len() {
            view.others(others_cells(&apart, k), others_fountains(&apart, k));
            self.grow_ring(view, &mut apart[k]);
        }
        for &k in &order {
            view.others(others_cells(&apart, k), others_fountains(&apart, k));
            while self.grow_ring(view, &mut apart[k]) {}
        }
        let again = self.finish_all(view, &apart);
        if debug {
            eprintln!(
                "grown one after the other: {} broken rules, {} tiles (raced: {}, {})",
                violations(&again),
                tile_count(&again),
                violations(&alhambras),
                tile_count(&alhambras)
            );
        }
        if breaks_fewer_rules(&again, &alhambras) {
            again
        } else {
            alhambras
        }
    }

    /// Reads every grown Alhambra on its final grid (see [`Scanner::finish`]), each under
    /// the light its own tiles call for.
    fn finish_all(&self, view: &mut View<'_>, growths: &[Growth]) -> Vec<FoundAlhambra> {
        let debug = debugging();
        let mut alhambras: Vec<FoundAlhambra> = Vec::new();
        for k in 0..growths.len() {
            view.others(others_cells(growths, k), others_fountains(growths, k));
            if let Some(mut found) = self.finish(view, &growths[k]) {
                // The light on this Alhambra: if its tiles, read as what they are, say the
                // colours are off from the profile's, read it again with them corrected
                // (what the marker paper cannot tell: a warm lamp, a coloured shadow).
                // Twice: the first correction, from the few tiles found under the wrong
                // light, lets more tiles be found, which tell the light better.
                let plain = view.white;
                let mut gains = [1.0f32; 3];
                // A fountain found alone: its tiles may be there under a light the
                // profile's colours do not match (the tiles' gains cannot be measured
                // from tiles not found). If some light makes its neighbours tiles, grow
                // again under it.
                if found.tiles.len() == 1
                    && let Some(cast) = self.neighbours_cast(view, &found.grid)
                {
                    view.white = [plain[0] * cast[0], plain[1] * cast[1], plain[2] * cast[2]];
                    if let Some(again) = self.grow(view, found.grid)
                        && again.joined() > found.joined()
                    {
                        found = again;
                        gains = cast;
                    } else {
                        view.white = plain;
                    }
                }
                for _ in 0..2 {
                    let more = self.profile.colour_gains(
                        found
                            .tiles
                            .iter()
                            .filter(|t| t.glare.is_none())
                            .map(|t| (&t.features, &t.reading)),
                    );
                    if more.iter().all(|g| (g - 1.0).abs() <= 0.003) {
                        break;
                    }
                    gains = [gains[0] * more[0], gains[1] * more[1], gains[2] * more[2]];
                    view.white = [
                        plain[0] * gains[0],
                        plain[1] * gains[1],
                        plain[2] * gains[2],
                    ];
                    let again = self.grow(view, found.grid);
                    if let Some(again) = again
                        && again.joined() >= found.joined()
                    {
                        found = again;
                    }
                }
                view.white = plain;
                found.light = gains;
                if debug {
                    eprintln!(
                        "fountain at {:?}: {} tiles, gains {gains:?}",
                        found.fountain_px,
                        found.tiles.len()
                    );
                }
                if !stands_alone_in_its_light(&found, self.profile.presence_limit) {
                    if debug {
                        eprintln!(
                            "fountain at {:?}: alone, and far from a tile in the light it calls for",
                            found.fountain_px
                        );
                    }
                    continue;
                }
                alhambras.push(found);
            }
        }
        alhambras
    }

    /// Grows the Alhambra from its fountain alone (other Alhambras' cells, in
    /// `view.claimed`, are not taken) and reads it: see `grow_ring` and `finish`.
    pub(super) fn grow(&self, view: &View<'_>, start: Homography) -> Option<FoundAlhambra> {
        let mut g = Growth::new(start);
        // No Alhambra holds more than every tile of the game: past that, growth is a
        // look-alike sheet (see `within_catalogue`).
        while g.quads.len() <= catalogue().len()
            && (self.grow_ring(view, &mut g) || g.cross_covered(self.options.max_reach))
        {}
        self.finish(view, &g)
    }

    /// One ring of growth: every frontier cell that lines up with the grid and looks like
    /// a tile joins, then the grid is refitted to every tile found (so perspective and
    /// lens bending are followed). False when nothing is left to look at.
    fn grow_ring(&self, view: &View<'_>, g: &mut Growth) -> bool {
        let Some(ring) = self.ring(view, g) else {
            return false;
        };
        g.commit(ring, self.options.max_reach);
        true
    }

    /// The cells the next ring of growth would take (see [`Scanner::grow_ring`]), in the
    /// frontier's order; `None` when there is no frontier.
    pub(super) fn ring(&self, view: &View<'_>, g: &Growth) -> Option<Vec<Proposal>> {
        if g.frontier.is_empty() {
            return None;
        }
        let mut ring = Vec::new();
        // How clearly the fountain grown from reads as one (see `OTHER_FOUNTAIN_SHARE`).
        let own = g.quads.get(&(0, 0));
        let own_margin = own
            .and_then(|q| view.features(q))
            .map_or(0.0, |f| self.fountain_margin(&f).max(0.0));
        let own_art = own.map_or(f32::INFINITY, |q| view.edges.interior(q));
        for &(i, j) in &g.frontier {
            // Read where the grid (averaged over every cell found) predicts the cell,
            // around it, and where its borders are: the best-looking quad counts.
            // A clear tile where the grid predicts it needs only a small look around
            // (to keep the grid true); otherwise search wider before giving up.
            let limit = self.profile.presence_limit;
            let clear = cell_quad(&g.grid, f64::from(i), f64::from(j))
                .filter(|q| view.inside(q))
                .and_then(|q| view.features(&q))
                .is_some_and(|f| self.profile.presence_distance(&f) <= CLEAR_SHARE * limit);
            let first = if clear {
                view.best_reading(&self.profile, &g.grid, (i, j), (0.05, &PLUS), None)
            } else {
                let edge = view.align(&g.grid, i, j).map(|(q, _)| q);
                view.best_reading(&self.profile, &g.grid, (i, j), (0.05, &SQUARE), edge)
            };
            let Some((mut quad, mut features, mut presence)) = first else {
                if debugging() {
                    eprintln!("cell {i},{j}: no reading");
                }
                continue;
            };
            // Not a tile there? Look a little further if it came close: the grid is least
            // sure on the first rings.
            if !presence.0
                && presence.1 < 2.0 * limit
                && let Some((q, f, p)) =
                    view.best_reading(&self.profile, &g.grid, (i, j), (0.12, &SQUARE), None)
                && p.0
            {
                (quad, features, presence) = (q, f, p);
            }
            // Still not: the grid, one fit over the whole Alhambra, may have drifted off a
            // bent row far from the fountain. The tile beside it, found, tells where this
            // one lies: one cell on along its own axes.
            if !presence.0 {
                for (di, dj) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let Some(n) = g.quads.get(&(i - di, j - dj)) else {
                        continue;
                    };
                    let Some(local) = beside(n, (di, dj)) else {
                        continue;
                    };
                    if let Some((q, f, p)) =
                        view.best_reading(&self.profile, &local, (0, 0), (0.05, &SQUARE), None)
                        && p.0
                        && p.1 < presence.1
                    {
                        (quad, features, presence) = (q, f, p);
                    }
                }
            }
            // Still not, but not far: glare may have washed it out (which leaves the table
            // around Alhambras no more tile-like, measured on dev photos). A bright patch
            // on the table takes tiles to 1.7 limits and more.
            if !presence.0
                && presence.1 <= 2.0 * limit
                && let Some((f, p, _)) = view.deglared_reading(&self.profile, &quad)
                && p.0
            {
                (features, presence) = (f, p);
            }
            // Still not, but close: the grid may have it turned or sheared a little. A tile
            // of this Alhambra then shares a side with one found (a loose tile or another
            // Alhambra's, reshaped, may look as good but lies apart).
            if !presence.0
                && presence.1 <= 1.5 * limit
                && let Some((q, f, p)) = view.reshaped_reading(
                    &self.profile,
                    &quad,
                    (RESHAPE_GROWING.0 * limit, RESHAPE_GROWING.1),
                )
                && p.0
                && g.abuts((i, j), &q)
            {
                (quad, features, presence) = (q, f, p);
            }
            // Still not: glare may have clipped it past taking off (a clipped channel has
            // lost its value): its building under glare, put on the labelled tiles, may
            // still show.
            if !presence.0
                && let Some((q, _, d)) = view.glare_reading(&self.profile, &quad)
                && let Some(f) = view.features(&q)
            {
                (quad, features, presence) = (q, f, (true, d));
            }
            if debugging() {
                let c = quad_centre(&quad);
                let per: Vec<String> = self
                    .profile
                    .buildings
                    .iter()
                    .map(|g| {
                        g.as_ref().map_or("-".into(), |g| {
                            format!(
                                "{:.1}",
                                (0..4)
                                    .map(|t| g.distance(&features.turned(t).blocks))
                                    .fold(f32::INFINITY, f32::min)
                            )
                        })
                    })
                    .collect();
                eprintln!(
                    "cell {i},{j} at [{:.0},{:.0}] presence {presence:?} per {per:?}, table share {:.2}",
                    c[0],
                    c[1],
                    view.table_share(&quad)
                );
            }
            // Another fountain is another player's Alhambra: growth stops there.
            let margin = self.fountain_margin(&features);
            let other_fountain = (i, j) != (0, 0)
                && margin > 0.0
                && (margin > OTHER_FOUNTAIN_SHARE * own_margin || {
                    let art = view.edges.interior(&quad);
                    art < OTHER_FOUNTAIN_ART * own_art
                        || (view.table_share(&quad) > OTHER_FOUNTAIN_TABLE
                            && art < OTHER_FOUNTAIN_TABLE_ART * own_art)
                });
            if debugging() && margin > 0.0 {
                let c = quad_centre(&quad);
                eprintln!(
                    "cell {i},{j} at [{:.0},{:.0}] fountain margin {margin:.1} (its own \
                     fountain's {own_margin:.1}), art {:.2} of its own fountain's, table \
                     share {:.2}",
                    c[0],
                    c[1],
                    view.edges.interior(&quad) / own_art,
                    view.table_share(&quad)
                );
            }
            let held = !other_fountain && view.taken(&quad);
            if held && presence.0 && g.abuts((i, j), &quad) {
                ring.push(Proposal {
                    cell: (i, j),
                    quad,
                    distance: presence.1,
                    covered: false,
                    half: false,
                    crossed: 0,
                    held: true,
                });
            }
            if held || other_fountain {
                if debugging() {
                    let c = quad_centre(&quad);
                    let why = if other_fountain {
                        "reads as another fountain"
                    } else {
                        "is another Alhambra's"
                    };
                    eprintln!("cell {i},{j} at [{:.0},{:.0}] {why}", c[0], c[1]);
                }
                continue;
            }
            // Beyond a covered cell only a clear tile on the grid joins: a loose tile
            // lies beyond the bare table, not beyond a hand.
            // Beyond a covered cell, a tile beside another Alhambra's, or nearer another
            // fountain than its own, is as likely theirs.
            let crossed = g.beyond.get(&(i, j)).copied().unwrap_or(0);
            let theirs = || {
                let c = quad_centre(&quad);
                let own = g
                    .quads
                    .get(&(0, 0))
                    .map_or(0.0, |f| dist(quad_centre(f), c));
                view.beside_taken(&quad) || view.fountains.iter().any(|&f| dist(f, c) < own)
            };
            // Beyond a cell only half covered (an arm near the table's colour, or glare,
            // or a tile half out of its cell), only a tile that reads clearly.
            let clear = !g.beyond_half.contains(&(i, j)) || presence.1 <= CLEARLY_A_TILE * limit;
            let joins = (i, j) == (0, 0) || (presence.0 && (crossed == 0 || (clear && !theirs())));
            let cover = if !joins && crossed < COVERED_CROSSED {
                view.cover(&quad)
            } else {
                None
            };
            let covered = cover.is_some();
            if debugging() && joins && crossed > 0 {
                let c = quad_centre(&quad);
                eprintln!(
                    "cell {i},{j} at [{:.0},{:.0}] joins beyond {crossed} covered at {:.2}",
                    c[0], c[1], presence.1
                );
            }
            if debugging() && covered {
                let c = quad_centre(&quad);
                eprintln!(
                    "cell {i},{j} at [{:.0},{:.0}] covered (table share {:.2}, crossed {crossed})",
                    c[0],
                    c[1],
                    view.table_share(&quad)
                );
            }
            if !joins && !covered {
                continue;
            }
            ring.push(Proposal {
                cell: (i, j),
                quad,
                distance: presence.1,
                covered,
                half: cover == Some(Cover::Half),
                crossed,
                held: false,
            });
        }
        Some(ring)
    }

    /// Reads again each of `sides` (sides of cell quad `quad` facing no cell of its
    /// Alhambra) whose quad side lies well inside its tile (or well outside it, the
    /// opposite side as far inside: see [`sides_to_move`]), through the quad with that
    /// side moved onto the tile's edge (see [`outer_edge`](crate::outer_edge)): `f`'s
    /// side features are replaced when the side then looks about as much like some tile's
    /// side, walled or open, as before (a cut wall reads as a typical open side; what
    /// lies outside a tile's face, its thickness seen at a slant, reads as no side at all).
    /// `profile` judges that (the profile under glare for a cell read under it).
    #[allow(clippy::too_many_arguments)]
    fn read_on_tile_edges(
        &self,
        view: &View<'_>,
        profile: &Profile,
        quad: &[Point; 4],
        f: &mut CellFeatures,
        glare: Option<f32>,
        focus: Focus,
        sides: &[Side],
    ) {
        let Some(table) = view
            .table
            .as_ref()
            .map(|t| t.near(view.white, quad_centre(quad)))
        else {
            return;
        };
        let fit = profile.side_fit(f, focus);
        let found: Vec<(Side, Option<f64>)> = sides
            .iter()
            .map(|&side| {
                let found = outer_edge_offset(view.frame, quad, side, view.white, Some(table));
                if debugging() {
                    eprintln!(
                        "side {side:?} of the cell at {:?}: edge {found:?}",
                        quad_centre(quad).map(|v| v.round())
                    );
                }
                (side, found)
            })
            .collect();
        for (side, offset) in sides_to_move(&found, EDGE_CUT) {
            let k = side as usize;
            let Some(sides) = side_moved(quad, side, offset + EDGE_MARGIN)
                .and_then(|moved| view.side_features(&moved, glare))
            else {
                continue;
            };
            let now = profile.one_side_fit(&sides[k], focus);
            if debugging() {
                eprintln!(
                    "side {side:?} of the cell at {:?}: edge {offset:.3} out, fit {:.1} -> {now:.1}",
                    quad_centre(quad).map(|v| v.round()),
                    fit[k]
                );
            }
            if now > fit[k] - EDGE_FIT_LOSS {
                f.sides[k] = sides[k];
            }
        }
    }

    /// Reads again each of `sides` (sides of cell quad `quad` facing no cell of its
    /// Alhambra) that fits the side models [`ODD_SIDE_GAP`] worse than the Alhambra's
    /// typical side, on the quad with that side moved in by each of [`ODD_SIDE_IN`]:
    /// `f`'s side features are replaced by the look that fits best, if it fits better.
    /// Such a side mostly lies a little past its tile's edge over something the labelled
    /// photo never showed there (a black sleeve beside a seraglio read as a wall at
    /// log-odds 7.7, fitting at 37 where the Alhambra's sides fit at 57), where the
    /// outer-edge re-reading cannot find the edge (see [`Scanner::read_on_tile_edges`]).
    fn read_odd_sides_further_in(
        &self,
        view: &View<'_>,
        profile: &Profile,
        quad: &[Point; 4],
        f: &mut CellFeatures,
        odd: &OddSides,
        sides: &[Side],
    ) {
        let fit = profile.side_fit(f, odd.focus);
        for &side in sides {
            let k = side as usize;
            if fit[k] >= odd.typical_fit - ODD_SIDE_GAP {
                continue;
            }
            let mut best: Option<(f32, [f32; SIDE_DIMS])> = None;
            for inset in ODD_SIDE_IN {
                let Some(moved) =
                    side_moved(quad, side, -inset).and_then(|m| view.side_features(&m, odd.glare))
                else {
                    continue;
                };
                let now = profile.one_side_fit(&moved[k], odd.focus);
                if best.as_ref().is_none_or(|b| now > b.0) {
                    best = Some((now, moved[k]));
                }
            }
            if let Some((now, moved)) = best.filter(|b| b.0 > fit[k]) {
                if debugging() {
                    eprintln!(
                        "odd side {side:?} of the cell at {:?}: fit {:.1} (typical {:.1}) -> {now:.1}",
                        quad_centre(quad).map(|v| v.round()),
                        fit[k],
                        odd.typical_fit
                    );
                }
                f.sides[k] = moved;
            }
        }
    }

    /// `grid` (of an Alhambra with tiles at `cells`) settled on the seams between its tiles
    /// (see [`refine_on_seams`]) within that one's reach of where it was grown; and the
    /// grid settled within [`FAR_SEAM_REACH`] when, on it, the tiles' sides look more like
    /// tiles' sides (walled or open) and no fewer cells look like tiles: the grid the
    /// sides are read on. Growth places each cell where it looks most like a tile, so a
    /// grid grown on art drawn off its tiles' centres lies further off the tiles than the
    /// near reach brings back: outer sides then lie over the table (read as walls) or
    /// inside a wall (read as open). Given the far reach, the seams sometimes settle on
    /// the wrong lines, and whether a cell is a tile is left to the near grid: read on
    /// the far one, tiles beyond a hand and beside a loose tile were lost or gained.
    fn grid_on_seams(
        &self,
        view: &View<'_>,
        grid: Homography,
        cells: &std::collections::BTreeSet<(i32, i32)>,
    ) -> (Homography, Option<Homography>) {
        let near = refine_on_seams(view.edges, grid, cells.iter().copied());
        let far = refine_on_seams_within(view.edges, grid, cells.iter().copied(), FAR_SEAM_REACH);
        let quad =
            |grid: &Homography, (i, j): (i32, i32)| cell_quad(grid, f64::from(i), f64::from(j));
        let apart = cells
            .iter()
            .any(|&c| match (quad(&near, c), quad(&far, c)) {
                (Some(a), Some(b)) => {
                    let size = quad_size(&a);
                    a.iter()
                        .zip(&b)
                        .any(|(p, q)| dist(*p, *q) > GRIDS_APART * size)
                }
                _ => true,
            });
        if !apart {
            return (near, None);
        }
        // How many cells look like tiles, and their sides' fit to the side models summed.
        let looks = |grid: &Homography| -> Option<(usize, f32)> {
            let mut features = Vec::with_capacity(cells.len());
            let mut tiles = 0;
            for &c in cells {
                let q = quad(grid, c)?;
                let f = view.features(&q)?;
                tiles += usize::from(view.presence_of(&self.profile, &q, &f).0);
                features.push(f);
            }
            let focus = self.profile.focus_of(features.iter());
            let fit = features
                .iter()
                .map(|f| self.profile.side_fit(f, focus).iter().sum::<f32>())
                .sum();
            Some((tiles, fit))
        };
        let (a, b) = (looks(&near), looks(&far));
        if debugging() {
            eprintln!("grid on seams: tiles and sides' fit {a:?} near, {b:?} far");
        }
        match (a, b) {
            (Some(a), Some(b)) if b.0 >= a.0 && b.1 > a.1 => (near, Some(far)),
            _ => (near, None),
        }
    }

    /// Reads every cell of a grown Alhambra on its final grid, in the orientation that
    /// fits the tiles best.
    fn finish(&self, view: &View<'_>, g: &Growth) -> Option<FoundAlhambra> {
        let quads = &g.quads;
        let own = match view.plane_grid {
            Some(plane) if (2..=SMALL_ALHAMBRA).contains(&quads.len()) => {
                on_shared_plane(&plane, quads).unwrap_or(g.grid)
            }
            _ => g.grid,
        };
        let (grid, sides_grid) = self.grid_on_seams(view, own, &quads.keys().copied().collect());
        // Final reading on the refitted grid.
        let mut cells: BTreeMap<(i32, i32), (CellFeatures, [Point; 4])> = BTreeMap::new();
        let mut glares: HashMap<(i32, i32), Option<f32>> = HashMap::new();
        // Cells read against the tiles under glare: the level, and the distance there.
        let mut washed: HashMap<(i32, i32), (usize, f32)> = HashMap::new();
        for &(i, j) in quads.keys() {
            if let Some((quad, mut f, p)) =
                view.best_reading(&self.profile, &grid, (i, j), (0.015, &SQUARE), None)
            {
                let side_look = sides_grid.as_ref().and_then(|g| {
                    view.best_reading(&self.profile, g, (i, j), (0.015, &SQUARE), None)
                });
                // A tile grown under glare is read with the glare taken off.
                let mut glare = None;
                let mut deglared_tile = false;
                if p.1 > self.profile.presence_limit
                    && let Some((g, q, share)) = view.deglared_reading(&self.profile, &quad)
                    && q.1 < p.1
                {
                    f = g;
                    glare = Some(share);
                    deglared_tile = q.0;
                }
                // Read as no tile either way: read against the tiles under glare, the
                // interior as it is where it matches best, the sides as they are on the
                // grid's cell (on the quad fitted to the interior they read worse). Not
                // the fountain's cell: the glare profiles have no fountain.
                if !p.0
                    && !deglared_tile
                    && (i, j) != (0, 0)
                    && let Some((q, level, d)) = view.glare_reading(&self.profile, &quad)
                    && let Some(inside) = view.features(&q)
                    && let Some(here) = view.features(&quad)
                {
                    f = CellFeatures {
                        sides: here.sides,
                        ..inside
                    };
                    glare = None;
                    if debugging() {
                        let c = quad_centre(&q);
                        eprintln!(
                            "washed cell at [{:.0},{:.0}]: level {level}, distance {d:.2} table {:.2}",
                            c[0],
                            c[1],
                            view.table_share(&q)
                        );
                    }
                    washed.insert((i, j), (level, d));
                }
                // The sides read on the far grid, when there is one (not under glare: the
                // glare's readings keep their own quad).
                let quad = match side_look {
                    Some((q, look, _)) if glare.is_none() && !washed.contains_key(&(i, j)) => {
                        f.sides = look.sides;
                        q
                    }
                    _ => quad,
                };
                cells.insert((i, j), (f, quad));
                glares.insert((i, j), glare);
            }
        }
        // The profile each cell is read with.
        let profile_of = |cell: &(i32, i32)| -> &Profile {
            washed
                .get(cell)
                .and_then(|&(level, _)| self.profile.glare.get(level))
                .unwrap_or(&self.profile)
        };
        if !cells.contains_key(&(0, 0)) {
            return None;
        }
        let focus = self.profile.focus_of(cells.values().map(|(f, _)| f));
        // How well this Alhambra's sides fit the side models as a rule: the median.
        let typical_fit = {
            let mut fits: Vec<f32> = cells
                .iter()
                .flat_map(|(cell, (f, _))| profile_of(cell).side_fit(f, focus))
                .collect();
            fits.sort_by(f32::total_cmp);
            fits.get(fits.len() / 2).copied().unwrap_or(0.0)
        };
        for (&(i, j), (f, quad)) in cells.iter_mut() {
            let glare = glares.get(&(i, j)).copied().flatten();
            let profile = profile_of(&(i, j));
            let outer: Vec<Side> = Side::ALL
                .into_iter()
                .filter(|&s| {
                    let n = Pos::new(i, j).neighbour(s);
                    !quads.contains_key(&(n.x, n.y))
                })
                .collect();
            self.read_on_tile_edges(view, profile, quad, f, glare, focus, &outer);
            let odd = OddSides {
                typical_fit,
                focus,
                glare,
            };
            self.read_odd_sides_further_in(view, profile, quad, f, &odd, &outer);
        }
        // The upright orientation: the quarter turn under which the tiles look most like
        // some building.
        let turn_score = |t: u8| -> f32 {
            cells
                .iter()
                .map(|(cell, (f, _))| {
                    profile_of(cell)
                        .building_scores(&f.turned(t))
                        .iter()
                        .copied()
                        .fold(f32::NEG_INFINITY, f32::max)
                })
                .sum()
        };
        let turn = (0..4u8)
            .max_by(|&a, &b| turn_score(a).total_cmp(&turn_score(b)))
            .unwrap_or(0);
        let mut tiles = Vec::with_capacity(cells.len());
        // Each tile's profile, in the order of `tiles`.
        let mut profiles: Vec<&Profile> = Vec::with_capacity(cells.len());
        for (&(i, j), (f, q)) in &cells {
            let profile = profile_of(&(i, j));
            profiles.push(profile);
            let reading = profile.read(&f.turned(turn), focus);
            let pos = (0..turn).fold(Pos::new(i, j), |p, _| p.rotated_clockwise());
            let k = usize::from(turn);
            let corners_px = [
                q[(4 - k) % 4],
                q[(5 - k) % 4],
                q[(6 - k) % 4],
                q[(7 - k) % 4],
            ];
            let presence = match washed.get(&(i, j)) {
                Some(&(_, d)) => d,
                None => self.profile.presence(f).1,
            };
            tiles.push(FoundTile {
                pos,
                reading,
                corners_px,
                presence,
                features: f.turned(turn),
                choices: None,
                glare: washed.get(&(i, j)).map(|&(level, _)| level),
            });
        }
        // A side shared by two tiles is seen twice: an unsure reading leans on its
        // neighbour's (a real mismatch, seen clearly on both tiles, still shows).
        let index: HashMap<Pos, usize> =
            tiles.iter().enumerate().map(|(k, t)| (t.pos, k)).collect();
        let hints: Vec<[f32; 4]> = tiles
            .iter()
            .map(|t| {
                let mut h = [0f32; 4];
                for side in Side::ALL {
                    if let Some(&n) = index.get(&t.pos.neighbour(side)) {
                        let other = &tiles[n].reading;
                        let opposite = side.opposite();
                        let c = other.side_confidence[opposite as usize].clamp(0.5, 0.98);
                        let odds = (c / (1.0 - c)).ln();
                        h[side as usize] = if other.walls.has(opposite) {
                            odds
                        } else {
                            -odds
                        };
                    }
                }
                h
            })
            .collect();
        for ((t, h), profile) in tiles.iter_mut().zip(&hints).zip(&profiles) {
            let choices = profile.choices(&t.features, h, focus);
            t.reading = choices.reading();
            if debugging() {
                let best = choices.best();
                eprintln!(
                    "tile {:?} at {:?}: {:?} {:?}, wall log-odds {:?} (hints {:?}), side fits {:?} (typical {:.1}), best pair {} {:?} score {:.1}, best free {:?} {:.1}",
                    t.pos,
                    quad_centre(&t.corners_px).map(|v| v.round()),
                    t.reading.building,
                    t.reading.walls,
                    choices.odds.map(|o| (o * 10.0).round() / 10.0),
                    h.map(|o| (o * 10.0).round() / 10.0),
                    profile.side_fit(&t.features, focus).map(|o| o.round()),
                    typical_fit,
                    best,
                    crate::appearance::catalogue_pairs().get(best),
                    choices.scored[best],
                    choices.free,
                    choices.free_score
                );
            }
            t.choices = Some(choices);
        }
        // The fountain is (0, 0) by definition: if the cell read as the fountain is another
        // one (the search anchored on a look-alike next to it), renumber from it; with no
        // fountain read at all, this is not an Alhambra.
        let fountain = tiles
            .iter()
            .filter(|t| t.reading.building == Building::Fountain)
            .min_by_key(|t| (t.pos.x.abs() + t.pos.y.abs(), t.pos))
            .map(|t| t.pos)?;
        let lattice_fountain = (0..(4 - turn) % 4).fold(fountain, |p, _| p.rotated_clockwise());
        for t in &mut tiles {
            t.pos = Pos::new(t.pos.x - fountain.x, t.pos.y - fountain.y);
        }
        within_catalogue(&mut tiles);
        tiles.sort_by_key(|t| (t.pos != Pos::ORIGIN, t.pos));
        let fountain_px =
            grid.apply([f64::from(lattice_fountain.x), f64::from(lattice_fountain.y)])?;
        let looked_across = g
            .looked_across
            .iter()
            .map(|&(i, j)| {
                let p = (0..turn).fold(Pos::new(i, j), |p, _| p.rotated_clockwise());
                Pos::new(p.x - fountain.x, p.y - fountain.y)
            })
            .collect();
        Some(FoundAlhambra {
            fountain_px,
            grid,
            tiles,
            light: [1.0; 3],
            looked_across,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scanner::tests::{cell_at, corner_error};

    #[test]
    fn a_cell_a_quarter_larger_than_the_planes_is_of_another_size_and_a_turned_one_is_not() {
        // The plane's cells are 40 pixels wide, as `cell_at`'s.
        let plane = Homography::translation(300.0, 200.0).after(&Homography::scale(40.0));
        let turned = cell_at([420.0, 260.0], 0.4);
        assert!(of_plane_size(&plane, &turned));
        let larger = turned.map(|[x, y]| [420.0 + 1.25 * (x - 420.0), 260.0 + 1.25 * (y - 260.0)]);
        assert!(!of_plane_size(&plane, &larger));
        let a_little =
            turned.map(|[x, y]| [420.0 + 1.06 * (x - 420.0), 260.0 + 1.06 * (y - 260.0)]);
        assert!(of_plane_size(&plane, &a_little));
    }

    #[test]
    fn a_cell_two_alhambras_reach_in_one_ring_goes_to_the_one_that_reads_it_better() {
        let proposal = |cell: (i32, i32), at: Point, turn: f64, distance: f32| Proposal {
            cell,
            quad: cell_at(at, turn),
            distance,
            covered: false,
            half: false,
            crossed: 0,
            held: false,
        };
        // The first Alhambra reaches a neighbour's tile turned on its lattice and a tile of
        // its own; the second reaches that tile square on its own lattice, a few pixels
        // off, and another cell that none contests.
        let rings = vec![
            Some(vec![
                proposal((-1, 0), [100.0, 100.0], 0.6, 2.7),
                proposal((1, 0), [300.0, 100.0], 0.0, 0.5),
            ]),
            None,
            Some(vec![
                proposal((0, -1), [108.0, 104.0], 0.0, 1.5),
                proposal((0, 1), [100.0, 300.0], 0.0, 2.9),
            ]),
        ];
        let cells = |ring: &Option<Vec<Proposal>>| -> Vec<(i32, i32)> {
            ring.iter().flatten().map(|p| p.cell).collect()
        };
        let settled = settle(rings);
        assert_eq!(cells(&settled[0]), vec![(1, 0)]);
        assert!(settled[1].is_none());
        assert_eq!(cells(&settled[2]), vec![(0, -1), (0, 1)]);
        // Read alike, the first Alhambra keeps it.
        let tie = settle(vec![
            Some(vec![proposal((-1, 0), [100.0, 100.0], 0.0, 1.0)]),
            Some(vec![proposal((0, -1), [105.0, 100.0], 0.0, 1.0)]),
        ]);
        assert_eq!(cells(&tie[0]), vec![(-1, 0)]);
        assert!(cells(&tie[1]).is_empty());
    }

    #[test]
    fn a_tile_read_twice_as_well_beside_anothers_tiles_goes_to_it_with_what_hung_on_it() {
        let proposal = |cell: (i32, i32), at: Point, distance: f32, held: bool| Proposal {
            cell,
            quad: cell_at(at, 0.0),
            distance,
            covered: false,
            half: false,
            crossed: 0,
            held,
        };
        // The holder: its fountain at (0, 0), then a tile at (1, 0) read at 2.5 and one
        // grown through it at (2, 0).
        let mut holder = Growth::new(Homography::IDENTITY);
        holder.commit(vec![proposal((0, 0), [0.0, 0.0], 1.0, false)], 10);
        holder.commit(vec![proposal((1, 0), [40.0, 0.0], 2.5, false)], 10);
        holder.commit(vec![proposal((2, 0), [80.0, 0.0], 1.0, false)], 10);
        let claimant = Growth::new(Homography::IDENTITY);
        let claims = |distance: f32| {
            vec![
                Some(vec![proposal((0, 1), [42.0, 1.0], distance, true)]),
                None,
            ]
        };
        // Read at 1.5 (more than half of 2.5): the claim is dropped, the holder keeps all.
        let mut growths = vec![claimant, holder];
        let mut rings = claims(1.5);
        settle_claims(&mut growths, &mut rings);
        assert!(rings[0].as_ref().is_some_and(Vec::is_empty));
        assert_eq!(growths[1].quads.len(), 3);
        // Read at 1.0: the claimant proposes it, the holder gives it up and the tile
        // beyond it, keeping its fountain.
        let mut rings = claims(1.0);
        settle_claims(&mut growths, &mut rings);
        let taken: Vec<(i32, i32)> = rings[0].iter().flatten().map(|p| p.cell).collect();
        assert_eq!(taken, vec![(0, 1)]);
        assert!(rings[0].iter().flatten().all(|p| !p.held));
        assert_eq!(
            growths[1].quads.keys().copied().collect::<Vec<_>>(),
            vec![(0, 0)]
        );
        // A fountain is never claimed.
        let mut rings = vec![Some(vec![proposal((0, 1), [0.0, 1.0], 0.1, true)]), None];
        settle_claims(&mut growths, &mut rings);
        assert!(rings[0].as_ref().is_some_and(Vec::is_empty));
        assert_eq!(growths[1].quads.len(), 1);
    }

    #[test]
    fn growth_looks_across_a_covered_cell_only_once_nothing_else_is_left() {
        let cell = |i: i32| cell_at([40.0 * f64::from(i), 0.0], 0.0);
        let proposal = |i: i32, covered: bool| Proposal {
            cell: (i, 0),
            quad: cell(i),
            distance: 1.0,
            covered,
            half: false,
            crossed: 0,
            held: false,
        };
        let mut g = Growth::new(Homography::IDENTITY);
        g.commit(vec![proposal(0, false)], 10);
        // (1, 0) covered: nothing queued beyond it while the fountain's other neighbours
        // are still to be looked at.
        g.commit(vec![proposal(1, true)], 10);
        assert!(g.frontier.is_empty());
        assert!(!g.seen.contains(&(2, 0)));
        // A fountain alone does not look across (its grid is unproven).
        assert!(!g.cross_covered(10));
        let mut g = Growth::new(Homography::IDENTITY);
        g.commit(vec![proposal(0, false)], 10);
        g.commit(vec![proposal(-1, false), proposal(1, true)], 10);
        g.frontier.clear();
        // Then across it: its neighbours not found, one covered cell crossed.
        assert!(g.cross_covered(10));
        let mut queued = g.frontier.clone();
        queued.sort();
        assert_eq!(queued, vec![(1, -1), (1, 1), (2, 0)]);
        assert!(queued.iter().all(|c| g.beyond.get(c) == Some(&1)));
        // A tile found beyond passes the doubt on to the cells grown from it.
        g.commit(vec![proposal(2, false)], 10);
        assert_eq!(g.beyond.get(&(3, 0)), Some(&1));
        // A second covered cell in a row is crossed as the second.
        let mut g = Growth::new(Homography::IDENTITY);
        g.commit(vec![proposal(0, false)], 10);
        g.commit(vec![proposal(-1, false), proposal(1, true)], 10);
        assert!(g.cross_covered(10));
        g.commit(vec![proposal(2, true)], 10);
        assert!(g.cross_covered(10));
        assert_eq!(g.beyond.get(&(3, 0)), Some(&2));
        // Each covered cell is looked across once.
        g.frontier.clear();
        assert!(!g.cross_covered(10));
        assert_eq!(g.looked_across, vec![(1, 0), (2, 0)]);
        // Across a cell only half covered, the cells beyond and those grown from a tile
        // found there are marked so (only a clear tile joins there); across a wholly
        // covered one, not.
        let mut g = Growth::new(Homography::IDENTITY);
        g.commit(vec![proposal(0, false), proposal(-1, false)], 10);
        let half = Proposal {
            half: true,
            ..proposal(1, true)
        };
        g.commit(vec![half], 10);
        g.frontier.clear();
        assert!(g.cross_covered(10));
        assert!(g.beyond_half.contains(&(2, 0)));
        g.commit(vec![proposal(2, false)], 10);
        assert!(g.beyond_half.contains(&(3, 0)));
        let mut g = Growth::new(Homography::IDENTITY);
        g.commit(vec![proposal(0, false), proposal(-1, false)], 10);
        g.commit(vec![proposal(1, true)], 10);
        assert!(g.cross_covered(10));
        assert!(g.beyond.contains_key(&(2, 0)) && g.beyond_half.is_empty());
    }

    #[test]
    fn a_cell_abuts_only_when_it_shares_a_side_with_a_found_one() {
        let mut growth = Growth::new(Homography::IDENTITY);
        growth.quads.insert((0, 0), cell_at([200.0, 200.0], 0.0));
        // East of (0, 0), two pixels off: shares its side.
        assert!(growth.abuts((1, 0), &cell_at([242.0, 201.0], 0.0)));
        // A loose tile a quarter of a cell away, or turned 25 degrees about its centre.
        assert!(!growth.abuts((1, 0), &cell_at([250.0, 200.0], 0.0)));
        assert!(!growth.abuts((1, 0), &cell_at([240.0, 200.0], 0.45)));
        // South of (0, 0) (grid y grows downwards here) and north of it.
        assert!(growth.abuts((0, 1), &cell_at([200.0, 240.0], 0.0)));
        assert!(growth.abuts((0, -1), &cell_at([201.0, 160.0], 0.0)));
        // No cell found beside it.
        assert!(!growth.abuts((2, 0), &cell_at([280.0, 200.0], 0.0)));
    }

    #[test]
    fn the_cell_beside_a_tile_follows_that_tile_on_a_tilted_plane_and_on_a_bent_row() {
        // A tilted table: the cell beside is where the plane puts it, in every direction.
        let plane = Homography::from_quads(
            &UNIT_CELL,
            &[
                [400.0, 300.0],
                [470.0, 302.0],
                [474.0, 360.0],
                [398.0, 357.0],
            ],
        )
        .expect("a plane");
        let q = cell_quad(&plane, 2.0, -1.0).expect("a cell");
        for (di, dj) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let got = beside(&q, (di, dj))
                .and_then(|h| cell_quad(&h, 0.0, 0.0))
                .expect("a cell beside");
            let want = cell_quad(&plane, f64::from(2 + di), f64::from(dj - 1)).expect("a cell");
            assert!(corner_error(&got, &want) < 1e-6, "{got:?} against {want:?}");
        }
        // A row bending by 3 degrees a tile: one grid fitted over the first five tiles
        // puts the sixth over a quarter of a tile off, the fifth tile within a twentieth.
        let mut growth = Growth::new(Homography::IDENTITY);
        let (mut at, mut turn, pitch) = ([100.0, 300.0], 0.0f64, 40.0);
        let mut row = Vec::new();
        for i in 0..6 {
            row.push(cell_at(at, turn));
            if i < 5 {
                growth.commit(
                    vec![Proposal {
                        cell: (i, 0),
                        quad: cell_at(at, turn),
                        distance: 0.0,
                        covered: false,
                        half: false,
                        crossed: 0,
                        held: false,
                    }],
                    10,
                );
            }
            at = [at[0] + pitch * turn.cos(), at[1] + pitch * turn.sin()];
            turn += 3f64.to_radians();
        }
        let sixth = row[5];
        let by_grid = cell_quad(&growth.grid, 5.0, 0.0).expect("a cell");
        let by_tile = beside(&row[4], (1, 0))
            .and_then(|h| cell_quad(&h, 0.0, 0.0))
            .expect("a cell beside");
        assert!(corner_error(&by_grid, &sixth) > 0.25 * pitch);
        assert!(corner_error(&by_tile, &sixth) < 0.05 * pitch);
    }

    #[test]
    fn a_fountain_among_anothers_tiles_is_anchored_on_that_lattice_and_one_beside_is_not() {
        // Alhambra A: 40-pixel cells from (200, 200), tiles at (0, 0) and around (2, 1).
        let a_grid = Homography([[40.0, 0.0, 200.0], [0.0, 40.0, 200.0], [0.0, 0.0, 1.0]]);
        let mut a = Growth::new(a_grid);
        for cell in [(0, 0), (1, 0), (2, 0), (1, 1), (3, 1), (0, 2)] {
            let c = [
                200.0 + 40.0 * f64::from(cell.0),
                200.0 + 40.0 * f64::from(cell.1),
            ];
            a.quads.insert(cell, cell_at(c, 0.0));
        }
        // A fountain alone at A's cell (2, 1), tiles of A on three sides, its own lattice
        // turned 30 degrees; another alone at (-1, 2), A's tile on one side.
        let among = Homography([[34.6, -20.0, 280.0], [20.0, 34.6, 240.0], [0.0, 0.0, 1.0]]);
        let beside = Homography([[34.6, -20.0, 160.0], [20.0, 34.6, 280.0], [0.0, 0.0, 1.0]]);
        let alone = |grid: Homography| {
            let mut g = Growth::new(grid);
            let centre = [grid.0[0][2], grid.0[1][2]];
            g.quads.insert((0, 0), cell_at(centre, 0.52));
            g
        };
        let growths = vec![a, alone(among), alone(beside)];
        let mut anchors = vec![a_grid, among, beside];
        assert!(anchor_on_neighbours(&mut anchors, &growths));
        assert_eq!(anchors[0], a_grid);
        assert_eq!(anchors[1], a_grid.after(&Homography::translation(2.0, 1.0)));
        assert_eq!(anchors[2], beside);
    }

    #[test]
    fn a_fountain_alone_stands_only_if_it_comes_close_to_a_tile_in_its_own_light() {
        use crate::scanner::tests::row;
        let limit = 3.0;
        let mut alone = row(0.0, 1);
        alone.tiles[0].presence = 3.5;
        assert!(stands_alone_in_its_light(&alone, limit));
        alone.tiles[0].presence = 3.9;
        assert!(!stands_alone_in_its_light(&alone, limit));
        // With tiles beside it the fountain is vouched for by them.
        let mut grown = row(0.0, 3);
        grown.tiles[0].presence = 3.9;
        assert!(stands_alone_in_its_light(&grown, limit));
    }
}
