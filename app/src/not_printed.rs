//! What a layout holds that the base game does not print, said in words for `check` and
//! `scan`: a pair no tile has, or a pair laid more often than printed. Not a rule broken
//! (RULES.md: a misread or an expansion piece), but worth a look.

use alhambra_engine::{Alhambra, Building, NotPrinted, Walls};

/// One line per finding, empty when everything laid is printed as often as laid.
pub fn lines(alhambra: &Alhambra) -> Vec<String> {
    let found = NotPrinted::of(
        alhambra
            .tiles()
            .map(|(pos, piece)| (pos, piece.building, piece.walls)),
    );
    let mut out = Vec::new();
    if !found.unknown.is_empty() {
        let tiles: Vec<String> = found
            .unknown
            .iter()
            .map(|&(pos, b, w)| format!("{} at {pos}", described(b, w)))
            .collect();
        out.push(format!(
            "not printed in the base game (misread, or an expansion piece?): {}",
            tiles.join("; ")
        ));
    }
    for &(b, w, laid, printed) in &found.extra {
        out.push(format!(
            "laid {laid} times, printed {printed}: {} (misread, or a second copy of the game?)",
            described(b, w)
        ));
    }
    out
}

fn described(building: Building, walls: Walls) -> String {
    if walls == Walls::NONE {
        format!("{building} without walls")
    } else {
        format!("{building} with walls {walls}")
    }
}
