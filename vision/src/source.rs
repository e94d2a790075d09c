//! Where frames come from: the [`FrameSource`] seam and its implementations.
//!
//! - [`ImageFiles`]: a list of photos, or every photo of a folder in name order.
//! - [`VideoFile`]: OpenCV's `VideoCapture` on a video file or a URL (a phone's MJPEG or
//!   RTSP stream).
//! - [`SyntheticScene`]: a rendered table (see [`crate::synth`]) seen over a few dozen
//!   frames while a skin-coloured hand passes over one Alhambra, optionally putting a tile
//!   down; with the ground truth of every frame. What the tracker's tests and the demo use.
//! - [`Camera`]: a webcam through nokhwa (V4L2 on Linux), captured on its own named thread,
//!   decoded with OpenCV (MJPEG with `imdecode`, YUYV / NV12 / grey with `cvt_color`).
//!
//! [`open_source`] picks one from a string such as `camera:0`, a folder, a video file or
//! `synthetic:7`.

use crate::geometry::Point;
use crate::labels::ScanResult;
use crate::synth::{Difficulty, SceneOptions, SynthError, render};
use alhambra_engine::{Alhambra, Building, Piece, Pos};
use opencv::core::{self as cv, Mat, Point as CvPoint, Scalar, Size, Vector};
use opencv::prelude::*;
use opencv::{imgcodecs, imgproc, videoio};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};
use thiserror::Error;

/// One frame from a source.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The picture: BGR, 8 bits per channel.
    pub image: Mat,
    /// Its number in the source's sequence, from 0. A live source counts every frame it
    /// captured, so a gap means frames were dropped as stale.
    pub index: u64,
    /// When it was taken, in milliseconds from the start of the source (a file's own
    /// timeline where it has one).
    pub timestamp_ms: u64,
}

/// Why a source could not be opened or read.
#[derive(Debug, Error)]
pub enum SourceError {
    /// No camera to open; the message says what to do instead.
    #[error("{0}")]
    NoCamera(String),
    /// A camera exists but failed.
    #[error("camera {index}: {problem}")]
    Camera {
        /// Which camera.
        index: u32,
        /// What went wrong.
        problem: String,
    },
    /// A file, folder or stream could not be read.
    #[error("{name}: {problem}")]
    File {
        /// The path or URL.
        name: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The source description makes no sense.
    #[error("bad frame source {spec:?}: {problem}")]
    Spec {
        /// What was asked for.
        spec: String,
        /// Why it cannot be opened.
        problem: String,
    },
    /// The synthetic scene could not be rendered.
    #[error("synthetic scene: {0}")]
    Synth(#[from] SynthError),
    /// OpenCV failed.
    #[error("image processing failed: {0}")]
    OpenCv(#[from] opencv::Error),
}

/// Anything that hands out frames one after the other.
pub trait FrameSource {
    /// The next frame; `Ok(None)` at the end of a finite source. A live source waits for
    /// its next frame (a few seconds at most before it reports an error).
    fn next_frame(&mut self) -> Result<Option<Frame>, SourceError>;

    /// What this source is, for the user ("camera 0 (HD Webcam, MJPEG 1920x1080 @ 30)").
    fn describe(&self) -> String;
}

/// The file extensions read as photos.
const IMAGE_EXTENSIONS: [&str; 7] = ["jpg", "jpeg", "png", "bmp", "tif", "tiff", "webp"];

/// Whether a path names a photo by its extension.
fn is_image_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGE_EXTENSIONS.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// A list of photos shown one after the other.
#[derive(Debug, Clone)]
pub struct ImageFiles {
    paths: Vec<PathBuf>,
    next: usize,
    index: u64,
    interval_ms: u64,
    looping: bool,
    name: String,
}

impl ImageFiles {
    /// These photos in this order. An empty list is an error.
    pub fn new(paths: Vec<PathBuf>) -> Result<ImageFiles, SourceError> {
        if paths.is_empty() {
            return Err(SourceError::Spec {
                spec: String::new(),
                problem: "no image files given".into(),
            });
        }
        let name = format!("{} image file(s)", paths.len());
        Ok(ImageFiles {
            paths,
            next: 0,
            index: 0,
            interval_ms: 1000 / 30,
            looping: false,
            name,
        })
    }

    /// Every photo (by extension: jpg, jpeg, png, bmp, tif, tiff, webp) directly inside a
    /// folder, in name order.
    pub fn folder(dir: &Path) -> Result<ImageFiles, SourceError> {
        let file_error = |problem: String| SourceError::File {
            name: dir.display().to_string(),
            problem,
        };
        let entries = std::fs::read_dir(dir).map_err(|e| file_error(e.to_string()))?;
        let mut paths = Vec::new();
        for entry in entries {
            let path = entry.map_err(|e| file_error(e.to_string()))?.path();
            if path.is_file() && is_image_path(&path) {
                paths.push(path);
            }
        }
        if paths.is_empty() {
            return Err(file_error(
                "no image files (jpg, png, ...) in this folder".into(),
            ));
        }
        paths.sort();
        let mut files = ImageFiles::new(paths)?;
        files.name = format!("{} photo(s) in {}", files.paths.len(), dir.display());
        Ok(files)
    }

    /// Starts again from the first photo after the last instead of ending.
    #[must_use]
    pub fn looping(mut self, looping: bool) -> ImageFiles {
        self.looping = looping;
        self
    }

    /// The time between two photos in the frame timestamps (default 33 ms, 30 per second).
    #[must_use]
    pub fn with_interval_ms(mut self, interval_ms: u64) -> ImageFiles {
        self.interval_ms = interval_ms;
        self
    }

    /// The photos, in the order they are shown.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }
}

impl FrameSource for ImageFiles {
    fn next_frame(&mut self) -> Result<Option<Frame>, SourceError> {
        if self.next >= self.paths.len() {
            if !self.looping {
                return Ok(None);
            }
            self.next = 0;
        }
        let path = &self.paths[self.next];
        let name = path.display().to_string();
        let Some(text) = path.to_str() else {
            return Err(SourceError::File {
                name,
                problem: "the path is not valid UTF-8".into(),
            });
        };
        let image = imgcodecs::imread(text, imgcodecs::IMREAD_COLOR)?;
        if image.empty() {
            return Err(SourceError::File {
                name,
                problem: "cannot be read as an image".into(),
            });
        }
        self.next += 1;
        let frame = Frame {
            image,
            index: self.index,
            timestamp_ms: self.index * self.interval_ms,
        };
        self.index += 1;
        Ok(Some(frame))
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}

/// A video file or a network stream read by OpenCV's `VideoCapture` (FFmpeg or GStreamer
/// behind it): `.mp4`, `.avi`, `.mkv`, an `http://.../video` MJPEG stream from a phone, an
/// `rtsp://` URL.
pub struct VideoFile {
    capture: videoio::VideoCapture,
    name: String,
    live: bool,
    index: u64,
    started: Instant,
}

impl std::fmt::Debug for VideoFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VideoFile")
            .field("name", &self.name)
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl VideoFile {
    /// Opens a video file (which must exist) or a URL (anything with `://`).
    pub fn open(path_or_url: &str) -> Result<VideoFile, SourceError> {
        let live = path_or_url.contains("://");
        let file_error = |problem: &str| SourceError::File {
            name: path_or_url.to_owned(),
            problem: problem.to_owned(),
        };
        if !live && !Path::new(path_or_url).is_file() {
            return Err(file_error("no such file"));
        }
        let capture = videoio::VideoCapture::from_file(path_or_url, videoio::CAP_ANY)?;
        if !capture.is_opened()? {
            return Err(file_error(if live {
                "cannot open the stream (is the URL right and the phone's camera app serving?)"
            } else {
                "cannot be opened as a video (unknown format or codec)"
            }));
        }
        Ok(VideoFile {
            capture,
            name: path_or_url.to_owned(),
            live,
            index: 0,
            started: Instant::now(),
        })
    }
}

impl FrameSource for VideoFile {
    fn next_frame(&mut self) -> Result<Option<Frame>, SourceError> {
        let mut image = Mat::default();
        if !self.capture.read(&mut image)? || image.empty() {
            return Ok(None);
        }
        let image = to_bgr(image)?;
        let position = self.capture.get(videoio::CAP_PROP_POS_MSEC).unwrap_or(0.0);
        let timestamp_ms = if !self.live && position.is_finite() && position > 0.0 {
            position as u64
        } else {
            self.started.elapsed().as_millis() as u64
        };
        let frame = Frame {
            image,
            index: self.index,
            timestamp_ms,
        };
        self.index += 1;
        Ok(Some(frame))
    }

    fn describe(&self) -> String {
        if self.live {
            format!("stream {}", self.name)
        } else {
            format!("video {}", self.name)
        }
    }
}

/// A decoded picture as 8-bit BGR (grey and BGRA pictures converted).
fn to_bgr(image: Mat) -> Result<Mat, SourceError> {
    let code = match image.typ() {
        cv::CV_8UC3 => return Ok(image),
        cv::CV_8UC1 => imgproc::COLOR_GRAY2BGR,
        cv::CV_8UC4 => imgproc::COLOR_BGRA2BGR,
        other => {
            return Err(SourceError::File {
                name: "frame".into(),
                problem: format!("unsupported pixel type {other}"),
            });
        }
    };
    let mut bgr = Mat::default();
    imgproc::cvt_color(&image, &mut bgr, code, 0)?;
    Ok(bgr)
}

// ---------------------------------------------------------------------------------------
// Synthetic sequences
// ---------------------------------------------------------------------------------------

/// What happens in a synthetic sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Story {
    /// A hand reaches over one Alhambra and withdraws; nothing on the table changes.
    #[default]
    HandPass,
    /// The hand puts a tile down at the edge of one Alhambra: the tile is absent before the
    /// hand's deepest reach and present from then on.
    TileAdded,
}

/// How a synthetic sequence is made.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticOptions {
    /// The rendered table.
    pub scene: SceneOptions,
    /// What happens.
    pub story: Story,
    /// Calm frames before the hand comes into view.
    pub calm_before: u32,
    /// Frames with the hand in view.
    pub hand_frames: u32,
    /// Calm frames after it has gone.
    pub calm_after: u32,
    /// Standard deviation of the per-frame sensor noise, 8-bit levels.
    pub noise: f64,
}

impl Default for SyntheticOptions {
    fn default() -> SyntheticOptions {
        SyntheticOptions {
            scene: SceneOptions {
                seed: 1,
                players: Some(2),
                difficulty: Difficulty::Easy,
                width: 1280,
                height: 720,
                ..SceneOptions::default()
            },
            story: Story::HandPass,
            calm_before: 6,
            hand_frames: 12,
            calm_after: 6,
            noise: 2.0,
        }
    }
}

/// Which part of the story a frame belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before the hand comes: the first layout, calm.
    Before,
    /// The hand is in view.
    Hand,
    /// The hand has gone: the final layout, calm.
    After,
}

/// The tile the [`Story::TileAdded`] hand puts down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddedTile {
    /// Which labelled Alhambra (index into the labels' `alhambras`).
    pub alhambra: usize,
    /// Its cell in the labels' orientation.
    pub pos: Pos,
    /// The tile.
    pub piece: Piece,
}

/// The ground truth of one synthetic frame.
#[derive(Debug, Clone)]
pub struct FrameTruth {
    /// The frame's number.
    pub index: u64,
    /// Which part of the story it shows.
    pub phase: Phase,
    /// Whether the added tile lies on the table in this frame (always false for
    /// [`Story::HandPass`]).
    pub tile_present: bool,
    /// The centre of the hand's palm in image pixels, when the hand is in view (it may lie
    /// just outside the picture while the arm is visible).
    pub hand_px: Option<Point>,
    /// Every labelled Alhambra as it lies on the table in this frame (labels' orientation;
    /// tiles hidden by the hand included).
    pub layouts: Vec<Alhambra>,
}

/// The hand's path and look.
#[derive(Debug, Clone)]
struct HandPath {
    /// Where the palm is at full reach.
    target: Point,
    /// Where it enters (outside the picture).
    entry: Point,
    /// Unit vector across the reach (the hand drifts along it so it never stops).
    across: Point,
    /// Tile size in pixels: the hand's scale.
    tile_px: f64,
    /// Skin colour (BGR).
    skin: [f64; 3],
}

/// A rendered table seen over a short sequence: calm frames, a hand passing over one
/// Alhambra (optionally putting a tile down), calm frames again; fresh sensor noise in
/// every frame. Deterministic: the same options give the same frames.
pub struct SyntheticScene {
    opts: SyntheticOptions,
    before: Mat,
    after: Mat,
    labels_before: ScanResult,
    labels_after: ScanResult,
    layouts_before: Vec<Alhambra>,
    layouts_after: Vec<Alhambra>,
    added: Option<AddedTile>,
    hand: HandPath,
    next: u64,
}

impl std::fmt::Debug for SyntheticScene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyntheticScene")
            .field("opts", &self.opts)
            .field("added", &self.added)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

/// The labels' Alhambras as engine layouts (every tile, hidden or not).
fn layouts_of(labels: &ScanResult) -> Vec<Alhambra> {
    labels
        .alhambras
        .iter()
        .map(|a| {
            Alhambra::from_pieces(
                a.tiles
                    .iter()
                    .map(|t| (Pos::new(t.x, t.y), Piece::new(t.building, t.walls))),
            )
            .unwrap_or_default()
        })
        .collect()
}

/// A tile's corners from its label as f64 points.
fn label_corners(corners: Option<[[f32; 2]; 4]>) -> Option<[Point; 4]> {
    corners.map(|c| c.map(|p| [f64::from(p[0]), f64::from(p[1])]))
}

fn centre(c: &[Point; 4]) -> Point {
    [
        c.iter().map(|p| p[0]).sum::<f64>() / 4.0,
        c.iter().map(|p| p[1]).sum::<f64>() / 4.0,
    ]
}

/// The quad scaled by `s` about its centre, as integer points.
fn scaled_quad(c: &[Point; 4], s: f64) -> Vector<CvPoint> {
    let m = centre(c);
    c.iter()
        .map(|p| {
            CvPoint::new(
                (m[0] + (p[0] - m[0]) * s).round() as i32,
                (m[1] + (p[1] - m[1]) * s).round() as i32,
            )
        })
        .collect()
}

fn side_length(c: &[Point; 4]) -> f64 {
    (0..4)
        .map(|i| {
            let (p, q) = (c[i], c[(i + 1) % 4]);
            ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt()
        })
        .sum::<f64>()
        / 4.0
}

impl SyntheticScene {
    /// Renders the scene (a fraction of a second) and prepares the sequence.
    pub fn new(opts: SyntheticOptions) -> Result<SyntheticScene, SourceError> {
        let scene = render(&opts.scene)?;
        let (w, h) = (f64::from(scene.image.cols()), f64::from(scene.image.rows()));
        let mut rng = fastrand::Rng::with_seed(opts.scene.seed ^ 0x4a4e_d5ca_11ab_0001);
        let labels_after = scene.labels.clone();
        let visible = |c: &[Point; 4], margin: f64| {
            c.iter().all(|p| {
                p[0] >= margin && p[1] >= margin && p[0] <= w - margin && p[1] <= h - margin
            })
        };
        let (before, labels_before, added, focus) = match opts.story {
            Story::HandPass => {
                // Reach over the largest fully visible Alhambra.
                let best = labels_after
                    .alhambras
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| a.tiles.iter().all(|t| !t.occluded))
                    .max_by_key(|(_, a)| a.tiles.len())
                    .map(|(i, _)| i);
                let Some(i) = best else {
                    return Err(SourceError::Spec {
                        spec: format!("synthetic:{}", opts.scene.seed),
                        problem: "the rendered scene shows no Alhambra in full".into(),
                    });
                };
                let corners: Vec<[Point; 4]> = labels_after.alhambras[i]
                    .tiles
                    .iter()
                    .filter_map(|t| label_corners(t.corners_px))
                    .collect();
                let n = corners.len().max(1) as f64;
                let focus = [
                    corners.iter().map(|c| centre(c)[0]).sum::<f64>() / n,
                    corners.iter().map(|c| centre(c)[1]).sum::<f64>() / n,
                ];
                let tile = corners.first().map_or(60.0, side_length);
                (
                    scene.image.clone(),
                    labels_after.clone(),
                    None,
                    (focus, tile),
                )
            }
            Story::TileAdded => {
                // A tile whose removal keeps its Alhambra legal, fully in view, not the
                // fountain: the one the hand will put down.
                let layouts = layouts_of(&labels_after);
                let mut candidates = Vec::new();
                for (i, a) in labels_after.alhambras.iter().enumerate() {
                    for (k, t) in a.tiles.iter().enumerate() {
                        let Some(c) = label_corners(t.corners_px) else {
                            continue;
                        };
                        let pos = Pos::new(t.x, t.y);
                        if t.building != Building::Fountain
                            && !t.occluded
                            && visible(&c, side_length(&c))
                            && layouts[i].preview_remove(pos).is_empty()
                        {
                            candidates.push((i, k, c));
                        }
                    }
                }
                if candidates.is_empty() {
                    return Err(SourceError::Spec {
                        spec: format!("synthetic:{}:tile", opts.scene.seed),
                        problem: "no tile of the rendered scene can be taken away legally".into(),
                    });
                }
                let (i, k, c) = candidates[rng.usize(0..candidates.len())];
                let t = &labels_after.alhambras[i].tiles[k];
                let added = AddedTile {
                    alhambra: i,
                    pos: Pos::new(t.x, t.y),
                    piece: Piece::new(t.building, t.walls),
                };
                let before = paint_out_tile(&scene.image, &labels_after, &c)?;
                let mut labels_before = labels_after.clone();
                labels_before.alhambras[i].tiles.remove(k);
                (
                    before,
                    labels_before,
                    Some(added),
                    (centre(&c), side_length(&c)),
                )
            }
        };
        let (target, tile_px) = focus;
        // The arm comes in from the nearest of the bottom, left or right edges.
        let candidates = [
            ([target[0], h + 3.0 * tile_px], h - target[1]),
            ([-3.0 * tile_px, target[1]], target[0]),
            ([w + 3.0 * tile_px, target[1]], w - target[0]),
        ];
        let entry = candidates
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map_or(candidates[0].0, |c| c.0);
        let (dx, dy) = (target[0] - entry[0], target[1] - entry[1]);
        let len = dx.hypot(dy).max(1.0);
        let skins = [
            [150.0, 180.0, 230.0],
            [120.0, 155.0, 215.0],
            [95.0, 135.0, 195.0],
            [70.0, 105.0, 160.0],
        ];
        let hand = HandPath {
            target,
            entry,
            across: [-dy / len, dx / len],
            tile_px,
            skin: skins[rng.usize(0..skins.len())],
        };
        Ok(SyntheticScene {
            layouts_before: layouts_of(&labels_before),
            layouts_after: layouts_of(&labels_after),
            before,
            after: scene.image,
            labels_before,
            labels_after,
            added,
            hand,
            opts,
            next: 0,
        })
    }

    /// A hand passing over one Alhambra of the scene rendered from `seed`, with the default
    /// sequence lengths.
    pub fn hand_pass(seed: u64) -> Result<SyntheticScene, SourceError> {
        let mut opts = SyntheticOptions::default();
        opts.scene.seed = seed;
        SyntheticScene::new(opts)
    }

    /// A hand putting a tile down on the scene rendered from `seed`.
    pub fn tile_added(seed: u64) -> Result<SyntheticScene, SourceError> {
        let mut opts = SyntheticOptions {
            story: Story::TileAdded,
            ..SyntheticOptions::default()
        };
        opts.scene.seed = seed;
        SyntheticScene::new(opts)
    }

    /// The options it was made with.
    pub fn options(&self) -> &SyntheticOptions {
        &self.opts
    }

    /// How many frames the sequence has.
    pub fn len(&self) -> u64 {
        u64::from(self.opts.calm_before + self.opts.hand_frames + self.opts.calm_after)
    }

    /// Whether the sequence has no frame at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The clean photo (no hand, no per-frame noise) before the hand came.
    pub fn clean_before(&self) -> &Mat {
        &self.before
    }

    /// The clean photo after the hand has gone (with the added tile, if any).
    pub fn clean_after(&self) -> &Mat {
        &self.after
    }

    /// The labels of the table before the hand came.
    pub fn labels_before(&self) -> &ScanResult {
        &self.labels_before
    }

    /// The labels of the table after the hand has gone.
    pub fn labels_after(&self) -> &ScanResult {
        &self.labels_after
    }

    /// The tile the hand puts down ([`Story::TileAdded`]).
    pub fn added_tile(&self) -> Option<AddedTile> {
        self.added
    }

    fn phase(&self, index: u64) -> Phase {
        let before = u64::from(self.opts.calm_before);
        let hand = before + u64::from(self.opts.hand_frames);
        if index < before {
            Phase::Before
        } else if index < hand {
            Phase::Hand
        } else {
            Phase::After
        }
    }

    /// Where the hand's reach is at frame `index`: `t` in 0..1 through the hand frames.
    fn hand_t(&self, index: u64) -> Option<f64> {
        (self.phase(index) == Phase::Hand).then(|| {
            let k = index - u64::from(self.opts.calm_before);
            (k as f64 + 0.5) / f64::from(self.opts.hand_frames.max(1))
        })
    }

    /// The palm centre at reach parameter `t`: in, to full reach at the middle, and out,
    /// drifting sideways all along so that the hand never stands still.
    fn palm_at(&self, t: f64) -> Point {
        let h = &self.hand;
        let reach = (std::f64::consts::PI * t).sin();
        let drift = (t - 0.5) * 2.0 * h.tile_px;
        [
            h.entry[0] + (h.target[0] - h.entry[0]) * reach + h.across[0] * drift,
            h.entry[1] + (h.target[1] - h.entry[1]) * reach + h.across[1] * drift,
        ]
    }

    /// Whether the added tile lies on the table in frame `index`: from the hand's deepest
    /// reach on.
    fn tile_present(&self, index: u64) -> bool {
        self.added.is_some()
            && match self.phase(index) {
                Phase::Before => false,
                Phase::After => true,
                Phase::Hand => self.hand_t(index).is_some_and(|t| t >= 0.5),
            }
    }

    /// The ground truth of frame `index`; `None` past the end.
    pub fn truth(&self, index: u64) -> Option<FrameTruth> {
        if index >= self.len() {
            return None;
        }
        let present = self.tile_present(index);
        Some(FrameTruth {
            index,
            phase: self.phase(index),
            tile_present: present,
            hand_px: self.hand_t(index).map(|t| self.palm_at(t)),
            layouts: if present || self.added.is_none() {
                self.layouts_after.clone()
            } else {
                self.layouts_before.clone()
            },
        })
    }

    /// Frame `index` (random access; [`FrameSource::next_frame`] walks through them).
    pub fn frame(&self, index: u64) -> Result<Option<Frame>, SourceError> {
        if index >= self.len() {
            return Ok(None);
        }
        let base = if self.tile_present(index) || self.added.is_none() {
            &self.after
        } else {
            &self.before
        };
        let mut image = base.clone();
        if let Some(t) = self.hand_t(index) {
            self.paint_hand(&mut image, self.palm_at(t))?;
        }
        if self.opts.noise > 0.0 {
            let mut noise = Mat::new_rows_cols_with_default(
                image.rows(),
                image.cols(),
                cv::CV_16SC3,
                Scalar::all(0.0),
            )?;
            let mut rng = cv::RNG::new(
                self.opts.scene.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (index + 1),
            )?;
            rng.fill(
                &mut noise,
                cv::RNG_NORMAL,
                &Scalar::all(0.0),
                &Scalar::all(self.opts.noise),
                false,
            )?;
            let mut noisy = Mat::default();
            cv::add(&image, &noise, &mut noisy, &cv::no_array(), cv::CV_8U)?;
            image = noisy;
        }
        Ok(Some(Frame {
            image,
            index,
            timestamp_ms: index * 1000 / 30,
        }))
    }

    /// Composites the hand (palm, fingers, thumb, forearm; soft edges, a little shading)
    /// with its palm centred at `palm`.
    fn paint_hand(&self, image: &mut Mat, palm: Point) -> Result<(), SourceError> {
        let h = &self.hand;
        let s = h.tile_px;
        // Direction of the reach (from the entry towards the target) and across it.
        let (dx, dy) = (h.target[0] - h.entry[0], h.target[1] - h.entry[1]);
        let len = dx.hypot(dy).max(1.0);
        let f = [dx / len, dy / len];
        let a = [-f[1], f[0]];
        let at = |along: f64, side: f64| -> CvPoint {
            CvPoint::new(
                (palm[0] + f[0] * along * s + a[0] * side * s).round() as i32,
                (palm[1] + f[1] * along * s + a[1] * side * s).round() as i32,
            )
        };
        let angle = f[1].atan2(f[0]).to_degrees();
        let axes = |l: f64, w: f64| Size::new((l * s).round() as i32, (w * s).round() as i32);
        let mut mask = Mat::new_rows_cols_with_default(
            image.rows(),
            image.cols(),
            cv::CV_8UC1,
            Scalar::all(0.0),
        )?;
        let white = Scalar::all(255.0);
        // Palm.
        imgproc::ellipse(
            &mut mask,
            at(0.0, 0.0),
            axes(0.62, 0.55),
            angle,
            0.0,
            360.0,
            white,
            -1,
            imgproc::LINE_AA,
            0,
        )?;
        // Four fingers fanning out ahead of the palm.
        for (k, spread) in [-0.36f64, -0.12, 0.12, 0.36].into_iter().enumerate() {
            let length = [0.42, 0.5, 0.48, 0.38][k];
            let base_along = 0.5;
            let tip_angle = angle + spread.to_degrees() * 0.3;
            imgproc::ellipse(
                &mut mask,
                at(base_along + length * 0.8, spread),
                axes(length, 0.1),
                tip_angle,
                0.0,
                360.0,
                white,
                -1,
                imgproc::LINE_AA,
                0,
            )?;
        }
        // Thumb.
        imgproc::ellipse(
            &mut mask,
            at(0.15, 0.62),
            axes(0.32, 0.11),
            angle - 40.0,
            0.0,
            360.0,
            white,
            -1,
            imgproc::LINE_AA,
            0,
        )?;
        // Forearm back to the entry, and beyond it out of the picture.
        let back = 3.0 + len / s;
        imgproc::line(
            &mut mask,
            at(-0.3, 0.0),
            at(-back, 0.0),
            white,
            (0.85 * s).round().max(2.0) as i32,
            imgproc::LINE_AA,
            0,
        )?;
        let mut soft = Mat::default();
        let sigma = (0.05 * s).max(1.0);
        imgproc::gaussian_blur(
            &mask,
            &mut soft,
            Size::new(0, 0),
            sigma,
            sigma,
            cv::BORDER_DEFAULT,
        )?;
        let (w, rows) = (image.cols() as usize, image.rows() as usize);
        let alpha = soft.data_bytes()?;
        let pixels = image.data_bytes_mut()?;
        for y in 0..rows {
            for x in 0..w {
                let m = alpha[y * w + x];
                if m == 0 {
                    continue;
                }
                let k = f64::from(m) / 255.0;
                // Light falls off towards the hand's rim: a rounded, not a flat, blob.
                let shade = 0.8 + 0.2 * k;
                let i = (y * w + x) * 3;
                for c in 0..3 {
                    let under = f64::from(pixels[i + c]);
                    let v = under * (1.0 - k) + h.skin[c] * shade * k;
                    pixels[i + c] = v.round().clamp(0.0, 255.0) as u8;
                }
            }
        }
        Ok(())
    }
}

/// The photo with one tile painted over in the colour of the table around it (the median
/// of the table pixels in a ring about the tile, away from every labelled tile).
fn paint_out_tile(
    image: &Mat,
    labels: &ScanResult,
    corners: &[Point; 4],
) -> Result<Mat, SourceError> {
    let mut ring =
        Mat::new_rows_cols_with_default(image.rows(), image.cols(), cv::CV_8UC1, Scalar::all(0.0))?;
    imgproc::fill_convex_poly(
        &mut ring,
        &scaled_quad(corners, 2.6),
        Scalar::all(255.0),
        imgproc::LINE_8,
        0,
    )?;
    for a in &labels.alhambras {
        for t in &a.tiles {
            if let Some(c) = label_corners(t.corners_px) {
                imgproc::fill_convex_poly(
                    &mut ring,
                    &scaled_quad(&c, 1.3),
                    Scalar::all(0.0),
                    imgproc::LINE_8,
                    0,
                )?;
            }
        }
    }
    let mut samples: [Vec<u8>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    let mask = ring.data_bytes()?;
    let pixels = image.data_bytes()?;
    for (i, &m) in mask.iter().enumerate() {
        if m != 0 {
            for (c, s) in samples.iter_mut().enumerate() {
                s.push(pixels[i * 3 + c]);
            }
        }
    }
    let median = |v: &mut Vec<u8>| -> f64 {
        v.sort_unstable();
        v.get(v.len() / 2).copied().map_or(90.0, f64::from)
    };
    let colour = Scalar::new(
        median(&mut samples[0]),
        median(&mut samples[1]),
        median(&mut samples[2]),
        0.0,
    );
    let mut out = image.clone();
    imgproc::fill_convex_poly(
        &mut out,
        &scaled_quad(corners, 1.18),
        colour,
        imgproc::LINE_AA,
        0,
    )?;
    Ok(out)
}

impl FrameSource for SyntheticScene {
    fn next_frame(&mut self) -> Result<Option<Frame>, SourceError> {
        let frame = self.frame(self.next)?;
        if frame.is_some() {
            self.next += 1;
        }
        Ok(frame)
    }

    fn describe(&self) -> String {
        let story = match self.opts.story {
            Story::HandPass => "a hand passing over",
            Story::TileAdded => "a hand putting a tile down",
        };
        format!(
            "synthetic table (seed {}, {}x{}): {story}, {} frames",
            self.opts.scene.seed,
            self.opts.scene.width,
            self.opts.scene.height,
            self.len()
        )
    }
}

// ---------------------------------------------------------------------------------------
// Camera
// ---------------------------------------------------------------------------------------

/// What the user is told when there is no camera.
pub const NO_CAMERA: &str = "no camera found (looked for /dev/video*); read a video file, a folder of photos or \
     a rendered sequence instead (`alhambra watch synthetic:2:tile`)";

/// How long listing the cameras may take before we give up on it.
const QUERY_TIMEOUT: Duration = Duration::from_secs(3);
/// How long opening a camera may take.
const OPEN_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a camera's [`FrameSource::next_frame`] waits for a frame.
const FRAME_TIMEOUT: Duration = Duration::from_secs(5);
/// Consecutive failed reads after which the capture thread gives up.
const MAX_READ_ERRORS: u32 = 30;

/// The pixel formats we can decode, the ones we prefer first. (V4L2's grey fourcc is
/// `GREY`, which nokhwa 0.10 calls `GRAY`, so a grey-only camera is not matched.)
const FORMATS: [nokhwa::utils::FrameFormat; 6] = [
    nokhwa::utils::FrameFormat::MJPEG,
    nokhwa::utils::FrameFormat::YUYV,
    nokhwa::utils::FrameFormat::NV12,
    nokhwa::utils::FrameFormat::GRAY,
    nokhwa::utils::FrameFormat::RAWRGB,
    nokhwa::utils::FrameFormat::RAWBGR,
];

/// What a camera is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CameraOptions {
    /// Wanted width in pixels (the nearest the camera offers is taken).
    pub width: u32,
    /// Wanted height in pixels.
    pub height: u32,
    /// Wanted frames per second.
    pub fps: u32,
}

impl Default for CameraOptions {
    fn default() -> CameraOptions {
        CameraOptions {
            width: 1920,
            height: 1080,
            fps: 30,
        }
    }
}

/// A frame as the camera delivered it, decoded only when asked for.
struct RawFrame {
    bytes: Vec<u8>,
    format: nokhwa::utils::FrameFormat,
    width: u32,
    height: u32,
    index: u64,
    at_ms: u64,
}

/// What the capture thread and the reader share.
struct Shared {
    slot: Mutex<Slot>,
    ready: Condvar,
    stop: AtomicBool,
}

#[derive(Default)]
struct Slot {
    /// The newest frame not read yet: a new one replaces it (stale frames are dropped).
    latest: Option<RawFrame>,
    /// Why capture stopped, once it has.
    ended: Option<String>,
}

/// A webcam through nokhwa, captured on its own thread (`camera-N`): the thread calls
/// `frame_raw()` in a loop and keeps only the newest frame; [`FrameSource::next_frame`]
/// takes it and decodes it (MJPEG, YUYV, NV12, grey, RGB) with OpenCV.
pub struct Camera {
    index: u32,
    description: String,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Camera {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Camera")
            .field("index", &self.index)
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

/// The cameras the system lists, as (index, name); listed on a helper thread so that a
/// stuck driver cannot hang the caller. An error means no camera can be used.
pub fn list_cameras() -> Result<Vec<(u32, String)>, SourceError> {
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name("camera-query".into())
        .spawn(move || {
            let listed = nokhwa::query(nokhwa::utils::ApiBackend::Auto).map(|infos| {
                infos
                    .iter()
                    .filter_map(|i| Some((i.index().as_index().ok()?, i.human_name())))
                    .collect::<Vec<_>>()
            });
            let _ = tx.send(listed.map_err(|e| e.to_string()));
        })
        .map_err(|e| SourceError::NoCamera(format!("cannot start the camera query: {e}")))?;
    match rx.recv_timeout(QUERY_TIMEOUT) {
        Ok(Ok(list)) => Ok(list),
        Ok(Err(problem)) => Err(SourceError::NoCamera(format!(
            "{NO_CAMERA} (the camera query failed: {problem})"
        ))),
        Err(_) => Err(SourceError::NoCamera(format!(
            "{NO_CAMERA} (the camera query did not answer within {} s)",
            QUERY_TIMEOUT.as_secs()
        ))),
    }
}

/// The camera format nearest to what is wanted: resolution first, then frame rate, then
/// the cheapest pixel format to carry and decode.
fn best_format(
    formats: &[nokhwa::utils::CameraFormat],
    want: CameraOptions,
) -> Option<nokhwa::utils::CameraFormat> {
    formats
        .iter()
        .filter(|f| FORMATS.contains(&f.format()))
        .min_by_key(|f| {
            let dw = i64::from(f.width()) - i64::from(want.width);
            let dh = i64::from(f.height()) - i64::from(want.height);
            let fps = (i64::from(f.frame_rate()) - i64::from(want.fps)).abs();
            let kind = FORMATS.iter().position(|x| *x == f.format()).unwrap_or(9);
            (dw * dw + dh * dh, fps, kind)
        })
        .copied()
}

/// Opens camera `index` with nokhwa and starts its stream; (name, format) on success.
fn open_nokhwa(
    index: u32,
    want: CameraOptions,
) -> Result<(nokhwa::Camera, String), nokhwa::NokhwaError> {
    use nokhwa::utils::{CameraIndex, RequestedFormat, RequestedFormatType};
    let mut camera = nokhwa::Camera::new(
        CameraIndex::Index(index),
        RequestedFormat::with_formats(RequestedFormatType::None, &FORMATS),
    )?;
    if let Ok(formats) = camera.compatible_camera_formats()
        && let Some(best) = best_format(&formats, want)
    {
        // Keep the camera's own choice if it refuses ours.
        let _ = camera.set_camera_requset(RequestedFormat::with_formats(
            RequestedFormatType::Exact(best),
            &FORMATS,
        ));
    }
    camera.open_stream()?;
    let f = camera.camera_format();
    let name = format!(
        "{}, {} {}x{} @ {}",
        camera.info().human_name(),
        f.format(),
        f.width(),
        f.height(),
        f.frame_rate()
    );
    Ok((camera, name))
}

/// The capture thread: opens the camera, reports, then keeps the newest frame in the slot.
fn capture(
    index: u32,
    want: CameraOptions,
    shared: &Shared,
    opened: &mpsc::Sender<Result<String, String>>,
) {
    let (mut camera, name) = match open_nokhwa(index, want) {
        Ok(c) => c,
        Err(e) => {
            let _ = opened.send(Err(e.to_string()));
            return;
        }
    };
    if opened.send(Ok(name)).is_err() {
        // The opener gave up waiting.
        let _ = camera.stop_stream();
        return;
    }
    let started = Instant::now();
    let mut count = 0u64;
    let mut errors = 0u32;
    let end = loop {
        if shared.stop.load(Ordering::Relaxed) {
            break "closed".to_owned();
        }
        let f = camera.camera_format();
        match camera.frame_raw() {
            Ok(bytes) => {
                errors = 0;
                let raw = RawFrame {
                    bytes: bytes.into_owned(),
                    format: f.format(),
                    width: f.width(),
                    height: f.height(),
                    index: count,
                    at_ms: started.elapsed().as_millis() as u64,
                };
                count += 1;
                if let Ok(mut slot) = shared.slot.lock() {
                    slot.latest = Some(raw);
                }
                shared.ready.notify_all();
            }
            Err(e) => {
                errors += 1;
                if errors >= MAX_READ_ERRORS {
                    break format!("the camera stopped delivering frames: {e}");
                }
                thread::sleep(Duration::from_millis(10));
            }
        }
    };
    let _ = camera.stop_stream();
    if let Ok(mut slot) = shared.slot.lock() {
        slot.ended = Some(end);
    }
    shared.ready.notify_all();
}

/// A raw camera frame as BGR.
fn decode(raw: &RawFrame) -> Result<Mat, String> {
    use nokhwa::utils::FrameFormat;
    let (w, h) = (raw.width as i32, raw.height as i32);
    let pixels = (raw.width as usize) * (raw.height as usize);
    let need = |n: usize| -> Result<(), String> {
        if raw.bytes.len() < n {
            Err(format!(
                "a {} frame of {}x{} has {} bytes, expected {n}",
                raw.format,
                raw.width,
                raw.height,
                raw.bytes.len()
            ))
        } else {
            Ok(())
        }
    };
    let convert = |rows: i32, channels: i32, code: Option<i32>, n: usize| -> Result<Mat, String> {
        need(n)?;
        let flat = Mat::from_slice(&raw.bytes[..n]).map_err(|e| e.to_string())?;
        let shaped = flat.reshape(channels, rows).map_err(|e| e.to_string())?;
        let mut bgr = Mat::default();
        match code {
            Some(code) => {
                imgproc::cvt_color(&shaped, &mut bgr, code, 0).map_err(|e| e.to_string())?;
            }
            None => shaped.copy_to(&mut bgr).map_err(|e| e.to_string())?,
        }
        Ok(bgr)
    };
    let image = match raw.format {
        FrameFormat::MJPEG => {
            let buf = Vector::<u8>::from_slice(&raw.bytes);
            let image =
                imgcodecs::imdecode(&buf, imgcodecs::IMREAD_COLOR).map_err(|e| e.to_string())?;
            if image.empty() {
                return Err("a corrupt MJPEG frame".into());
            }
            image
        }
        FrameFormat::YUYV => convert(h, 2, Some(imgproc::COLOR_YUV2BGR_YUYV), pixels * 2)?,
        FrameFormat::NV12 => convert(
            h + h / 2,
            1,
            Some(imgproc::COLOR_YUV2BGR_NV12),
            pixels * 3 / 2,
        )?,
        FrameFormat::GRAY => convert(h, 1, Some(imgproc::COLOR_GRAY2BGR), pixels)?,
        FrameFormat::RAWRGB => convert(h, 3, Some(imgproc::COLOR_RGB2BGR), pixels * 3)?,
        FrameFormat::RAWBGR => convert(h, 3, None, pixels * 3)?,
    };
    if image.cols() != w && raw.format != FrameFormat::MJPEG {
        return Err(format!("decoded {} columns, expected {w}", image.cols()));
    }
    Ok(image)
}

impl Camera {
    /// Opens camera `index` (0 is `/dev/video0` on Linux) at about 1920x1080, 30 fps.
    /// Without a camera: [`SourceError::NoCamera`] with what to do instead.
    pub fn open(index: u32) -> Result<Camera, SourceError> {
        Camera::open_with(index, CameraOptions::default())
    }

    /// Opens camera `index` asking for a size and rate.
    pub fn open_with(index: u32, want: CameraOptions) -> Result<Camera, SourceError> {
        let cameras = list_cameras()?;
        if cameras.is_empty() {
            return Err(SourceError::NoCamera(NO_CAMERA.into()));
        }
        if !cameras.iter().any(|(i, _)| *i == index) {
            let found: Vec<String> = cameras.iter().map(|(i, n)| format!("{i} ({n})")).collect();
            return Err(SourceError::NoCamera(format!(
                "no camera {index}; found {}",
                found.join(", ")
            )));
        }
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot::default()),
            ready: Condvar::new(),
            stop: AtomicBool::new(false),
        });
        let (tx, rx) = mpsc::channel();
        let thread_shared = Arc::clone(&shared);
        thread::Builder::new()
            .name(format!("camera-{index}"))
            .spawn(move || capture(index, want, &thread_shared, &tx))
            .map_err(|e| SourceError::Camera {
                index,
                problem: format!("cannot start the capture thread: {e}"),
            })?;
        let description = match rx.recv_timeout(OPEN_TIMEOUT) {
            Ok(Ok(name)) => name,
            Ok(Err(problem)) => return Err(SourceError::Camera { index, problem }),
            Err(_) => {
                shared.stop.store(true, Ordering::Relaxed);
                return Err(SourceError::Camera {
                    index,
                    problem: format!("did not open within {} s", OPEN_TIMEOUT.as_secs()),
                });
            }
        };
        Ok(Camera {
            index,
            description,
            shared,
        })
    }
}

impl FrameSource for Camera {
    fn next_frame(&mut self) -> Result<Option<Frame>, SourceError> {
        let index = self.index;
        let poisoned = || SourceError::Camera {
            index,
            problem: "the capture thread failed".into(),
        };
        let raw = {
            let slot = self.shared.slot.lock().map_err(|_| poisoned())?;
            let (mut slot, _) = self
                .shared
                .ready
                .wait_timeout_while(slot, FRAME_TIMEOUT, |s| {
                    s.latest.is_none() && s.ended.is_none()
                })
                .map_err(|_| poisoned())?;
            match slot.latest.take() {
                Some(raw) => raw,
                None => {
                    let problem = slot.ended.clone().unwrap_or_else(|| {
                        format!("no frame within {} s", FRAME_TIMEOUT.as_secs())
                    });
                    return Err(SourceError::Camera { index, problem });
                }
            }
        };
        let image = decode(&raw).map_err(|problem| SourceError::Camera { index, problem })?;
        Ok(Some(Frame {
            image,
            index: raw.index,
            timestamp_ms: raw.at_ms,
        }))
    }

    fn describe(&self) -> String {
        format!("camera {} ({})", self.index, self.description)
    }
}

impl Drop for Camera {
    /// Asks the capture thread to stop and release the camera. It is not joined: a driver
    /// stuck in a read must not hang the program on its way out.
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
    }
}

// ---------------------------------------------------------------------------------------
// Choosing a source
// ---------------------------------------------------------------------------------------

/// A source from its description:
/// - `camera` or `camera:N`: webcam N (0 by default);
/// - `synthetic`, `synthetic:SEED` (a hand passing over) or `synthetic:SEED:tile` (a hand
///   putting a tile down);
/// - a URL (`http://...`, `rtsp://...`): a network stream;
/// - a folder: its photos in name order;
/// - a photo: that photo alone; any other file: a video.
pub fn open_source(spec: &str) -> Result<Box<dyn FrameSource + Send>, SourceError> {
    let bad = |problem: &str| SourceError::Spec {
        spec: spec.to_owned(),
        problem: problem.to_owned(),
    };
    let trimmed = spec.trim();
    if let Some(rest) = trimmed.strip_prefix("camera") {
        let index = match rest.strip_prefix(':') {
            None if rest.is_empty() => 0,
            Some(n) => n
                .parse::<u32>()
                .map_err(|_| bad("the camera number must be 0, 1, ..."))?,
            None => return Err(bad("write camera or camera:N")),
        };
        return Ok(Box::new(Camera::open(index)?));
    }
    if let Some(rest) = trimmed.strip_prefix("synthetic") {
        let mut parts = rest.split(':').skip(1);
        if !rest.is_empty() && !rest.starts_with(':') {
            return Err(bad(
                "write synthetic, synthetic:SEED or synthetic:SEED:tile",
            ));
        }
        let seed = match parts.next() {
            None | Some("") => 1,
            Some(s) => s
                .parse::<u64>()
                .map_err(|_| bad("the seed must be a number"))?,
        };
        let story = match parts.next() {
            None => Story::HandPass,
            Some("tile") => Story::TileAdded,
            Some(_) => return Err(bad("the only story after the seed is \"tile\"")),
        };
        let mut opts = SyntheticOptions {
            story,
            ..SyntheticOptions::default()
        };
        opts.scene.seed = seed;
        return Ok(Box::new(SyntheticScene::new(opts)?));
    }
    if trimmed.contains("://") {
        return Ok(Box::new(VideoFile::open(trimmed)?));
    }
    let path = Path::new(trimmed);
    if path.is_dir() {
        return Ok(Box::new(ImageFiles::folder(path)?));
    }
    if path.is_file() {
        if is_image_path(path) {
            return Ok(Box::new(ImageFiles::new(vec![path.to_path_buf()])?));
        }
        return Ok(Box::new(VideoFile::open(trimmed)?));
    }
    Err(bad(
        "no such file or folder (or write camera:N, synthetic:SEED, or a URL)",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_specs_are_explained() {
        for spec in [
            "camera:x",
            "synthetic:abc",
            "synthetic:1:dance",
            "/no/such/thing",
        ] {
            match open_source(spec) {
                Err(SourceError::Spec { problem, .. }) => assert!(!problem.is_empty()),
                Err(e) => panic!("{spec}: unexpected error {e}"),
                Ok(s) => panic!("{spec}: opened {}", s.describe()),
            }
        }
    }

    #[test]
    fn the_nearest_format_is_chosen() {
        use nokhwa::utils::{CameraFormat, FrameFormat, Resolution};
        let f = |w, h, fmt, fps| CameraFormat::new(Resolution::new(w, h), fmt, fps);
        let offered = [
            f(640, 480, FrameFormat::YUYV, 30),
            f(1920, 1080, FrameFormat::YUYV, 5),
            f(1920, 1080, FrameFormat::MJPEG, 30),
            f(1280, 720, FrameFormat::MJPEG, 30),
        ];
        let want = CameraOptions::default();
        assert_eq!(best_format(&offered, want), Some(offered[2]));
    }

    #[test]
    fn raw_frames_decode_to_bgr() {
        use nokhwa::utils::FrameFormat;
        let raw = |format, bytes: Vec<u8>| RawFrame {
            bytes,
            format,
            width: 4,
            height: 2,
            index: 0,
            at_ms: 0,
        };
        let grey = decode(&raw(FrameFormat::GRAY, vec![100; 8])).expect("grey decodes");
        assert_eq!((grey.cols(), grey.rows(), grey.typ()), (4, 2, cv::CV_8UC3));
        let yuyv = decode(&raw(FrameFormat::YUYV, vec![128; 16])).expect("yuyv decodes");
        assert_eq!((yuyv.cols(), yuyv.rows()), (4, 2));
        assert!(decode(&raw(FrameFormat::YUYV, vec![128; 5])).is_err());
        assert!(decode(&raw(FrameFormat::MJPEG, vec![1, 2, 3])).is_err());
    }
}
