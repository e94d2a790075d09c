//! `alhambra markers`: the printable marker sheet (ArUco markers, a ruler, a chessboard)
//! at true scale as PNG or PDF, with a sidecar JSON recording the sizes.

use crate::Outcome;
use crate::output::say;
use alhambra_calibration::{MarkerSheet, Paper, SheetOptions};
use anyhow::Result;
use std::path::PathBuf;

/// `alhambra markers --out sheet.pdf|sheet.png [--paper a4|letter] [--marker-mm 40] [--dpi 300]`
#[derive(Debug, clap::Args)]
pub struct MarkersArgs {
    /// Where to write the sheet: FILE.pdf (prints at true size) or FILE.png (dpi recorded);
    /// FILE.json beside it describes the sheet.
    #[arg(long)]
    pub out: PathBuf,
    /// Paper size.
    #[arg(long, value_enum, default_value_t = PaperArg::A4)]
    pub paper: PaperArg,
    /// Printed width of each marker, millimetres (the scanner's --marker-mm).
    #[arg(long, default_value_t = 40.0)]
    pub marker_mm: f64,
    /// Resolution of the page image.
    #[arg(long, default_value_t = 300)]
    pub dpi: u32,
}

/// Paper sizes on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PaperArg {
    /// ISO A4 (210 x 297 mm).
    A4,
    /// US Letter (8.5 x 11 in).
    Letter,
}

/// Draws the sheet, writes it and its description, prints the description.
pub fn run(args: &MarkersArgs) -> Result<Outcome> {
    let paper = match args.paper {
        PaperArg::A4 => Paper::A4,
        PaperArg::Letter => Paper::Letter,
    };
    let sheet = MarkerSheet::render(&SheetOptions {
        paper,
        marker_mm: args.marker_mm,
        dpi: args.dpi,
    })?;
    let sidecar = sheet.write(&args.out)?;
    let info = &sheet.info;
    say!(
        "wrote {} ({} paper, {} dpi) and {}",
        args.out.display(),
        info.paper,
        info.dpi,
        sidecar.display()
    )?;
    say!(
        "markers: {} ids {:?}, {} mm wide; chessboard {} inner corners, {} mm squares",
        info.dictionary,
        info.marker_ids,
        info.marker_mm,
        info.chessboard,
        info.square_mm
    )?;
    say!("print at 100% (actual size, not \"fit to page\") and check the 100 mm ruler")?;
    say!("{}", serde_json::to_string(&sheet.info)?)?;
    Ok(Outcome::Done)
}
