//! Reading the user's JSON files, with errors that name the file and the problem.

use anyhow::{Context, Result};
use serde::de::DeserializeOwned;
use std::path::Path;

/// Reads and parses a JSON file whose top level is an object; the error names the file and
/// what is wrong with it.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let shown = path.display();
    let text = std::fs::read(path).with_context(|| format!("{shown}: cannot read"))?;
    let text = std::str::from_utf8(&text).with_context(|| format!("{shown}: not UTF-8 text"))?;
    if text.trim().is_empty() {
        anyhow::bail!("{shown}: the file is empty");
    }
    alhambra_engine::object::from_str(text)
        .with_context(|| format!("{shown}: not a valid file of this kind"))
}
