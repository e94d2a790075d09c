//! alhambra
fn main() { println!("{}", alhambra_calibration::opencv_version()); let _ = eframe::NativeOptions::default(); }
