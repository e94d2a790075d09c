//! The table plane from ArUco markers of known size lying flat on the table: the
//! homography from image pixels to table millimetres, and a tracker that keeps it while the
//! camera is still and re-estimates it when the markers move.
//!
//! Frames should already be undistorted when a camera file exists (see
//! [`crate::Undistorter`]); a homography cannot model lens distortion.

use crate::error::Result;
use crate::intrinsics::to_gray;
use crate::marker_reading;
use opencv::core::{Mat, Point2f, Ptr, Size, TermCriteria, TermCriteria_Type, Vector};
use opencv::prelude::*;
use opencv::{aruco, calib3d, imgproc};

/// Frames at least this wide are searched for markers at half resolution (then the
/// corners are refined at full resolution).
pub const DOWNSCALE_FROM_WIDTH: i32 = 1600;
/// Markers read whole (see [`crate::marker_reading`]) narrower than this (pixels) have
/// their corners placed by their drawing (see [`marker_reading::fit_corners`]), the rest
/// by `corner_sub_pix`. Against the labels of 600 rendered photos, the drawing put corners
/// a median 0.2-0.3 px off up to 70 px (`corner_sub_pix`: 1.9 px below 30 px, 0.7 px at
/// 30-45, 0.3 px at 45-70), and 0.9 px beyond (`corner_sub_pix`: 0.25), its cells then a
/// few pixels each. The markers ArUco reads keep `corner_sub_pix`: the drawing placed
/// them closer too, but the scans that moved with those few tenths of a pixel moved as
/// much either way as under random moves of the same size (100 photos of varied art:
/// Alhambras exact 62 -> 60%; 64% and 62% with corners moved at random by up to 0.2 px).
const FIT_CORNERS_BELOW_PX: f64 = 64.0;
/// Default corner movement (pixels) above which the tracker re-estimates the plane.
pub const DEFAULT_MOVE_THRESHOLD_PX: f64 = 3.0;

/// One marker found in a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectedMarker {
    /// Its DICT_4X4_50 id.
    pub id: i32,
    /// Its corners in image pixels, clockwise from the marker's own top-left corner.
    pub corners: [[f64; 2]; 4],
}

impl DetectedMarker {
    /// The mean of the corners (pixels).
    pub fn centroid(&self) -> [f64; 2] {
        let (x, y) = self
            .corners
            .iter()
            .fold((0.0, 0.0), |(x, y), c| (x + c[0], y + c[1]));
        [x / 4.0, y / 4.0]
    }

    fn area(&self) -> f64 {
        let c = &self.corners;
        let mut a = 0.0;
        for i in 0..4 {
            let j = (i + 1) % 4;
            a += c[i][0] * c[j][1] - c[j][0] * c[i][1];
        }
        a.abs() / 2.0
    }

    fn min_side(&self) -> f64 {
        (0..4)
            .map(|i| {
                let (a, b) = (self.corners[i], self.corners[(i + 1) % 4]);
                ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
            })
            .fold(f64::INFINITY, f64::min)
    }
}

/// Finds the DICT_4X4_50 markers in a frame (grey or BGR), sorted by id. Frames of 1080p
/// and above are searched at half size, and again at full size when that finds none (a
/// small or soft marker, 40 px across in a blurred 1080p photo, vanishes at half size).
/// Every marker ArUco reads is checked against its drawing, and the squares it found but
/// could not read are read whole against every marker (see [`crate::marker_reading`]);
/// the corners are always refined on the full-resolution grey image (see
/// [`FIT_CORNERS_BELOW_PX`]).
pub fn detect_markers(frame: &Mat) -> Result<Vec<DetectedMarker>> {
    let gray = to_gray(frame)?;
    let mut half = gray.cols() >= DOWNSCALE_FROM_WIDTH;
    let mut found = if half {
        let mut small = Mat::default();
        imgproc::resize(
            &gray,
            &mut small,
            Size::default(),
            0.5,
            0.5,
            imgproc::INTER_AREA,
        )?;
        aruco_markers(&small)?
    } else {
        aruco_markers(&gray)?
    };
    if half && found.ids.is_empty() {
        found = aruco_markers(&gray)?;
        half = false;
    }
    let scale = if half { 2.0 } else { 1.0 };
    let mut quads: Vec<(i32, [Point2f; 4])> = Vec::new();
    for (id, quad) in found.ids.iter().zip(found.corners.iter()) {
        let Some(q) = full_size(&quad, scale) else {
            continue;
        };
        if marker_reading::confirms(&gray, &q, id)? {
            quads.push((id, q));
        }
    }
    let by_aruco = quads.len();
    let read = read_rejected(&gray, &found.rejected, &quads, scale)?;
    quads.extend(read);

    let mut out = Vec::with_capacity(quads.len());
    for (k, (id, q)) in quads.into_iter().enumerate() {
        let mut m = DetectedMarker {
            id,
            corners: q.map(|p| [f64::from(p.x), f64::from(p.y)]),
        };
        if k >= by_aruco && m.min_side() < FIT_CORNERS_BELOW_PX {
            let fitted = marker_reading::fit_corners(&gray, q, id)?;
            m.corners = fitted.map(|p| [f64::from(p.x), f64::from(p.y)]);
            out.push(m);
            continue;
        }
        let mut pts: Vector<Point2f> = q.into_iter().collect();
        // A module is a sixth of the side (4 bits + 2 border); stay within half a module.
        let win = ((m.min_side() / 6.0 * 0.45).round() as i32).clamp(2, 10);
        imgproc::corner_sub_pix(
            &gray,
            &mut pts,
            Size::new(win, win),
            Size::new(-1, -1),
            TermCriteria::new(
                TermCriteria_Type::COUNT as i32 + TermCriteria_Type::EPS as i32,
                30,
                0.01,
            )?,
        )?;
        fill_corners(&mut m, &pts)?;
        out.push(m);
    }
    out.sort_by_key(|m| m.id);
    Ok(out)
}

/// A quad found in a frame `scale` times smaller, at full resolution; `None` unless it has
/// four corners.
fn full_size(quad: &Vector<Point2f>, scale: f32) -> Option<[Point2f; 4]> {
    let q: Vec<Point2f> = quad
        .iter()
        .map(|p| Point2f::new((p.x + 0.5) * scale - 0.5, (p.y + 0.5) * scale - 0.5))
        .collect();
    <[Point2f; 4]>::try_from(q).ok()
}

/// The squares ArUco rejected (corners in a frame `scale` times smaller than `gray`) that
/// read as markers not among `read` (see [`marker_reading::read_square`]), one square per
/// marker (the best match), at full resolution. A square on a marker already read (its
/// inner or outer outline) is not read.
fn read_rejected(
    gray: &Mat,
    rejected: &Vector<Vector<Point2f>>,
    read: &[(i32, [Point2f; 4])],
    scale: f32,
) -> Result<Vec<(i32, [Point2f; 4])>> {
    let centre = |q: &[Point2f; 4]| {
        (
            q.iter().map(|p| p.x).sum::<f32>() / 4.0,
            q.iter().map(|p| p.y).sum::<f32>() / 4.0,
        )
    };
    let side = |q: &[Point2f; 4]| {
        (0..4)
            .map(|i| {
                let (a, b) = (q[i], q[(i + 1) % 4]);
                (a.x - b.x).hypot(a.y - b.y)
            })
            .fold(f32::INFINITY, f32::min)
    };
    let on_read = |c: (f32, f32)| {
        read.iter().any(|(_, q)| {
            let r = centre(q);
            (c.0 - r.0).hypot(c.1 - r.1) < 0.5 * side(q)
        })
    };
    let mut best: Vec<marker_reading::ReadMarker> = Vec::new();
    for quad in rejected {
        let Some(q) = full_size(&quad, scale) else {
            continue;
        };
        if on_read(centre(&q)) {
            continue;
        }
        let Some(m) = marker_reading::read_square(gray, &q)? else {
            continue;
        };
        if read.iter().any(|(id, _)| *id == m.id) {
            continue;
        }
        match best.iter_mut().find(|b| b.id == m.id) {
            Some(b) if b.matched < m.matched => *b = m,
            Some(_) => {}
            None => best.push(m),
        }
    }
    Ok(best.into_iter().map(|m| (m.id, m.corners)).collect())
}

/// What ArUco made of a grey image: the markers it read and the squares it could not.
struct ArucoFound {
    corners: Vector<Vector<Point2f>>,
    ids: Vector<i32>,
    rejected: Vector<Vector<Point2f>>,
}

/// The raw ArUco detections in a grey image.
fn aruco_markers(grey: &Mat) -> Result<ArucoFound> {
    let dict: Ptr<aruco::Dictionary> =
        aruco::get_predefined_dictionary(aruco::PREDEFINED_DICTIONARY_NAME::DICT_4X4_50)?;
    let params = aruco::DetectorParameters::create()?;
    let mut found = ArucoFound {
        corners: Vector::new(),
        ids: Vector::new(),
        rejected: Vector::new(),
    };
    aruco::detect_markers(
        grey,
        &dict,
        &mut found.corners,
        &mut found.ids,
        &params,
        &mut found.rejected,
    )?;
    Ok(found)
}

fn fill_corners(m: &mut DetectedMarker, pts: &Vector<Point2f>) -> Result<()> {
    for (i, c) in m.corners.iter_mut().enumerate() {
        let p = pts.get(i)?;
        *c = [f64::from(p.x), f64::from(p.y)];
    }
    Ok(())
}

/// The table as a plane: image pixels <-> table millimetres.
///
/// The table frame is the anchor marker's (the largest in the image, the most precisely
/// measured): origin at its centre, x towards its right edge, y towards its bottom edge.
#[derive(Debug, Clone, PartialEq)]
pub struct TablePlane {
    image_to_mm: [[f64; 3]; 3],
    mm_to_image: [[f64; 3]; 3],
    marker_mm: f64,
    anchor_id: i32,
    markers: Vec<DetectedMarker>,
}

impl TablePlane {
    /// Detects the markers in `frame` and fits the plane; `None` when no marker is seen.
    pub fn from_markers(frame: &Mat, marker_mm: f64) -> Result<Option<Self>> {
        let markers = detect_markers(frame)?;
        Ok(Self::from_detections(markers, marker_mm))
    }

    /// Fits the plane to markers already found; `None` when there are none (or they are
    /// degenerate, or `marker_mm` is not a positive size).
    pub fn from_detections(markers: Vec<DetectedMarker>, marker_mm: f64) -> Option<Self> {
        if !(marker_mm.is_finite() && marker_mm > 0.0) {
            return None;
        }
        // The largest marker in the image defines the frame. Fitting all markers jointly
        // (each a square of the given size somewhere on the plane) looked better on paper
        // but converged to planes 10-50% off on rendered tables with markers far apart,
        // while each marker alone measured tiles within 2%.
        let anchor = markers
            .iter()
            .enumerate()
            .max_by(|(_, a), (_, b)| a.area().total_cmp(&b.area()).then(b.id.cmp(&a.id)))
            .map(|(i, _)| i)?;
        let square = canonical_square(marker_mm);
        let h = homography(&markers[anchor].corners, &square)?;
        let inv = invert3(&h)?;
        Some(Self {
            image_to_mm: h,
            mm_to_image: inv,
            marker_mm,
            anchor_id: markers[anchor].id,
            markers,
        })
    }

    /// Table millimetres of an image point.
    pub fn image_to_table(&self, p: [f64; 2]) -> [f64; 2] {
        apply(&self.image_to_mm, p)
    }

    /// Image pixels of a table point.
    pub fn table_to_image(&self, p: [f64; 2]) -> [f64; 2] {
        apply(&self.mm_to_image, p)
    }

    /// The homography image pixels -> table millimetres (row-major 3x3).
    pub fn homography(&self) -> [[f64; 3]; 3] {
        self.image_to_mm
    }

    /// The homography table millimetres -> image pixels.
    pub fn inverse_homography(&self) -> [[f64; 3]; 3] {
        self.mm_to_image
    }

    /// The marker side this plane was fitted with, millimetres.
    pub fn marker_mm(&self) -> f64 {
        self.marker_mm
    }

    /// The id of the marker that defines the table frame.
    pub fn anchor_id(&self) -> i32 {
        self.anchor_id
    }

    /// The markers the plane was fitted to, sorted by id.
    pub fn markers(&self) -> &[DetectedMarker] {
        &self.markers
    }

    /// A marker's centre on the table, millimetres (mean of its mapped corners).
    pub fn marker_centre_mm(&self, m: &DetectedMarker) -> [f64; 2] {
        let (x, y) = m.corners.iter().fold((0.0, 0.0), |(x, y), c| {
            let q = self.image_to_table(*c);
            (x + q[0], y + q[1])
        });
        [x / 4.0, y / 4.0]
    }
}

/// What [`PlaneTracker::update`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaneUpdate {
    /// The plane was estimated (first sight, markers moved, or a new marker appeared).
    Estimated,
    /// The markers are where they were: the stored plane is kept unchanged.
    Kept,
    /// No marker in this frame (a hand over it?): the last plane, if any, is kept.
    NotSeen,
}

/// Keeps the table plane while the camera is still, and re-estimates it when the
/// markers move in the image by more than a threshold (or a new marker appears).
#[derive(Debug, Clone)]
pub struct PlaneTracker {
    marker_mm: f64,
    threshold_px: f64,
    plane: Option<TablePlane>,
}

impl PlaneTracker {
    /// A tracker for markers `marker_mm` wide, re-estimating beyond 3 px of movement.
    pub fn new(marker_mm: f64) -> Self {
        Self::with_threshold(marker_mm, DEFAULT_MOVE_THRESHOLD_PX)
    }

    /// A tracker with its own movement threshold, pixels.
    pub fn with_threshold(marker_mm: f64, threshold_px: f64) -> Self {
        Self {
            marker_mm,
            threshold_px,
            plane: None,
        }
    }

    /// The current plane, if one was ever seen.
    pub fn plane(&self) -> Option<&TablePlane> {
        self.plane.as_ref()
    }

    /// Forgets the plane.
    pub fn reset(&mut self) {
        self.plane = None;
    }

    /// Looks for the markers in `frame` and updates the plane.
    pub fn update(&mut self, frame: &Mat) -> Result<PlaneUpdate> {
        let markers = detect_markers(frame)?;
        Ok(self.update_with(markers))
    }

    /// Updates the plane from markers already found in the current frame.
    pub fn update_with(&mut self, markers: Vec<DetectedMarker>) -> PlaneUpdate {
        if markers.is_empty() {
            return PlaneUpdate::NotSeen;
        }
        if let Some(plane) = &self.plane
            && !self.changed(plane, &markers)
        {
            return PlaneUpdate::Kept;
        }
        match TablePlane::from_detections(markers, self.marker_mm) {
            Some(p) => {
                self.plane = Some(p);
                PlaneUpdate::Estimated
            }
            None => PlaneUpdate::NotSeen,
        }
    }

    /// Whether a marker moved beyond the threshold, or one appeared that the plane lacks.
    fn changed(&self, plane: &TablePlane, markers: &[DetectedMarker]) -> bool {
        markers.iter().any(|m| {
            let c = m.centroid();
            let stored = plane
                .markers
                .iter()
                .filter(|s| s.id == m.id)
                .min_by(|a, b| dist(a.centroid(), c).total_cmp(&dist(b.centroid(), c)));
            match stored {
                None => true,
                Some(s) => {
                    s.corners
                        .iter()
                        .zip(&m.corners)
                        .map(|(a, b)| dist(*a, *b))
                        .fold(0.0, f64::max)
                        > self.threshold_px
                }
            }
        })
    }
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

fn canonical_square(s: f64) -> [[f64; 2]; 4] {
    let h = s / 2.0;
    [[-h, -h], [h, -h], [h, h], [-h, h]]
}

/// Least-squares homography `src -> dst` (OpenCV, all points, refined).
fn homography(src: &[[f64; 2]], dst: &[[f64; 2]]) -> Option<[[f64; 3]; 3]> {
    let to_cv = |pts: &[[f64; 2]]| -> Vector<Point2f> {
        pts.iter()
            .map(|p| Point2f::new(p[0] as f32, p[1] as f32))
            .collect()
    };
    let h = calib3d::find_homography(&to_cv(src), &to_cv(dst), &mut Mat::default(), 0, 3.0).ok()?;
    if h.rows() != 3 || h.cols() != 3 {
        return None;
    }
    let mut out = [[0.0; 3]; 3];
    for (r, row) in out.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = *h.at_2d::<f64>(r as i32, c as i32).ok()?;
        }
    }
    Some(out)
}

fn apply(h: &[[f64; 3]; 3], p: [f64; 2]) -> [f64; 2] {
    let x = h[0][0] * p[0] + h[0][1] * p[1] + h[0][2];
    let y = h[1][0] * p[0] + h[1][1] * p[1] + h[1][2];
    let w = h[2][0] * p[0] + h[2][1] * p[1] + h[2][2];
    [x / w, y / w]
}

fn invert3(m: &[[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if !det.is_finite() || det.abs() < 1e-15 {
        return None;
    }
    let d = 1.0 / det;
    Some([
        [
            (m[1][1] * m[2][2] - m[1][2] * m[2][1]) * d,
            (m[0][2] * m[2][1] - m[0][1] * m[2][2]) * d,
            (m[0][1] * m[1][2] - m[0][2] * m[1][1]) * d,
        ],
        [
            (m[1][2] * m[2][0] - m[1][0] * m[2][2]) * d,
            (m[0][0] * m[2][2] - m[0][2] * m[2][0]) * d,
            (m[0][2] * m[1][0] - m[0][0] * m[1][2]) * d,
        ],
        [
            (m[1][0] * m[2][1] - m[1][1] * m[2][0]) * d,
            (m[0][1] * m[2][0] - m[0][0] * m[2][1]) * d,
            (m[0][0] * m[1][1] - m[0][1] * m[1][0]) * d,
        ],
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker(id: i32, cx: f64, cy: f64, s: f64) -> DetectedMarker {
        let h = s / 2.0;
        DetectedMarker {
            id,
            corners: [
                [cx - h, cy - h],
                [cx + h, cy - h],
                [cx + h, cy + h],
                [cx - h, cy + h],
            ],
        }
    }

    #[test]
    fn plane_from_two_markers_scales_to_mm() {
        // Two 40 mm markers 100 px wide, 300 px apart: 2.5 px per mm, 120 mm apart.
        let plane = TablePlane::from_detections(
            vec![
                marker(3, 200.0, 200.0, 100.0),
                marker(1, 500.0, 200.0, 100.0),
            ],
            40.0,
        )
        .expect("plane");
        assert_eq!(plane.anchor_id(), 1);
        let a = plane.image_to_table([500.0, 200.0]);
        let b = plane.image_to_table([200.0, 200.0]);
        assert!(a[0].abs() < 1e-3 && a[1].abs() < 1e-3, "{a:?}");
        assert!((b[0] + 120.0).abs() < 1e-2 && b[1].abs() < 1e-2, "{b:?}");
        let back = plane.table_to_image(b);
        assert!((back[0] - 200.0).abs() < 1e-2 && (back[1] - 200.0).abs() < 1e-2);
    }

    #[test]
    fn tracker_keeps_then_reestimates() {
        let mut t = PlaneTracker::new(40.0);
        assert_eq!(t.update_with(vec![]), PlaneUpdate::NotSeen);
        assert!(t.plane().is_none());
        assert_eq!(
            t.update_with(vec![marker(0, 100.0, 100.0, 80.0)]),
            PlaneUpdate::Estimated
        );
        let first = t.plane().cloned();
        assert_eq!(
            t.update_with(vec![marker(0, 101.0, 100.5, 80.0)]),
            PlaneUpdate::Kept
        );
        assert_eq!(t.plane().cloned(), first, "kept plane must not jitter");
        assert_eq!(t.update_with(vec![]), PlaneUpdate::NotSeen);
        assert!(t.plane().is_some());
        assert_eq!(
            t.update_with(vec![marker(0, 120.0, 100.0, 80.0)]),
            PlaneUpdate::Estimated
        );
        assert_ne!(t.plane().cloned(), first);
        // A new marker appearing also re-estimates.
        assert_eq!(
            t.update_with(vec![
                marker(0, 120.0, 100.0, 80.0),
                marker(4, 400.0, 100.0, 80.0)
            ]),
            PlaneUpdate::Estimated
        );
        assert_eq!(t.plane().map(|p| p.markers().len()), Some(2));
        // Losing one of them keeps the plane.
        assert_eq!(
            t.update_with(vec![marker(4, 400.0, 100.0, 80.0)]),
            PlaneUpdate::Kept
        );
    }
}
