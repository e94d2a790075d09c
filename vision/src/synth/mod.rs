//! The synthetic table photo: a seeded scene of 2-6 legal Alhambras built from the real
//! catalogue, with clutter (loose reserve tiles, the market board, money cards, a cup,
//! ArUco marker sheets, sometimes a hand), seen by a tilted pinhole camera with lens
//! distortion, uneven coloured light, blur, noise and JPEG compression; and its exact
//! ground truth in the scan-result form of CONTRACTS.md.
//!
//! Its photos are how the scanner's accuracy is measured, so every difficulty aims at
//! least as hard as real photos of that kind. The same options always give the same
//! bytes.

mod art;
mod camera;
mod degrade;
mod draw;
mod layout;
mod params;
mod plan;
mod raster;
mod scene;

use crate::labels::{ScanResult, ScannedAlhambra, ScannedTile};
use opencv::core::{Mat, Vector};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use thiserror::Error;

/// How the tiles' walls are drawn: the dark stone of this renderer's tile set, or light
/// stone, wider (another tile set's look: one labelled photo must teach either).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WallLook {
    /// Dark brown stone, 7% of the tile wide.
    #[default]
    Dark,
    /// Light sandstone, 10% of the tile wide.
    Light,
}

/// Which tile set is on the table: this renderer's own (isometric illustrations on sand),
/// or a second one drawn unlike it (buildings seen from above on grey-green paving,
/// crenellated walls, a round badge, no player's colour on the fountain). The second
/// stands in for tile art the scanner has never seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TileSet {
    /// Isometric illustrations on mottled sand.
    #[default]
    Iso,
    /// Buildings seen from above on grey-green paving.
    Plan,
}

/// Whether every tile of a building shows the same illustration (this renderer's tile
/// sets) or each its own: a variant drawn apart, mirrored or not, shifted a little on the
/// tile, as the real game's tiles are each drawn on their own. It stands in for art whose
/// tiles of one building differ, which one labelled photo must still teach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArtVariety {
    /// One illustration per building.
    #[default]
    Same,
    /// Each tile one of three illustrations, mirrored or not, shifted up to 6% of the tile
    /// (a building drawn anywhere on its tile, as different illustrations place it).
    Varied,
    /// Each tile one of three illustrations, mirrored or not, centred on the tile: the
    /// tiles differ, their buildings sit where the usual art's do.
    Centred,
}

impl ArtVariety {
    /// The label's `meta.art` (`None` for the usual art, whose labels carry none).
    pub fn name(self) -> Option<&'static str> {
        match self {
            ArtVariety::Same => None,
            ArtVariety::Varied => Some("varied"),
            ArtVariety::Centred => Some("centred"),
        }
    }
}

/// How carefully the tiles are laid: each a little off its cell on its own, or laid by
/// hand against the tiles already down, so that the small errors add up across an
/// Alhambra (a row five tiles out of the fountain drifts by millimetres, as real play
/// does) and each tile sits a few degrees off square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Laying {
    /// Each tile off its cell by its own small error.
    #[default]
    Neat,
    /// Errors that add up from the fountain outwards, and tiles turned up to 3 degrees.
    Loose,
}

/// How hard a scene is to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Difficulty {
    /// Near top-down, big tiles (60-120 px), mild light, no hand, JPEG quality >= 85.
    Easy,
    /// Up to 30 degrees of tilt, 35-100 px tiles, moderate light and blur, sometimes a hand.
    #[default]
    Normal,
    /// Up to 50 degrees of tilt, tiles down to 25 px, strong glare, blur, JPEG quality
    /// down to 60, hands often: beyond what a careless user does.
    Hard,
}

impl Difficulty {
    /// All three, easiest first.
    pub const ALL: [Difficulty; 3] = [Difficulty::Easy, Difficulty::Normal, Difficulty::Hard];

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Difficulty::Easy => "easy",
            Difficulty::Normal => "normal",
            Difficulty::Hard => "hard",
        }
    }
}

impl fmt::Display for Difficulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Difficulty {
    type Err = SynthError;

    fn from_str(s: &str) -> Result<Difficulty, SynthError> {
        Difficulty::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                SynthError::Options(format!("unknown difficulty {s:?} (easy, normal or hard)"))
            })
    }
}

/// What to render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SceneOptions {
    /// Everything random follows from this.
    pub seed: u64,
    /// Number of players (1-6); `None` draws 2-6 from the seed.
    pub players: Option<u8>,
    /// How hard the photo is.
    pub difficulty: Difficulty,
    /// Photo width in pixels.
    pub width: i32,
    /// Photo height in pixels.
    pub height: i32,
    /// How the walls are drawn.
    pub walls: WallLook,
    /// Which tile set.
    pub tiles: TileSet,
    /// How carefully the tiles are laid.
    pub laying: Laying,
    /// Whether tiles of one building share their illustration.
    pub art: ArtVariety,
}

impl Default for SceneOptions {
    fn default() -> SceneOptions {
        SceneOptions {
            seed: 0,
            players: None,
            difficulty: Difficulty::Normal,
            width: 1920,
            height: 1080,
            walls: WallLook::Dark,
            tiles: TileSet::Iso,
            laying: Laying::Neat,
            art: ArtVariety::Same,
        }
    }
}

/// A rendered photo and its ground truth.
#[derive(Debug)]
pub struct RenderedScene {
    /// The photo: BGR, 8 bits, already degraded, the decoded result of a JPEG round trip.
    pub image: Mat,
    /// Ground truth: one entry per player, every tile with its corners in `image`.
    pub labels: ScanResult,
    /// The JPEG quality the photo went through (and is written at).
    pub jpeg_quality: i32,
}

/// Why a scene could not be rendered or written.
#[derive(Debug, Error)]
pub enum SynthError {
    /// The options make no sense (size, players, difficulty name).
    #[error("bad scene options: {0}")]
    Options(String),
    /// OpenCV failed.
    #[error("OpenCV: {0}")]
    OpenCv(#[from] opencv::Error),
    /// A file or folder could not be written.
    #[error("{path}: {source}")]
    Io {
        /// Which file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The labels could not be serialised.
    #[error("{path}: {source}")]
    Json {
        /// Which file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// The JPEG encoder refused the image.
    #[error("{0}: the JPEG encoder refused the image")]
    Encode(PathBuf),
}

/// The seed of the scene's random stream: the options, mixed (splitmix64 steps).
fn stream_seed(opts: &SceneOptions) -> u64 {
    let mut h = opts.seed ^ 0x5eed_a1ba_b4a0_0001;
    for v in [
        u64::from(opts.players.unwrap_or(0)),
        opts.difficulty as u64 + 1,
        opts.width as u64,
        opts.height as u64,
    ] {
        h = h.wrapping_add(0x9e37_79b9_7f4a_7c15).wrapping_add(v);
        let mut z = h;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h = z ^ (z >> 31);
    }
    h
}

/// Renders one table photo with its labels. Deterministic: the same options give the
/// same image bytes and labels.
pub fn render(opts: &SceneOptions) -> Result<RenderedScene, SynthError> {
    if !(64..=8192).contains(&opts.width) || !(64..=8192).contains(&opts.height) {
        return Err(SynthError::Options(format!(
            "size {}x{} (each side 64 to 8192 pixels)",
            opts.width, opts.height
        )));
    }
    if let Some(p) = opts.players
        && !(1..=6).contains(&p)
    {
        return Err(SynthError::Options(format!("{p} players (1 to 6)")));
    }
    let mut rng = fastrand::Rng::with_seed(stream_seed(opts));
    let players = opts.players.unwrap_or_else(|| rng.u8(2..=6));
    let mut scene =
        scene::Scene::build(opts.difficulty, players, opts.width, opts.height, &mut rng);
    if opts.laying == Laying::Loose {
        // A stream of its own: the same seed lays the same scene, only loosened.
        scene.loosen(&mut fastrand::Rng::with_seed(!stream_seed(opts)));
    }
    let look = degrade::Look::draw(&params::Ranges::of(opts.difficulty), &mut rng);
    let (mut canvas, occluder) = scene.paint(opts.walls, opts.tiles, opts.art, &mut rng)?;
    look.light(&mut canvas, &occluder, &scene.camera)?;
    let image = look.expose(&canvas, &scene.camera, &mut rng)?;
    let labels = labels(&scene, &occluder, opts, &look)?;
    Ok(RenderedScene {
        image,
        labels,
        jpeg_quality: look.jpeg,
    })
}

fn round2(v: f64) -> f32 {
    ((v * 100.0).round() / 100.0) as f32
}

/// The ground truth of a painted scene.
fn labels(
    scene: &scene::Scene,
    occluder: &Mat,
    opts: &SceneOptions,
    look: &degrade::Look,
) -> Result<ScanResult, SynthError> {
    let cam = &scene.camera;
    let (w, h) = (f64::from(cam.width), f64::from(cam.height));
    let z = scene.thickness;
    let mut alhambras = Vec::new();
    let mut widths = Vec::new();
    for pl in &scene.players {
        let mut tiles = Vec::new();
        let mut fountain_px = [0.0f32; 2];
        for (pos, piece, t) in &pl.tiles {
            let c = t.corners(scene.tile_mm);
            let corners: Option<Vec<[f64; 2]>> =
                c.iter().map(|p| cam.project([p[0], p[1], z])).collect();
            let Some(corners) = corners else { continue };
            let inside = corners
                .iter()
                .all(|p| p[0] >= 0.0 && p[1] >= 0.0 && p[0] <= w - 1.0 && p[1] <= h - 1.0);
            // What the hand or the cup hides: sample the tile's face on the canvas.
            let canvas: Option<Vec<[f64; 2]>> =
                c.iter().map(|p| cam.canvas([p[0], p[1], z])).collect();
            let hidden = match canvas {
                Some(q) => {
                    let mut pts = Vec::with_capacity(64);
                    for i in 0..8 {
                        for j in 0..8 {
                            let (u, v) = ((f64::from(i) + 0.5) / 8.0, (f64::from(j) + 0.5) / 8.0);
                            let top = [
                                q[0][0] + (q[1][0] - q[0][0]) * u,
                                q[0][1] + (q[1][1] - q[0][1]) * u,
                            ];
                            let bot = [
                                q[3][0] + (q[2][0] - q[3][0]) * u,
                                q[3][1] + (q[2][1] - q[3][1]) * u,
                            ];
                            pts.push([
                                top[0] + (bot[0] - top[0]) * v,
                                top[1] + (bot[1] - top[1]) * v,
                            ]);
                        }
                    }
                    raster::covered(occluder, &pts)?
                }
                None => 1.0,
            };
            if pos.x == 0 && pos.y == 0 {
                let f = cam
                    .project([t.center[0], t.center[1], z])
                    .unwrap_or([0.0, 0.0]);
                fountain_px = [round2(f[0]), round2(f[1])];
            }
            let size = (0..4)
                .map(|i| {
                    ((corners[i][0] - corners[(i + 1) % 4][0]).powi(2)
                        + (corners[i][1] - corners[(i + 1) % 4][1]).powi(2))
                    .sqrt()
                })
                .sum::<f64>()
                / 4.0;
            widths.push(size);
            tiles.push(ScannedTile {
                x: pos.x,
                y: pos.y,
                building: piece.building,
                walls: piece.walls,
                confidence: None,
                corners_px: Some(
                    [0, 1, 2, 3].map(|i| [round2(corners[i][0]), round2(corners[i][1])]),
                ),
                occluded: !inside || hidden > 0.25,
            });
        }
        alhambras.push(ScannedAlhambra { fountain_px, tiles });
    }
    widths.sort_by(f64::total_cmp);
    let tile_px = widths.get(widths.len() / 2).copied().unwrap_or(0.0);
    let markers = scene.marker_corners();
    let mut meta = Map::new();
    meta.insert("generator".into(), json!("alhambra-vision synth 1"));
    meta.insert("seed".into(), json!(opts.seed));
    meta.insert("difficulty".into(), json!(opts.difficulty.name()));
    meta.insert("players".into(), json!(scene.players.len()));
    meta.insert(
        "tile_mm".into(),
        json!((scene.tile_mm * 100.0).round() / 100.0),
    );
    meta.insert("tile_px".into(), json!((tile_px * 100.0).round() / 100.0));
    meta.insert(
        "tilt_deg".into(),
        json!((scene.tilt_deg * 100.0).round() / 100.0),
    );
    meta.insert(
        "yaw_deg".into(),
        json!((scene.yaw_deg * 100.0).round() / 100.0),
    );
    meta.insert("marker_mm".into(), json!(scene.marker_mm));
    meta.insert(
        "marker_ids".into(),
        Value::from(markers.iter().map(|m| m.0).collect::<Vec<_>>()),
    );
    meta.insert(
        "markers".into(),
        Value::from(
            markers
                .iter()
                .map(|(id, c)| json!({"id": id, "corners_px": c.map(|p| [round2(p[0]), round2(p[1])])}))
                .collect::<Vec<_>>(),
        ),
    );
    meta.insert("jpeg_quality".into(), json!(look.jpeg));
    meta.insert("kelvin".into(), json!(look.kelvin.round()));
    meta.insert(
        "camera".into(),
        json!({"fx": cam.f, "fy": cam.f, "cx": cam.cx, "cy": cam.cy, "k1": cam.k1, "k2": cam.k2, "image_size": [cam.width, cam.height]}),
    );
    meta.insert("hand".into(), json!(scene.has_hand()));
    // Only when not the usual, so that the usual photos' labels stay as they were.
    if opts.walls == WallLook::Light {
        meta.insert("walls".into(), json!("light"));
    }
    if opts.laying == Laying::Loose {
        meta.insert("laying".into(), json!("loose"));
    }
    if opts.tiles == TileSet::Plan {
        meta.insert("tiles".into(), json!("plan"));
    }
    if let Some(art) = opts.art.name() {
        meta.insert("art".into(), json!(art));
    }
    Ok(ScanResult {
        image: format!("synth_{}_{}.jpg", opts.difficulty.name(), opts.seed),
        alhambras,
        meta,
    })
}

/// Writes `NAME.jpg` (at the scene's JPEG quality) and `NAME.json` (the labels, pretty,
/// with `"image": "NAME.jpg"`) into `dir`, creating it; each file goes to a temporary name
/// first and is renamed into place. Returns the image's path.
pub fn write_scene(scene: &RenderedScene, dir: &Path, name: &str) -> Result<PathBuf, SynthError> {
    std::fs::create_dir_all(dir).map_err(|source| SynthError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let image_name = format!("{name}.jpg");
    let image_path = dir.join(&image_name);
    let json_path = dir.join(format!("{name}.json"));
    let mut buf = Vector::<u8>::new();
    let params: Vector<i32> = [opencv::imgcodecs::IMWRITE_JPEG_QUALITY, scene.jpeg_quality]
        .into_iter()
        .collect();
    if !opencv::imgcodecs::imencode(".jpg", &scene.image, &mut buf, &params)? {
        return Err(SynthError::Encode(image_path));
    }
    write_atomic(&image_path, buf.as_slice())?;
    let mut labels = scene.labels.clone();
    labels.image = image_name;
    let text = serde_json::to_string_pretty(&labels).map_err(|source| SynthError::Json {
        path: json_path.clone(),
        source,
    })?;
    write_atomic(&json_path, format!("{text}\n").as_bytes())?;
    Ok(image_path)
}

/// Writes a file through a temporary sibling and a rename.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SynthError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(|source| SynthError::Io {
        path: tmp.clone(),
        source,
    })?;
    std::fs::rename(&tmp, path).map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        SynthError::Io {
            path: path.to_path_buf(),
            source,
        }
    })
}
