//! `alhambra check`: the placement rules on one layout file.

use crate::Outcome;
use crate::cli::{CheckArgs, HoleArg};
use crate::input::read_json;
use crate::not_printed;
use crate::output;
use alhambra_engine::{CheckReport, HoleRule, LayoutFile, Rules, picture};
use anyhow::{Context, Result};
use std::fmt::Write as _;

/// Checks the layout and prints the report or the JSON.
pub fn run(args: &CheckArgs) -> Result<Outcome> {
    let file: LayoutFile = read_json(&args.layout)?;
    let holes = match args.holes {
        HoleArg::AnyRegion => HoleRule::AnyEnclosedRegion,
        HoleArg::SingleCell => HoleRule::SingleCell,
    };
    let alhambra = file
        .to_alhambra()
        .with_context(|| args.layout.display().to_string())?
        .with_rules(Rules { holes });
    let report = CheckReport::of(&alhambra);
    // Built whole, then written once: a reader that has gone away ends it quietly.
    let mut text = String::new();
    if args.json {
        text = serde_json::to_string(&report)? + "\n";
    } else {
        text += &picture::draw(&alhambra);
        for line in not_printed::lines(&alhambra) {
            let _ = writeln!(text, "{line}");
        }
        if report.legal {
            let _ = writeln!(
                text,
                "legal: {} tiles, every placement rule holds",
                alhambra.len()
            );
        } else {
            let _ = writeln!(text, "illegal: {} violation(s)", report.violations.len());
            for v in &report.violations {
                let _ = writeln!(text, "  {:<15} {}", v.rule.name(), v.message);
            }
        }
    }
    output::print(&text)?;
    Ok(if !report.legal && args.fail_if_illegal {
        Outcome::Finding
    } else {
        Outcome::Done
    })
}
