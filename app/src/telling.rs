//! How an acceptance of the tracker is told in words, by `watch` and by the companion
//! window alike: a first layout with its size and legality, or each change with the rules
//! it breaks.

use alhambra_engine::Alhambra;
use alhambra_vision::tracker::Accepted;

/// The lines telling acceptance `a`; none when it changed nothing.
pub fn tell(a: &Accepted) -> Vec<String> {
    if a.initial {
        let n = a.layout.len();
        let tiles = if n == 1 { "tile" } else { "tiles" };
        return vec![format!("{n} {tiles}{}", legality(&a.layout))];
    }
    let mut lines: Vec<String> = a
        .changes
        .iter()
        .map(|c| {
            if c.is_legal() {
                format!("{}: legal", c.summary())
            } else {
                let broken: Vec<&str> = c.violations.iter().map(|v| v.message.as_str()).collect();
                format!("{}: ILLEGAL: {}", c.summary(), broken.join("; "))
            }
        })
        .collect();
    if !a.corrections.is_empty() {
        lines.push(format!(
            "walls read again on {} tile(s)",
            a.corrections.len()
        ));
    }
    lines
}

/// ", legal" or the rules the layout breaks.
fn legality(layout: &Alhambra) -> String {
    let broken = layout.check();
    if broken.is_empty() {
        ", legal".to_owned()
    } else {
        let messages: Vec<&str> = broken.iter().map(|v| v.message.as_str()).collect();
        format!(", breaks: {}", messages.join("; "))
    }
}
