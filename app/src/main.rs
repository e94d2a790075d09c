//! `alhambra`: the table companion's one binary. Parses the command line and runs the
//! command; every failure becomes one line on stderr and exit code 2 (bad input) or 1 (a
//! rule-level finding the user asked to fail on).

mod appearance;
mod calibrate;
mod check;
mod cli;
mod companion;
mod eval;
mod images;
mod input;
mod markers;
mod not_printed;
mod output;
mod reading;
mod scan;
mod score;
mod synth;
mod telling;
mod watch;

use clap::Parser;
use clap::error::ErrorKind;
use std::process::ExitCode;

/// How a command ended, beyond plain success.
pub enum Outcome {
    /// Done; exit 0.
    Done,
    /// A finding the user asked to fail on; exit 1.
    Finding,
}

fn main() -> ExitCode {
    let args = match cli::Args::try_parse() {
        Ok(args) => args,
        Err(e) => return usage_error(e),
    };
    let result = match args.command {
        Some(cli::Command::Score(a)) => score::run(&a),
        Some(cli::Command::Check(a)) => check::run(&a),
        Some(cli::Command::Scan(a)) => scan::run(&a),
        Some(cli::Command::Calibrate(cli::CalibrateCommand::Intrinsics(a))) => calibrate::run(&a),
        Some(cli::Command::Calibrate(cli::CalibrateCommand::Appearance(a))) => appearance::run(&a),
        Some(cli::Command::Markers(a)) => markers::run(&a),
        Some(cli::Command::Synth(a)) => synth::run(&a),
        Some(cli::Command::Eval(a)) => eval::run(&a),
        Some(cli::Command::Watch(a)) => watch::run(&a),
        Some(cli::Command::Demo(a)) => companion::run(&a, companion::Source::Demo),
        None => {
            let source = match args.source {
                Some(spec) => companion::Source::Named(spec),
                None => companion::Source::CameraOrDemo,
            };
            companion::run(&args.companion, source)
        }
    };
    match result {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Finding) => ExitCode::from(1),
        Err(e) => {
            // One line: the context chain joined, no backtrace.
            let line = format!("{e:#}").replace('\n', " ");
            eprintln!("alhambra: {line}");
            ExitCode::from(2)
        }
    }
}

/// Help and version go to stdout as usual; a usage error becomes one line and exit 2.
fn usage_error(e: clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        _ => {
            let text = e.to_string();
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            let first = lines.next().unwrap_or("bad command line");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            // "the following required arguments were not provided:" lists them below.
            let line = match lines.next() {
                Some(next) if first.ends_with(':') => format!("{first} {next}"),
                _ => first.to_owned(),
            };
            eprintln!("alhambra: {line} (see `alhambra --help`)");
            ExitCode::from(2)
        }
    }
}
