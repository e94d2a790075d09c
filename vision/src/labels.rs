//! The scan-result JSON of CONTRACTS.md: what `scan --json` prints, and the ground-truth
//! labels that the renderer writes and that `eval` and `calibrate appearance` read.

use alhambra_engine::{Alhambra, Building, LayoutError, Piece, Pos, Walls};
use serde::{Deserialize, Serialize};
use std::path::Path;
use thiserror::Error;

/// One tile as scanned or labelled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScannedTile {
    /// Grid cell east of the fountain.
    pub x: i32,
    /// Grid cell south of the fountain.
    pub y: i32,
    /// The building read (or labelled).
    pub building: Building,
    /// The walled sides; omitted for none.
    #[serde(default, skip_serializing_if = "no_walls")]
    pub walls: Walls,
    /// How sure the scanner is of this tile, 0..1 (optional in labels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
    /// The tile's corners in image pixels, clockwise from the north-west one (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corners_px: Option<[[f32; 2]; 4]>,
    /// Hidden under a hand or out of view: neither counted nor learned from (labels only).
    #[serde(default, skip_serializing_if = "is_false")]
    pub occluded: bool,
}

fn no_walls(w: &Walls) -> bool {
    *w == Walls::NONE
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One player's Alhambra found in an image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScannedAlhambra {
    /// The fountain tile's centre in image pixels.
    pub fountain_px: [f32; 2],
    /// Every tile read, the fountain included.
    pub tiles: Vec<ScannedTile>,
}

impl ScannedAlhambra {
    /// The grid model of the tiles that are not occluded.
    pub fn to_alhambra(&self) -> Result<Alhambra, LayoutError> {
        Alhambra::from_pieces(
            self.tiles
                .iter()
                .filter(|t| !t.occluded)
                .map(|t| (Pos::new(t.x, t.y), Piece::new(t.building, t.walls))),
        )
    }
}

/// Everything found in one image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScanResult {
    /// The image's file name.
    pub image: String,
    /// One entry per Alhambra found.
    pub alhambras: Vec<ScannedAlhambra>,
    /// Extra facts a reader may ignore (renderer: difficulty, seed, tile pitch...).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub meta: serde_json::Map<String, serde_json::Value>,
}

/// A label or scan file that cannot be read.
#[derive(Debug, Error)]
pub enum LabelError {
    /// The file cannot be opened.
    #[error("{path}: {source}")]
    Io {
        /// Which file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a scan result.
    #[error("{path}: not a scan result: {source}")]
    Json {
        /// Which file.
        path: String,
        /// Why.
        source: serde_json::Error,
    },
}

impl ScanResult {
    /// The printed marker size the labels record (`meta.marker_mm`), when they record a
    /// size (finite, above zero).
    pub fn marker_mm(&self) -> Option<f64> {
        self.meta
            .get("marker_mm")
            .and_then(serde_json::Value::as_f64)
            .filter(|mm| mm.is_finite() && *mm > 0.0)
    }

    /// Reads a scan-result / labels file.
    pub fn load(path: &Path) -> Result<ScanResult, LabelError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| LabelError::Io {
            path: shown.clone(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| LabelError::Json {
            path: shown,
            source,
        })
    }
}

/// The tiles of a scanned grid turned a quarter clockwise about the fountain (walls with
/// them), for comparing a scan with labels whose north differs.
pub fn rotate_tiles_clockwise(tiles: &[ScannedTile]) -> Vec<ScannedTile> {
    tiles
        .iter()
        .map(|t| {
            let p = Pos::new(t.x, t.y).rotated_clockwise();
            ScannedTile {
                x: p.x,
                y: p.y,
                walls: t.walls.rotated_clockwise(),
                ..t.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_contract_example_and_ignores_unknown_fields() {
        let text = r#"{"image": "table.png", "future": 1,
         "alhambras": [
           {"fountain_px": [812.5, 430.0],
            "tiles": [{"x": 0, "y": 0, "building": "fountain", "confidence": 0.99},
                      {"x": 1, "y": 0, "building": "garden", "walls": ["north"], "confidence": 0.97,
                       "corners_px": [[1,2],[3,4],[5,6],[7,8]]},
                      {"x": 2, "y": 0, "building": "tower", "occluded": true}]}]}"#;
        let r: ScanResult = serde_json::from_str(text).expect("the contract's example");
        assert_eq!(r.alhambras[0].tiles.len(), 3);
        let a = r.alhambras[0].to_alhambra().expect("well-formed");
        assert_eq!(a.len(), 2, "the occluded tile is not part of the model");
        let back = serde_json::to_string(&r).expect("serialisable");
        assert!(!back.contains("occluded\":false"));
    }
}
