//! The built-in appearance profile, used when no `--profile` is given so that the scanner
//! works out of the box: learned once per process from a labelled photo bundled with the
//! program (`fixtures/profile/default.jpg` + `default.json`, an easy rendered scene that
//! shows all seven building kinds, walled and open sides, and the marker sheet). Learning
//! it at run time, rather than shipping a frozen profile file, keeps it in step with the
//! feature code. `calibrate appearance` also borrows from that photo the look of a
//! building its own labelled photos do not show.

use crate::appearance::{Profile, ProfileError};
use crate::labels::ScanResult;
use crate::training::{PhotoSamples, learn_profile, photo_samples};
use opencv::core::Vector;
use opencv::imgcodecs;
use opencv::prelude::*;
use std::sync::OnceLock;

/// The bundled photo (JPEG).
const PHOTO: &[u8] = include_bytes!("../../fixtures/profile/default.jpg");
/// Its labels (scan-result JSON with `corners_px` and `meta.marker_mm`).
const LABELS: &[u8] = include_bytes!("../../fixtures/profile/default.json");

/// How the built-in profile is named in errors.
const NAME: &str = "built-in default profile (fixtures/profile/default.jpg)";

/// Marker size when the bundled labels do not record one.
const DEFAULT_MARKER_MM: f64 = 40.0;

/// The built-in profile; learned on the first call (a second or so), cloned after.
pub fn default_profile() -> Result<Profile, ProfileError> {
    static LEARNED: OnceLock<Result<Profile, String>> = OnceLock::new();
    LEARNED
        .get_or_init(|| learn().map_err(|e| e.to_string()))
        .clone()
        .map_err(|problem| ProfileError::Invalid {
            path: NAME.to_owned(),
            problem,
        })
}

fn learn() -> Result<Profile, ProfileError> {
    learn_profile(&[built_in_samples()?])
}

/// The samples of the bundled labelled photo (a second or so): what the built-in profile
/// is learned from, and where `calibrate appearance` borrows the look of a building its
/// photos do not show (see [`crate::training::borrow_missing`]).
pub fn built_in_samples() -> Result<PhotoSamples, ProfileError> {
    let invalid = |problem: String| ProfileError::Invalid {
        path: NAME.to_owned(),
        problem,
    };
    let labels: ScanResult =
        serde_json::from_slice(LABELS).map_err(|source| ProfileError::Json {
            path: NAME.to_owned(),
            source,
        })?;
    let frame = imgcodecs::imdecode(&Vector::<u8>::from_slice(PHOTO), imgcodecs::IMREAD_COLOR)
        .map_err(|e| invalid(format!("cannot decode the photo: {e}")))?;
    if frame.empty() {
        return Err(invalid("the bundled photo is not an image".into()));
    }
    let marker_mm = labels.marker_mm().unwrap_or(DEFAULT_MARKER_MM);
    photo_samples(&frame, &labels, marker_mm)
        .map_err(|e| invalid(format!("cannot learn from the photo: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_profile_knows_every_building() {
        let profile = match default_profile() {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(profile.buildings.iter().flatten().count(), 7);
        assert!(profile.pitch_mm > 20.0 && profile.pitch_mm < 100.0);
    }

    #[test]
    fn a_fountain_is_read_without_walls_whatever_its_borders_look_like() {
        use crate::appearance::{BLOCK_DIMS, CellFeatures, Focus, SIDE_DIMS};
        use alhambra_engine::{Building, Walls};
        let profile = match default_profile() {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        let Some(Some(fountain)) = profile.buildings.first() else {
            panic!("no fountain model");
        };
        // The fountain's look, every side looking like a wall and more so: two of the
        // wall's deviations further from open than the profile's walls are (a fountain's
        // art with a dark border all round).
        let mut f = CellFeatures {
            blocks: [0.0; BLOCK_DIMS],
            sides: [[0.0; SIDE_DIMS]; 4],
            sharpness: 1.0,
            coarse_sharpness: 1.0,
        };
        f.blocks.copy_from_slice(&fountain.mean);
        for side in &mut f.sides {
            for (k, v) in side.iter_mut().enumerate() {
                let (wall, open) = (profile.wall.mean[k], profile.open.mean[k]);
                let away = if wall < open { -1.0 } else { 1.0 };
                *v = wall + away * 2.0 * profile.wall.var[k].sqrt();
            }
        }
        let reading = profile.read(&f, Focus::Sharp);
        assert_eq!(
            (reading.building, reading.walls),
            (Building::Fountain, Walls::NONE)
        );
    }
}
