//! `alhambra scan`: every Alhambra in each photo, as text (the grid drawn, doubtful and
//! impossible tiles listed, the placement rules checked) or as the scan-result JSON of
//! CONTRACTS.md; with `--debug`, a picture per stage of the scan per photo.

use crate::Outcome;
use crate::images::{file_name, read_image, without_colour};
use crate::not_printed;
use crate::reading::ReadingArgs;
use alhambra_engine::{CheckReport, picture};
use alhambra_vision::scanner::{PlaneSource, Scan};
use alhambra_vision::{ScanResult, stages};
use anyhow::{Context, Result};
use opencv::core::Vector;
use opencv::prelude::*;
use std::path::{Path, PathBuf};

/// Tiles read with less confidence than this are listed for a look (the window marks
/// them; `eval` counts the errors read at least this surely).
const LOW_CONFIDENCE: f32 = alhambra_vision::eval::SURE;

/// `alhambra scan IMAGE... [--profile P.json] [--camera C.json] [--marker-mm 40] [--json] [--debug DIR]`
#[derive(Debug, clap::Args)]
pub struct ScanArgs {
    /// Table photos (PNG or JPEG), each read on its own.
    #[arg(required = true, value_name = "IMAGE")]
    pub images: Vec<PathBuf>,
    /// How the table is read: profile, camera file, markers' size.
    #[command(flatten)]
    pub reading: ReadingArgs,
    /// Print exactly one JSON document: the scan result object for one image, a JSON array
    /// of them (in the order given) for several.
    #[arg(long)]
    pub json: bool,
    /// Also write a picture per stage and image into this folder, over the (undistorted)
    /// photo: NAME_rectified.png (the table through the markers), NAME_clusters.png
    /// (fountain candidates, the cells each Alhambra grew over), NAME_lattice.png (each
    /// Alhambra's lattice), NAME_overlay.png (what was read).
    #[arg(long, value_name = "DIR")]
    pub debug: Option<PathBuf>,
}

/// Scans every image, then prints the text or the JSON.
pub fn run(args: &ScanArgs) -> Result<Outcome> {
    crate::images::quiet_opencv();
    let reader = args.reading.reader()?;
    if let Some(dir) = &args.debug {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the folder", dir.display()))?;
    }
    // Every image is read before anything is printed: one bad file, one line, no output.
    let mut results = Vec::with_capacity(args.images.len());
    for path in &args.images {
        let frame = reader.undistorted(read_image(path)?, &path.display().to_string())?;
        let scan = reader
            .scanner
            .scan(&frame)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let result = scan.to_result(&file_name(path));
        if let Some(dir) = &args.debug {
            write_stages(dir, path, &frame, &scan, &result)?;
        }
        results.push((path, scan, result, without_colour(&frame)));
    }
    if args.json {
        let text = if let [(_, _, one, _)] = results.as_slice() {
            serde_json::to_string(one)?
        } else {
            let all: Vec<&ScanResult> = results.iter().map(|(_, _, r, _)| r).collect();
            serde_json::to_string(&all)?
        };
        crate::output::print(&format!("{text}\n"))?;
    } else {
        let reports: Vec<String> = results
            .iter()
            .map(|(path, scan, result, grey)| describe(path, scan, result, *grey))
            .collect();
        crate::output::print(&reports.join("\n"))?;
    }
    Ok(Outcome::Done)
}

/// Writes `DIR/NAME_STAGE.png` for every stage of the scan (see [`stages::stages`]).
fn write_stages(
    dir: &Path,
    image: &Path,
    frame: &Mat,
    scan: &Scan,
    result: &ScanResult,
) -> Result<()> {
    let stem = image
        .file_stem()
        .map_or_else(|| "image".to_owned(), |s| s.to_string_lossy().into_owned());
    let pictures = stages::stages(frame, scan, result)
        .with_context(|| format!("{}: cannot draw the scan's stages", image.display()))?;
    for (stage, picture) in pictures {
        let out = dir.join(format!("{stem}_{stage}.png"));
        let mut png = Vector::<u8>::new();
        let encoded = opencv::imgcodecs::imencode(".png", &picture, &mut png, &Vector::new())
            .unwrap_or(false);
        if !encoded {
            anyhow::bail!("{}: cannot encode the {stage} picture", out.display());
        }
        alhambra_calibration::camera::write_atomically(&out, png.as_slice())
            .with_context(|| format!("{}: cannot write the {stage} picture", out.display()))?;
    }
    Ok(())
}

/// The text report of one image.
fn describe(path: &Path, scan: &Scan, result: &ScanResult, grey: bool) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let plane = match scan.plane {
        PlaneSource::Markers => "table plane from the ArUco markers",
        PlaneSource::Lattice => {
            "no ArUco marker seen: tiles assumed square in the image (less reliable)"
        }
    };
    let _ = writeln!(
        out,
        "{}: {} Alhambra(s) found; {plane}",
        path.display(),
        result.alhambras.len()
    );
    if grey {
        let _ = writeln!(
            out,
            "note: the photo has no colour (greyscale): tiles are told apart by their colours, \
             so few or none can be read; take it in colour"
        );
    }
    for (i, (found, read)) in scan.alhambras.iter().zip(&result.alhambras).enumerate() {
        let _ = writeln!(
            out,
            "\nAlhambra {} ({} tiles), fountain at pixel ({:.0}, {:.0})",
            i + 1,
            read.tiles.len(),
            read.fountain_px[0],
            read.fountain_px[1]
        );
        let alhambra = match read.to_alhambra() {
            Ok(a) => a,
            Err(e) => {
                let _ = writeln!(out, "  cannot be drawn or checked: {e}");
                continue;
            }
        };
        out.push_str(&picture::draw(&alhambra));
        let doubtful: Vec<String> = read
            .tiles
            .iter()
            .filter(|t| t.confidence.is_some_and(|c| c < LOW_CONFIDENCE))
            .map(|t| {
                format!(
                    "{} at ({},{}) walls {} ({:.2})",
                    t.building,
                    t.x,
                    t.y,
                    t.walls,
                    t.confidence.unwrap_or(0.0)
                )
            })
            .collect();
        if !doubtful.is_empty() {
            let _ = writeln!(
                out,
                "low confidence (< {LOW_CONFIDENCE}), look again: {}",
                doubtful.join("; ")
            );
        }
        let covered: Vec<String> = found
            .covered_between()
            .iter()
            .map(ToString::to_string)
            .collect();
        if !covered.is_empty() {
            let _ = writeln!(
                out,
                "not read between tiles (under a hand? a tile not made out), look again: {}",
                covered.join(" ")
            );
        }
        for line in not_printed::lines(&alhambra) {
            let _ = writeln!(out, "{line}");
        }
        let report = CheckReport::of(&alhambra);
        if report.legal {
            let _ = writeln!(out, "legal: every placement rule holds");
        } else {
            let _ = writeln!(out, "illegal: {} violation(s)", report.violations.len());
            for v in &report.violations {
                let _ = writeln!(out, "  {:<15} {}", v.rule.name(), v.message);
            }
        }
    }
    out
}
