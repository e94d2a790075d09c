//! Drawing a scan over its photo: each tile outlined in its building's colour, walls as
//! thick dark lines, the fountain marked. For `scan --debug` and for looking at results.

use crate::labels::ScanResult;
use alhambra_engine::{Building, Side};
use opencv::core::{Mat, Point as CvPoint, Scalar};
use opencv::imgproc;

/// The overlay colour of a building (BGR).
pub fn building_colour(b: Building) -> Scalar {
    match b {
        Building::Fountain => Scalar::new(255.0, 255.0, 0.0, 0.0),
        Building::Pavilion => Scalar::new(235.0, 190.0, 90.0, 0.0),
        Building::Seraglio => Scalar::new(40.0, 40.0, 230.0, 0.0),
        Building::Arcades => Scalar::new(30.0, 90.0, 150.0, 0.0),
        Building::Chambers => Scalar::new(240.0, 240.0, 240.0, 0.0),
        Building::Garden => Scalar::new(40.0, 200.0, 40.0, 0.0),
        Building::Tower => Scalar::new(200.0, 60.0, 170.0, 0.0),
    }
}

fn pt(p: [f32; 2]) -> CvPoint {
    CvPoint::new(p[0].round() as i32, p[1].round() as i32)
}

/// Draws `scan` onto a copy of `frame`; `truth` (labels), when given, is drawn thin in
/// red underneath so that differences show.
pub fn draw(frame: &Mat, scan: &ScanResult, truth: Option<&ScanResult>) -> opencv::Result<Mat> {
    let mut out = frame.clone();
    if let Some(truth) = truth {
        for a in &truth.alhambras {
            for t in &a.tiles {
                let Some(q) = t.corners_px else { continue };
                for k in 0..4 {
                    imgproc::line(
                        &mut out,
                        pt(q[k]),
                        pt(q[(k + 1) % 4]),
                        Scalar::new(0.0, 0.0, 255.0, 0.0),
                        1,
                        imgproc::LINE_AA,
                        0,
                    )?;
                }
            }
        }
    }
    for a in &scan.alhambras {
        for t in &a.tiles {
            let Some(q) = t.corners_px else { continue };
            let colour = building_colour(t.building);
            for k in 0..4 {
                imgproc::line(
                    &mut out,
                    pt(q[k]),
                    pt(q[(k + 1) % 4]),
                    colour,
                    2,
                    imgproc::LINE_AA,
                    0,
                )?;
            }
            // Walls: a thick line just inside the walled side (corners clockwise from NW, so
            // side k runs from corner k to k+1: north, east, south, west).
            let c = [(q[0][0] + q[2][0]) / 2.0, (q[0][1] + q[2][1]) / 2.0];
            for side in Side::ALL {
                if !t.walls.has(side) {
                    continue;
                }
                let k = side as usize;
                let inset =
                    |p: [f32; 2]| [p[0] + (c[0] - p[0]) * 0.12, p[1] + (c[1] - p[1]) * 0.12];
                imgproc::line(
                    &mut out,
                    pt(inset(q[k])),
                    pt(inset(q[(k + 1) % 4])),
                    Scalar::new(20.0, 30.0, 60.0, 0.0),
                    5,
                    imgproc::LINE_AA,
                    0,
                )?;
            }
            let label = alhambra_engine::picture::abbreviation(t.building).to_string();
            imgproc::put_text(
                &mut out,
                &label,
                CvPoint::new(c[0] as i32 - 12, c[1] as i32 + 5),
                imgproc::FONT_HERSHEY_SIMPLEX,
                0.45,
                colour,
                1,
                imgproc::LINE_AA,
                false,
            )?;
        }
        imgproc::circle(
            &mut out,
            pt(a.fountain_px),
            6,
            Scalar::new(0.0, 255.0, 255.0, 0.0),
            -1,
            imgproc::LINE_AA,
            0,
        )?;
    }
    Ok(out)
}
