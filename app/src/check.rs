//! `alhambra check`: the placement rules on one layout file.

use crate::Outcome;
use crate::cli::{CheckArgs, HoleArg};
use crate::input::read_json;
use alhambra_engine::{CheckReport, HoleRule, LayoutFile, Rules, picture};
use anyhow::{Context, Result};

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
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", picture::draw(&alhambra));
        if report.legal {
            println!(
                "legal: {} tiles, every placement rule holds",
                alhambra.len()
            );
        } else {
            println!("illegal: {} violation(s)", report.violations.len());
            for v in &report.violations {
                println!("  {:<15} {}", v.rule.name(), v.message);
            }
        }
    }
    Ok(if !report.legal && args.fail_if_illegal {
        Outcome::Finding
    } else {
        Outcome::Done
    })
}
