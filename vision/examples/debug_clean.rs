//! Development: scan the clean photo of a synthetic hand-pass sequence verbosely and
//! write it with its overlay to /tmp/clean.png and /tmp/clean_overlay.png.
use alhambra_vision::default_profile::default_profile;
use alhambra_vision::overlay::draw;
use alhambra_vision::scanner::{ScanOptions, Scanner};
use alhambra_vision::source::SyntheticScene;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scene = SyntheticScene::hand_pass(1)?;
    let mm = scene.labels_after().marker_mm().unwrap_or(40.0);
    let scanner = Scanner::new(
        default_profile()?,
        ScanOptions {
            marker_mm: mm,
            ..ScanOptions::default()
        },
    );
    let scan = scanner.scan(scene.clean_after())?.to_result("clean");
    opencv::imgcodecs::imwrite(
        "/tmp/clean.png",
        scene.clean_after(),
        &opencv::core::Vector::new(),
    )?;
    let out = draw(scene.clean_after(), &scan, Some(scene.labels_after()))?;
    opencv::imgcodecs::imwrite("/tmp/clean_overlay.png", &out, &opencv::core::Vector::new())?;
    Ok(())
}
