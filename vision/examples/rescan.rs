//! Development loop: each labelled photo of a folder scanned whole, then again from its
//! own scan (`Scanner::scan_from`, what a tracker does with a still frame), with the
//! figures and times of both.
use alhambra_vision::ScanResult;
use alhambra_vision::appearance::Profile;
use alhambra_vision::eval::{Tally, compare_photo};
use alhambra_vision::scanner::{ScanOptions, Scanner};
use opencv::imgcodecs;
use std::path::Path;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    opencv::core::set_num_threads(1)?;
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(profile)) = (args.get(1), args.get(2)) else {
        return Err("usage: rescan DIR PROFILE [COUNT]".into());
    };
    let count: usize = args
        .get(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX);
    let profile = Profile::load(Path::new(profile))?;
    let mut photos: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jpg"))
        .collect();
    photos.sort();
    let (mut whole, mut again) = (Tally::default(), Tally::default());
    let (mut ms_whole, mut ms_again) = (Vec::new(), Vec::new());
    let mut same = 0;
    for photo in photos.iter().take(count) {
        let labels = ScanResult::load(&photo.with_extension("json"))?;
        let scanner = Scanner::new(
            profile.clone(),
            ScanOptions {
                marker_mm: labels.marker_mm().unwrap_or(40.0),
                ..ScanOptions::default()
            },
        );
        let image = imgcodecs::imread(
            photo.to_string_lossy().into_owned(),
            imgcodecs::IMREAD_COLOR,
        )?;
        let t0 = Instant::now();
        let first = scanner.scan(&image)?;
        let t1 = Instant::now();
        let second = scanner.scan_from(&image, &first, &[])?;
        let t2 = Instant::now();
        let (a, b) = (first.to_result("x"), second.to_result("x"));
        let (ta, tb) = (compare_photo(&labels, &a), compare_photo(&labels, &b));
        let ident = serde_json::to_string(&a.alhambras)? == serde_json::to_string(&b.alhambras)?;
        same += usize::from(ident);
        ms_whole.push((t1 - t0).as_secs_f64() * 1e3);
        ms_again.push((t2 - t1).as_secs_f64() * 1e3);
        eprintln!(
            "{}: whole {}/{} exact {:.0} ms, again {}/{} exact {:.0} ms{}",
            photo.display(),
            ta.alhambras_exact,
            ta.alhambras,
            ms_whole.last().copied().unwrap_or(0.0),
            tb.alhambras_exact,
            tb.alhambras,
            ms_again.last().copied().unwrap_or(0.0),
            if ident { ", same" } else { "" }
        );
        whole.add(&ta);
        again.add(&tb);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    println!("whole: {}", serde_json::to_string(&whole.rates())?);
    println!("again: {}", serde_json::to_string(&again.rates())?);
    println!(
        "median ms: whole {:.0}, again {:.0}; same result {same} of {}",
        median(&mut ms_whole),
        median(&mut ms_again),
        ms_whole.len()
    );
    Ok(())
}
