//! The tracker's cost per frame on a rendered sequence once the table has been read: a
//! calm frame showing nothing new, and a frame with a hand moving over the tiles. Neither
//! is scanned (a scan is `scan`'s whole-photo bench); what is left is measuring motion and
//! change. One OpenCV thread, as the speed budget is stated.

use alhambra_vision::default_profile::default_profile;
use alhambra_vision::scanner::{ScanOptions, Scanner};
use alhambra_vision::source::{Frame, FrameSource, Phase, Story, SyntheticOptions, SyntheticScene};
use alhambra_vision::tracker::Tracker;
use divan::Bencher;
use std::hint::black_box;

fn main() {
    if let Err(e) = opencv::core::set_num_threads(1) {
        eprintln!("cannot set OpenCV to one thread: {e}");
    }
    divan::main();
}

/// A tracker that has read the calm table of a hand-passing sequence until every
/// Alhambra settled, with the sequence's calm frames and the frames with the hand moving
/// over the tiles.
fn settled() -> (Tracker, Vec<Frame>, Vec<Frame>) {
    let mut opts = SyntheticOptions {
        story: Story::HandPass,
        calm_before: 6,
        hand_frames: 6,
        calm_after: 0,
        ..SyntheticOptions::default()
    };
    opts.scene.seed = 1;
    let mut scene = SyntheticScene::new(opts).expect("the sequence renders");
    let marker_mm = scene.labels_after().marker_mm().unwrap_or(40.0);
    let profile = default_profile().expect("the built-in profile");
    let scanner = Scanner::new(
        profile,
        ScanOptions {
            marker_mm,
            ..ScanOptions::default()
        },
    );
    let mut tracker = Tracker::new(scanner);
    let (mut calm, mut hand) = (Vec::new(), Vec::new());
    while let Some(frame) = scene.next_frame().expect("a frame") {
        let update = tracker.push(&frame).expect("pushed");
        match scene.truth(frame.index).map(|t| t.phase) {
            Some(Phase::Before) => calm.push(frame),
            // The hand over the tiles (not while it is still beside the table).
            _ if !update.calm => hand.push(frame),
            _ => {}
        }
    }
    assert!(!hand.is_empty(), "the hand never moved over the tiles");
    // The hand has gone: the calm table is read once more.
    for frame in &calm {
        tracker.push(frame).expect("pushed");
    }
    (tracker, calm, hand)
}

/// A calm frame that shows nothing new, after the table was read.
#[divan::bench(sample_count = 30)]
fn calm_frame(b: Bencher) {
    let (mut tracker, calm, _) = settled();
    let mut k = 0;
    b.bench_local(|| {
        k = (k + 1) % calm.len();
        let update = tracker.push(&calm[k]).expect("pushed");
        assert!(update.scan.is_none(), "a calm settled table was read again");
        black_box(update)
    });
}

/// Frames with a hand moving over the tiles, in their order (each moved from the last).
#[divan::bench(sample_count = 30)]
fn moving_frame(b: Bencher) {
    let (mut tracker, _, hand) = settled();
    let mut k = 0;
    b.bench_local(|| {
        k = (k + 1) % hand.len();
        let update = tracker.push(&hand[k]).expect("pushed");
        assert!(update.scan.is_none(), "read while the hand moved");
        black_box(update)
    });
}
