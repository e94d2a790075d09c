//! `alhambra eval`: scans every labelled photo of a folder and prints how accurate and how
//! fast the scanner is, overall and per difficulty (`meta.difficulty` of the labels).

use crate::Outcome;
use crate::images::{
    DEFAULT_MARKER_MM, file_name, load_labels, load_profile, parse_marker_mm, read_image,
};
use alhambra_vision::eval::{Rates, Tally, compare_photo};
use alhambra_vision::scanner::{ScanOptions, Scanner};
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `alhambra eval DIR [--profile P.json] [--json] [--marker-mm M]`
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// Folder of labelled photos: NAME.jpg (or .png) beside NAME.json (scan-result form),
    /// in it or in its subfolders.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Appearance profile from `alhambra calibrate appearance` (default: the built-in one).
    #[arg(long, value_name = "P.json")]
    pub profile: Option<PathBuf>,
    /// Print exactly one JSON document: {"overall": {...}, "per_difficulty": {"easy": {...}}}.
    #[arg(long)]
    pub json: bool,
    /// Printed width of the markers, millimetres, for labels that do not record it
    /// (`meta.marker_mm` in a labels file wins).
    #[arg(long, default_value_t = DEFAULT_MARKER_MM, value_parser = parse_marker_mm)]
    pub marker_mm: f64,
    /// Also name, on standard error, every photo not read exactly and what was wrong in it.
    #[arg(long)]
    pub each: bool,
}

/// The JSON document of `eval --json`.
#[derive(Debug, Serialize)]
struct Report {
    overall: Rates,
    per_difficulty: BTreeMap<String, Rates>,
}

/// Every `NAME.jpg|jpeg|png` with a sibling `NAME.json` in the folder and its subfolders
/// (e.g. one per difficulty), sorted by path.
fn labelled_photos(dir: &Path) -> Result<Vec<(PathBuf, PathBuf)>> {
    let mut found = Vec::new();
    collect(dir, 0, &mut found)?;
    if found.is_empty() {
        bail!(
            "{}: no labelled photo (NAME.jpg or NAME.png beside NAME.json) in the folder",
            dir.display()
        );
    }
    found.sort();
    Ok(found)
}

/// How deep subfolders are searched.
const MAX_DEPTH: usize = 4;

fn collect(dir: &Path, depth: usize, found: &mut Vec<(PathBuf, PathBuf)>) -> Result<()> {
    let shown = dir.display();
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("{shown}: cannot read the folder"))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("{shown}: cannot read the folder"))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .with_context(|| format!("{}: cannot read", path.display()))?;
        if kind.is_dir() {
            // Real subfolders only (a linked folder could lead back up).
            if depth < MAX_DEPTH {
                collect(&path, depth + 1, found)?;
            }
            continue;
        }
        let is_photo = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| ["jpg", "jpeg", "png"].contains(&e.to_ascii_lowercase().as_str()));
        let labels = path.with_extension("json");
        if is_photo && labels.is_file() {
            found.push((path, labels));
        }
    }
    Ok(())
}

/// Where the difficulty groups go in the table: the renderer's three first, then the rest.
fn group_order(name: &str) -> (usize, &str) {
    let rank = ["easy", "normal", "hard"]
        .iter()
        .position(|d| *d == name)
        .unwrap_or(3);
    (rank, name)
}

/// Scans every labelled photo, compares, prints the table or the JSON.
pub fn run(args: &EvalArgs) -> Result<Outcome> {
    crate::images::quiet_opencv();
    let photos = labelled_photos(&args.dir)?;
    let profile = load_profile(args.profile.as_deref())?;
    // Timings per photo on one thread, comparable between machines and runs.
    opencv::core::set_num_threads(1).context("cannot set OpenCV to one thread")?;
    let bar = ProgressBar::with_draw_target(
        Some(photos.len() as u64),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} photos  {elapsed} (eta {eta})  {msg}")
    {
        bar.set_style(style);
    }
    let mut scanners: BTreeMap<u64, Scanner> = BTreeMap::new();
    let mut groups: BTreeMap<String, Tally> = BTreeMap::new();
    let mut overall = Tally::default();
    for (image, labels_path) in &photos {
        bar.set_message(file_name(image));
        let labels = load_labels(labels_path)?;
        let frame = read_image(image)?;
        let marker_mm = labels.marker_mm().unwrap_or(args.marker_mm);
        let scanner = scanners.entry(marker_mm.to_bits()).or_insert_with(|| {
            Scanner::new(
                profile.clone(),
                ScanOptions {
                    marker_mm,
                    ..ScanOptions::default()
                },
            )
        });
        let start = Instant::now();
        let scan = scanner
            .scan(&frame)
            .map_err(|e| anyhow::anyhow!("{}: {e}", image.display()))?;
        let millis = start.elapsed().as_secs_f64() * 1000.0;
        let mut tally = compare_photo(&labels, &scan.to_result(&file_name(image)));
        tally.millis.push(millis);
        if args.each && tally.photos_exact == 0 {
            bar.suspend(|| {
                eprintln!(
                    "{}: {}/{} Alhambras exact; {} missed, {} phantom, {} building and {} wall \
                     errors in {} tiles",
                    image.display(),
                    tally.alhambras_exact,
                    tally.alhambras,
                    tally.missed,
                    tally.phantom,
                    tally.building_errors,
                    tally.wall_errors,
                    tally.tiles
                );
            });
        }
        let difficulty = labels
            .meta
            .get("difficulty")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("unlabelled")
            .to_owned();
        groups.entry(difficulty).or_default().add(&tally);
        overall.add(&tally);
        bar.inc(1);
    }
    bar.finish_and_clear();
    if args.json {
        let report = Report {
            overall: overall.rates(),
            per_difficulty: groups.iter().map(|(k, t)| (k.clone(), t.rates())).collect(),
        };
        crate::output::print(&format!("{}\n", serde_json::to_string(&report)?))?;
    } else {
        let mut order: Vec<&String> = groups.keys().collect();
        order.sort_by_key(|k| group_order(k));
        let mut rows = vec![("overall".to_owned(), overall.rates())];
        rows.extend(order.into_iter().map(|k| (k.clone(), groups[k].rates())));
        let failures: String = rows
            .iter()
            .map(|(name, r)| format!("  {name}: {}\n", r.failures.summary()))
            .collect();
        crate::output::print(&format!(
            "{}{} labelled photo(s) in {}; building error per tile read, wall error per side read, missed and phantom per labelled tile; in view%: exact Alhambras among those whose fountain is not hidden (cells are counted from the fountain: under a hand, none can be placed); sure wrong%: tiles read wrongly (building, a wall, or no tile there) with a confidence of at least 0.8 (shown without a ?), per tile read; timings on one thread\nAlhambras in view not read exactly, by what went wrong first:\n{failures}",
            table(&rows),
            photos.len(),
            args.dir.display()
        ))?;
    }
    Ok(Outcome::Done)
}

/// The figures as an aligned text table, one row per group.
fn table(rows: &[(String, Rates)]) -> String {
    use std::fmt::Write;
    let headers = [
        "",
        "photos",
        "bldg err%",
        "wall err%",
        "missed%",
        "phantom%",
        "alh exact%",
        "in view%",
        "photo exact%",
        "score exact%",
        "sure wrong%",
        "ms median",
        "ms p95",
    ];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|(name, r)| {
            vec![
                name.clone(),
                r.photos.to_string(),
                format!("{:.1}", r.building_error_pct),
                format!("{:.1}", r.wall_error_pct),
                format!("{:.1}", r.missed_pct),
                format!("{:.1}", r.phantom_pct),
                format!("{:.0}", r.alhambra_exact_pct),
                format!("{:.0}", r.in_view_exact_pct),
                format!("{:.0}", r.photo_exact_pct),
                format!("{:.0}", r.score_exact_pct),
                format!("{:.2}", r.sure_wrong_pct),
                format!("{:.0}", r.ms_median),
                format!("{:.0}", r.ms_p95),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..headers.len())
        .map(|i| {
            cells
                .iter()
                .map(|row| row[i].len())
                .chain([headers[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let line = |cols: &[&str], out: &mut String| {
        for (i, c) in cols.iter().enumerate() {
            if i == 0 {
                let _ = write!(out, "{c:<w$}", w = widths[0]);
            } else {
                let _ = write!(out, "  {c:>w$}", w = widths[i]);
            }
        }
        out.push('\n');
    };
    line(&headers, &mut out);
    for row in &cells {
        line(
            &row.iter().map(String::as_str).collect::<Vec<_>>(),
            &mut out,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn difficulties_come_easiest_first_then_the_rest_by_name() {
        let mut v = vec!["unlabelled", "hard", "easy", "normal", "custom"];
        v.sort_by_key(|k| group_order(k));
        assert_eq!(v, ["easy", "normal", "hard", "custom", "unlabelled"]);
    }
}
