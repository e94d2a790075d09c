//! The printable marker sheet (`alhambra markers`): ArUco markers of DICT_4X4_50 to lay on
//! the table (each with its quiet zone, id and a cut line), a 100 mm ruler to check the
//! print scale, a chessboard for `calibrate intrinsics`, and a line stating the sizes. It
//! is drawn at true scale for a paper size and dpi, and described by a sidecar JSON that
//! records the marker size where the scanner can find it.

use crate::camera::write_atomically;
use crate::error::{CalibrationError, Result};
use crate::intrinsics::BoardSize;
use crate::printfile;
use opencv::core::{Mat, Point, Ptr, Rect, Scalar, Size};
use opencv::prelude::*;
use opencv::{aruco, imgproc};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The sheet file version.
pub const SHEET_VERSION: u32 = 1;
/// The ArUco dictionary of the markers.
pub const DICTIONARY: &str = "DICT_4X4_50";
/// The chessboard printed on the sheet (inner corners).
pub const SHEET_BOARD: BoardSize = BoardSize { cols: 9, rows: 6 };

const MARGIN_MM: f64 = 12.0;

/// Paper sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paper {
    /// ISO A4, 210 x 297 mm.
    A4,
    /// US Letter, 8.5 x 11 in.
    Letter,
}

impl Paper {
    /// Width and height in millimetres (portrait).
    pub fn size_mm(self) -> (f64, f64) {
        match self {
            Paper::A4 => (210.0, 297.0),
            Paper::Letter => (215.9, 279.4),
        }
    }

    /// `"a4"` or `"letter"`.
    pub fn name(self) -> &'static str {
        match self {
            Paper::A4 => "a4",
            Paper::Letter => "letter",
        }
    }
}

impl fmt::Display for Paper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Paper {
    type Err = CalibrationError;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "a4" => Ok(Paper::A4),
            "letter" => Ok(Paper::Letter),
            _ => Err(CalibrationError::Invalid(format!(
                "paper {s:?}: expected a4 or letter"
            ))),
        }
    }
}

/// What sheet to draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SheetOptions {
    /// Paper size.
    pub paper: Paper,
    /// Side of each marker's black square, millimetres (10 to 150).
    pub marker_mm: f64,
    /// Resolution of the rendered page (72 to 1200).
    pub dpi: u32,
}

impl Default for SheetOptions {
    fn default() -> Self {
        Self {
            paper: Paper::A4,
            marker_mm: 40.0,
            dpi: 300,
        }
    }
}

/// The sidecar JSON that describes a sheet (`sheet.json` beside `sheet.pdf`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SheetInfo {
    /// Always [`SHEET_VERSION`].
    pub version: u32,
    /// `"DICT_4X4_50"`.
    pub dictionary: String,
    /// Printed side of each marker, millimetres.
    pub marker_mm: f64,
    /// The markers' ids, left to right.
    pub marker_ids: Vec<i32>,
    /// The chessboard's inner corners, `"9x6"`.
    pub chessboard: String,
    /// The chessboard's square side, millimetres.
    pub square_mm: f64,
    /// `"a4"` or `"letter"`.
    pub paper: String,
    /// Resolution the page was drawn at.
    pub dpi: u32,
    /// Page width and height, millimetres.
    #[serde(default)]
    pub page_mm: [f64; 2],
    /// Each marker's centre on the page, millimetres from the top-left corner.
    #[serde(default)]
    pub marker_centres_mm: Vec<[f64; 2]>,
}

/// A drawn sheet: the grey page at its dpi and its description.
#[derive(Debug)]
pub struct MarkerSheet {
    /// The page, 8-bit grey, `page_mm * dpi / 25.4` pixels.
    pub image: Mat,
    /// What is on it, where.
    pub info: SheetInfo,
}

/// Maps page millimetres to pixels at a dpi.
#[derive(Clone, Copy)]
struct Scale(f64);

impl Scale {
    fn px(self, mm: f64) -> i32 {
        (mm * self.0 / 25.4).round() as i32
    }
    /// The pixel rectangle covering `[x0, x1) x [y0, y1)` mm.
    fn rect(self, x0: f64, y0: f64, x1: f64, y1: f64) -> Rect {
        let (a, b) = (self.px(x0), self.px(y0));
        Rect::new(a, b, (self.px(x1) - a).max(1), (self.px(y1) - b).max(1))
    }
}

impl MarkerSheet {
    /// Draws the sheet.
    pub fn render(opts: &SheetOptions) -> Result<Self> {
        let (page_w, page_h) = opts.paper.size_mm();
        if !(72..=1200).contains(&opts.dpi) {
            return Err(CalibrationError::Invalid(format!(
                "dpi {}: choose 72 to 1200 (300 prints well)",
                opts.dpi
            )));
        }
        let m = opts.marker_mm;
        let quiet = (m / 5.0).max(5.0);
        let cell_w = m + 2.0 * quiet;
        let usable_w = page_w - 2.0 * MARGIN_MM;
        if !(m.is_finite() && (10.0..=150.0).contains(&m)) || cell_w > usable_w {
            return Err(CalibrationError::Invalid(format!(
                "marker size {m} mm: choose 10 to {:.0} mm for {} paper",
                ((usable_w - 10.0) / 1.4).min(150.0).floor(),
                opts.paper
            )));
        }
        let s = Scale(f64::from(opts.dpi));
        let mut img = Mat::new_rows_cols_with_default(
            s.px(page_h),
            s.px(page_w),
            opencv::core::CV_8UC1,
            Scalar::all(255.0),
        )?;

        // Title.
        let mut y = MARGIN_MM;
        text(
            &mut img,
            s,
            "Alhambra marker sheet: print at 100% (actual size), then check the ruler",
            MARGIN_MM,
            y + 4.0,
            3.2,
            usable_w,
        )?;
        y += 9.0;

        // Markers, each with its quiet zone, id and a light cut line.
        let per_row = ((usable_w / cell_w).floor() as usize).clamp(1, 4);
        let label_h = 6.0;
        let cell_h = m + 2.0 * quiet + label_h;
        let dict =
            aruco::get_predefined_dictionary(aruco::PREDEFINED_DICTIONARY_NAME::DICT_4X4_50)?;
        let mut ids = Vec::new();
        let mut centres = Vec::new();
        let layout = MarkerLayout {
            m,
            quiet,
            cell_w,
            cell_h,
            per_row,
            row_x: MARGIN_MM + (usable_w - per_row as f64 * cell_w) / 2.0,
        };
        let mut marker_row = |img: &mut Mat, y: f64, ids: &mut Vec<i32>| -> Result<()> {
            layout.draw_row(img, s, &dict, y, ids, &mut centres)
        };
        marker_row(&mut img, y, &mut ids)?;
        y += cell_h + 10.0;

        // Chessboard: 25 mm squares if they fit, else the largest whole millimetre; with a
        // white border of about a square around it for the detector.
        let footer_h = 36.0;
        let avail_h = page_h - MARGIN_MM - footer_h - y;
        let (nx, ny) = (SHEET_BOARD.cols + 1, SHEET_BOARD.rows + 1);
        let square = ((usable_w - 8.0) / f64::from(nx))
            .min(avail_h / f64::from(ny))
            .min(25.0)
            .floor();
        if square < 5.0 {
            return Err(CalibrationError::Invalid(
                "the markers leave no room for the chessboard: choose a smaller --marker-mm".into(),
            ));
        }
        let bx = MARGIN_MM + (usable_w - square * f64::from(nx)) / 2.0;
        for r in 0..ny {
            for c in 0..nx {
                if (r + c) % 2 == 0 {
                    let x0 = bx + f64::from(c) * square;
                    let y0 = y + f64::from(r) * square;
                    fill(&mut img, s.rect(x0, y0, x0 + square, y0 + square))?;
                }
            }
        }
        y += square * f64::from(ny) + 6.0;
        text(
            &mut img,
            s,
            &format!(
                "chessboard {SHEET_BOARD} inner corners, {square} mm squares; calibrate the camera with"
            ),
            MARGIN_MM,
            y,
            2.6,
            usable_w,
        )?;
        y += 5.0;
        text(
            &mut img,
            s,
            &format!(
                "alhambra calibrate intrinsics PHOTOS... --board {SHEET_BOARD} --square-mm {square} --out camera.json"
            ),
            MARGIN_MM,
            y,
            2.6,
            usable_w,
        )?;
        y += 8.0;

        // Ruler: 100 mm with mm, 5 mm and 10 mm ticks, labelled every 10 mm.
        let rx = MARGIN_MM + 4.0;
        let base = y + 5.0;
        fill(
            &mut img,
            s.rect(rx - 0.15, base - 0.15, rx + 100.15, base + 0.15),
        )?;
        for mm in 0..=100 {
            let len = if mm % 10 == 0 {
                5.0
            } else if mm % 5 == 0 {
                3.5
            } else {
                2.0
            };
            let x = rx + f64::from(mm);
            fill(&mut img, s.rect(x - 0.1, base - len, x + 0.1, base))?;
            if mm % 10 == 0 {
                let label = mm.to_string();
                let width = text_width_mm(s, &label, 2.2)?;
                text(&mut img, s, &label, x - width / 2.0, base + 3.5, 2.2, 10.0)?;
            }
        }
        text(
            &mut img,
            s,
            "mm: 100 mm end to end",
            rx + 104.0,
            base,
            2.6,
            usable_w - 108.0,
        )?;
        y = base + 10.0;

        // What is on the sheet, in one line.
        let count_before_extra = ids.len();
        let extra_rows = (((page_h - MARGIN_MM - (y + 6.0)) / cell_h).floor().max(0.0) as usize)
            .min((50 - count_before_extra) / per_row);
        let total = count_before_extra + extra_rows * per_row;
        let ids_text = if total > 1 {
            format!("ids 0-{}", total - 1)
        } else {
            "id 0".to_string()
        };
        text(
            &mut img,
            s,
            &format!(
                "markers: ArUco {DICTIONARY}, {m} mm wide, {ids_text}; chessboard squares {square} mm; {} paper, {} dpi",
                opts.paper, opts.dpi
            ),
            MARGIN_MM,
            y,
            2.6,
            usable_w,
        )?;
        y += 6.0;

        // More markers in the space left.
        for _ in 0..extra_rows {
            marker_row(&mut img, y, &mut ids)?;
            y += cell_h;
        }

        Ok(Self {
            image: img,
            info: SheetInfo {
                version: SHEET_VERSION,
                dictionary: DICTIONARY.into(),
                marker_mm: m,
                marker_ids: ids,
                chessboard: SHEET_BOARD.to_string(),
                square_mm: square,
                paper: opts.paper.name().into(),
                dpi: opts.dpi,
                page_mm: [page_w, page_h],
                marker_centres_mm: centres,
            },
        })
    }

    /// Writes the page as `.png` (dpi recorded) or `.pdf` (true page size), by the
    /// extension of `out`, then the sidecar JSON beside it; returns the sidecar's path.
    pub fn write(&self, out: &Path) -> Result<PathBuf> {
        let ext = out
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let bytes = match ext.as_str() {
            "png" => printfile::png_with_dpi(&self.image, self.info.dpi)?,
            "pdf" => printfile::pdf_page(
                &self.image,
                self.info.dpi,
                (self.info.page_mm[0], self.info.page_mm[1]),
            )?,
            _ => {
                return Err(CalibrationError::Invalid(format!(
                    "{}: the sheet is written as .png or .pdf",
                    out.display()
                )));
            }
        };
        let sidecar = sidecar_path(out);
        if sidecar == out {
            return Err(CalibrationError::Invalid(format!(
                "{}: the sheet and its description would be the same file",
                out.display()
            )));
        }
        write_atomically(out, &bytes)?;
        write_atomically(&sidecar, self.info_json().as_bytes())?;
        Ok(sidecar)
    }

    /// The sidecar JSON text (pretty, newline-terminated).
    pub fn info_json(&self) -> String {
        crate::camera::to_json_lines(&self.info).unwrap_or_default()
    }
}

/// Where the sidecar of a sheet goes: `sheet.pdf` -> `sheet.json`.
pub fn sidecar_path(out: &Path) -> PathBuf {
    out.with_extension("json")
}

/// Where the markers go: their size, quiet zone and cell.
struct MarkerLayout {
    m: f64,
    quiet: f64,
    cell_w: f64,
    cell_h: f64,
    per_row: usize,
    row_x: f64,
}

impl MarkerLayout {
    /// One row of markers at `y` mm, numbered on from `ids.len()`.
    fn draw_row(
        &self,
        img: &mut Mat,
        s: Scale,
        dict: &Ptr<aruco::Dictionary>,
        y: f64,
        ids: &mut Vec<i32>,
        centres: &mut Vec<[f64; 2]>,
    ) -> Result<()> {
        let m = self.m;
        for i in 0..self.per_row {
            let id = ids.len() as i32;
            let cx = self.row_x + i as f64 * self.cell_w;
            dashed_rect(img, s, cx, y, cx + self.cell_w, y + self.cell_h)?;
            let (mx, my) = (cx + self.quiet, y + self.quiet);
            let r = s.rect(mx, my, mx + m, my + m);
            let side = r.width.min(r.height);
            let mut marker = Mat::default();
            aruco::draw_marker(dict, id, side, &mut marker, 1)?;
            let mut roi = Mat::roi_mut(img, Rect::new(r.x, r.y, side, side))?;
            marker.copy_to(&mut roi)?;
            text(
                img,
                s,
                &format!("id {id}   {m} mm"),
                mx,
                my + m + self.quiet + 2.5,
                2.6,
                m + self.quiet,
            )?;
            ids.push(id);
            centres.push([mx + m / 2.0, my + m / 2.0]);
        }
        Ok(())
    }
}

fn fill(img: &mut Mat, r: Rect) -> Result<()> {
    imgproc::rectangle(
        img,
        r,
        Scalar::all(0.0),
        imgproc::FILLED,
        imgproc::LINE_8,
        0,
    )?;
    Ok(())
}

/// A light grey dashed rectangle: where to cut a marker out.
fn dashed_rect(img: &mut Mat, s: Scale, x0: f64, y0: f64, x1: f64, y1: f64) -> Result<()> {
    let grey = Scalar::all(190.0);
    let thick = s.px(0.2).max(1);
    let dash = 2.0;
    let mut seg = |a: (f64, f64), b: (f64, f64)| -> Result<()> {
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let n = (len / (2.0 * dash)).ceil() as usize;
        for i in 0..n {
            let t0 = (2 * i) as f64 * dash / len;
            let t1 = (((2 * i + 1) as f64 * dash) / len).min(1.0);
            let p = |t: f64| Point::new(s.px(a.0 + (b.0 - a.0) * t), s.px(a.1 + (b.1 - a.1) * t));
            imgproc::line(img, p(t0), p(t1), grey, thick, imgproc::LINE_8, 0)?;
        }
        Ok(())
    };
    seg((x0, y0), (x1, y0))?;
    seg((x1, y0), (x1, y1))?;
    seg((x1, y1), (x0, y1))?;
    seg((x0, y1), (x0, y0))
}

const FONT: i32 = imgproc::FONT_HERSHEY_SIMPLEX;

/// Font scale and stroke giving capitals `cap_mm` tall at this dpi.
fn font_for(s: Scale, cap_mm: f64) -> Result<(f64, i32)> {
    let mut base = 0;
    let unit = imgproc::get_text_size("H", FONT, 1.0, 1, &mut base)?;
    let scale = f64::from(s.px(cap_mm).max(4)) / f64::from(unit.height.max(1));
    Ok((scale, ((scale * 1.6).round() as i32).max(1)))
}

fn text_width_mm(s: Scale, t: &str, cap_mm: f64) -> Result<f64> {
    let (scale, thick) = font_for(s, cap_mm)?;
    let mut base = 0;
    let size: Size = imgproc::get_text_size(t, FONT, scale, thick, &mut base)?;
    Ok(f64::from(size.width) * 25.4 / s.0)
}

/// Writes `t` with its baseline at `(x, y)` mm, capitals `cap_mm` tall, shrunk to fit
/// `max_w_mm`.
fn text(
    img: &mut Mat,
    s: Scale,
    t: &str,
    x: f64,
    y: f64,
    cap_mm: f64,
    max_w_mm: f64,
) -> Result<()> {
    let width = text_width_mm(s, t, cap_mm)?;
    let cap = if width > max_w_mm && width > 0.0 {
        cap_mm * max_w_mm / width
    } else {
        cap_mm
    };
    let (scale, thick) = font_for(s, cap)?;
    imgproc::put_text(
        img,
        t,
        Point::new(s.px(x), s.px(y)),
        FONT,
        scale,
        Scalar::all(0.0),
        thick,
        imgproc::LINE_AA,
        false,
    )?;
    Ok(())
}
