//! A text picture of an Alhambra, for terminals: one box per tile, `#` where a wall runs.

use crate::alhambra::Alhambra;
use crate::building::Building;
use crate::pos::Pos;
use crate::side::Side;
use std::fmt::Write;

/// Three letters per building.
pub fn abbreviation(b: Building) -> &'static str {
    match b {
        Building::Fountain => "Fnt",
        Building::Pavilion => "Pav",
        Building::Seraglio => "Ser",
        Building::Arcades => "Arc",
        Building::Chambers => "Cha",
        Building::Garden => "Gar",
        Building::Tower => "Tow",
    }
}

/// The Alhambra drawn as text, north up: `+---+` edges of tiles, `###` / `#` where a
/// wall runs, the column numbers (x) on top and row numbers (y) on the left.
pub fn draw(alhambra: &Alhambra) -> String {
    let Some((lo, hi)) = alhambra.bounds() else {
        return "(no tiles)\n".to_owned();
    };
    let walled = |p: Pos, s: Side| alhambra.get(p).is_some_and(|t| t.walls.has(s));
    let present = |p: Pos| alhambra.get(p).is_some();
    let mut out = String::new();
    out.push_str("     ");
    for x in lo.x..=hi.x {
        let _ = write!(out, "{x:^4}");
    }
    out.push('\n');
    for y in lo.y..=hi.y + 1 {
        // The horizontal edge line above row y.
        out.push_str("     ");
        for x in lo.x..=hi.x {
            let (above, below) = (Pos::new(x, y - 1), Pos::new(x, y));
            let corner = [above, below, Pos::new(x - 1, y - 1), Pos::new(x - 1, y)]
                .into_iter()
                .any(present);
            out.push(if corner { '+' } else { ' ' });
            let edge = if walled(above, Side::South) || walled(below, Side::North) {
                "###"
            } else if present(above) || present(below) {
                "---"
            } else {
                "   "
            };
            out.push_str(edge);
        }
        let last = [Pos::new(hi.x, y - 1), Pos::new(hi.x, y)]
            .into_iter()
            .any(present);
        out.push(if last { '+' } else { ' ' });
        out.push('\n');
        if y > hi.y {
            break;
        }
        // The row itself.
        let _ = write!(out, "{y:>4} ");
        for x in lo.x..=hi.x + 1 {
            let (left, right) = (Pos::new(x - 1, y), Pos::new(x, y));
            let edge = if walled(left, Side::East) || walled(right, Side::West) {
                '#'
            } else if present(left) || present(right) {
                '|'
            } else {
                ' '
            };
            out.push(edge);
            if x <= hi.x {
                out.push_str(
                    alhambra
                        .get(right)
                        .map_or("   ", |t| abbreviation(t.building)),
                );
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alhambra::Piece;
    use crate::side::Walls;

    #[test]
    fn draws_walls_where_they_run() {
        let mut a = Alhambra::new();
        a.place(
            Pos::new(1, 0),
            Piece::new(Building::Garden, Walls::of(&[Side::North, Side::East])),
        )
        .expect("legal");
        let text = draw(&a);
        assert_eq!(
            text,
            "      0   1  \n     +---+###+\n   0 |Fnt|Gar#\n     +---+---+\n"
        );
    }
}
