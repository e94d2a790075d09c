//! Writing a command's report to stdout without panicking when the reader has gone away
//! (`alhambra scan ... | head`): a closed pipe ends the output quietly.

use anyhow::{Context, Result};
use std::io::{ErrorKind, Write};

/// Writes `text` to stdout and flushes; a closed pipe is not an error.
pub fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to stdout"),
    }
}

/// `println!` through [`print`]: a closed pipe ends the output quietly, other write
/// errors are returned.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::print(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use say;
