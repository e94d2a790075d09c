//! `alhambra calibrate appearance`: learns how this tile set looks under this light from
//! labelled photos (the scan-result form with `corners_px` on the tiles) and saves the
//! appearance profile that `scan --profile` and `eval --profile` read.

use crate::Outcome;
use crate::images::{DEFAULT_MARKER_MM, flat, load_labels, parse_marker_mm, read_image};
use alhambra_engine::Building;
use alhambra_vision::ScanResult;
use alhambra_vision::default_profile::built_in_samples;
use alhambra_vision::training::{ASSUMED_PITCH_MM, learn_profile_borrowing, photo_samples};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// `alhambra calibrate appearance IMAGE... --labels LABELS.json... --out P.json [--marker-mm 40]`
#[derive(Debug, clap::Args)]
pub struct AppearanceArgs {
    /// Photos of the table, best with the marker sheet in view (it measures the tiles and
    /// balances the colours; without it the tiles are taken to be 50 mm across).
    #[arg(required = true, value_name = "IMAGE")]
    pub images: Vec<PathBuf>,
    /// One labels file per image, in the same order (scan-result JSON whose tiles carry
    /// `corners_px`); without it, each IMAGE's sibling NAME.json.
    #[arg(long, num_args = 1.., value_name = "LABELS.json")]
    pub labels: Vec<PathBuf>,
    /// Where to write the profile (JSON).
    #[arg(long, value_name = "P.json")]
    pub out: PathBuf,
    /// Printed width of the ArUco markers, millimetres, for labels that do not record it
    /// (`meta.marker_mm` in a labels file wins).
    #[arg(long, default_value_t = DEFAULT_MARKER_MM, value_parser = parse_marker_mm)]
    pub marker_mm: f64,
}

/// The labels file of each image: as given, or the image's sibling NAME.json.
fn labels_paths(args: &AppearanceArgs) -> Result<Vec<PathBuf>> {
    if args.labels.is_empty() {
        return args
            .images
            .iter()
            .map(|image| {
                let labels = image.with_extension("json");
                if labels.is_file() {
                    Ok(labels)
                } else {
                    bail!(
                        "{}: no labels beside it ({} does not exist); give them with --labels",
                        image.display(),
                        labels.display()
                    )
                }
            })
            .collect();
    }
    if args.labels.len() != args.images.len() {
        bail!(
            "--labels: {} labels file(s) for {} image(s); give one per image, in the same order",
            args.labels.len(),
            args.images.len()
        );
    }
    Ok(args.labels.clone())
}

/// Refuses an output path whose folder does not exist before spending time learning.
fn check_out(out: &Path) -> Result<()> {
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = parent
        && !dir.is_dir()
    {
        bail!(
            "{}: cannot write there, the folder {} does not exist",
            out.display(),
            dir.display()
        );
    }
    if out.is_dir() {
        bail!(
            "{}: is a folder; give a file name for the profile",
            out.display()
        );
    }
    Ok(())
}

/// Checks that the labels have tiles with corners to learn from.
fn check_labels(path: &Path, labels: &ScanResult) -> Result<()> {
    let tiles = labels.alhambras.iter().flat_map(|a| &a.tiles);
    let usable = tiles
        .filter(|t| !t.occluded && t.corners_px.is_some())
        .count();
    if usable == 0 {
        bail!(
            "{}: no visible tile has `corners_px` (each tile's four corners in image pixels), so there is nothing to learn from",
            path.display()
        );
    }
    Ok(())
}

/// Visible tiles with corners: what is learned from.
fn usable_tiles(labels: &ScanResult) -> usize {
    labels
        .alhambras
        .iter()
        .flat_map(|a| &a.tiles)
        .filter(|t| !t.occluded && t.corners_px.is_some())
        .count()
}

/// Learns the profile from every labelled photo and saves it; prints what it learned from
/// once it is saved (nothing on stdout when it fails).
pub fn run(args: &AppearanceArgs) -> Result<Outcome> {
    crate::images::quiet_opencv();
    let labels_paths = labels_paths(args)?;
    check_out(&args.out)?;
    let mut photos = Vec::with_capacity(args.images.len());
    let mut tiles = 0usize;
    let mut report = String::new();
    for (image, labels_path) in args.images.iter().zip(&labels_paths) {
        let frame = read_image(image)?;
        let labels = load_labels(labels_path)?;
        check_labels(labels_path, &labels)?;
        let marker_mm = labels.marker_mm().unwrap_or(args.marker_mm);
        let samples = photo_samples(&frame, &labels, marker_mm)
            .with_context(|| format!("{}: cannot learn from it", image.display()))?;
        let n = usable_tiles(&labels);
        tiles += n;
        let pitch = match samples.pitch_mm {
            Some(mm) => format!("tile pitch {mm:.1} mm ({marker_mm} mm markers)"),
            None => "no ArUco marker (DICT_4X4_50) in view: tile size unknown".to_owned(),
        };
        report.push_str(&format!(
            "{}: {n} labelled tiles, {} samples, {pitch}\n",
            image.display(),
            samples.samples.len(),
        ));
        photos.push(samples);
    }
    // A building no labelled tile shows would never be read: its look is borrowed from
    // the built-in tile set, moved to these photos' colours (said on stderr).
    let shown = |b: Building| {
        photos
            .iter()
            .flat_map(|p| &p.samples)
            .any(|s| s.building == Some(b))
    };
    let fallback = if Building::ALL.iter().all(|&b| shown(b)) {
        Vec::new()
    } else {
        built_in_samples().map_err(flat)?.samples
    };
    let (profile, borrowed) = learn_profile_borrowing(&photos, &fallback).map_err(flat)?;
    if photos.iter().all(|p| p.pitch_mm.is_none()) {
        eprintln!(
            "note: no labelled photo shows a marker: the tiles are taken to be {ASSUMED_PITCH_MM} mm \
             across (scans without markers do not need it; with markers, tiles 0.55 to 1.8 \
             times that size are found)"
        );
    }
    profile.save(&args.out).map_err(flat)?;
    let learned = Building::ALL.iter().filter(|&&b| shown(b)).count();
    report.push_str(&format!(
        "learned from {} photo(s), {tiles} tiles: tile pitch {:.1} mm, {learned} of 7 building kinds seen{}\nwrote {}\n",
        photos.len(),
        profile.pitch_mm,
        if borrowed.is_empty() {
            String::new()
        } else {
            format!(" ({} borrowed)", borrowed.len())
        },
        args.out.display()
    ));
    if !borrowed.is_empty() {
        let names: Vec<String> = borrowed.iter().map(|b| b.to_string()).collect();
        let (its, one) = if names.len() == 1 {
            ("its look is", "one")
        } else {
            ("their looks are", "them")
        };
        eprintln!(
            "warning: no labelled tile shows {}: {its} borrowed from the built-in tile set, \
             moved to these photos' colours (label a photo that shows {one} for a better profile)",
            names.join(", "),
        );
    }
    if learned + borrowed.len() < 7 {
        eprintln!(
            "warning: the labelled photos lack some building kinds; the scanner cannot read those well (add a photo that shows them)"
        );
    }
    crate::output::print(&report)?;
    Ok(Outcome::Done)
}
