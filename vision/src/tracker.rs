//! Fusing frames: every Alhambra followed across frames, a layout accepted only when it is
//! read the same way in several calm frames in a row, and each accepted change checked
//! against the state before it.
//!
//! - **Matching.** An Alhambra found in a frame continues the tracked one whose fountain is
//!   nearest, if closer than a fraction of a tile ([`TrackerOptions::match_fraction`]);
//!   otherwise it starts a new track with the next id. Ids never change.
//! - **Orientation.** Which way is north is the scanner's estimate; each reading is turned
//!   (in quarter turns about the fountain) to agree best with the accepted layout, so a
//!   scanner that changes its mind about north does not look like a rebuilt Alhambra.
//! - **Calm.** A frame is calm for an Alhambra when the mean absolute difference of a
//!   downscaled grey frame against the previous one is low both over the whole frame and
//!   inside that Alhambra's area (its tiles' bounding box plus a tile all round). Motion is
//!   the hand detector: a hand reaching over the table moves. No colour model is used (the
//!   tiles' sandy backgrounds and red and brown buildings are skin-coloured); the price is
//!   that a hand held perfectly still over the tiles for the whole gate would not be
//!   noticed.
//! - **Stability gate.** A reading is accepted once the same layout has been read in
//!   `stable_frames` (3) consecutive calm frames: the same cells with the same buildings in
//!   each, and each wall side as most of those readings say; a reading that takes accepted
//!   tiles away needs `removal_frames` (5), as the scanner misses a marginal tile now and
//!   then while a hand passes changes nothing. Walls are voted rather than
//!   required identical because the scanner's reading of a side near its decision
//!   boundary flickers with sensor noise from frame to frame (seen on the synthetic
//!   sequences: a side or two per scene flipping every frame), and a strict gate then
//!   never accepts. With hysteresis: a side of a tile already accepted keeps its reading
//!   unless a full `window` (5) of calm readings all contradict it, so a flickering side
//!   does not produce a stream of "exchanged" changes. Any motion, a frame where the
//!   Alhambra is not found, or a reading with other cells or buildings starts the count
//!   again. Until then the accepted layout stays and the update says why ([`Wait`]).
//! - **Reading only what may be new.** [`Tracker::push`] reads no frame while the table
//!   moves (the "no reading while a hand or motion is over the tiles"), and does
//!   not read a calm frame again when it shows nothing new: no motion since the last calm
//!   reading, no block of about a tile changed against that frame, and every Alhambra's
//!   reading accepted (or the picture read [`TrackerOptions::most_reads`] times). A scan
//!   takes a second or more; the motion and change measures about a millisecond, so a calm
//!   table costs next to nothing once read. A change seen without the hand that made it
//!   (a folder of stills) is read all the same: its first frame differs over the
//!   Alhambra as motion does, and the frames after it are read until it is accepted.
//! - **Reading from the last scan.** A frame whose changed blocks (against the frame last
//!   scanned) all lie about the Alhambras of the last scan (a tile laid, a hand gone) is
//!   read from that scan ([`Scanner::scan_from`]: no search for fountains): the
//!   Alhambras whose area changed or whose reading is not settled are grown again from
//!   their lattices, the others kept as read (their pixels did not change). A change
//!   anywhere else that no recent whole scan has seen (a new player's fountain, the
//!   camera moved; not a hand gone that was beside the table when the last scan was
//!   made, the table looking again as in an earlier whole scan), an Alhambra not read
//!   again, and every [`TrackerOptions::reread_after`] frames: a whole scan.
//! - **Changes.** On acceptance the cell changes against the previously accepted layout
//!   (added, removed, swapped tiles) are listed, each with the violations it causes on the
//!   state before it (the engine's `preview_place` / `preview_remove` / `preview_swap`).
//!   Several changes at once are taken in the order that breaks the fewest rules (a tile
//!   laid against another new tile is checked after that one).
//!   Walls that now read otherwise on a tile that kept its building are reported apart as
//!   corrections (a new neighbour changes how the side facing it looks; those sides are
//!   voted afresh, without hysteresis) and applied to the previous layout before the
//!   changes are judged.

use crate::geometry::Point;
use crate::scanner::{CellLooks, FoundAlhambra, Scan, ScanError, Scanner};
use crate::source::Frame;
use alhambra_engine::{Alhambra, Change, Piece, Pos, Rules, Side, Violation, Walls};
use opencv::core::{self as cv, Mat, Rect, Size};
use opencv::imgproc;
use opencv::prelude::*;
use std::collections::VecDeque;
use std::fmt;
use thiserror::Error;

/// How the tracker decides.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackerOptions {
    /// Consecutive calm frames with the same reading (cells and buildings; walls by
    /// majority) before it is accepted.
    pub stable_frames: u32,
    /// Consecutive calm frames before a reading that takes accepted tiles away is accepted:
    /// the scanner misses a tile far more often than it invents one, and taking a tile
    /// back is rare in the game, so a removal needs more evidence than an addition.
    pub removal_frames: u32,
    /// Most consecutive calm readings the wall vote looks at.
    pub window: u32,
    /// Most mean absolute grey difference (8-bit levels, downscaled frame) between two
    /// frames over the whole picture for the frame to be calm.
    pub motion_threshold: f32,
    /// Most mean absolute grey difference inside an Alhambra's area for it to be calm.
    pub local_motion_threshold: f32,
    /// Width the frame is shrunk to before motion is measured.
    pub motion_width: i32,
    /// Most distance between fountains, in tiles, for two readings to be one Alhambra.
    pub match_fraction: f64,
    /// Frames after which a track that was never accepted and is no longer seen is
    /// forgotten (a passing false detection).
    pub forget_after: u64,
    /// The rules the layouts are judged by (house rule for holes).
    pub rules: Rules,
    /// Side, in pixels of the downscaled frame, of the blocks a calm frame is compared in
    /// against the last frame read: about a tile at 1080p, so that one tile laid or taken
    /// away shows.
    pub change_block: i32,
    /// Most mean absolute grey difference of any block against the last frame read for a
    /// calm frame to show nothing new (it is then not read again).
    pub change_threshold: f32,
    /// Calm readings of one unchanged picture after which it is not read again even though
    /// some Alhambra is still unsettled (a reading that flickers is not fixed by more of
    /// the same frames).
    pub most_reads: u32,
    /// Frames after which an unchanged picture is read again all the same.
    pub reread_after: u64,
}

impl Default for TrackerOptions {
    fn default() -> TrackerOptions {
        TrackerOptions {
            stable_frames: 3,
            removal_frames: 5,
            window: 5,
            motion_threshold: 1.5,
            local_motion_threshold: 1.5,
            motion_width: 320,
            match_fraction: 0.5,
            forget_after: 30,
            rules: Rules::default(),
            change_block: 6,
            change_threshold: 6.0,
            most_reads: 10,
            reread_after: 300,
        }
    }
}

/// Why a frame could not be tracked.
#[derive(Debug, Error)]
pub enum TrackerError {
    /// The scanner refused the frame.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// OpenCV failed while measuring motion.
    #[error("motion measurement failed: {0}")]
    OpenCv(#[from] opencv::Error),
    /// [`Tracker::push`] on a tracker made without a scanner.
    #[error("this tracker has no scanner: feed it scans with push_scan")]
    NoScanner,
}

/// One accepted change with what it broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeReport {
    /// What changed.
    pub change: Change,
    /// The rules it broke, judged on the layout just before it; empty when legal.
    pub violations: Vec<Violation>,
}

impl ChangeReport {
    /// Whether the change broke no rule.
    pub fn is_legal(&self) -> bool {
        self.violations.is_empty()
    }

    /// The change in words: "garden added at (2,-1)".
    pub fn summary(&self) -> String {
        match self.change {
            Change::Added(p, t) => format!("{} added at {p}", t.building),
            Change::Removed(p, t) => format!("{} taken away from {p}", t.building),
            Change::Swapped(p, a, b) => {
                format!("{} at {p} exchanged for a {}", a.building, b.building)
            }
        }
    }
}

impl fmt::Display for ChangeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary())?;
        for v in &self.violations {
            write!(f, "; {}", v.message)?;
        }
        Ok(())
    }
}

/// Why an Alhambra's reading is not (yet) accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wait {
    /// The first frame: no previous frame to measure motion against.
    Warmup,
    /// Motion over the table or over this Alhambra (a hand, most likely).
    Motion,
    /// The Alhambra was not found in this frame.
    NotSeen,
    /// The reading cannot be a layout (two tiles read on one cell).
    Unreadable(String),
    /// A new reading, seen in `seen` consecutive calm frames of the `needed`.
    Settling {
        /// Consecutive calm frames with this reading so far.
        seen: u32,
        /// How many it takes.
        needed: u32,
    },
}

impl fmt::Display for Wait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wait::Warmup => f.write_str("first frame: measuring motion"),
            Wait::Motion => f.write_str("hand or motion over the table"),
            Wait::NotSeen => f.write_str("not found in this frame"),
            Wait::Unreadable(why) => write!(f, "unreadable: {why}"),
            Wait::Settling { seen, needed } => {
                write!(f, "reading not yet stable ({seen}/{needed})")
            }
        }
    }
}

/// What the tracker knows about one Alhambra: enough for an overlay.
#[derive(Debug, Clone, PartialEq)]
pub struct AlhambraState {
    /// Its id, stable across frames (0, 1, ... in order of first sight).
    pub id: usize,
    /// The fountain's centre in image pixels, where last seen.
    pub fountain_px: Point,
    /// The tile size in image pixels, as last seen.
    pub tile_px: f64,
    /// Whether it was found in the latest frame.
    pub seen: bool,
    /// The last accepted layout (`None` until the first acceptance).
    pub accepted: Option<Alhambra>,
    /// Every rule the accepted layout breaks.
    pub violations: Vec<Violation>,
    /// The frame the layout was accepted in.
    pub accepted_at: Option<u64>,
    /// The changes of the last acceptance that changed something.
    pub last_changes: Vec<ChangeReport>,
    /// The latest reading, turned to agree with the accepted layout (`None` when not seen
    /// or unreadable).
    pub reading: Option<Alhambra>,
    /// Quarter turns clockwise applied to the scanner's reading to get `reading` (grid cell
    /// `p` of the scan is `p` turned this many times in the accepted layout).
    pub turns: u8,
    /// Why the latest reading is not accepted; `None` when it agrees with the accepted
    /// layout.
    pub wait: Option<Wait>,
}

/// An acceptance in this frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// Which Alhambra.
    pub id: usize,
    /// Whether this is its first accepted layout (no changes to report then).
    pub initial: bool,
    /// The changes against the previously accepted layout, each with its violations
    /// (judged after the corrections).
    pub changes: Vec<ChangeReport>,
    /// Tiles that kept their building but whose walls now read otherwise (before, after):
    /// almost always an earlier misread put right (a new neighbour changes how a side
    /// looks), rarely an exchange for a tile of the same kind. Applied to the previous
    /// layout before the changes are judged, and not reported as changes.
    pub corrections: Vec<Change>,
    /// The layout now accepted.
    pub layout: Alhambra,
}

/// An Alhambra whose reading differs from its accepted layout and is not accepted yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// Which Alhambra.
    pub id: usize,
    /// Why not yet.
    pub wait: Wait,
}

/// What one frame changed.
#[derive(Debug, Clone)]
pub struct TrackerUpdate {
    /// The frame's index.
    pub frame_index: u64,
    /// Mean absolute grey difference against the previous frame (whole picture, 8-bit
    /// levels); `None` for the first frame.
    pub motion: Option<f32>,
    /// Whether the frame was calm everywhere (the whole picture and every Alhambra's area).
    pub calm: bool,
    /// The Alhambras whose layout was accepted in this frame.
    pub accepted: Vec<Accepted>,
    /// The Alhambras waiting for a calm, stable reading.
    pub pending: Vec<Pending>,
    /// Every tracked Alhambra after this frame.
    pub alhambras: Vec<AlhambraState>,
    /// The frame's scan (from [`Tracker::push`] when it read the frame; `None` from
    /// [`Tracker::push_scan`] and for frames not read), so the overlay can be drawn on the
    /// frame its detections came from.
    pub scan: Option<Scan>,
    /// Whether that scan was a whole one, or read from the Alhambras of the scan before
    /// it (the frame changed only about them, see [`Scanner::scan_from`]).
    pub scanned_whole: bool,
}

/// A tracked Alhambra with the gate's private state.
#[derive(Debug, Clone)]
struct Track {
    state: AlhambraState,
    /// The latest calm readings (turned to agree with the accepted layout), oldest first;
    /// emptied by motion and by a frame without this Alhambra.
    history: VecDeque<Alhambra>,
    /// Bounding box of its tiles in image pixels (x0, y0, x1, y1), where last seen.
    area: [f64; 4],
    /// The last frame it was found in.
    last_seen: u64,
}

/// The frame-to-frame tracker (see the module documentation).
#[derive(Debug)]
pub struct Tracker {
    scanner: Option<Scanner>,
    options: TrackerOptions,
    tracks: Vec<Track>,
    next_id: usize,
    previous_grey: Option<Mat>,
    frames: u64,
    /// The downscaled grey frame last read calm, what later calm frames are compared with.
    read_grey: Option<Mat>,
    /// The index of that frame.
    read_at: u64,
    /// Calm readings of the picture since it last changed.
    calm_reads: u32,
    /// Whether the table moved since the last calm reading.
    moved: bool,
    /// The last scan, whose Alhambras a frame that changed only about them is read from
    /// (see [`Scanner::scan_from`]).
    last_scan: Option<Scan>,
    /// The downscaled grey frame it was made from.
    scan_grey: Option<Mat>,
    /// The index of the last frame scanned whole.
    whole_at: u64,
    /// The downscaled grey frames of the last few whole scans, newest first: a block
    /// outside every Alhambra that looks as it did in one of them shows nothing a whole
    /// scan has not looked at.
    whole_greys: Vec<Mat>,
    /// The looks of the frames read since the last whole scan, where the picture has not
    /// changed since (see [`CellLooks`]): a frame read from the last scan looks again
    /// only where it changed.
    looks: CellLooks,
}

impl Track {
    /// How far `found`'s fountain lies from this track's, when near enough for it to be
    /// this Alhambra (within `fraction` of a tile).
    fn reaches(&self, found: &FoundAlhambra, fraction: f64) -> Option<f64> {
        let d = (found.fountain_px[0] - self.state.fountain_px[0])
            .hypot(found.fountain_px[1] - self.state.fountain_px[1]);
        (d <= fraction * self.state.tile_px.max(tile_px_of(found))).then_some(d)
    }
}

/// The mean side length of a found Alhambra's tiles, pixels.
fn tile_px_of(found: &FoundAlhambra) -> f64 {
    let sides: Vec<f64> = found
        .tiles
        .iter()
        .map(|t| {
            let c = &t.corners_px;
            (0..4)
                .map(|i| {
                    let (p, q) = (c[i], c[(i + 1) % 4]);
                    (p[0] - q[0]).hypot(p[1] - q[1])
                })
                .sum::<f64>()
                / 4.0
        })
        .filter(|s| s.is_finite() && *s > 0.0)
        .collect();
    if sides.is_empty() {
        50.0
    } else {
        sides.iter().sum::<f64>() / sides.len() as f64
    }
}

/// The bounding box of a found Alhambra's tiles, grown by `margin` pixels.
fn area_of(found: &FoundAlhambra, margin: f64) -> [f64; 4] {
    let mut b = [
        found.fountain_px[0],
        found.fountain_px[1],
        found.fountain_px[0],
        found.fountain_px[1],
    ];
    for p in found.tiles.iter().flat_map(|t| t.corners_px.iter()) {
        if p[0].is_finite() && p[1].is_finite() {
            b = [
                b[0].min(p[0]),
                b[1].min(p[1]),
                b[2].max(p[0]),
                b[3].max(p[1]),
            ];
        }
    }
    [b[0] - margin, b[1] - margin, b[2] + margin, b[3] + margin]
}

/// A found Alhambra as an engine layout under `rules` (see [`FoundAlhambra::layout`]); an
/// error when two tiles were read on one cell.
fn layout_of(found: &FoundAlhambra, rules: Rules) -> Result<Alhambra, String> {
    found
        .layout()
        .map(|a| a.with_rules(rules))
        .map_err(|e| e.to_string())
}

/// The layout turned clockwise `turns` quarter turns.
fn turned(layout: &Alhambra, turns: u8) -> Alhambra {
    let mut out = layout.clone();
    for _ in 0..turns % 4 {
        out = out.rotated_clockwise();
    }
    out
}

/// The reading turned to agree best with `reference` (fewest changed cells); ties keep
/// `current` turns. Returns the turned layout and the turns.
fn align(reading: &Alhambra, reference: Option<&Alhambra>, current: u8) -> (Alhambra, u8) {
    let Some(reference) = reference else {
        return (turned(reading, current), current);
    };
    let mut best = (turned(reading, current), current);
    let mut best_score = best.0.changes_since(reference).len();
    for t in 0..4u8 {
        if t == current % 4 {
            continue;
        }
        let candidate = turned(reading, t);
        let score = candidate.changes_since(reference).len();
        if score < best_score {
            best_score = score;
            best = (candidate, t);
        }
    }
    best
}

/// Whether two layouts have the same cells with the same buildings (walls aside).
fn same_skeleton(a: &Alhambra, b: &Alhambra) -> bool {
    a.len() == b.len()
        && a.tiles()
            .zip(b.tiles())
            .all(|((p, x), (q, y))| p == q && x.building == y.building)
}

/// The layout a run of readings with one skeleton (newest first) agrees on. A side of a
/// cell that holds the same building as in the accepted layout, facing a cell that did not
/// change, keeps its accepted reading unless a full `window` of readings all say otherwise
/// (hysteresis: a flickering side never flips it); any other side is walled when most readings say so, a tie going to the
/// newest reading. `None` for an empty run.
fn consensus(
    run: &[&Alhambra],
    accepted: Option<&Alhambra>,
    window: usize,
    rules: Rules,
) -> Option<Alhambra> {
    let newest = run.first()?;
    let n = run.len();
    let pieces = newest.tiles().map(|(pos, piece)| {
        let before = accepted
            .and_then(|a| a.get(pos))
            .filter(|p| p.building == piece.building);
        let mut walls = Walls::NONE;
        for side in Side::ALL {
            // A side facing a cell that changed looks different now: voted afresh.
            let there = pos.neighbour(side);
            let building_at = |l: &Alhambra| l.get(there).map(|p| p.building);
            let fresh = accepted.is_some_and(|a| building_at(a) != building_at(newest));
            let before = before.filter(|_| !fresh);
            let votes = run
                .iter()
                .filter(|r| r.get(pos).is_some_and(|p| p.walls.has(side)))
                .count();
            let walled = match before {
                Some(b) if b.walls.has(side) => !(n >= window && votes == 0),
                Some(_) => n >= window && votes == n,
                None => match (2 * votes).cmp(&n) {
                    std::cmp::Ordering::Greater => true,
                    std::cmp::Ordering::Less => false,
                    std::cmp::Ordering::Equal => piece.walls.has(side),
                },
            };
            if walled {
                walls = walls.with(side);
            }
        }
        (pos, Piece::new(piece.building, walls))
    });
    Alhambra::from_pieces(pieces)
        .ok()
        .map(|a| a.with_rules(rules))
}

/// What `change` would break on `state`.
fn preview(state: &Alhambra, change: Change) -> Vec<Violation> {
    match change {
        Change::Added(p, t) => state.preview_place(p, t),
        Change::Removed(p, _) => state.preview_remove(p),
        Change::Swapped(p, _, t) => state.preview_swap(p, t),
    }
}

/// `state` with `change` made, whatever it breaks.
fn apply(state: &Alhambra, change: Change) -> Alhambra {
    let pos = change.pos();
    let mut cells: Vec<(Pos, Piece)> = state.tiles().filter(|&(p, _)| p != pos).collect();
    match change {
        Change::Added(p, t) | Change::Swapped(p, _, t) => cells.push((p, t)),
        Change::Removed(..) => {}
    }
    Alhambra::from_pieces(cells)
        .map(|a| a.with_rules(state.rules()))
        .unwrap_or_else(|_| state.clone())
}

/// The wall-only differences from `before` to `after` (same building on the cell) and
/// `before` with them applied.
fn wall_corrections(before: &Alhambra, after: &Alhambra) -> (Vec<Change>, Alhambra) {
    let corrections: Vec<Change> = after
        .changes_since(before)
        .into_iter()
        .filter(|c| matches!(c, Change::Swapped(_, a, b) if a.building == b.building))
        .collect();
    let corrected = corrections
        .iter()
        .fold(before.clone(), |s, &c| apply(&s, c));
    (corrections, corrected)
}

/// Most changes ordered by trial; beyond this (a rebuilt or misread Alhambra) they are
/// taken in cell order.
const MAX_ORDERED_CHANGES: usize = 12;

/// The changes from `before` to `after`, each checked on the state just before it: at each
/// step the first change (in cell order) that breaks nothing, else the first one.
pub fn change_reports(before: &Alhambra, after: &Alhambra) -> Vec<ChangeReport> {
    let mut remaining = after.changes_since(before);
    let ordered = remaining.len() <= MAX_ORDERED_CHANGES;
    let mut state = before.clone();
    let mut out = Vec::with_capacity(remaining.len());
    while !remaining.is_empty() {
        let pick = if ordered {
            remaining
                .iter()
                .position(|&c| preview(&state, c).is_empty())
                .unwrap_or(0)
        } else {
            0
        };
        let change = remaining.remove(pick);
        let violations = preview(&state, change);
        state = apply(&state, change);
        out.push(ChangeReport { change, violations });
    }
    out
}

/// Mean absolute difference of two equally sized grey images inside `roi` (whole images
/// when `None`).
fn mean_abs_diff(a: &Mat, b: &Mat, roi: Option<Rect>) -> Result<f32, opencv::Error> {
    let mut diff = Mat::default();
    match roi {
        Some(r) => {
            let (ra, rb) = (Mat::roi(a, r)?, Mat::roi(b, r)?);
            cv::absdiff(&ra, &rb, &mut diff)?;
        }
        None => cv::absdiff(a, b, &mut diff)?,
    }
    Ok(cv::mean(&diff, &cv::no_array())?[0] as f32)
}

/// The largest mean absolute difference of two grey frames over any block of `block` x
/// `block` pixels (blocks at the edges may be smaller).
fn most_block_diff(a: &Mat, b: &Mat, block: i32) -> Result<f32, opencv::Error> {
    let blocks = block_diffs(a, b, block.max(1))?;
    let mut most = 0.0;
    cv::min_max_loc(&blocks, None, Some(&mut most), None, None, &cv::no_array())?;
    Ok(most as f32)
}

/// The mean absolute difference of grey frames `a` and `b` over each block of `block` x
/// `block` pixels (blocks at the edges may be smaller).
fn block_diffs(a: &Mat, b: &Mat, block: i32) -> Result<Mat, opencv::Error> {
    let mut diff = Mat::default();
    cv::absdiff(a, b, &mut diff)?;
    let size = Size::new(
        (diff.cols() + block - 1) / block,
        (diff.rows() + block - 1) / block,
    );
    let mut blocks = Mat::default();
    imgproc::resize(&diff, &mut blocks, size, 0.0, 0.0, imgproc::INTER_AREA)?;
    Ok(blocks)
}

/// How many whole scans' frames a change outside the Alhambras is compared with.
const WHOLE_GREYS: usize = 4;

/// Where grey frame `a` differs from another, by `blocks` (its mean differences per block
/// of `block` x `block` pixels, see [`block_diffs`]) differing by more than `threshold`:
/// whether some such block touches none of `areas`
/// and differs as much from every frame of `seen` (a picture seen before, as a hand gone
/// shows the table again), and for each area whether one touches it.
fn block_changes(
    a: &Mat,
    blocks: &Mat,
    seen: &[Mat],
    block: i32,
    threshold: f32,
    areas: &[Rect],
) -> Result<(bool, Vec<bool>), opencv::Error> {
    let block = block.max(1);
    let before: Vec<Mat> = seen
        .iter()
        .filter(|s| s.size().ok() == a.size().ok())
        .map(|s| block_diffs(a, s, block))
        .collect::<Result<_, _>>()?;
    let differs = |m: &Mat, bx: i32, by: i32| -> Result<bool, opencv::Error> {
        Ok(f32::from(*m.at_2d::<u8>(by, bx)?) > threshold)
    };
    let mut outside = false;
    let mut touched = vec![false; areas.len()];
    for by in 0..blocks.rows() {
        for bx in 0..blocks.cols() {
            if !differs(blocks, bx, by)? {
                continue;
            }
            let here = Rect::new(bx * block, by * block, block, block);
            let mut inside = false;
            for (t, r) in touched.iter_mut().zip(areas) {
                if (*r & here).area() > 0 {
                    *t = true;
                    inside = true;
                }
            }
            if !inside && !outside {
                let mut new = true;
                for m in &before {
                    new &= differs(m, bx, by)?;
                }
                outside = new;
            }
        }
    }
    Ok((outside, touched))
}

/// Whether no block of `blocks` (mean differences per block) that box `b` (x0, y0, x1,
/// y1, in blocks) covers differs by more than `threshold`; blocks beyond the frame, black
/// in every frame, never differ.
fn unchanged_in(blocks: &Mat, b: [f64; 4], threshold: f32) -> bool {
    let (columns, rows) = (blocks.cols(), blocks.rows());
    let x0 = (b[0].floor().max(0.0) as i32).min(columns);
    let y0 = (b[1].floor().max(0.0) as i32).min(rows);
    let x1 = (b[2].floor().max(-1.0) as i32).min(columns - 1);
    let y1 = (b[3].floor().max(-1.0) as i32).min(rows - 1);
    (y0..=y1).all(|by| {
        (x0..=x1).all(|bx| {
            blocks
                .at_2d::<u8>(by, bx)
                .is_ok_and(|&d| f32::from(d) <= threshold)
        })
    })
}

/// Image area `area` (x0, y0, x1, y1 in image pixels) on a frame shrunk by `scale` to
/// `size`: at least a pixel, inside it.
fn roi_of(area: [f64; 4], scale: f64, size: Size) -> Rect {
    let (w, h) = (size.width.max(1), size.height.max(1));
    let x0 = ((area[0] * scale).floor() as i32).clamp(0, w - 1);
    let y0 = ((area[1] * scale).floor() as i32).clamp(0, h - 1);
    let x1 = ((area[2] * scale).ceil() as i32).clamp(x0 + 1, w);
    let y1 = ((area[3] * scale).ceil() as i32).clamp(y0 + 1, h);
    Rect::new(x0, y0, x1 - x0, y1 - y0)
}

impl Tracker {
    /// A tracker reading frames with this scanner, default options.
    pub fn new(scanner: Scanner) -> Tracker {
        Tracker::with_options(scanner, TrackerOptions::default())
    }

    /// A tracker reading frames with this scanner.
    pub fn with_options(scanner: Scanner, options: TrackerOptions) -> Tracker {
        Tracker {
            scanner: Some(scanner),
            ..Tracker::scanless(options)
        }
    }

    /// A tracker fed only with scans ([`Tracker::push_scan`]): tests, or a caller that
    /// scans on its own.
    pub fn scanless(options: TrackerOptions) -> Tracker {
        Tracker {
            scanner: None,
            options,
            tracks: Vec::new(),
            next_id: 0,
            previous_grey: None,
            frames: 0,
            read_grey: None,
            read_at: 0,
            calm_reads: 0,
            moved: false,
            last_scan: None,
            scan_grey: None,
            whole_at: 0,
            whole_greys: Vec::new(),
            looks: CellLooks::new(),
        }
    }

    /// The options in use.
    pub fn options(&self) -> &TrackerOptions {
        &self.options
    }

    /// Every tracked Alhambra, by id.
    pub fn alhambras(&self) -> Vec<AlhambraState> {
        self.tracks.iter().map(|t| t.state.clone()).collect()
    }

    /// The accepted layout of Alhambra `id`.
    pub fn accepted(&self, id: usize) -> Option<&Alhambra> {
        self.tracks
            .iter()
            .find(|t| t.state.id == id)
            .and_then(|t| t.state.accepted.as_ref())
    }

    /// Reads with `scanner` from the next frame on (a profile learned from the players'
    /// corrections): that frame is read, and scanned whole, even when nothing moved.
    pub fn use_scanner(&mut self, scanner: Scanner) {
        self.scanner = Some(scanner);
        self.last_scan = None;
        self.scan_grey = None;
        self.read_grey = None;
        self.whole_greys.clear();
        self.looks.forget();
    }

    /// Measures a frame's motion and, when it may show something new, scans and fuses it.
    ///
    /// No frame is read while the table moves, as a whole or over some Alhambra (a hand or
    /// the camera): the last accepted layouts stay, and the moving ones' count towards the
    /// next starts again. A calm frame is read unless it shows nothing new: no motion since
    /// the last calm reading, no block of it changed against that frame
    /// ([`TrackerOptions::change_block`]), and every Alhambra settled (its reading
    /// accepted) or the picture read [`TrackerOptions::most_reads`] times. A scan takes a
    /// second or two; a frame not read, about a millisecond at 1080p (`cargo bench --bench
    /// tracker`). [`TrackerUpdate::scan`] says whether it was read.
    pub fn push(&mut self, frame: &Frame) -> Result<TrackerUpdate, TrackerError> {
        if self.scanner.is_none() {
            return Err(TrackerError::NoScanner);
        }
        let grey = self.small_grey(&frame.image)?;
        let scale = f64::from(grey.cols()) / f64::from(frame.image.cols().max(1));
        let previous = self
            .previous_grey
            .take()
            .filter(|p| p.size().ok() == grey.size().ok());
        let motion = match &previous {
            Some(prev) => Some(mean_abs_diff(&grey, prev, None)?),
            None => None,
        };
        let opts = &self.options;
        let local_of = |area: [f64; 4]| -> Result<Option<f32>, opencv::Error> {
            let Some(prev) = &previous else {
                return Ok(None);
            };
            let roi = roi_of(area, scale, grey.size()?);
            mean_abs_diff(&grey, prev, Some(roi)).map(Some)
        };
        // Moving over the whole picture, or over some Alhambra: no reading.
        let mut moving = Vec::with_capacity(self.tracks.len());
        let globally_moving = motion.is_some_and(|m| m > opts.motion_threshold);
        for t in &self.tracks {
            let local = local_of(t.area)?;
            moving.push(globally_moving || local.is_some_and(|m| m > opts.local_motion_threshold));
        }
        if motion.is_some() && moving.iter().chain([&globally_moving]).any(|&m| m) {
            self.moved = true;
            self.previous_grey = Some(grey);
            return Ok(self.skip(frame.index, motion, &moving));
        }
        let still = motion.is_some();
        let changed = match &self.read_grey {
            Some(read) if read.size().ok() == grey.size().ok() => {
                most_block_diff(&grey, read, opts.change_block)? > opts.change_threshold
            }
            _ => true,
        };
        let settled = self.tracks.iter().all(|t| t.state.wait.is_none())
            || self.calm_reads >= opts.most_reads;
        let fresh = frame.index.saturating_sub(self.read_at) < opts.reread_after;
        if still && !self.moved && !changed && settled && fresh {
            self.previous_grey = Some(grey);
            return Ok(self.skip(frame.index, motion, &moving));
        }
        let Some(scanner) = &self.scanner else {
            return Err(TrackerError::NoScanner);
        };
        // A frame that changed only about the Alhambras read last (a tile laid, a hand
        // gone) is read from their lattices, at a third of a whole scan's time; a change
        // anywhere else (a new player's fountain, the camera moved) and every
        // `reread_after` frames, a whole scan.
        // Each Alhambra of the last scan is read again when its area changed or its
        // reading is not settled; the others are kept as read.
        let from = match (&self.last_scan, &self.scan_grey) {
            (Some(last), Some(read))
                if read.size().ok() == grey.size().ok()
                    && frame.index.saturating_sub(self.whole_at) < opts.reread_after =>
            {
                let size = grey.size()?;
                let areas: Vec<Rect> = last
                    .alhambras
                    .iter()
                    .map(|a| roi_of(area_of(a, tile_px_of(a)), scale, size))
                    .collect();
                let blocks = block_diffs(&grey, read, opts.change_block.max(1))?;
                let (outside, touched) = block_changes(
                    &grey,
                    &blocks,
                    &self.whole_greys,
                    opts.change_block,
                    opts.change_threshold,
                    &areas,
                )?;
                let settled = |a: &FoundAlhambra| {
                    self.tracks.iter().any(|t| {
                        t.state.wait.is_none() && t.reaches(a, opts.match_fraction).is_some()
                    })
                };
                let changed: Vec<bool> = last
                    .alhambras
                    .iter()
                    .zip(&touched)
                    .map(|(a, &touched)| touched || !settled(a))
                    .collect();
                if !outside {
                    let block = f64::from(opts.change_block.max(1));
                    self.looks.keep_unchanged(|b| {
                        unchanged_in(&blocks, b.map(|v| v * scale / block), opts.change_threshold)
                    });
                }
                (!outside).then_some((last, changed))
            }
            _ => None,
        };
        let whole = from.is_none();
        let scan = match from {
            Some((last, changed)) => {
                scanner.scan_from_remembering(&frame.image, last, &changed, Some(&self.looks))?
            }
            None => {
                self.looks.forget();
                self.whole_at = frame.index;
                self.whole_greys.insert(0, grey.clone());
                self.whole_greys.truncate(WHOLE_GREYS);
                scanner.scan(&frame.image)?
            }
        };
        self.last_scan = Some(scan.clone());
        self.scan_grey = Some(grey.clone());
        // Motion inside every area the tracks or the frame's Alhambras cover.
        let mut areas: Vec<[f64; 4]> = self.tracks.iter().map(|t| t.area).collect();
        areas.extend(scan.alhambras.iter().map(|a| area_of(a, tile_px_of(a))));
        let mut measured: Vec<([f64; 4], f32)> = Vec::with_capacity(areas.len());
        for area in areas {
            if let Some(m) = local_of(area)? {
                measured.push((area, m));
            }
        }
        if still {
            self.calm_reads = if self.moved || changed {
                1
            } else {
                self.calm_reads + 1
            };
            self.read_grey = Some(grey.clone());
            self.read_at = frame.index;
            self.moved = false;
        }
        self.previous_grey = Some(grey);
        let mut update = self.fuse(frame.index, &scan, motion, &|area| {
            // The largest motion among the measured areas that overlap this one.
            measured
                .iter()
                .filter(|(b, _)| {
                    b[0] < area[2] && area[0] < b[2] && b[1] < area[3] && area[1] < b[3]
                })
                .map(|(_, m)| *m)
                .fold(None, |acc: Option<f32>, m| {
                    Some(acc.map_or(m, |a| a.max(m)))
                })
        });
        update.scan = Some(scan);
        update.scanned_whole = whole;
        Ok(update)
    }

    /// A frame not read: each track `moving` (per track, in order) starts its count
    /// again, its accepted layout staying; the others stay as they were, still seen.
    fn skip(&mut self, index: u64, motion: Option<f32>, moving: &[bool]) -> TrackerUpdate {
        self.frames = index + 1;
        let globally_calm = motion.is_some_and(|m| m <= self.options.motion_threshold);
        for (k, track) in self.tracks.iter_mut().enumerate() {
            if globally_calm && !moving.get(k).copied().unwrap_or(true) {
                if track.state.seen {
                    track.last_seen = index;
                }
                continue;
            }
            track.history.clear();
            let agrees =
                track.state.reading.is_some() && track.state.reading == track.state.accepted;
            track.state.wait = if agrees { None } else { Some(Wait::Motion) };
        }
        let calm = globally_calm && !moving.iter().any(|&m| m);
        self.update(index, motion, calm, Vec::new())
    }

    /// Fuses a scan made elsewhere, with its motion (mean absolute grey difference against
    /// the previous frame, 8-bit levels) standing for the whole frame and every area.
    pub fn push_scan(&mut self, scan: &Scan, motion: f32) -> TrackerUpdate {
        let index = self.frames;
        self.fuse(index, scan, Some(motion), &|_| Some(motion))
    }

    /// The frame in grey, shrunk (area averaging) to `motion_width` columns.
    fn small_grey(&self, image: &Mat) -> Result<Mat, opencv::Error> {
        let width = self.options.motion_width.clamp(16, image.cols().max(16));
        let height = ((f64::from(image.rows()) * f64::from(width) / f64::from(image.cols().max(1)))
            .round() as i32)
            .max(1);
        let mut grey = Mat::default();
        if image.channels() == 1 {
            image.copy_to(&mut grey)?;
        } else {
            imgproc::cvt_color(image, &mut grey, imgproc::COLOR_BGR2GRAY, 0)?;
        }
        let mut small = Mat::default();
        imgproc::resize(
            &grey,
            &mut small,
            Size::new(width, height),
            0.0,
            0.0,
            imgproc::INTER_AREA,
        )?;
        Ok(small)
    }

    /// The gate: matches the scan's Alhambras to the tracks and advances each track.
    /// `local(area)` is the motion inside an area (`None`: unknown).
    fn fuse(
        &mut self,
        index: u64,
        scan: &Scan,
        motion: Option<f32>,
        local: &dyn Fn([f64; 4]) -> Option<f32>,
    ) -> TrackerUpdate {
        self.frames = index + 1;
        let opts = self.options.clone();
        let globally_calm = motion.is_some_and(|m| m <= opts.motion_threshold);
        let mut calm = globally_calm;

        // Match found Alhambras to tracks, nearest fountains first.
        let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
        for (fi, f) in scan.alhambras.iter().enumerate() {
            for (ti, t) in self.tracks.iter().enumerate() {
                if let Some(d) = t.reaches(f, opts.match_fraction) {
                    pairs.push((d, fi, ti));
                }
            }
        }
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut found_track: Vec<Option<usize>> = vec![None; scan.alhambras.len()];
        let mut track_found: Vec<Option<usize>> = vec![None; self.tracks.len()];
        for (_, fi, ti) in pairs {
            if found_track[fi].is_none() && track_found[ti].is_none() {
                found_track[fi] = Some(ti);
                track_found[ti] = Some(fi);
            }
        }
        for (fi, f) in scan.alhambras.iter().enumerate() {
            if found_track[fi].is_none() {
                let tile_px = tile_px_of(f);
                track_found.push(Some(fi));
                self.tracks.push(Track {
                    state: AlhambraState {
                        id: self.next_id,
                        fountain_px: f.fountain_px,
                        tile_px,
                        seen: true,
                        accepted: None,
                        violations: Vec::new(),
                        accepted_at: None,
                        last_changes: Vec::new(),
                        reading: None,
                        turns: 0,
                        wait: None,
                    },
                    history: VecDeque::new(),
                    area: area_of(f, tile_px),
                    last_seen: index,
                });
                self.next_id += 1;
            }
        }

        let mut accepted = Vec::new();
        for (track, found) in self.tracks.iter_mut().zip(&track_found) {
            let found = found.and_then(|fi| scan.alhambras.get(fi));
            if let Some(f) = found {
                track.state.fountain_px = f.fountain_px;
                track.state.tile_px = tile_px_of(f);
                track.area = area_of(f, track.state.tile_px);
                track.last_seen = index;
            }
            track.state.seen = found.is_some();
            let local_motion = local(track.area);
            let still =
                globally_calm && local_motion.is_some_and(|m| m <= opts.local_motion_threshold);
            calm &= still;
            let motion_wait = if motion.is_none() {
                Some(Wait::Warmup)
            } else if !still {
                Some(Wait::Motion)
            } else {
                None
            };
            let reading = match found.map(|f| layout_of(f, opts.rules)) {
                None => Err(Wait::NotSeen),
                Some(Err(why)) => Err(Wait::Unreadable(why)),
                Some(Ok(layout)) => {
                    let reference = track.state.accepted.as_ref().or(track.history.back());
                    let (aligned, turns) = align(&layout, reference, track.state.turns);
                    track.state.turns = turns;
                    Ok(aligned)
                }
            };
            track.state.reading = reading.as_ref().ok().cloned();
            let reading = match (reading, motion_wait) {
                (Ok(layout), None) => layout,
                (reading, wait) => {
                    // Not calm, or nothing readable: the count starts again.
                    track.history.clear();
                    let agrees = track.state.reading.is_some()
                        && track.state.reading == track.state.accepted;
                    track.state.wait = if agrees { None } else { wait.or(reading.err()) };
                    continue;
                }
            };
            track.history.push_back(reading);
            let keep = opts.window.max(opts.stable_frames).max(opts.removal_frames);
            while track.history.len() > keep as usize {
                track.history.pop_front();
            }
            // The run of latest readings with the same cells and buildings as the newest.
            let run: Vec<&Alhambra> = match track.history.back() {
                Some(newest) => track
                    .history
                    .iter()
                    .rev()
                    .take_while(|r| same_skeleton(r, newest))
                    .collect(),
                None => Vec::new(),
            };
            let seen = run.len() as u32;
            let window = opts.window.max(opts.stable_frames) as usize;
            let layout = consensus(&run, track.state.accepted.as_ref(), window, opts.rules);
            if track.state.accepted.as_ref() == layout.as_ref() {
                track.state.wait = None;
                continue;
            }
            let removes = |l: &Alhambra| {
                track
                    .state
                    .accepted
                    .as_ref()
                    .is_some_and(|a| a.tiles().any(|(p, _)| l.get(p).is_none()))
            };
            let needed = match &layout {
                Some(l) if removes(l) => opts.removal_frames,
                _ => opts.stable_frames,
            };
            let layout = match layout {
                Some(layout) if seen >= needed => layout,
                _ => {
                    track.state.wait = Some(Wait::Settling {
                        seen: seen.min(needed),
                        needed,
                    });
                    continue;
                }
            };
            // Accepted.
            let before = track.state.accepted.take();
            let (corrections, changes) = match &before {
                Some(b) => {
                    let (corrections, corrected) = wall_corrections(b, &layout);
                    (corrections, change_reports(&corrected, &layout))
                }
                None => (Vec::new(), Vec::new()),
            };
            track.state.violations = layout.check();
            track.state.accepted = Some(layout.clone());
            track.state.accepted_at = Some(index);
            track.state.wait = None;
            if !changes.is_empty() {
                track.state.last_changes = changes.clone();
            }
            accepted.push(Accepted {
                id: track.state.id,
                initial: before.is_none(),
                changes,
                corrections,
                layout,
            });
        }

        self.update(index, motion, calm, accepted)
    }

    /// The update for frame `index`, once every track has taken it in; passing false
    /// detections are forgotten first.
    fn update(
        &mut self,
        index: u64,
        motion: Option<f32>,
        calm: bool,
        accepted: Vec<Accepted>,
    ) -> TrackerUpdate {
        let forget = self.options.forget_after;
        self.tracks
            .retain(|t| t.state.accepted.is_some() || index.saturating_sub(t.last_seen) < forget);
        let pending = self
            .tracks
            .iter()
            .filter_map(|t| {
                t.state.wait.clone().map(|wait| Pending {
                    id: t.state.id,
                    wait,
                })
            })
            .collect();
        TrackerUpdate {
            frame_index: index,
            motion,
            calm,
            accepted,
            pending,
            alhambras: self.alhambras(),
            scan: None,
            scanned_whole: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::appearance::{BLOCK_DIMS, CellFeatures, Reading, SIDE_DIMS};
    use crate::geometry::Homography;
    use crate::scanner::{FoundTile, PlaneSource, Trace};
    use alhambra_engine::{Building, Rule};

    const TILE: f64 = 60.0;

    /// A found tile at grid cell (x, y) of an Alhambra whose fountain is at `origin`.
    fn tile(origin: Point, x: i32, y: i32, building: Building, walls: &str) -> FoundTile {
        let (cx, cy) = (
            origin[0] + f64::from(x) * TILE,
            origin[1] + f64::from(y) * TILE,
        );
        let h = TILE / 2.0;
        FoundTile {
            pos: Pos::new(x, y),
            reading: Reading {
                building,
                walls: Walls::from_letters(walls).unwrap_or_default(),
                building_confidence: 0.9,
                side_confidence: [0.9; 4],
                in_catalogue: true,
            },
            corners_px: [
                [cx - h, cy - h],
                [cx + h, cy - h],
                [cx + h, cy + h],
                [cx - h, cy + h],
            ],
            presence: 1.0,
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

    #[test]
    fn one_tile_changed_shows_in_its_block_and_noise_does_not() {
        // A 320 x 180 grey table with sensor noise of +-1 level, and the same with one
        // tile of 5 x 5 pixels (a 1080p tile downscaled six times) laid on it.
        let noisy = |seed: u64, tile: bool| -> Mat {
            let mut rng = fastrand::Rng::with_seed(seed);
            let mut m =
                Mat::new_rows_cols_with_default(180, 320, cv::CV_8UC1, cv::Scalar::all(0.0))
                    .expect("a grey frame");
            for y in 0..180 {
                for x in 0..320 {
                    let base = if tile && (100..105).contains(&x) && (60..65).contains(&y) {
                        170
                    } else {
                        120
                    };
                    *m.at_2d_mut::<u8>(y, x).expect("inside") = base + rng.u8(0..3) - 1;
                }
            }
            m
        };
        let (a, b, c) = (noisy(1, false), noisy(2, false), noisy(3, true));
        let block = TrackerOptions::default().change_block;
        let threshold = TrackerOptions::default().change_threshold;
        let noise = most_block_diff(&a, &b, block).expect("measured");
        let tile = most_block_diff(&a, &c, block).expect("measured");
        assert!(noise < threshold, "noise {noise}");
        assert!(tile > threshold, "tile {tile}");
        // The whole picture's mean hardly moves: motion alone would not tell.
        let mean = mean_abs_diff(&a, &c, None).expect("measured");
        assert!(mean < TrackerOptions::default().motion_threshold, "{mean}");
        // The tile lies in an Alhambra's area: nothing changed outside it. Away from that
        // area, it did; noise changes nothing anywhere.
        let near = [Rect::new(90, 50, 30, 30)];
        let away = [Rect::new(200, 100, 30, 30)];
        let changes = |x: &Mat, areas: &[Rect]| {
            let blocks = block_diffs(&a, x, block).expect("measured");
            block_changes(&a, &blocks, &[], block, threshold, areas).expect("measured")
        };
        assert_eq!(changes(&c, &near), (false, vec![true]));
        assert_eq!(changes(&c, &away), (true, vec![false]));
        assert_eq!(changes(&b, &near), (false, vec![false]));
        // The patch gone again (a hand beside the table that left): against the frame
        // with it, a change; against one seen before without it as well, nothing new.
        let gone = |seen: &[Mat]| {
            let blocks = block_diffs(&b, &c, block).expect("measured");
            block_changes(&b, &blocks, seen, block, threshold, &away).expect("measured")
        };
        assert_eq!(gone(&[]), (true, vec![false]));
        assert_eq!(gone(std::slice::from_ref(&a)), (false, vec![false]));
    }

    /// A scan of one Alhambra at `origin` with these tiles besides the fountain.
    fn scan(origin: Point, tiles: &[(i32, i32, Building, &str)]) -> Scan {
        let mut found = vec![tile(origin, 0, 0, Building::Fountain, "-")];
        found.extend(tiles.iter().map(|&(x, y, b, w)| tile(origin, x, y, b, w)));
        Scan {
            plane: PlaneSource::Markers,
            alhambras: vec![FoundAlhambra {
                fountain_px: origin,
                grid: Homography([
                    [TILE, 0.0, origin[0]],
                    [0.0, TILE, origin[1]],
                    [0.0, 0.0, 1.0],
                ]),
                tiles: found,
                light: [1.0; 3],
                looked_across: Vec::new(),
            }],
            trace: Trace::default(),
            presence_limit: 0.0,
        }
    }

    const AT: Point = [400.0, 300.0];
    const CALM: f32 = 0.3;
    const MOVING: f32 = 12.0;

    fn tracker() -> Tracker {
        Tracker::scanless(TrackerOptions::default())
    }

    fn base() -> Scan {
        scan(
            AT,
            &[(1, 0, Building::Garden, "N"), (0, 1, Building::Tower, "-")],
        )
    }

    #[test]
    fn a_layout_read_three_times_is_accepted() {
        let mut t = tracker();
        let s = base();
        let u1 = t.push_scan(&s, CALM);
        assert!(u1.accepted.is_empty());
        assert_eq!(u1.pending[0].wait, Wait::Settling { seen: 1, needed: 3 });
        let u2 = t.push_scan(&s, CALM);
        assert!(u2.accepted.is_empty());
        assert_eq!(
            u2.pending[0].wait.to_string(),
            "reading not yet stable (2/3)"
        );
        let u3 = t.push_scan(&s, CALM);
        assert_eq!(u3.accepted.len(), 1);
        assert!(u3.accepted[0].initial);
        assert!(u3.pending.is_empty());
        assert_eq!(t.accepted(0).map(Alhambra::len), Some(3));
        // Reading it again changes nothing.
        let u4 = t.push_scan(&s, CALM);
        assert!(u4.accepted.is_empty() && u4.pending.is_empty());
    }

    #[test]
    fn a_flicker_resets_the_count() {
        let mut t = tracker();
        let s = base();
        let other = scan(AT, &[(1, 0, Building::Garden, "N")]);
        t.push_scan(&s, CALM);
        t.push_scan(&s, CALM);
        let u = t.push_scan(&other, CALM);
        assert!(u.accepted.is_empty());
        assert_eq!(u.pending[0].wait, Wait::Settling { seen: 1, needed: 3 });
        assert!(t.push_scan(&s, CALM).accepted.is_empty());
        assert!(t.push_scan(&s, CALM).accepted.is_empty());
        assert_eq!(t.push_scan(&s, CALM).accepted.len(), 1);
    }

    #[test]
    fn a_moving_frame_never_accepts() {
        let mut t = tracker();
        let s = base();
        for _ in 0..10 {
            let u = t.push_scan(&s, MOVING);
            assert!(u.accepted.is_empty());
            assert!(!u.calm);
            assert_eq!(
                u.pending[0].wait.to_string(),
                "hand or motion over the table"
            );
        }
        // Motion in between restarts the count.
        t.push_scan(&s, CALM);
        t.push_scan(&s, CALM);
        t.push_scan(&s, MOVING);
        t.push_scan(&s, CALM);
        assert!(t.push_scan(&s, CALM).accepted.is_empty());
        assert_eq!(t.push_scan(&s, CALM).accepted.len(), 1);
    }

    #[test]
    fn a_flickering_wall_is_outvoted() {
        let mut t = tracker();
        let s = base();
        let flicker = scan(
            AT,
            &[(1, 0, Building::Garden, "NE"), (0, 1, Building::Tower, "-")],
        );
        t.push_scan(&s, CALM);
        t.push_scan(&flicker, CALM);
        let u = t.push_scan(&s, CALM);
        assert_eq!(u.accepted.len(), 1);
        let garden = Piece::new(
            Building::Garden,
            Walls::from_letters("N").unwrap_or_default(),
        );
        assert_eq!(u.accepted[0].layout.get(Pos::new(1, 0)), Some(garden));
        // Flickering on after acceptance changes nothing either.
        for k in 0..6 {
            let u = t.push_scan(if k % 2 == 0 { &flicker } else { &s }, CALM);
            assert!(u.accepted.is_empty(), "frame {k}: {:?}", u.accepted);
        }
    }

    #[test]
    fn a_wall_read_otherwise_is_a_correction_not_a_change() {
        let mut t = tracker();
        accept(&mut t, &base());
        let reread = scan(
            AT,
            &[(1, 0, Building::Garden, "NE"), (0, 1, Building::Tower, "-")],
        );
        let mut acc = Vec::new();
        for _ in 0..5 {
            acc.extend(t.push_scan(&reread, CALM).accepted);
        }
        assert_eq!(
            acc.len(),
            1,
            "accepted after a full window of agreeing readings"
        );
        assert!(acc[0].changes.is_empty());
        assert!(
            matches!(acc[0].corrections[..], [Change::Swapped(p, _, _)] if p == Pos::new(1, 0))
        );
    }

    fn accept(t: &mut Tracker, s: &Scan) -> Vec<Accepted> {
        let mut out = Vec::new();
        for _ in 0..3 {
            out.extend(t.push_scan(s, CALM).accepted);
        }
        out
    }

    #[test]
    fn one_more_tile_is_exactly_one_added_change() {
        let mut t = tracker();
        accept(&mut t, &base());
        let more = scan(
            AT,
            &[
                (1, 0, Building::Garden, "N"),
                (0, 1, Building::Tower, "-"),
                (-1, 0, Building::Pavilion, "-"),
            ],
        );
        let acc = accept(&mut t, &more);
        assert_eq!(acc.len(), 1);
        assert!(!acc[0].initial);
        let pavilion = Piece::new(Building::Pavilion, Walls::NONE);
        assert_eq!(acc[0].changes.len(), 1);
        assert_eq!(
            acc[0].changes[0].change,
            Change::Added(Pos::new(-1, 0), pavilion)
        );
        assert!(acc[0].changes[0].is_legal());
        assert_eq!(acc[0].changes[0].summary(), "pavilion added at (-1,0)");
        // While the new tile was settling, the old layout stayed.
        let states = t.alhambras();
        assert_eq!(states[0].accepted.as_ref().map(Alhambra::len), Some(4));
    }

    #[test]
    fn an_illegal_addition_names_its_rule() {
        let mut t = tracker();
        accept(&mut t, &base());
        // A tower east of the garden, open on its west side where the garden is open...
        // and one south of the garden walled on the north where the garden is open.
        let more = scan(
            AT,
            &[
                (1, 0, Building::Garden, "N"),
                (0, 1, Building::Tower, "-"),
                (1, 1, Building::Arcades, "N"),
            ],
        );
        let acc = accept(&mut t, &more);
        assert_eq!(acc.len(), 1);
        let report = &acc[0].changes[0];
        assert!(matches!(report.change, Change::Added(p, _) if p == Pos::new(1, 1)));
        assert!(!report.is_legal());
        assert!(
            report
                .violations
                .iter()
                .any(|v| v.rule == Rule::WallMismatch
                    && v.pos == Pos::new(1, 1)
                    && v.side == Some(Side::North)),
            "{report}"
        );
        assert!(!t.alhambras()[0].violations.is_empty());
    }

    #[test]
    fn a_turned_reading_is_the_same_alhambra() {
        let mut t = tracker();
        let s = base();
        accept(&mut t, &s);
        // The same Alhambra read with north a quarter turn off.
        let turned_scan = scan(
            AT,
            &[(0, -1, Building::Garden, "W"), (1, 0, Building::Tower, "-")],
        );
        for _ in 0..5 {
            let u = t.push_scan(&turned_scan, CALM);
            assert!(
                u.accepted.is_empty() && u.pending.is_empty(),
                "{:?}",
                u.pending
            );
        }
    }

    #[test]
    fn two_alhambras_are_tracked_apart() {
        let mut t = tracker();
        let mut s = base();
        let other = scan([900.0, 300.0], &[(0, -1, Building::Seraglio, "-")]);
        s.alhambras.extend(other.alhambras);
        let acc = accept(&mut t, &s);
        assert_eq!(acc.len(), 2);
        // Slightly moved fountains (a nudged camera) keep their ids; order does not matter.
        let mut moved = s.clone();
        moved.alhambras.reverse();
        for a in &mut moved.alhambras {
            a.fountain_px[0] += 8.0;
        }
        let u = t.push_scan(&moved, CALM);
        assert!(u.accepted.is_empty() && u.pending.is_empty());
        assert_eq!(t.alhambras().len(), 2);
        assert_eq!(t.accepted(1).map(Alhambra::len), Some(2));
    }

    #[test]
    fn several_changes_are_checked_in_a_sensible_order() {
        let before = Alhambra::new();
        let g = Piece::new(Building::Garden, Walls::NONE);
        // (2,0) only touches (1,0): checked after it, it is legal.
        let after = Alhambra::from_pieces([
            (Pos::ORIGIN, Piece::FOUNTAIN),
            (Pos::new(2, 0), g),
            (Pos::new(1, 0), g),
        ])
        .expect("well formed");
        let reports = change_reports(&before, &after);
        assert_eq!(reports.len(), 2);
        assert_eq!(reports[0].change.pos(), Pos::new(1, 0));
        assert!(reports.iter().all(ChangeReport::is_legal));
    }
}
