//! The vision worker: a named thread that owns the frame source and the tracker, reads
//! frame after frame, and hands the window each frame with what the tracker made of it
//! over a channel that holds one (a frame the window has not taken yet is replaced: the
//! window shows the newest, never a queue). The window never waits on it.

use super::picture::Picture;
use crate::reading::Reader;
use alhambra_engine::Alhambra;
use alhambra_vision::ScanResult;
use alhambra_vision::scanner::Scanner;
use alhambra_vision::source::{Frame, FrameSource};
use alhambra_vision::tracker::{AlhambraState, Tracker};
use opencv::core::Mat;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Frames of a file or a rendered sequence are shown at most this often: the tracker
/// reads faster than a hand moves on most frames, and the demo should be watchable.
const FILE_FRAME_INTERVAL: Duration = Duration::from_millis(200);

/// Each photo of a folder is shown this many times in a row: the tracker accepts a layout
/// once it has read it the same in several calm frames (`watch --hold`).
pub const PHOTO_HOLD: u32 = 5;

/// How the worker goes through its source.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// Show frames no faster than a person watches (files and rendered sequences; a
    /// camera paces itself).
    pub paced: bool,
    /// Show each frame this many times in a row (photos, see [`PHOTO_HOLD`]).
    pub hold: u32,
    /// Read no more than this many frames.
    pub frames: Option<u64>,
    /// Open the source again when it ends, with a new tracker (the demo footage).
    pub repeat: bool,
}

/// One frame and what was made of it.
pub struct Shown {
    /// The frame's number from the source's start.
    pub frame_index: u64,
    /// The frame, ready for the screen.
    pub picture: Picture,
    /// Whether it was calm (no hand or motion over the table).
    pub calm: bool,
    /// What this frame's scan read, when it was read (image corners of every tile).
    pub read: Option<ScanResult>,
    /// The frame as read (BGR), when it was read: what the tiles' look is learned from.
    pub frame: Option<Mat>,
    /// Every Alhambra the tracker follows.
    pub alhambras: Vec<AlhambraState>,
    /// The layouts accepted in this frame, by Alhambra id, with the lines telling them.
    pub accepted: Vec<(usize, Alhambra, Vec<String>)>,
    /// How long reading the frame took.
    pub read_ms: f64,
}

/// What the worker has to say.
pub enum Report {
    /// The source ended and was opened again (see [`Pace::repeat`]).
    Restarted,
    /// The source has no more frames.
    Ended,
    /// Reading failed; the worker stopped.
    Failed(String),
}

/// The newest report not yet taken by the window, and whether any was lost unseen.
#[derive(Default)]
struct Mailbox {
    /// The newest frame not yet taken.
    frame: Option<Box<Shown>>,
    /// Acceptances of frames replaced before the window took them: never lost.
    accepted: Vec<(usize, Alhambra, Vec<String>)>,
    /// The source ended or failed.
    end: Option<Report>,
}

/// The running worker.
pub struct Worker {
    mailbox: Arc<Mutex<Mailbox>>,
    /// A scanner to read with from the next frame on.
    scanner: Arc<Mutex<Option<Scanner>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts reading the source `open` opens (on the worker's thread, as rendering the
    /// demo table takes a moment) with `reader` (its scanner, and the camera file's
    /// undistortion) at `pace`; `wake` is called after each report (the window's repaint).
    pub fn start(
        open: impl Fn() -> Result<Box<dyn FrameSource + Send>, String> + Send + 'static,
        reader: Reader,
        pace: Pace,
        wake: impl Fn() + Send + 'static,
    ) -> std::io::Result<Worker> {
        let mailbox = Arc::new(Mutex::new(Mailbox::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let next_scanner: Arc<Mutex<Option<Scanner>>> = Arc::default();
        let thread = {
            let mailbox = Arc::clone(&mailbox);
            let stop = Arc::clone(&stop);
            let next = Arc::clone(&next_scanner);
            std::thread::Builder::new()
                .name("vision".into())
                .spawn(move || {
                    // The scanner read with, a profile learned since included.
                    let mut scanner = reader.scanner.clone();
                    let end = loop {
                        let end = match open() {
                            Ok(source) => {
                                let reading = Reading {
                                    reader: &reader,
                                    next: &next,
                                    pace,
                                    stop: &stop,
                                };
                                run(source, &mut scanner, &reading, &mailbox, &wake)
                            }
                            Err(e) => Report::Failed(e),
                        };
                        let again = pace.repeat
                            && matches!(end, Report::Ended)
                            && !stop.load(Ordering::Relaxed);
                        if !again {
                            break end;
                        }
                        if let Ok(mut m) = mailbox.lock() {
                            m.end = Some(Report::Restarted);
                        }
                    };
                    if let Ok(mut m) = mailbox.lock() {
                        m.end = Some(end);
                    }
                    wake();
                })?
        };
        Ok(Worker {
            mailbox,
            scanner: next_scanner,
            stop,
            thread: Some(thread),
        })
    }

    /// Reads with `scanner` from the next frame on.
    pub fn use_scanner(&self, scanner: Scanner) {
        if let Ok(mut s) = self.scanner.lock() {
            *s = Some(scanner);
        }
    }

    /// The newest frame since the last call (with every acceptance since, even of frames
    /// not shown), and the end once it came.
    pub fn take(&self) -> (Option<Box<Shown>>, Option<Report>) {
        let Ok(mut m) = self.mailbox.lock() else {
            return (
                None,
                Some(Report::Failed("the vision worker stopped".into())),
            );
        };
        let mut frame = m.frame.take();
        let missed = std::mem::take(&mut m.accepted);
        if !missed.is_empty()
            && let Some(f) = frame.as_mut()
        {
            let mut all = missed;
            all.append(&mut f.accepted);
            f.accepted = all;
        }
        (frame, m.end.take())
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            // A frame being read finishes first (at most a second or two).
            let _ = t.join();
        }
    }
}

/// What a pass through the source reads with.
struct Reading<'a> {
    reader: &'a Reader,
    /// A scanner the window handed over, to read with from the next frame on.
    next: &'a Mutex<Option<Scanner>>,
    pace: Pace,
    stop: &'a AtomicBool,
}

/// Reads frames until the source ends, the pace's frames were read, or the window closes;
/// `scanner` is the one read with, replaced by any the window hands over.
fn run(
    mut source: Box<dyn FrameSource + Send>,
    scanner: &mut Scanner,
    reading: &Reading<'_>,
    mailbox: &Mutex<Mailbox>,
    wake: &dyn Fn(),
) -> Report {
    let Reading {
        reader,
        next: next_scanner,
        pace:
            Pace {
                paced,
                hold,
                frames,
                ..
            },
        stop,
    } = *reading;
    let described = source.describe();
    let mut tracker = Tracker::new(scanner.clone());
    let mut count = 0u64;
    // The frame being held (see `hold`) and how many more times it is shown.
    let mut held: Option<(Frame, u32)> = None;
    while !stop.load(Ordering::Relaxed) && frames.is_none_or(|n| count < n) {
        let started = Instant::now();
        let mut frame = match held.take() {
            Some((frame, more)) if more > 0 => {
                held = Some((frame.clone(), more - 1));
                frame
            }
            _ => match source.next_frame() {
                Ok(Some(frame)) => {
                    if hold > 1 {
                        held = Some((frame.clone(), hold - 1));
                    }
                    frame
                }
                Ok(None) => return Report::Ended,
                Err(e) => return Report::Failed(format!("{described}: {e}")),
            },
        };
        frame.index = count;
        count += 1;
        frame.image = match reader.undistorted(frame.image, &format!("frame {}", frame.index)) {
            Ok(image) => image,
            Err(e) => return Report::Failed(format!("{described}: {e:#}")),
        };
        if let Some(s) = next_scanner.lock().ok().and_then(|mut s| s.take()) {
            *scanner = s.clone();
            tracker.use_scanner(s);
        }
        let update = match tracker.push(&frame) {
            Ok(update) => update,
            Err(e) => return Report::Failed(format!("{described}: frame {}: {e}", frame.index)),
        };
        let read_ms = started.elapsed().as_secs_f64() * 1e3;
        let picture = match Picture::of(&frame.image) {
            Ok(p) => p,
            Err(e) => return Report::Failed(format!("{described}: frame {}: {e}", frame.index)),
        };
        let accepted = update
            .accepted
            .iter()
            .map(|a| (a.id, a.layout.clone(), crate::telling::tell(a)))
            .collect();
        let shown = Shown {
            frame_index: frame.index,
            picture,
            calm: update.calm,
            read: update.scan.as_ref().map(|s| s.to_result(&described)),
            frame: update.scan.is_some().then(|| frame.image.clone()),
            alhambras: update.alhambras,
            accepted,
            read_ms,
        };
        if let Ok(mut m) = mailbox.lock()
            && let Some(old) = m.frame.replace(Box::new(shown))
        {
            m.accepted.extend(old.accepted);
        }
        wake();
        if paced {
            let spent = started.elapsed();
            if spent < FILE_FRAME_INTERVAL {
                std::thread::sleep(FILE_FRAME_INTERVAL - spent);
            }
        }
    }
    Report::Ended
}
