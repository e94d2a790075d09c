//! The scanner: one BGR frame in, every Alhambra on the table out. Finds the table plane
//! (markers), the fountains, fits each Alhambra's lattice at its fountain, grows the grid
//! cell by cell while the cells look like tiles, and reads every tile's building and walls
//! with the appearance profile.
//!
//! Here: the result types, the photo-wide steps (`Scanner::scan`: the plane, each reading
//! of the table, which to keep) and one reading of the table (`Scanner::read_table`). The
//! steps it is made of, in order: `fountains` (candidates and each one's grid, with
//! `lattice`, the comb over edge directions and periods), `growth` (ring by ring, and
//! the final reading of each Alhambra), with `view` (the looks at one cell),
//! `table_colour` (the bare table) and `grid_fit` (quads and grids moved onto the
//! tiles) beneath; then `rereading` (the photo read again in another tone, light or
//! profile), `readings` (which reading to keep, merged tile by tile) and `game_limits`
//! (what one game's table cannot hold). The steps share the thresholds kept here and the
//! names imported here (`use super::*`).

use crate::appearance::{
    CellFeatures, Choices, Focus, Profile, Reading, SIDE_DIMS, WhiteBalance, black_level, deglared,
    features, sample_patch,
};
use crate::geometry::{Homography, Point, UNIT_CELL};
use crate::labels::{ScanResult, ScannedAlhambra, ScannedTile};
use crate::outer_edge::{outer_edge_offset, side_moved, sides_to_move};
use crate::plane::{Plane, find_plane};
use crate::tone::Tone;
use alhambra_engine::{
    Alhambra, Building, LayoutError, MOST_PLAYERS, Piece, Pos, Side, Walls, catalogue,
};
use opencv::core::{Mat, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use thiserror::Error;

mod fountains;
mod game_limits;
mod grid_fit;
mod growth;
mod lattice;
mod own_sides;
mod own_table;
mod readings;
mod remembered;
mod rereading;
mod table_colour;
mod view;

use fountains::Fit;
use game_limits::{
    fountains_apart, joined_to_fountain, one_per_player, table_limits, within_catalogue,
};
use grid_fit::{
    on_shared_plane, plane_fit, refine_on_seams, refine_on_seams_within, reshape, turned_on,
};
use growth::Growth;
use lattice::{Comb, axis_tilts, edge_profiles, gradients, lattice_directions, lattice_period};
use readings::{
    breaks_fewer_rules, contested, far_surer, fill_from_looks, fuse_looks, joined_tiles,
    reached_on_foot, shared_light, take_larger, take_much_larger, take_whole_or_larger,
    tell_readings, tile_count, violations,
};
pub use remembered::CellLooks;
use remembered::{Looks, remembered_key};
use table_colour::{TableColour, TableLight, TableShare, table_colour, table_share_of};
use view::{EdgeMap, Known, Photo, View};

/// Why a frame could not be scanned.
#[derive(Debug, Error)]
pub enum ScanError {
    /// The frame is unusable (empty, wrong type, absurd size).
    #[error("{0}")]
    BadFrame(String),
    /// OpenCV failed.
    #[error("image processing failed: {0}")]
    OpenCv(#[from] opencv::Error),
}

/// How the scanner is set up.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// Printed size of the ArUco markers.
    pub marker_mm: f64,
    /// Most cells an Alhambra may reach from its fountain (either axis).
    pub max_reach: i32,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            marker_mm: 40.0,
            max_reach: 12,
        }
    }
}

/// Where the table plane came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaneSource {
    /// ArUco markers of known size.
    Markers,
    /// No marker seen: the image itself, tiles assumed square in it.
    Lattice,
}

/// One tile read.
#[derive(Debug, Clone)]
pub struct FoundTile {
    /// Grid cell, fountain at (0, 0), in the Alhambra's upright frame.
    pub pos: Pos,
    /// Building and walls with confidences.
    pub reading: Reading,
    /// The cell's corners in image pixels, clockwise from its own north-west corner.
    pub corners_px: [Point; 4],
    /// How unlike every building the cell looks (mean capped squared z-score; the
    /// profile's presence limit is the most a tile may have).
    pub presence: f32,
    /// What the cell looked like, upright (for learning from corrections).
    pub features: CellFeatures,
    /// What its reading chose from, with its neighbours' word on the shared sides (`None`
    /// for a tile not read from a photo).
    pub choices: Option<Choices>,
    /// The glare level (index into `GLARE_LEVELS`) it was read under, washed out; `None`
    /// when it looked as the profile's tiles do. A washed-out tile's colours say nothing
    /// of the photo's light or tone, and its `presence` is its distance under that glare.
    pub glare: Option<usize>,
}

/// One Alhambra read.
#[derive(Debug, Clone)]
pub struct FoundAlhambra {
    /// The fountain cell's centre in image pixels.
    pub fountain_px: Point,
    /// Grid coordinates (in the scanner's own lattice frame, cell centres at integers)
    /// to image pixels.
    pub grid: Homography,
    /// Every tile, the fountain first.
    pub tiles: Vec<FoundTile>,
    /// The channel gains (B, G, R) its tiles' colours called for on top of the photo's
    /// white balance (ones: none).
    pub light: [f32; 3],
    /// Cells growth looked across, covered (a hand, an arm) or holding a tile it could not
    /// read, in the tiles' frame (see [`FoundAlhambra::covered_between`]).
    pub looked_across: Vec<Pos>,
}

impl FoundAlhambra {
    /// How many of its tiles are joined to the fountain by full sides: what readings are
    /// compared by (tiles read beyond a gap growth looked across count for none, or a
    /// reading under a wrong light, its tiles broken up, looks as large as a true one).
    pub fn joined(&self) -> usize {
        joined_to_fountain(&self.tiles).len()
    }

    /// The cells growth looked across that hold no tile read and lie between tiles read
    /// (two or more beside them), when some tile read is not joined to the fountain by
    /// full sides: the players should look there again, since the gap may be a tile under
    /// a hand rather than a broken rule. Empty otherwise.
    pub fn covered_between(&self) -> Vec<Pos> {
        let tiles: HashSet<Pos> = self.tiles.iter().map(|t| t.pos).collect();
        if joined_to_fountain(&self.tiles).len() == tiles.len() {
            return Vec::new();
        }
        let mut out: Vec<Pos> = self
            .looked_across
            .iter()
            .copied()
            .filter(|p| !tiles.contains(p))
            .filter(|p| {
                Side::ALL
                    .iter()
                    .filter(|&&s| tiles.contains(&p.neighbour(s)))
                    .count()
                    >= 2
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The engine's layout of the tiles as read (a fountain read with walls, which it
    /// cannot have, without them); an error when two tiles were read on one cell.
    pub fn layout(&self) -> Result<Alhambra, LayoutError> {
        Alhambra::from_pieces(self.tiles.iter().map(|t| {
            let r = &t.reading;
            let walls = if r.building == Building::Fountain {
                Walls::NONE
            } else {
                r.walls
            };
            (t.pos, Piece::new(r.building, walls))
        }))
    }
}

/// Everything found in one frame.
#[derive(Debug, Clone)]
pub struct Scan {
    /// Where the plane came from.
    pub plane: PlaneSource,
    /// Every Alhambra.
    pub alhambras: Vec<FoundAlhambra>,
    /// How the reading went, for `scan --debug`.
    pub trace: Trace,
    /// The presence limit of the profile read with, which the tiles' `presence` is
    /// measured against (0 when unknown: presence then counts nothing in a tile's
    /// confidence).
    pub presence_limit: f32,
}

/// From this share of the presence limit on, a tile's confidence falls with its presence
/// distance: to half at the limit, to nothing at [`PRESENCE_NONE`] of it. A cell that
/// hardly looks like a tile is the less sure to hold one (rendered dev photos: a fifth of
/// the phantom tiles lay below 0.8 of the limit, one tile in ten of those read right on
/// hard photos and one in forty on normal ones lay above it; lone fountains read on
/// bare, washed-out table at 0.8 to 1.2, all at a building confidence near 1).
const PRESENCE_DOUBT: f32 = 0.8;
const PRESENCE_NONE: f32 = 1.2;

impl FoundTile {
    /// How sure the tile is, read where it is: its reading's confidence (building and
    /// walls), times how surely a tile lies there at all, from its presence distance
    /// against `presence_limit` (from 0.8 of it down to half at it and none at 1.2; 0: not
    /// counted).
    pub fn confidence(&self, presence_limit: f32) -> f32 {
        let share = if presence_limit > 0.0 {
            self.presence / presence_limit
        } else {
            0.0
        };
        let there = if share <= PRESENCE_DOUBT {
            1.0
        } else {
            (1.0 - (share - PRESENCE_DOUBT) / (PRESENCE_NONE - PRESENCE_DOUBT)).max(0.0)
        };
        self.reading.confidence() * there
    }
}

/// How a scan went, stage by stage, for drawing (`scan --debug`): the plane it read the
/// table through and the fountain candidates it looked at. The lattices and the readings
/// are the Alhambras' own.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// Image pixels to table millimetres, from the markers (`None` without markers).
    pub image_to_table: Option<Homography>,
    /// The fountain candidates of the reading kept that were looked at, clearest first
    /// (those far fainter than the clearest fountain anchored are left out, as unlooked).
    pub candidates: Vec<TracedCandidate>,
    /// The markers' plane with their paper's white balance (`None` without markers): what
    /// a frame read from this scan reuses (see [`Scanner::scan_from`]).
    pub marker_plane: Option<Plane>,
}

/// A fountain candidate and what came of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TracedCandidate {
    /// Where, in image pixels.
    pub px: Point,
    /// How much it looked like a fountain from afar.
    pub strength: f32,
    /// Whether a fountain was anchored there (else the search found none there, or it lay
    /// on a cell already read).
    pub anchored: bool,
}

impl Scan {
    /// The scan-result form of CONTRACTS.md.
    pub fn to_result(&self, image: &str) -> ScanResult {
        let mut meta = serde_json::Map::new();
        let plane = match self.plane {
            PlaneSource::Markers => "markers",
            PlaneSource::Lattice => "lattice (no marker seen: tiles assumed square in the image)",
        };
        meta.insert("plane".into(), plane.into());
        ScanResult {
            image: image.to_owned(),
            alhambras: self
                .alhambras
                .iter()
                .map(|a| ScannedAlhambra {
                    fountain_px: [a.fountain_px[0] as f32, a.fountain_px[1] as f32],
                    tiles: a
                        .tiles
                        .iter()
                        .map(|t| {
                            let r = &t.reading;
                            let confidence = t.confidence(self.presence_limit);
                            ScannedTile {
                                x: t.pos.x,
                                y: t.pos.y,
                                building: r.building,
                                walls: r.walls,
                                confidence: Some((confidence * 1000.0).round() / 1000.0),
                                corners_px: Some(t.corners_px.map(|p| [p[0] as f32, p[1] as f32])),
                                occluded: false,
                            }
                        })
                        .collect(),
                })
                .collect(),
            meta,
        }
    }
}

/// The scanner with its appearance profile.
#[derive(Debug, Clone)]
pub struct Scanner {
    profile: Profile,
    options: ScanOptions,
}

/// What one reading of the table found: the Alhambras, the fountains they grew from, and
/// the table's colour (what growing again from those fountains needs).
struct TableReading {
    alhambras: Vec<FoundAlhambra>,
    anchors: Vec<Homography>,
    table: Option<TableColour>,
    candidates: Vec<TracedCandidate>,
}

/// The fewest tiles read surely that tell a photo's tone (see `Profile::tone_of`).
const TONE_LEAST: usize = 3;

/// When only lone fountains were read, the photo is read again under this many of the
/// colour casts that fit the clearest fountain best. The fit is bumpy from cast to cast
/// (it is the best of several candidates): on a photo 15% too blue the right cast came
/// third, and which came first changed with the profile's random draw.
const CASTS_READ: usize = 3;

/// A cell more than this share of which looks like the bare table holds no tile, unless
/// it looks clearly like one (see [`CLEARLY_A_TILE`]).
const TABLE_SHARE_LIMIT: f32 = 0.7;

/// A cell whose middle (the central half each way) is more than this share the bare
/// table's colour holds no tile either, when more than [`TABLE_MIDDLE_WHOLE`] of all of it
/// is and it does not look clearly like a tile: a tile shows its building in its middle.
/// A bay between tiles on a dark table reads otherwise: its rim lies on the neighbours'
/// edges and shadows (the whole 0.6-0.7 the table's colour), and the second tile set's
/// slate and brown buildings came within the presence limit of the table itself. On dev
/// photos, of 2455 tiles at least 0.3 table-coloured, one had a middle above 0.6 (0.76,
/// the next 0.57); of 113 such cells on no tile, 41.
const TABLE_MIDDLE_LIMIT: f32 = 0.6;
/// See [`TABLE_MIDDLE_LIMIT`].
const TABLE_MIDDLE_WHOLE: f32 = 0.3;

/// A cell this near a building (share of the profile's presence limit) is a tile however
/// much of it has the table's colour: a tile set drawn in the table's colours (light
/// stone on a sand-coloured table) would lose its tiles. What is only loosely like a
/// building and mostly the table's colour is the bare table.
const CLEARLY_A_TILE: f32 = 0.5;
/// A cell with less than this share of bare table is covered when it reads as no tile.
const COVERED_TABLE_SHARE: f32 = 0.15;
/// ... and half covered with less than this: a hand or sleeve near the table's colour (a
/// brown arm on a wood table) still shows pixels within its tolerance (normal dev 8421's
/// arm: 0.2-0.57 of the cells it hid, and the tiles beyond it were missed). So do glare,
/// blur and a tile half out of its cell on hard photos: beyond a half-covered cell only a
/// tile that reads clearly joins (see [`CLEARLY_A_TILE`]). Of the looks at cells reading
/// as no tile on twelve normal dev photos, 4% lay at 0.15-0.35 and 84% above 0.6.
const HALF_COVERED_TABLE_SHARE: f32 = 0.35;

/// How much a cell growth may look across is covered (see [`View::cover`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cover {
    /// Hardly any of the bare table's colour.
    Whole,
    /// Some (see [`HALF_COVERED_TABLE_SHARE`]).
    Half,
}

/// The image corners of grid cell (i, j) shifted by (dx, dy) cells.
fn cell_quad(grid: &Homography, i: f64, j: f64) -> Option<[Point; 4]> {
    Some([
        grid.apply([i - 0.5, j - 0.5])?,
        grid.apply([i + 0.5, j - 0.5])?,
        grid.apply([i + 0.5, j + 0.5])?,
        grid.apply([i - 0.5, j + 0.5])?,
    ])
}

/// The grid of a single cell `(di, dj)` cells on from the cell whose quad is `q`, along
/// that cell's own axes (its cell (0, 0) is the one sought). Four corners fix a
/// perspective, so on a flat table this is where the whole grid would put it; on a bent
/// row or under lens distortion it follows the tile beside it rather than the average.
fn beside(q: &[Point; 4], (di, dj): (i32, i32)) -> Option<Homography> {
    Homography::from_quads(&UNIT_CELL, q)
        .map(|h| h.after(&Homography::translation(f64::from(di), f64::from(dj))))
}

fn quad_centre(q: &[Point; 4]) -> Point {
    [
        (q[0][0] + q[1][0] + q[2][0] + q[3][0]) / 4.0,
        (q[0][1] + q[1][1] + q[2][1] + q[3][1]) / 4.0,
    ]
}

fn quad_size(q: &[Point; 4]) -> f64 {
    (dist(q[0], q[2]) + dist(q[1], q[3])) / (2.0 * std::f64::consts::SQRT_2)
}

static FEATURE_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A table point that may be a fountain's centre, how clearly the overview shows one
/// there, and at what tile size (relative to the profile's) it shows clearest.
type Candidate = (Point, f32, f64);

/// Tile sizes (relative to the profile's) the overview looks for fountains at, the
/// profile's first: the plane is affine, and under a tilted camera the far and near tiles
/// of one photo differ by a quarter and more (the bundled photo's two back fountains
/// scored under the faint limit at the profile's size, and clearest of all at 0.8).
const OVERVIEW_SCALES: [f64; 3] = [1.0, 0.8, 1.25];

/// A fountain candidate scoring under this share of the clearest fountain anchored in the
/// same photo is not tried (dev photos: 28% faster, the same readings; at 0.4 normal
/// photos began to lose fountains in shadow or half under a hand).
const FAINT_CANDIDATE: f32 = 0.3;

/// A quad whose centre lies nearer than this share of a cell to a tile's lies on that tile
/// (see [`View::taken`]).
const TAKEN_REACH: f64 = 0.75;

/// A cell reading within this share of the presence limit is clearly a tile: no wider
/// look is needed around it while growing, a light is judged by how many it makes, and a
/// fountain further off (a quad a little off the tile, its corners read as another
/// player's colour) is reshaped.
const CLEAR_SHARE: f32 = 0.6;

/// Wider photos are read from a reduced copy.
const MAX_WORKING_WIDTH: i32 = 2400;

/// The grid's prediction and four shifts.
const PLUS: [(f64, f64); 5] = [(0.0, 0.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)];
/// The grid's prediction and eight shifts.
const SQUARE: [(f64, f64); 9] = [
    (0.0, 0.0),
    (1.0, 0.0),
    (-1.0, 0.0),
    (0.0, 1.0),
    (0.0, -1.0),
    (1.0, 1.0),
    (1.0, -1.0),
    (-1.0, 1.0),
    (-1.0, -1.0),
];

/// How far (in cells) [`reshape`] may move a cell's centre.
const RESHAPE_REACH: f64 = 0.25;
/// An Alhambra of this many tiles or more tells the table's plane for the others (see
/// `SMALL_ALHAMBRA` and `PLANE_MISFIT`).
const PLANE_TILES: usize = 10;
/// Candidates that anchored no lattice looked at again on the shared plane (see
/// `fountain_on_plane`), clearest first.
const PLANE_CANDIDATES: usize = 12;
/// Without markers, the tile sizes guessed: tiles across the photo's short side.
const TILES_ACROSS: [f64; 4] = [9.0, 13.0, 19.0, 28.0];
/// The guess read first: the one that read the most tiles on most of 80 marker-less dev
/// photos (easy and normal, 1080p; the tiles were 45-85 px).
const FIRST_GUESS: usize = 2;
/// Tiles read within this share of the guessed size tell no direction to the next guess.
const GUESS_TOLD: f64 = 0.05;

/// The pitch of `grid`'s cells on the table (through `image_to_table`) relative to
/// `pitch_mm`.
fn plane_pitch(grid: &Homography, image_to_table: &Homography, pitch_mm: f32) -> Option<f64> {
    let q = cell_quad(grid, 0.0, 0.0)?;
    let [a, b, c, d] = q.map(|p| image_to_table.apply(p));
    let pitch = quad_size(&[a?, b?, c?, d?]) / f64::from(pitch_mm);
    (pitch.is_finite() && pitch > 0.0).then_some(pitch)
}

impl Scanner {
    /// A scanner reading with this profile.
    pub fn new(profile: Profile, options: ScanOptions) -> Scanner {
        Scanner { profile, options }
    }

    /// The profile in use.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// How it is set up.
    pub fn options(&self) -> &ScanOptions {
        &self.options
    }

    /// Scans one BGR frame.
    pub fn scan(&self, frame: &Mat) -> Result<Scan, ScanError> {
        self.scan_with(frame, None, None)
    }

    /// Reads a frame of the table `previous` was read from (a video: the same camera,
    /// still), through the markers' plane it found, without searching the table for
    /// fountains and fitting lattices (half of a scan's time): each of its Alhambras
    /// marked `changed` (in order; those past the end count as changed) is grown again
    /// from its lattice, the others are kept as read, their cells taken. For frames that
    /// changed only about the Alhambras read before. A whole scan when `previous` holds no
    /// Alhambra, or when one to grow again is not read again (a hand over its fountain,
    /// the camera moved).
    pub fn scan_from(
        &self,
        frame: &Mat,
        previous: &Scan,
        changed: &[bool],
    ) -> Result<Scan, ScanError> {
        self.scan_from_remembering(frame, previous, changed, None)
    }

    /// [`Scanner::scan_from`], taking the looks `remembered` from earlier frames instead
    /// of looking again (the caller keeps only those where the picture did not change;
    /// see [`CellLooks::keep_unchanged`]) and remembering this frame's there.
    pub fn scan_from_remembering(
        &self,
        frame: &Mat,
        previous: &Scan,
        changed: &[bool],
        remembered: Option<&CellLooks>,
    ) -> Result<Scan, ScanError> {
        if previous.alhambras.is_empty() {
            return self.scan(frame);
        }
        let mut grids: Vec<Homography> = Vec::new();
        let mut kept: Vec<FoundAlhambra> = Vec::new();
        for (k, a) in previous.alhambras.iter().enumerate() {
            if changed.get(k).copied().unwrap_or(true) {
                grids.push(a.grid);
            } else {
                kept.push(a.clone());
            }
        }
        if grids.is_empty() {
            return Ok(previous.clone());
        }
        let kept_cells: Vec<(Point, f64)> = kept
            .iter()
            .flat_map(|a| &a.tiles)
            .map(|t| (quad_centre(&t.corners_px), quad_size(&t.corners_px)))
            .collect();
        let kept_fountains: Vec<Point> = kept.iter().map(|a| a.fountain_px).collect();
        let known = Known {
            grids: &grids,
            kept_cells: &kept_cells,
            kept_fountains: &kept_fountains,
            plane: previous.trace.marker_plane.as_ref(),
        };
        if let Some(r) = remembered {
            // The looks' quads are in the pixels read (see `scan_with`).
            let w = frame.cols();
            r.scale.set(if w > MAX_WORKING_WIDTH {
                f64::from(w) / f64::from(MAX_WORKING_WIDTH)
            } else {
                1.0
            });
        }
        let mut scan = self.scan_with(frame, Some(known), remembered)?;
        if scan.alhambras.len() < grids.len() {
            return self.scan(frame);
        }
        // The table's limits over the Alhambras grown and those kept together.
        scan.alhambras.extend(kept);
        table_limits(&mut scan.alhambras, self.profile.presence_limit);
        Ok(scan)
    }

    /// [`Scanner::scan`], growing (or keeping) the Alhambras `known` instead of searching
    /// for them when given.
    fn scan_with(
        &self,
        frame: &Mat,
        known: Option<Known<'_>>,
        remembered: Option<&CellLooks>,
    ) -> Result<Scan, ScanError> {
        if frame.empty() {
            return Err(ScanError::BadFrame("the image is empty".into()));
        }
        if frame.typ() != opencv::core::CV_8UC3 {
            return Err(ScanError::BadFrame(
                "the image is not 8-bit colour (BGR)".into(),
            ));
        }
        let (w, h) = (frame.cols(), frame.rows());
        if w < 160 || h < 120 || w > 10_000 || h > 10_000 {
            return Err(ScanError::BadFrame(format!(
                "{w}x{h} pixels is not a table photo size"
            )));
        }
        // Past about two megapixels more pixels only cost time and memory (a 4K photo's
        // tiles are twice as wide as they need to be): read a reduced copy, report in the
        // photo's own pixels.
        if w > MAX_WORKING_WIDTH {
            let s = f64::from(MAX_WORKING_WIDTH) / f64::from(w);
            let mut small = Mat::default();
            imgproc::resize(
                frame,
                &mut small,
                Size::new(0, 0),
                s,
                s,
                imgproc::INTER_AREA,
            )?;
            let down = Homography::scale(s);
            let shrink = |p: &Point| [p[0] * s, p[1] * s];
            let small_known = known.map(|k| {
                (
                    k.grids.iter().map(|g| down.after(g)).collect::<Vec<_>>(),
                    k.kept_cells
                        .iter()
                        .map(|(p, size)| (shrink(p), size * s))
                        .collect::<Vec<_>>(),
                    k.kept_fountains.iter().map(shrink).collect::<Vec<_>>(),
                )
            });
            let small_known = small_known.as_ref().map(|(grids, cells, fountains)| Known {
                grids,
                kept_cells: cells,
                kept_fountains: fountains,
                plane: None,
            });
            let mut scan = self.scan_with(&small, small_known, remembered)?;
            let up = Homography::scale(1.0 / s);
            let grow = |p: Point| [p[0] / s, p[1] / s];
            for a in &mut scan.alhambras {
                a.fountain_px = grow(a.fountain_px);
                a.grid = up.after(&a.grid);
                for t in &mut a.tiles {
                    t.corners_px = t.corners_px.map(grow);
                }
            }
            let trace = &mut scan.trace;
            trace.image_to_table = trace.image_to_table.map(|h| h.after(&Homography::scale(s)));
            // In the reduced copy's pixels: found again on the next frame.
            trace.marker_plane = None;
            for c in &mut trace.candidates {
                c.px = grow(c.px);
            }
            return Ok(scan);
        }
        let t0 = std::time::Instant::now();
        // A frame read from an earlier scan of the same still camera lies on its plane
        // (finding the markers again is a third of such a reading's time).
        let marker_plane = match known.and_then(|k| k.plane) {
            Some(plane) => Some(plane.clone()),
            None => find_plane(frame, self.options.marker_mm)?,
        };
        let (plane_source, image_to_table, white, papers) = match marker_plane.clone() {
            Some(Plane {
                image_to_table,
                white,
                markers,
            }) => {
                let centres: Vec<Point> = markers.iter().map(|(_, q)| quad_centre(q)).collect();
                (PlaneSource::Markers, image_to_table, white, centres)
            }
            None => (
                PlaneSource::Lattice,
                Homography::IDENTITY,
                [1.0; 3],
                Vec::new(),
            ),
        };
        let edges = EdgeMap::new(frame)?;
        let markers = plane_source == PlaneSource::Markers;
        // The photo as shot, under the marker paper's white balance: the planes and the
        // other looks below are this one changed in one thing.
        let shot = Photo {
            frame,
            edges: &edges,
            image_to_table,
            markers,
            white,
            known,
            remembered: remembered.map(|r| &r.shot),
        };
        let t1 = std::time::Instant::now();
        // With ALHAMBRA_TIMING, each reading's time (which of them a photo's time goes to).
        let stage_clock = std::cell::Cell::new(t1);
        let stage = |what: &str| {
            if std::env::var_os("ALHAMBRA_TIMING").is_some() {
                let now = std::time::Instant::now();
                let ms = (now - stage_clock.get()).as_secs_f64() * 1e3;
                eprintln!("timing: {what} {ms:.1} ms");
                stage_clock.set(now);
            }
        };
        let count = joined_tiles;
        // The planes to read the table through: the markers', or without them a few guesses
        // at the tile size (a ninth of the short side down to a twenty-eighth: 120 px to
        // 40 px tiles in a 1080p photo), keeping the reading that finds the most tiles.
        let short = f64::from(h.min(w));
        let planes: Vec<Homography> = if markers {
            vec![image_to_table]
        } else {
            TILES_ACROSS
                .iter()
                .map(|tiles_across| {
                    Homography::scale(f64::from(self.profile.pitch_mm) / (short / tiles_across))
                })
                .collect()
        };
        let mut reading: Option<TableReading> = None;
        let mut through = image_to_table;
        // What the first plane's candidates came to, for the trace when no plane reads a tile.
        let mut first_candidates: Option<Vec<TracedCandidate>> = None;
        // Each guess is a whole reading (the lattice search at every candidate): rather
        // than all four, the likeliest first, then the next size in the direction of the
        // tiles it read for as long as that reads more. Each guess's lattice search spans
        // 0.7 to 1.45 of its size, so neighbours overlap and the tiles read tell which way
        // to go. A guess that reads nothing, before any other read a tile, tries them all.
        let mut order: Vec<usize> = vec![if markers { 0 } else { FIRST_GUESS }];
        let mut tried = vec![false; planes.len()];
        let mut next = 0;
        while let Some(&k) = order.get(next) {
            next += 1;
            if std::mem::replace(&mut tried[k], true) {
                continue;
            }
            let found = self.read_table(shot.through(planes[k]))?;
            if first_candidates.is_none() {
                first_candidates = Some(found.candidates.clone());
            }
            let n = count(&found.alhambras);
            let best = reading.as_ref().map_or(0, |r| count(&r.alhambras));
            if known.is_some() {
                // The Alhambras known are read at their own lattices' size, whatever
                // the plane's.
                reading = Some(found);
                through = planes[k];
                break;
            }
            if n == 0 && best == 0 {
                order.extend((0..planes.len()).filter(|&j| !tried[j]));
            } else if n > best {
                if !markers {
                    let mut sizes: Vec<f64> = found
                        .alhambras
                        .iter()
                        .flat_map(|a| &a.tiles)
                        .map(|t| quad_size(&t.corners_px))
                        .collect();
                    sizes.sort_by(f64::total_cmp);
                    let guessed = short / TILES_ACROSS[k];
                    let ratio = sizes.get(sizes.len() / 2).map_or(1.0, |s| s / guessed);
                    order.extend(guesses_after(k, ratio, planes.len()));
                }
                reading = Some(found);
                through = planes[k];
            }
        }
        let mut reading = reading.unwrap_or(TableReading {
            alhambras: Vec::new(),
            anchors: Vec::new(),
            table: None,
            candidates: Vec::new(),
        });
        // Every whole reading made on the way: each is another look at the same tiles
        // through a lattice fitted a little otherwise (see `fuse_looks`).
        stage("first reading");
        let mut looks: Vec<FoundAlhambra> = reading.alhambras.clone();
        if let Some(again) = self.adapted_reading(shot.through(through), &reading)? {
            looks.extend(again.iter().cloned());
            take_much_larger(&mut reading.alhambras, again);
        }
        // A lamp's pool or a vignette lights the table unevenly, and the tiles on it: the
        // photo with the light the bare table shows made even, read again once every other
        // reading is done (see `take_larger`; growing again from the same fountains kept
        // the lattices fitted in the uneven light, and lost most of the gain).
        // Where it matters: the tiles read and the cells about them, and the fountains
        // looked for.
        stage("adapted profile");
        let places: Vec<Point> = reading
            .alhambras
            .iter()
            .flat_map(|a| &a.tiles)
            .flat_map(|t| {
                let (c, size) = (quad_centre(&t.corners_px), quad_size(&t.corners_px));
                (-1..=1).flat_map(move |i| {
                    (-1..=1).map(move |j| [c[0] + f64::from(i) * size, c[1] + f64::from(j) * size])
                })
            })
            .chain(reading.candidates.iter().map(|c| c.px))
            .collect();
        let even = match &reading.table {
            Some(table) => table.flattened(frame, &papers, &places)?,
            None => None,
        };
        let trace = Trace {
            marker_plane,
            image_to_table: markers.then_some(image_to_table),
            candidates: if reading.candidates.is_empty() {
                first_candidates.unwrap_or_default()
            } else {
                reading.candidates
            },
        };
        stage("light made even, prepared");
        let mut alhambras = reading.alhambras;
        // The tiles read surely tell the photo's tone against the labelled photo's (a
        // camera's saturation and tone curve, which the marker paper's white cannot
        // show): well off it, the photo is read again in the profile's tone.
        let toned = self.toned_reading(shot.through(through), &mut alhambras, &mut looks)?;
        stage("photo's tone");
        let shot = shot.showing(toned.as_ref().unwrap_or(frame));
        // The Alhambras read tell the light they are under: when those with tiles agree
        // it is well off the white balance, a fountain not anchored under the white balance
        // may be under that light too. Read again under it.
        if let Some(light) = shared_light(&alhambras) {
            let white = [
                white[0] * light[0],
                white[1] * light[1],
                white[2] * light[2],
            ];
            let again = self
                .read_table(shot.through(through).under(white))?
                .alhambras;
            tell_readings(format_args!("photo light {light:?}"), &again, &alhambras);
            looks.extend(again.iter().cloned());
            // As many Alhambras grown and more tiles: the light the tiles agreed on let
            // more be read (fountains alone too: another player's first fountain). Else
            // the Alhambras it read much better (fresh hard 9588: 19 -> 8 tiles missed).
            take_whole_or_larger(&mut alhambras, again);
        }
        stage("light the tiles share");
        // Nothing but lone fountains: perhaps the tiles are under a light the white balance
        // does not correct (the marker paper's, or without markers the camera's). Read again
        // under the casts under which the clearest fountain looks most like the profile's.
        if alhambras.iter().all(|a| a.tiles.len() < 2) {
            let mut likely: Vec<(f32, [f32; 3], Homography)> = Vec::new();
            for plane in &planes {
                for (score, cast) in self.likely_casts(shot.through(*plane))? {
                    likely.push((score, cast, *plane));
                }
            }
            likely.sort_by(|a, b| b.0.total_cmp(&a.0));
            for (_, cast, plane) in likely.into_iter().take(CASTS_READ) {
                let white = [white[0] * cast[0], white[1] * cast[1], white[2] * cast[2]];
                let again = self.read_table(shot.through(plane).under(white))?.alhambras;
                looks.extend(again.iter().cloned());
                // Only tiles around a fountain vouch for the cast: more fountains alone
                // under it may be the cast making the table's art look like fountains.
                if again.iter().any(|a| a.tiles.len() >= 2) && count(&again) > count(&alhambras) {
                    alhambras = again;
                }
            }
        }
        stage("colour casts");
        // Light differs across a table (a lamp's pool, haze at one end): an Alhambra whose
        // own tiles say it lies in another tone than the photo was read in is grown again
        // in its own.
        self.toned_alhambras(shot.through(through), &mut alhambras)?;
        stage("each Alhambra's tone");
        // And one lit otherwise in colour, in the colours its own tiles tell.
        self.mapped_alhambras(shot.through(through), &mut alhambras, &mut looks)?;
        stage("each Alhambra's colours");
        if let Some(even) = &even {
            let again = self
                .read_table(
                    shot.showing(even)
                        .remembering(remembered.map(|r| &r.evened))
                        .through(through),
                )?
                .alhambras;
            tell_readings("light made even", &again, &alhambras);
            looks.extend(again.iter().cloned());
            take_larger(&mut alhambras, again);
        }
        stage("light made even");
        // The sides two tiles share, read alike and surely, show how this photo's walls
        // look: every side is read again with the side models moved to them.
        own_sides::read_sides_again(&self.profile, &mut alhambras, &mut looks);
        fuse_looks(&mut alhambras, &looks);
        let read = alhambras.clone();
        stage("looks fused");
        // Tiles that look more like this photo's own bare table than like a tile (see
        // `own_table`), before the game's limits: such a tile takes no printed tile from a
        // real one; and their cells count as held, so no other look fills them again.
        own_table::drop_tiles_like_the_table(
            shot.through(through),
            &self.profile,
            &mut alhambras,
            &looks,
        );
        stage("own table");
        fountains_apart(&mut alhambras);
        one_per_player(&mut alhambras);
        table_limits(&mut alhambras, self.profile.presence_limit);
        // Cells the kept reading left empty that another look read a tile on, once the
        // tiles taken across from another Alhambra are dropped above; the game's limits
        // again over the tiles added.
        if fill_from_looks(&mut alhambras, &read, &looks, self.profile.presence_limit) {
            table_limits(&mut alhambras, self.profile.presence_limit);
        }
        if std::env::var_os("ALHAMBRA_TIMING").is_some() {
            eprintln!(
                "timing: plane and edges {:.1} ms, reading {:.1} ms, {} cell looks",
                (t1 - t0).as_secs_f64() * 1e3,
                t1.elapsed().as_secs_f64() * 1e3,
                FEATURE_CALLS.load(std::sync::atomic::Ordering::Relaxed)
            );
        }
        Ok(Scan {
            plane: plane_source,
            alhambras,
            trace,
            presence_limit: self.profile.presence_limit,
        })
    }

    /// Every Alhambra on the table seen through one plane (image to table coordinates).
    fn read_table(&self, photo: Photo<'_>) -> Result<TableReading, ScanError> {
        let image_to_table = photo.image_to_table;
        let Some(mut view) = View::new(photo) else {
            return Ok(TableReading {
                alhambras: Vec::new(),
                anchors: Vec::new(),
                table: None,
                candidates: Vec::new(),
            });
        };
        if let Some(known) = photo.known {
            // No search: the table's colour as the overview shows it, and growth from
            // the lattices known.
            if let Some(overview) = self.overview(&view, &image_to_table)? {
                view.table = overview.table(view.white)?;
            }
            let mut anchors = known.grids.to_vec();
            let alhambras = self.grow_from(&mut view, &mut anchors);
            return Ok(TableReading {
                alhambras,
                anchors,
                table: view.table,
                candidates: Vec::new(),
            });
        }
        let timing = std::time::Instant::now();
        let (candidates, table) = self.fountain_candidates(&view, &image_to_table)?;
        let debug = debugging();
        let mut t_fit = 0.0;
        let t_candidates = timing.elapsed().as_secs_f64() * 1e3;
        view.table = table;
        // Every fountain first, then the Alhambras around them: a tile between two
        // Alhambras goes to the nearer fountain, not to whichever grew first (grown one
        // after another, the first took the second's tiles and the second's fountain was
        // then skipped as part of the first).
        let mut anchors: Vec<Homography> = Vec::new();
        // Each anchor's rank (see `fit_grid`) when anchored once the pitch was known.
        let mut ranks: Vec<f32> = Vec::new();
        let mut scale: Option<f64> = None;
        // The overview's score of the clearest fountain anchored so far.
        let mut best_anchored = 0f32;
        // The lattices found at candidates that anchored no fountain, and where those were.
        let mut unanchored: Vec<Vec<Homography>> = Vec::new();
        let mut missed: Vec<Point> = Vec::new();
        let mut traced: Vec<TracedCandidate> = Vec::new();
        // Fountains anchored alone (no tile beside) before the photo's pitch was known:
        // the anchor's index, its candidate, and its rank.
        let mut lone: Vec<(usize, Point, f32)> = Vec::new();
        // Two passes: the overview's candidates, then (once a fountain told the photo's
        // pitch and that lies beyond the sizes the overview looked at) its candidates at
        // that pitch.
        let mut pending = candidates;
        let mut looked_at_pitch = false;
        loop {
            for (c, strength, size) in std::mem::take(&mut pending) {
                // Candidates are tried clearest first; far fainter ones than a real fountain of
                // this photo are the table's art and the tiles' (each a lattice search of
                // hundreds of cell looks, for nothing).
                if strength < FAINT_CANDIDATE * best_anchored {
                    if debug {
                        eprintln!(
                            "candidate score {strength:.1}: too faint beside {best_anchored:.1}"
                        );
                    }
                    continue;
                }
                let Some(c_px) = view.table_to_image.apply(c) else {
                    continue;
                };
                traced.push(TracedCandidate {
                    px: c_px,
                    strength,
                    anchored: false,
                });
                if let Some(k) = view
                    .claimed
                    .iter()
                    .position(|(q, size)| dist(*q, c_px) < 0.5 * size)
                {
                    // A fountain anchored alone once the photo's pitch was known, from a
                    // candidate beside it, may sit on a lattice turned or sized wrong (the
                    // comb there saw the art's lines): a candidate on the fountain itself
                    // looks again, and the fountain keeps the lattice that ranks higher.
                    if let Some(s) = scale
                        && ranks.get(k).is_some_and(|&r| r < 10.0)
                    {
                        let own = view.claimed[k];
                        let t = std::time::Instant::now();
                        let refit = self.fit_again(&mut view, k, c, s, size)?;
                        t_fit += t.elapsed().as_secs_f64() * 1e3;
                        if let Fit::Anchored { grid, rank, .. } = refit
                            && rank > ranks[k]
                            && let Some(q) = cell_quad(&grid, 0.0, 0.0)
                            && dist(quad_centre(&q), own.0) < 0.5 * own.1
                        {
                            if debug {
                                eprintln!(
                                    "fountain at {:?} anchored again: rank {:.1} -> {rank:.1}",
                                    own.0, ranks[k]
                                );
                            }
                            view.claimed[k] = (quad_centre(&q), quad_size(&q));
                            anchors[k] = grid;
                            ranks[k] = rank;
                        }
                    }
                    continue;
                }
                // A candidate on a building of a lattice already found (a light blue pavilion
                // can look like a basin from afar) needs no lattice search of its own: a few
                // looks there tell, where the search takes hundreds.
                if anchors.iter().any(|a| self.on_a_building(&view, a, c_px)) {
                    if debug {
                        eprintln!("candidate at {c_px:?}: a building of a fountain's lattice");
                    }
                    continue;
                }
                let t = std::time::Instant::now();
                let fitted = self.fit_grid(&view, c, scale, size)?;
                t_fit += t.elapsed().as_secs_f64() * 1e3;
                let (grid, found_scale, score) = match fitted {
                    Fit::Anchored { grid, pitch, rank } => (grid, pitch, rank),
                    Fit::Unanchored(lattices) => {
                        if debug {
                            eprintln!("candidate at {c_px:?}: no fountain lattice");
                        }
                        missed.push(c_px);
                        if !lattices.is_empty() {
                            unanchored.push(lattices);
                        }
                        continue;
                    }
                };
                let Some(q) = cell_quad(&grid, 0.0, 0.0) else {
                    continue;
                };
                // A candidate on a tile beside a fountain anchors on that fountain again.
                if view.taken(&q) {
                    continue;
                }
                if scale.is_none() && score < 10.0 {
                    lone.push((anchors.len(), c, score));
                }
                view.claimed.push((quad_centre(&q), quad_size(&q)));
                anchors.push(grid);
                ranks.push(if scale.is_some() {
                    score
                } else {
                    f32::INFINITY
                });
                if let Some(t) = traced.last_mut() {
                    t.anchored = true;
                }
                best_anchored = best_anchored.max(strength);
                // One photo, one tile set, one plane: the first fountain found with tiles on
                // two sides tells the others' pitch, by the size of its own cell on the table
                // (the lattice it was anchored on may be a fallback's pitch that the fountain,
                // read carefully, corrected: a 1.36 lattice for a 1.03 fountain lost every
                // other Alhambra of a dev photo).
                if scale.is_none() && score >= 20.0 {
                    let on_table = [0, 1, 2, 3].map(|k| image_to_table.apply(q[k]));
                    let measured = match on_table {
                        [Some(a), Some(b), Some(c), Some(d)] => {
                            Some(quad_size(&[a, b, c, d]) / f64::from(self.profile.pitch_mm))
                        }
                        _ => None,
                    };
                    // Cells are read on the tiles, a little inside the pitch (the gaps between
                    // tiles): the lattice's pitch stands unless the cell says otherwise.
                    scale = Some(match measured {
                        Some(m) if (m / found_scale - 1.0).abs() > 0.15 => m,
                        _ => found_scale,
                    });
                    if debug {
                        eprintln!(
                            "candidate at {c_px:?}: the photo's pitch is {:.2} of the profile's \
                         (the lattice's {found_scale:.2})",
                            scale.unwrap_or(found_scale)
                        );
                    }
                }
            }
            match scale {
                Some(pitch) if !looked_at_pitch => {
                    looked_at_pitch = true;
                    pending = self.candidates_at_pitch(&view, &image_to_table, pitch)?;
                    if pending.is_empty() {
                        break;
                    }
                }
                _ => break,
            }
        }
        // A fountain read alone at a pitch guessed before another fountain told the
        // photo's may be a lattice turned by the octagon's 45 degrees, or a wrong pitch:
        // looked at again at the pitch now known, it keeps whichever ranks higher.
        if let Some(s) = scale {
            for (k, c, rank) in lone {
                let t = std::time::Instant::now();
                let refit = self.fit_again(&mut view, k, c, s, OVERVIEW_SCALES[0])?;
                t_fit += t.elapsed().as_secs_f64() * 1e3;
                let Fit::Anchored {
                    grid, rank: again, ..
                } = refit
                else {
                    continue;
                };
                let Some(q) = cell_quad(&grid, 0.0, 0.0) else {
                    continue;
                };
                let others_hold = view
                    .claimed
                    .iter()
                    .enumerate()
                    .any(|(i, (p, size))| i != k && dist(*p, quad_centre(&q)) < 0.5 * size);
                if again > rank && !others_hold {
                    if debug {
                        eprintln!(
                            "fountain at {:?} read again at the photo's pitch: rank {rank:.1} -> {again:.1}",
                            quad_centre(&q)
                        );
                    }
                    view.claimed[k] = (quad_centre(&q), quad_size(&q));
                    anchors[k] = grid;
                }
            }
        }
        // A candidate may be a tile of an Alhambra (on a blue table a tile's corner looks
        // like a basin from afar) whose fountain, less clear from afar than its tiles, was
        // no candidate: once every candidate has had its own look, look for fountains a
        // few cells along the lattices found at those that anchored none.
        let t = std::time::Instant::now();
        for lattices in unanchored {
            if let Some(grid) = self.fountain_along(&view, &lattices)
                && let Some(q) = cell_quad(&grid, 0.0, 0.0)
                && !view.taken(&q)
            {
                if debug {
                    eprintln!("fountain at {:?} found along a lattice", quad_centre(&q));
                }
                view.claimed.push((quad_centre(&q), quad_size(&q)));
                anchors.push(grid);
            }
        }
        t_fit += t.elapsed().as_secs_f64() * 1e3;
        let t = std::time::Instant::now();
        let mut grown_from = anchors.clone();
        let mut alhambras = self.grow_from(&mut view, &mut grown_from);
        // Candidates that anchored no lattice of their own, once the largest Alhambra
        // tells the table's plane (the pitch everywhere): a fountain there, in some turn,
        // with a tile beside it, is grown with the others.
        if let Some(plane) = alhambras
            .iter()
            .filter(|a| a.tiles.len() >= PLANE_TILES)
            .max_by_key(|a| a.tiles.len())
            .map(|a| a.grid)
        {
            view.plane_grid = Some(plane);
            view.claimed = alhambras
                .iter()
                .flat_map(|a| a.tiles.iter())
                .map(|t| (quad_centre(&t.corners_px), quad_size(&t.corners_px)))
                .collect();
            view.fountains = alhambras.iter().map(|a| a.fountain_px).collect();
            let before = anchors.len();
            // A plane whose pitch the overview's first look did not cover has its own
            // candidates (no fountain told the photo's pitch surely).
            let at_pitch = match plane_pitch(&plane, &image_to_table, self.profile.pitch_mm) {
                Some(pitch) if scale.is_none() => {
                    self.candidates_at_pitch(&view, &image_to_table, pitch)?
                }
                _ => Vec::new(),
            };
            let at_pitch: Vec<Point> = at_pitch
                .iter()
                .filter_map(|(c, _, _)| view.table_to_image.apply(*c))
                .take(PLANE_CANDIDATES)
                .collect();
            for &c_px in missed.iter().take(PLANE_CANDIDATES).chain(&at_pitch) {
                if let Some(grid) = self.fountain_on_plane(&view, c_px)
                    && let Some(q) = cell_quad(&grid, 0.0, 0.0)
                    && !view.taken(&q)
                {
                    if debug {
                        eprintln!(
                            "fountain at {:?} found on the shared plane",
                            quad_centre(&q)
                        );
                    }
                    for t in traced.iter_mut().filter(|t| t.px == c_px) {
                        t.anchored = true;
                    }
                    view.claimed.push((quad_centre(&q), quad_size(&q)));
                    anchors.push(grid);
                }
            }
            if anchors.len() > before {
                grown_from = anchors.clone();
                alhambras = self.grow_from(&mut view, &mut grown_from);
            }
        }
        let t_grow = t.elapsed().as_secs_f64() * 1e3;
        if std::env::var_os("ALHAMBRA_TIMING").is_some() {
            eprintln!(
                "timing: fountain candidates {t_candidates:.1} ms, lattice fits {t_fit:.1} ms, \
                 growing {t_grow:.1} ms"
            );
        }
        Ok(TableReading {
            alhambras,
            anchors,
            table: view.table,
            candidates: traced,
        })
    }
}

/// The tile-size guesses (indices into [`TILES_ACROSS`], of `n`) to read after guess `k`
/// read more tiles than any before, whose median size was `ratio` times the guessed one.
/// Tiles read at just the guessed size tell nothing (a fountain alone is read at the
/// guess): both neighbours. Otherwise larger tiles than guessed call for fewer across,
/// smaller ones for more.
fn guesses_after(k: usize, ratio: f64, n: usize) -> Vec<usize> {
    let fewer_across = k.checked_sub(1);
    let more_across = Some(k + 1).filter(|&j| j < n);
    if (ratio - 1.0).abs() < GUESS_TOLD {
        more_across.into_iter().chain(fewer_across).collect()
    } else if ratio > 1.0 {
        fewer_across.into_iter().collect()
    } else {
        more_across.into_iter().collect()
    }
}

/// Whether `ALHAMBRA_DEBUG` asks for every step on stderr (read once: it is asked per cell).
fn debugging() -> bool {
    static DEBUG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEBUG.get_or_init(|| std::env::var_os("ALHAMBRA_DEBUG").is_some())
}

fn dist(a: Point, b: Point) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// Whether a cell the profile calls present (at `distance`, against the profile's
/// presence `limit`) is the bare table after all: mostly the table's colour, or its middle
/// so, and not clearly a tile (see [`TABLE_SHARE_LIMIT`], [`TABLE_MIDDLE_LIMIT`],
/// [`CLEARLY_A_TILE`]).
fn bare_table(distance: f32, limit: f32, table_share: impl FnOnce() -> TableShare) -> bool {
    distance > CLEARLY_A_TILE * limit && table_share().bare()
}

impl TableShare {
    /// Whether a cell of these shares is the bare table, unless it looks clearly like a
    /// tile: mostly the table's colour, or its middle so (see [`TABLE_SHARE_LIMIT`],
    /// [`TABLE_MIDDLE_LIMIT`]).
    fn bare(self) -> bool {
        self.whole > TABLE_SHARE_LIMIT
            || (self.middle > TABLE_MIDDLE_LIMIT && self.whole > TABLE_MIDDLE_WHOLE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 40-pixel cell's quad centred on `c`, turned by `turn` radians.
    pub(super) fn cell_at(c: Point, turn: f64) -> [Point; 4] {
        let (sn, cs) = turn.sin_cos();
        UNIT_CELL.map(|[x, y]| {
            [
                c[0] + 40.0 * (x * cs - y * sn),
                c[1] + 40.0 * (x * sn + y * cs),
            ]
        })
    }

    pub(super) fn corner_error(a: &[Point; 4], b: &[Point; 4]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(p, q)| dist(*p, *q))
            .fold(0.0, f64::max)
    }

    /// A tile read at (x, y) as `building`, wall-less, at distance `presence`.
    pub(super) fn tile(x: i32, y: i32, building: Building, presence: f32) -> FoundTile {
        use crate::appearance::{BLOCK_DIMS, SIDE_DIMS};
        FoundTile {
            pos: Pos::new(x, y),
            reading: Reading {
                building,
                walls: alhambra_engine::Walls::NONE,
                building_confidence: 0.9,
                side_confidence: [0.9; 4],
                in_catalogue: true,
            },
            corners_px: [[0.0; 2]; 4],
            presence,
            features: CellFeatures {
                blocks: [0.0; BLOCK_DIMS],
                sides: [[0.0; SIDE_DIMS]; 4],
                sharpness: 1.0,
                coarse_sharpness: 1.0,
            },
            choices: None,
            glare: None,
        }
    }

    /// An Alhambra of `n` tiles in a row from its fountain at image x `x0`, cells 10 px.
    pub(super) fn row(x0: f64, n: i32) -> FoundAlhambra {
        let quad = |c: f64| {
            [
                [c - 5.0, -5.0],
                [c + 5.0, -5.0],
                [c + 5.0, 5.0],
                [c - 5.0, 5.0],
            ]
        };
        FoundAlhambra {
            fountain_px: [x0, 0.0],
            grid: Homography::IDENTITY,
            tiles: (0..n)
                .map(|x| {
                    let b = if x == 0 {
                        Building::Fountain
                    } else {
                        Building::Garden
                    };
                    FoundTile {
                        corners_px: quad(x0 + 10.0 * f64::from(x)),
                        ..tile(x, 0, b, 1.0)
                    }
                })
                .collect(),
            light: [1.0; 3],
            looked_across: Vec::new(),
        }
    }

    #[test]
    fn a_tile_that_hardly_looks_like_one_is_the_less_sure() {
        let limit = 10.0;
        // Building 0.9, sides 0.9: a walled tile's reading is 0.81 sure.
        let at =
            |presence: f32, building: Building| tile(1, 0, building, presence).confidence(limit);
        assert!((at(2.0, Building::Garden) - 0.81).abs() < 1e-6);
        assert!((at(8.0, Building::Garden) - 0.81).abs() < 1e-6);
        // Half as sure at the limit, not at all past 1.2 of it; a fountain's sides count
        // nothing.
        assert!((at(10.0, Building::Fountain) - 0.45).abs() < 1e-6);
        assert!(at(9.0, Building::Fountain) < 0.9 && at(9.0, Building::Fountain) > 0.45);
        assert_eq!(at(13.0, Building::Fountain), 0.0);
        // An unknown limit counts nothing.
        assert!((tile(0, 0, Building::Fountain, 50.0).confidence(0.0) - 0.9).abs() < 1e-6);
    }

    #[test]
    fn a_cell_whose_middle_is_the_table_is_bare_unless_clearly_a_tile() {
        let limit = 3.0;
        let share = |whole, middle| move || TableShare { whole, middle };
        // A bay between tiles: its rim on their edges, its middle the table.
        assert!(bare_table(0.9 * limit, limit, share(0.65, 0.9)));
        // The same share of a tile drawn on a ground of the table's colour: its building
        // fills the middle.
        assert!(!bare_table(0.9 * limit, limit, share(0.65, 0.2)));
        // A cell clearly like a building stays a tile however it is coloured.
        assert!(!bare_table(0.4 * limit, limit, share(0.65, 0.9)));
        assert!(!bare_table(0.4 * limit, limit, share(0.9, 0.9)));
        // Mostly the table as a whole: bare, whatever its middle.
        assert!(bare_table(0.9 * limit, limit, share(0.75, 0.2)));
        // Little of the whole the table's colour: not bare on its middle alone.
        assert!(!bare_table(0.9 * limit, limit, share(0.25, 0.7)));
    }

    #[test]
    fn a_gap_looked_across_is_reported_only_when_it_cuts_tiles_off() {
        let mut a = row(0.0, 5);
        a.looked_across = vec![Pos::new(2, 0), Pos::new(5, 0)];
        // Every tile joined: nothing to report.
        assert!(a.covered_between().is_empty());
        // (2, 0) read as no tile: (3, 0) and (4, 0) lie beyond it; (5, 0), at the row's
        // end, is beside one tile only.
        a.tiles.retain(|t| t.pos != Pos::new(2, 0));
        assert_eq!(a.covered_between(), vec![Pos::new(2, 0)]);
    }

    #[test]
    fn the_next_tile_size_guess_follows_the_tiles_read() {
        // Tiles read larger than guessed: fewer across; smaller: more across.
        assert_eq!(guesses_after(2, 1.3, 4), vec![1]);
        assert_eq!(guesses_after(2, 0.7, 4), vec![3]);
        // Read at the guessed size: both ways, more across first.
        assert_eq!(guesses_after(2, 1.01, 4), vec![3, 1]);
        // None past either end.
        assert!(guesses_after(0, 1.3, 4).is_empty());
        assert!(guesses_after(3, 0.7, 4).is_empty());
        assert_eq!(guesses_after(3, 1.0, 4), vec![2]);
    }
}
