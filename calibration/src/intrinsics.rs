//! Camera intrinsics from photos of a flat chessboard (or ChArUco board): corner detection
//! with sub-pixel refinement, OpenCV's `calibrate_camera`, per-photo reprojection errors
//! and the checks that tell the user when the photos were too few, too alike or too central.

use crate::camera::{CAMERA_FILE_VERSION, CameraFile, now_rfc3339};
use crate::error::{CalibrationError, Result};
use opencv::core::{
    Mat, MatTraitConst, Point, Point2f, Point3f, Ptr, Scalar, Size, TermCriteria,
    TermCriteria_Type, Vector,
};
use opencv::prelude::*;
use opencv::{aruco, calib3d, imgcodecs, imgproc};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Fewest usable photos a calibration accepts.
pub const MIN_PHOTOS: usize = 3;
/// Below this fraction of the frame covered by the boards' union, the user is warned.
pub const MIN_COVERAGE: f64 = 0.5;
/// Below this spread of board orientations (degrees), the user is warned.
pub const MIN_TILT_SPREAD_DEG: f64 = 10.0;

/// A board's inner corners, columns by rows (`"9x6"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardSize {
    /// Inner corners along a row.
    pub cols: u32,
    /// Inner corners along a column.
    pub rows: u32,
}

impl BoardSize {
    /// A board of `cols` x `rows` inner corners.
    pub fn new(cols: u32, rows: u32) -> Self {
        Self { cols, rows }
    }

    /// Number of inner corners.
    pub fn corners(self) -> usize {
        self.cols as usize * self.rows as usize
    }

    fn cv_size(self) -> Size {
        Size::new(self.cols as i32, self.rows as i32)
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.cols, self.rows)
    }
}

impl FromStr for BoardSize {
    type Err = CalibrationError;

    /// Parses `"9x6"` (inner corners; 2 to 40 each way).
    fn from_str(s: &str) -> Result<Self> {
        let bad = || {
            CalibrationError::Invalid(format!(
                "board {s:?}: expected the inner corners as WxH, such as 9x6"
            ))
        };
        let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
        let cols: u32 = w.trim().parse().map_err(|_| bad())?;
        let rows: u32 = h.trim().parse().map_err(|_| bad())?;
        if !(2..=40).contains(&cols) || !(2..=40).contains(&rows) {
            return Err(CalibrationError::Invalid(format!(
                "board {s:?}: each side must have 2 to 40 inner corners"
            )));
        }
        Ok(Self { cols, rows })
    }
}

/// Which calibration target the photos show.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pattern {
    /// A plain chessboard of `board` inner corners.
    Chessboard,
    /// A ChArUco board (DICT_4X4_50 markers, first marker in the top-left white square) of
    /// `board` inner corners, so (cols+1) x (rows+1) squares, with markers `marker_mm` wide.
    Charuco {
        /// Marker side, millimetres.
        marker_mm: f64,
    },
}

/// What to calibrate against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntrinsicsOptions {
    /// Inner corners of the board.
    pub board: BoardSize,
    /// Side of one square, millimetres.
    pub square_mm: f64,
    /// Chessboard or ChArUco.
    pub pattern: Pattern,
}

impl IntrinsicsOptions {
    /// A plain chessboard.
    pub fn chessboard(board: BoardSize, square_mm: f64) -> Self {
        Self {
            board,
            square_mm,
            pattern: Pattern::Chessboard,
        }
    }

    fn describe(&self) -> String {
        match self.pattern {
            Pattern::Chessboard => format!("{} chessboard", self.board),
            Pattern::Charuco { .. } => format!("{} ChArUco board", self.board),
        }
    }

    fn validate(&self) -> Result<()> {
        if !(self.square_mm.is_finite() && self.square_mm > 0.0) {
            return Err(CalibrationError::Invalid(format!(
                "square size {} mm: must be a positive number of millimetres",
                self.square_mm
            )));
        }
        if let Pattern::Charuco { marker_mm } = self.pattern
            && !(marker_mm.is_finite() && marker_mm > 0.0 && marker_mm < self.square_mm)
        {
            return Err(CalibrationError::Invalid(format!(
                "ChArUco marker size {marker_mm} mm: must be positive and smaller than the {} mm squares",
                self.square_mm
            )));
        }
        Ok(())
    }
}

/// The board found in one photo: image corners and the matching board points (mm, z = 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Detection {
    /// Corner positions in the image, pixels.
    pub image_points: Vec<Point2f>,
    /// The same corners on the board, millimetres.
    pub object_points: Vec<Point3f>,
}

/// One photo's board, named for the report.
#[derive(Debug, Clone)]
pub struct View {
    /// The photo (its path, or any name).
    pub name: PathBuf,
    /// What was found in it.
    pub detection: Detection,
}

/// A photo left out of the calibration, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// The photo.
    pub name: PathBuf,
    /// Why it was left out, in words.
    pub reason: String,
}

/// One photo's share of the result.
#[derive(Debug, Clone, PartialEq)]
pub struct PhotoResult {
    /// The photo.
    pub name: PathBuf,
    /// RMS reprojection error of its corners, pixels.
    pub rms_px: f64,
    /// Corners used.
    pub corners: usize,
}

/// A calibration and how good it is.
#[derive(Debug, Clone)]
pub struct IntrinsicsReport {
    /// The camera file to save.
    pub camera: CameraFile,
    /// Every photo used, with its error.
    pub used: Vec<PhotoResult>,
    /// Every photo left out, with the reason.
    pub skipped: Vec<Skipped>,
    /// Fraction of the frame covered by the union of the boards (0..1).
    pub coverage: f64,
    /// Largest angle between two photos' board normals, degrees.
    pub tilt_spread_deg: f64,
    /// Advice for better photos (empty when all is well).
    pub warnings: Vec<String>,
}

/// Finds the board in one photo (grey or BGR). `None` when it is not wholly visible.
///
/// Chessboard: OpenCV's detector with adaptive threshold and normalisation (on a copy
/// downscaled to at most 1600 px for big photos), then `corner_sub_pix` at full resolution.
pub fn detect(image: &Mat, opts: &IntrinsicsOptions) -> Result<Option<Detection>> {
    opts.validate()?;
    let gray = to_gray(image)?;
    match opts.pattern {
        Pattern::Chessboard => detect_chessboard(&gray, opts.board, opts.square_mm),
        Pattern::Charuco { marker_mm } => {
            detect_charuco(&gray, opts.board, opts.square_mm, marker_mm)
        }
    }
}

/// A grey copy (or the same image when it already is grey).
pub(crate) fn to_gray(image: &Mat) -> Result<Mat> {
    if image.empty() {
        return Err(CalibrationError::Invalid("the image is empty".into()));
    }
    let code = match image.channels() {
        1 => return Ok(image.clone()),
        3 => imgproc::COLOR_BGR2GRAY,
        4 => imgproc::COLOR_BGRA2GRAY,
        n => {
            return Err(CalibrationError::Invalid(format!(
                "an image with {n} channels is neither grey nor colour"
            )));
        }
    };
    let mut gray = Mat::default();
    imgproc::cvt_color(image, &mut gray, code, 0)?;
    Ok(gray)
}

fn detect_chessboard(gray: &Mat, board: BoardSize, square_mm: f64) -> Result<Option<Detection>> {
    let longest = gray.cols().max(gray.rows());
    let scale = if longest > 1600 {
        1280.0 / f64::from(longest)
    } else {
        1.0
    };
    let small;
    let search = if scale < 1.0 {
        let mut s = Mat::default();
        imgproc::resize(
            gray,
            &mut s,
            Size::default(),
            scale,
            scale,
            imgproc::INTER_AREA,
        )?;
        small = s;
        &small
    } else {
        gray
    };
    let mut corners: Vector<Point2f> = Vector::new();
    let flags = calib3d::CALIB_CB_ADAPTIVE_THRESH | calib3d::CALIB_CB_NORMALIZE_IMAGE;
    let mut found = calib3d::find_chessboard_corners(search, board.cv_size(), &mut corners, flags)?;
    if !found {
        // The sector-based detector copes with some photos the classic one misses.
        corners.clear();
        found = calib3d::find_chessboard_corners_sb(
            search,
            board.cv_size(),
            &mut corners,
            calib3d::CALIB_CB_NORMALIZE_IMAGE,
        )?;
    }
    if !found || corners.len() != board.corners() {
        return Ok(None);
    }
    if scale < 1.0 {
        let inv = (1.0 / scale) as f32;
        corners = corners
            .iter()
            .map(|p| Point2f::new((p.x + 0.5) * inv - 0.5, (p.y + 0.5) * inv - 0.5))
            .collect();
    }
    let half = subpix_half_window(&corners.to_vec(), board);
    imgproc::corner_sub_pix(
        gray,
        &mut corners,
        Size::new(half, half),
        Size::new(-1, -1),
        TermCriteria::new(
            TermCriteria_Type::COUNT as i32 + TermCriteria_Type::EPS as i32,
            40,
            0.001,
        )?,
    )?;
    let object_points = (0..board.rows)
        .flat_map(|r| {
            (0..board.cols).map(move |c| {
                Point3f::new(
                    (f64::from(c) * square_mm) as f32,
                    (f64::from(r) * square_mm) as f32,
                    0.0,
                )
            })
        })
        .collect();
    Ok(Some(Detection {
        image_points: corners.to_vec(),
        object_points,
    }))
}

/// Half the `corner_sub_pix` window: about a third of the closest two neighbouring corners,
/// so the window never reaches the next corner (3..=11 px).
fn subpix_half_window(corners: &[Point2f], board: BoardSize) -> i32 {
    let (cols, rows) = (board.cols as usize, board.rows as usize);
    let mut min = f32::INFINITY;
    for r in 0..rows {
        for c in 0..cols {
            let p = corners[r * cols + c];
            if c + 1 < cols {
                min = min.min(dist(p, corners[r * cols + c + 1]));
            }
            if r + 1 < rows {
                min = min.min(dist(p, corners[(r + 1) * cols + c]));
            }
        }
    }
    if !min.is_finite() {
        return 5;
    }
    ((min * 0.35).round() as i32).clamp(3, 11)
}

fn dist(a: Point2f, b: Point2f) -> f32 {
    ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
}

/// The ChArUco board of these options (DICT_4X4_50, (cols+1) x (rows+1) squares).
pub fn charuco_board(
    board: BoardSize,
    square_mm: f64,
    marker_mm: f64,
) -> Result<Ptr<aruco::CharucoBoard>> {
    let dict = aruco::get_predefined_dictionary(aruco::PREDEFINED_DICTIONARY_NAME::DICT_4X4_50)?;
    let squares = (board.cols as i32 + 1) * (board.rows as i32 + 1);
    if squares / 2 > 50 {
        return Err(CalibrationError::Invalid(format!(
            "a {board} ChArUco board needs {} markers; DICT_4X4_50 has 50",
            squares / 2
        )));
    }
    Ok(aruco::CharucoBoard::create(
        board.cols as i32 + 1,
        board.rows as i32 + 1,
        square_mm as f32,
        marker_mm as f32,
        &dict,
    )?)
}

fn detect_charuco(
    gray: &Mat,
    board: BoardSize,
    square_mm: f64,
    marker_mm: f64,
) -> Result<Option<Detection>> {
    let cboard = charuco_board(board, square_mm, marker_mm)?;
    let dict = aruco::get_predefined_dictionary(aruco::PREDEFINED_DICTIONARY_NAME::DICT_4X4_50)?;
    let mut marker_corners: Vector<Vector<Point2f>> = Vector::new();
    let mut marker_ids: Vector<i32> = Vector::new();
    aruco::detect_markers_def(gray, &dict, &mut marker_corners, &mut marker_ids)?;
    if marker_ids.len() < 2 {
        return Ok(None);
    }
    let mut corners: Vector<Point2f> = Vector::new();
    let mut ids: Vector<i32> = Vector::new();
    aruco::interpolate_corners_charuco_def(
        &marker_corners,
        &marker_ids,
        gray,
        &cboard,
        &mut corners,
        &mut ids,
    )?;
    // A planar calibration needs enough corners per view to constrain the homography well.
    if ids.len() < 8 || ids.len() < board.corners() / 4 {
        return Ok(None);
    }
    let all = cboard.chessboard_corners();
    let mut object_points = Vec::with_capacity(ids.len());
    for id in &ids {
        let p = all.get(id.max(0) as usize)?;
        object_points.push(p);
    }
    Ok(Some(Detection {
        image_points: corners.to_vec(),
        object_points,
    }))
}

/// Calibrates from photo files: each is read, the board looked for (photos without it are
/// named in [`IntrinsicsReport::skipped`]), then [`calibrate_views`] runs. All photos must
/// share one size; fewer than [`MIN_PHOTOS`] usable ones is an error.
pub fn calibrate_photos(paths: &[PathBuf], opts: &IntrinsicsOptions) -> Result<IntrinsicsReport> {
    opts.validate()?;
    let mut views = Vec::new();
    let mut skipped = Vec::new();
    let mut size: Option<(PathBuf, Size)> = None;
    for path in paths {
        let image = match read_gray(path) {
            Ok(image) => image,
            Err(reason) => {
                skipped.push(Skipped {
                    name: path.clone(),
                    reason,
                });
                continue;
            }
        };
        let this = image.size()?;
        match &size {
            None => size = Some((path.clone(), this)),
            Some((first, s)) if *s != this => {
                return Err(CalibrationError::MixedSizes {
                    path: path.clone(),
                    width: this.width as u32,
                    height: this.height as u32,
                    first: first.clone(),
                    first_width: s.width as u32,
                    first_height: s.height as u32,
                });
            }
            Some(_) => {}
        }
        match detect(&image, opts)? {
            Some(detection) => views.push(View {
                name: path.clone(),
                detection,
            }),
            None => skipped.push(Skipped {
                name: path.clone(),
                reason: format!("no whole {} found", opts.describe()),
            }),
        }
    }
    let unused = || {
        skipped
            .iter()
            .map(|s| format!("{} ({})", s.name.display(), s.reason))
            .collect::<Vec<_>>()
    };
    let too_few = |used| CalibrationError::TooFewPhotos {
        used,
        given: paths.len(),
        needed: MIN_PHOTOS,
        pattern: opts.describe(),
        unused: unused(),
    };
    let Some((_, size)) = size else {
        return Err(too_few(0));
    };
    if views.len() < MIN_PHOTOS {
        return Err(too_few(views.len()));
    }
    let mut report = calibrate_views(
        &views,
        (size.width as u32, size.height as u32),
        opts,
        paths.len(),
    )?;
    report.skipped = skipped;
    Ok(report)
}

fn read_gray(path: &Path) -> std::result::Result<Mat, String> {
    if !path.is_file() {
        return Err("no such file".into());
    }
    match imgcodecs::imread(path, imgcodecs::IMREAD_GRAYSCALE) {
        Ok(m) if !m.empty() => Ok(m),
        _ => Err("not an image OpenCV can read".into()),
    }
}

/// Calibrates from boards already found (`given` = how many photos there were in all, for
/// the message when too few show the board).
pub fn calibrate_views(
    views: &[View],
    image_size: (u32, u32),
    opts: &IntrinsicsOptions,
    given: usize,
) -> Result<IntrinsicsReport> {
    opts.validate()?;
    if views.len() < MIN_PHOTOS {
        return Err(CalibrationError::TooFewPhotos {
            used: views.len(),
            given,
            needed: MIN_PHOTOS,
            pattern: opts.describe(),
            unused: Vec::new(),
        });
    }
    let (object_points, image_points) = cv_points(views);
    let size = Size::new(image_size.0 as i32, image_size.1 as i32);
    let mut k = Mat::default();
    let mut dist = Mat::default();
    let mut rvecs: Vector<Mat> = Vector::new();
    let mut tvecs: Vector<Mat> = Vector::new();
    let rms = calib3d::calibrate_camera_def(
        &object_points,
        &image_points,
        size,
        &mut k,
        &mut dist,
        &mut rvecs,
        &mut tvecs,
    )?;
    let camera_matrix = mat3(&k)?;
    let mut distortion = [0.0; 5];
    let d = dist.data_typed::<f64>()?;
    for (o, v) in distortion.iter_mut().zip(d) {
        *o = *v;
    }

    let mut used = Vec::with_capacity(views.len());
    let mut normals = Vec::with_capacity(views.len());
    for (i, view) in views.iter().enumerate() {
        let rvec = rvecs.get(i)?;
        let tvec = tvecs.get(i)?;
        let mut projected: Vector<Point2f> = Vector::new();
        calib3d::project_points_def(
            &object_points.get(i)?,
            &rvec,
            &tvec,
            &k,
            &dist,
            &mut projected,
        )?;
        let sq: f64 = projected
            .iter()
            .zip(&view.detection.image_points)
            .map(|(p, q)| f64::from(dist2(p, *q)))
            .sum();
        let n = view.detection.image_points.len();
        used.push(PhotoResult {
            name: view.name.clone(),
            rms_px: (sq / n.max(1) as f64).sqrt(),
            corners: n,
        });
        let mut r = Mat::default();
        calib3d::rodrigues_def(&rvec, &mut r)?;
        let r = mat3(&r)?;
        normals.push([r[0][2], r[1][2], r[2][2]]);
    }

    let coverage = coverage(views, size)?;
    let tilt_spread_deg = max_angle_deg(&normals);
    let mut warnings = Vec::new();
    if coverage < MIN_COVERAGE {
        warnings.push(format!(
            "the boards cover only {:.0}% of the frame: add photos with the board near the edges and corners, or the distortion there is a guess",
            coverage * 100.0
        ));
    }
    if tilt_spread_deg < MIN_TILT_SPREAD_DEG {
        warnings.push(format!(
            "the board faces the camera the same way in every photo (normals within {tilt_spread_deg:.0} degrees): tilt it 20-40 degrees in several directions, or the focal length is poorly determined"
        ));
    }
    if rms > 1.0 {
        warnings.push(format!(
            "the RMS reprojection error is {rms:.2} px: blurred photos, a board that is not flat, or the wrong --board; redo the worst photos"
        ));
    }

    let camera = CameraFile {
        version: CAMERA_FILE_VERSION,
        image_size: [image_size.0, image_size.1],
        camera_matrix,
        distortion,
        rms_px: rms,
        board: opts.board.to_string(),
        square_mm: opts.square_mm,
        photos_used: views.len() as u32,
        created: now_rfc3339(),
        pattern: match opts.pattern {
            Pattern::Chessboard => None,
            Pattern::Charuco { .. } => Some("charuco".into()),
        },
    };
    Ok(IntrinsicsReport {
        camera,
        used,
        skipped: Vec::new(),
        coverage,
        tilt_spread_deg,
        warnings,
    })
}

/// The views' points in the nested vectors OpenCV's calibration takes.
pub fn cv_points(views: &[View]) -> (Vector<Vector<Point3f>>, Vector<Vector<Point2f>>) {
    let object = views
        .iter()
        .map(|v| v.detection.object_points.iter().copied().collect())
        .collect();
    let image = views
        .iter()
        .map(|v| v.detection.image_points.iter().copied().collect())
        .collect();
    (object, image)
}

fn dist2(a: Point2f, b: Point2f) -> f32 {
    (a.x - b.x).powi(2) + (a.y - b.y).powi(2)
}

fn mat3(m: &Mat) -> Result<[[f64; 3]; 3]> {
    let mut out = [[0.0; 3]; 3];
    for (r, row) in out.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = *m.at_2d::<f64>(r as i32, c as i32)?;
        }
    }
    Ok(out)
}

/// Fraction of the frame inside the union of the views' board outlines (convex hulls of
/// their corners), rasterised at a quarter of the resolution.
fn coverage(views: &[View], size: Size) -> Result<f64> {
    let (w, h) = ((size.width + 3) / 4, (size.height + 3) / 4);
    let mut mask = Mat::new_rows_cols_with_default(h, w, opencv::core::CV_8UC1, Scalar::all(0.0))?;
    for view in views {
        let pts: Vector<Point> = view
            .detection
            .image_points
            .iter()
            .map(|p| Point::new((p.x / 4.0).round() as i32, (p.y / 4.0).round() as i32))
            .collect();
        let mut hull: Vector<Point> = Vector::new();
        imgproc::convex_hull(&pts, &mut hull, false, true)?;
        imgproc::fill_convex_poly(&mut mask, &hull, Scalar::all(255.0), imgproc::LINE_8, 0)?;
    }
    let filled = opencv::core::count_non_zero(&mask)?;
    Ok(f64::from(filled) / (f64::from(w) * f64::from(h)))
}

fn max_angle_deg(normals: &[[f64; 3]]) -> f64 {
    let mut max: f64 = 0.0;
    for (i, a) in normals.iter().enumerate() {
        for b in &normals[i + 1..] {
            let dot = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]).clamp(-1.0, 1.0);
            max = max.max(dot.acos().to_degrees());
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_size_parses() {
        assert_eq!("9x6".parse::<BoardSize>().ok(), Some(BoardSize::new(9, 6)));
        assert_eq!(
            " 7X5 ".parse::<BoardSize>().ok(),
            Some(BoardSize::new(7, 5))
        );
        for bad in ["9", "9x", "x6", "1x6", "9x0", "nine by six", "9x6x2"] {
            assert!(bad.parse::<BoardSize>().is_err(), "{bad}");
        }
        assert_eq!(BoardSize::new(9, 6).to_string(), "9x6");
    }

    #[test]
    fn angles() {
        let n = [[0.0, 0.0, 1.0], [0.0, 0.5f64.sin(), 0.5f64.cos()]];
        assert!((max_angle_deg(&n) - 0.5f64.to_degrees()).abs() < 1e-9);
        assert_eq!(max_angle_deg(&n[..1]), 0.0);
    }
}
