//! The one error type of the calibration crate: every message names the file (or the
//! frame) and says what is wrong in words a user can act on.

use std::path::PathBuf;
use thiserror::Error;

/// What can go wrong while calibrating, loading a camera file or drawing the marker sheet.
#[derive(Debug, Error)]
pub enum CalibrationError {
    /// A file could not be read.
    #[error("{}: cannot read: {error}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The underlying error (shown in the message, so not a `source`).
        error: std::io::Error,
    },
    /// A file could not be written.
    #[error("{}: cannot write: {error}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The underlying error (shown in the message, so not a `source`).
        error: std::io::Error,
    },
    /// A camera (or sheet) file is not valid JSON of the expected form.
    #[error("{}: not a valid camera file: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A camera file of a version this program does not read.
    #[error(
        "{}: camera file version {found}, but this program reads version {expected}; calibrate again with `alhambra calibrate intrinsics`",
        path.display()
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// The version it says.
        found: String,
        /// The version this program reads.
        expected: u32,
    },
    /// A frame of another size than the camera was calibrated at.
    #[error(
        "the frame is {width}x{height} but the camera file was calibrated at {cal_width}x{cal_height}: another camera or resolution; calibrate this one with `alhambra calibrate intrinsics`"
    )]
    ImageSize {
        /// Frame width.
        width: u32,
        /// Frame height.
        height: u32,
        /// Calibrated width.
        cal_width: u32,
        /// Calibrated height.
        cal_height: u32,
    },
    /// A photo could not be decoded as an image.
    #[error("{}: not an image OpenCV can read", path.display())]
    NotAnImage {
        /// The file.
        path: PathBuf,
    },
    /// Calibration photos of different sizes.
    #[error(
        "{} is {width}x{height} but {} is {first_width}x{first_height}: all photos must come from one camera at one resolution",
        path.display(),
        first.display()
    )]
    MixedSizes {
        /// The photo that differs.
        path: PathBuf,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
        /// The first photo.
        first: PathBuf,
        /// The first photo's width.
        first_width: u32,
        /// The first photo's height.
        first_height: u32,
    },
    /// Too few photos showed the calibration board.
    #[error(
        "only {used} of {given} photo(s) show the whole {pattern}; at least {needed} are needed (better 10-20, tilted and covering the frame){}",
        if unused.is_empty() { String::new() } else { format!("; not used: {}", unused.join(", ")) }
    )]
    TooFewPhotos {
        /// Photos in which the board was found.
        used: usize,
        /// Photos given.
        given: usize,
        /// The minimum.
        needed: usize,
        /// The board, in words ("9x6 chessboard").
        pattern: String,
        /// The photos left out, each with the reason (`"a.png (no such file)"`).
        unused: Vec<String>,
    },
    /// A bad argument (board size, marker size, dpi, output format...).
    #[error("{0}")]
    Invalid(String),
    /// OpenCV failed.
    #[error("OpenCV: {0}")]
    OpenCv(opencv::Error),
}

impl From<opencv::Error> for CalibrationError {
    fn from(e: opencv::Error) -> Self {
        // Not a `source`: the message already holds it, and callers that print the
        // whole chain would show it twice.
        CalibrationError::OpenCv(e)
    }
}

/// The crate's result type.
pub type Result<T, E = CalibrationError> = std::result::Result<T, E>;
