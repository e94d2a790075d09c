//! The placement rules: the whole-layout check of CONTRACTS.md (fountain count, matching
//! walls, reachable on foot, no holes) with a sentence per violation, and the house-rule
//! switch for holes.

use crate::alhambra::Alhambra;
use crate::building::Building;
use crate::pos::Pos;
use crate::side::Side;
use serde::{Deserialize, Serialize};
use std::collections::{HashSet, VecDeque};

/// Which empty spaces count as a forbidden hole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HoleRule {
    /// Any empty region cut off from the outside (4-connected), whatever its size, including
    /// one sealed by tiles that touch only at a corner (the English rulebook, Board Game Arena).
    #[default]
    AnyEnclosedRegion,
    /// Only a single empty cell with tiles on all four sides (the strict Japanese reading).
    SingleCell,
}

/// The rule set an Alhambra is judged by: the base rules plus the house-rule switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Rules {
    /// What counts as a hole.
    pub holes: HoleRule,
}

/// A rule that a layout or a change can break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Not exactly one fountain.
    FountainCount,
    /// A side meets a neighbour with the other kind of side (wall against open).
    WallMismatch,
    /// A tile that cannot be reached on foot from the fountain.
    Unreachable,
    /// An empty cell enclosed by the Alhambra.
    Hole,
    /// Placing on a cell that already holds a tile.
    Occupied,
    /// Placing a tile that shares no full side with the Alhambra.
    NotJoined,
    /// Removing or exchanging the fountain.
    FountainFixed,
    /// Removing or exchanging on an empty cell.
    NothingThere,
    /// A cell too far from the fountain to be part of any Alhambra.
    OutOfReach,
}

impl Rule {
    /// The name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Rule::FountainCount => "fountain_count",
            Rule::WallMismatch => "wall_mismatch",
            Rule::Unreachable => "unreachable",
            Rule::Hole => "hole",
            Rule::Occupied => "occupied",
            Rule::NotJoined => "not_joined",
            Rule::FountainFixed => "fountain_fixed",
            Rule::NothingThere => "nothing_there",
            Rule::OutOfReach => "out_of_reach",
        }
    }
}

/// One broken rule, where it is broken, and a sentence a player understands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The rule.
    pub rule: Rule,
    /// The cell it is reported on.
    #[serde(flatten)]
    pub pos: Pos,
    /// The side, for wall mismatches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// What is wrong, naming the tiles.
    pub message: String,
}

impl Violation {
    /// A violation with its message.
    pub fn new(rule: Rule, pos: Pos, side: Option<Side>, message: String) -> Violation {
        Violation {
            rule,
            pos,
            side,
            message,
        }
    }

    fn key(&self) -> (Rule, Pos, Option<Side>) {
        (self.rule, self.pos, self.side)
    }
}

/// The layout copied into a dense grid over its bounding box plus a one-cell empty border,
/// so the flood fills index arrays instead of searching maps.
struct Grid {
    x0: i32,
    y0: i32,
    width: i32,
    height: i32,
    /// Index into the Alhambra's tile list, or `EMPTY`.
    cells: Vec<u32>,
}

// u32: a layout within reach holds up to 257 x 257 cells, more than u16 counts.
const EMPTY: u32 = u32::MAX;

impl Grid {
    fn new(tiles: &[(Pos, crate::alhambra::Piece)]) -> Grid {
        let (mut lo, mut hi) = (Pos::new(0, 0), Pos::new(0, 0));
        if let Some(&(p, _)) = tiles.first() {
            (lo, hi) = (p, p);
        }
        for &(p, _) in tiles {
            lo = Pos::new(lo.x.min(p.x), lo.y.min(p.y));
            hi = Pos::new(hi.x.max(p.x), hi.y.max(p.y));
        }
        let (x0, y0) = (lo.x - 1, lo.y - 1);
        let (width, height) = (hi.x - lo.x + 3, hi.y - lo.y + 3);
        let mut cells = vec![EMPTY; (width * height) as usize];
        for (i, &(p, _)) in tiles.iter().enumerate() {
            cells[((p.y - y0) * width + (p.x - x0)) as usize] = i as u32;
        }
        Grid {
            x0,
            y0,
            width,
            height,
            cells,
        }
    }

    fn index(&self, p: Pos) -> Option<usize> {
        let (cx, cy) = (p.x - self.x0, p.y - self.y0);
        (cx >= 0 && cy >= 0 && cx < self.width && cy < self.height)
            .then(|| (cy * self.width + cx) as usize)
    }

    fn at(&self, p: Pos) -> u32 {
        self.index(p).map_or(EMPTY, |i| self.cells[i])
    }

    fn pos(&self, index: usize) -> Pos {
        let i = index as i32;
        Pos::new(self.x0 + i % self.width, self.y0 + i / self.width)
    }
}

/// Every rule the layout breaks, in the order fountain count, wall mismatches, unreachable
/// tiles, holes; each list ordered by cell (x, then y) and side.
pub fn check(alhambra: &Alhambra) -> Vec<Violation> {
    let tiles: Vec<_> = alhambra.tiles().collect();
    let mut out = Vec::new();
    if tiles.is_empty() {
        out.push(Violation::new(
            Rule::FountainCount,
            Pos::ORIGIN,
            None,
            "there is no fountain: every Alhambra starts from one".to_owned(),
        ));
        return out;
    }
    let grid = Grid::new(&tiles);

    let fountains: Vec<usize> = (0..tiles.len())
        .filter(|&i| tiles[i].1.building == Building::Fountain)
        .collect();
    match fountains.len() {
        1 => {}
        0 => out.push(Violation::new(
            Rule::FountainCount,
            Pos::ORIGIN,
            None,
            "there is no fountain: every Alhambra starts from one".to_owned(),
        )),
        n => {
            for &i in &fountains {
                let p = tiles[i].0;
                out.push(Violation::new(
                    Rule::FountainCount,
                    p,
                    None,
                    format!(
                        "there are {n} fountains, one of them at {p}; an Alhambra has exactly one"
                    ),
                ));
            }
        }
    }

    for &(p, piece) in &tiles {
        for side in Side::ALL {
            let n = grid.at(p.neighbour(side));
            if n == EMPTY {
                continue;
            }
            let (np, other) = tiles[n as usize];
            if piece.walls.has(side) != other.walls.has(side.opposite()) {
                let message = if piece.walls.has(side) {
                    format!(
                        "{} at {p}: its {side} side has a wall but the {} at {np} beside it is open there",
                        piece.building, other.building
                    )
                } else {
                    format!(
                        "{} at {p}: its {side} side is open but the {} at {np} beside it has a wall there",
                        piece.building, other.building
                    )
                };
                out.push(Violation::new(Rule::WallMismatch, p, Some(side), message));
            }
        }
    }

    // On foot: from the fountain(s), across sides open on both tiles.
    if !fountains.is_empty() {
        let mut reached = vec![false; tiles.len()];
        let mut queue: VecDeque<usize> = fountains.iter().copied().collect();
        for &f in &fountains {
            reached[f] = true;
        }
        while let Some(i) = queue.pop_front() {
            let (p, piece) = tiles[i];
            for side in Side::ALL {
                let n = grid.at(p.neighbour(side));
                if n == EMPTY || reached[n as usize] {
                    continue;
                }
                let other = tiles[n as usize].1;
                if !piece.walls.has(side) && !other.walls.has(side.opposite()) {
                    reached[n as usize] = true;
                    queue.push_back(n as usize);
                }
            }
        }
        for (i, &(p, piece)) in tiles.iter().enumerate() {
            if !reached[i] {
                out.push(Violation::new(
                    Rule::Unreachable,
                    p,
                    None,
                    format!(
                        "{} at {p} cannot be reached on foot from the fountain: walls or gaps block every way to it",
                        piece.building
                    ),
                ));
            }
        }
    }

    // Holes: empty cells that the outside (the grid's empty border) cannot reach through
    // edge-adjacent empty cells.
    let mut outside = vec![false; grid.cells.len()];
    let mut stack = vec![0usize]; // the border's corner is always empty
    outside[0] = true;
    while let Some(i) = stack.pop() {
        let p = grid.pos(i);
        for side in Side::ALL {
            if let Some(j) = grid.index(p.neighbour(side))
                && !outside[j]
                && grid.cells[j] == EMPTY
            {
                outside[j] = true;
                stack.push(j);
            }
        }
    }
    let mut holes: Vec<Pos> = (0..grid.cells.len())
        .filter(|&i| grid.cells[i] == EMPTY && !outside[i])
        .map(|i| grid.pos(i))
        .filter(|&p| match alhambra.rules().holes {
            HoleRule::AnyEnclosedRegion => true,
            HoleRule::SingleCell => Side::ALL
                .into_iter()
                .all(|s| grid.at(p.neighbour(s)) != EMPTY),
        })
        .collect();
    holes.sort();
    for p in holes {
        out.push(Violation::new(
            Rule::Hole,
            p,
            None,
            format!("the empty cell {p} is enclosed by the Alhambra: holes are not allowed"),
        ));
    }
    out
}

/// The violations of `after` that `before` did not have: what a change caused.
pub fn new_violations(before: &Alhambra, after: &Alhambra) -> Vec<Violation> {
    let old: HashSet<_> = check(before).iter().map(Violation::key).collect();
    check(after)
        .into_iter()
        .filter(|v| !old.contains(&v.key()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alhambra::Piece;
    use crate::side::Walls;

    fn layout(tiles: &[(i32, i32, Building, &str)]) -> Alhambra {
        Alhambra::from_pieces(tiles.iter().map(|&(x, y, b, w)| {
            (
                Pos::new(x, y),
                Piece::new(b, Walls::from_letters(w).unwrap_or_default()),
            )
        }))
        .expect("well-formed layout")
    }

    fn rules_of(v: &[Violation]) -> Vec<(Rule, i32, i32)> {
        v.iter().map(|v| (v.rule, v.pos.x, v.pos.y)).collect()
    }

    use Building::{Fountain as F, Garden as G, Tower as T};

    #[test]
    fn a_lone_fountain_is_legal() {
        assert!(Alhambra::new().is_legal());
    }

    #[test]
    fn every_cell_within_reach_filled_is_legal() {
        // More tiles than a u16 index counts: every one is still reached.
        let r = crate::alhambra::MAX_REACH;
        let full = Alhambra::from_pieces((-r..=r).flat_map(|y| {
            (-r..=r).map(move |x| {
                let b = if (x, y) == (0, 0) { F } else { G };
                (Pos::new(x, y), Piece::new(b, Walls::NONE))
            })
        }))
        .expect("well-formed layout");
        assert!(full.len() > usize::from(u16::MAX));
        assert_eq!(rules_of(&full.check()), vec![]);
    }

    #[test]
    fn fountain_count() {
        let none = layout(&[(0, 0, G, "-")]);
        assert_eq!(rules_of(&none.check()), vec![(Rule::FountainCount, 0, 0)]);
        let two = layout(&[(0, 0, F, "-"), (1, 0, F, "-")]);
        assert_eq!(
            rules_of(&two.check()),
            vec![(Rule::FountainCount, 0, 0), (Rule::FountainCount, 1, 0)]
        );
        let empty = Alhambra::from_pieces([]).expect("empty");
        assert_eq!(rules_of(&empty.check()), vec![(Rule::FountainCount, 0, 0)]);
    }

    /// The Japanese text's examples: [A][B|][|C] is legal (B's east wall meets C's west
    /// wall), but C is then cut off unless reachable another way; [A][B|][C] is a mismatch.
    #[test]
    fn the_rulebook_examples() {
        let mismatch = layout(&[(0, 0, F, "-"), (1, 0, G, "E"), (2, 0, T, "-")]);
        let v = mismatch.check();
        assert_eq!(
            v.iter().filter(|v| v.rule == Rule::WallMismatch).count(),
            2,
            "both tiles of the pair"
        );
        assert!(
            v.iter()
                .any(|v| v.pos == Pos::new(1, 0) && v.side == Some(Side::East))
        );
        assert!(
            v.iter()
                .any(|v| v.pos == Pos::new(2, 0) && v.side == Some(Side::West))
        );
        assert!(v[0].message.contains("garden at (1,0)"), "{}", v[0].message);

        let back_to_back = layout(&[(0, 0, F, "-"), (1, 0, G, "E"), (2, 0, T, "W")]);
        assert_eq!(
            rules_of(&back_to_back.check()),
            vec![(Rule::Unreachable, 2, 0)]
        );

        // Reached around the wall, the same pair is legal.
        let around = layout(&[
            (0, 0, F, "-"),
            (1, 0, G, "E"),
            (2, 0, T, "W"),
            (0, 1, G, "-"),
            (1, 1, G, "-"),
            (2, 1, G, "-"),
        ]);
        assert!(around.is_legal(), "{:?}", around.check());
    }

    #[test]
    fn a_corner_touch_is_not_a_join() {
        let diagonal = layout(&[(0, 0, F, "-"), (1, 1, G, "-")]);
        assert_eq!(rules_of(&diagonal.check()), vec![(Rule::Unreachable, 1, 1)]);
    }

    #[test]
    fn a_single_cell_hole() {
        let ring = layout(&[
            (0, 0, F, "-"),
            (1, 0, G, "-"),
            (2, 0, G, "-"),
            (0, 1, G, "-"),
            (2, 1, G, "-"),
            (0, 2, G, "-"),
            (1, 2, G, "-"),
            (2, 2, G, "-"),
        ]);
        assert_eq!(rules_of(&ring.check()), vec![(Rule::Hole, 1, 1)]);
        let strict = ring.clone().with_rules(Rules {
            holes: HoleRule::SingleCell,
        });
        assert_eq!(rules_of(&strict.check()), vec![(Rule::Hole, 1, 1)]);
    }

    #[test]
    fn a_two_cell_hole() {
        let ring = layout(&[
            (0, 0, F, "-"),
            (1, 0, G, "-"),
            (2, 0, G, "-"),
            (3, 0, G, "-"),
            (0, 1, G, "-"),
            (3, 1, G, "-"),
            (0, 2, G, "-"),
            (1, 2, G, "-"),
            (2, 2, G, "-"),
            (3, 2, G, "-"),
        ]);
        assert_eq!(
            rules_of(&ring.check()),
            vec![(Rule::Hole, 1, 1), (Rule::Hole, 2, 1)]
        );
        let strict = ring.with_rules(Rules {
            holes: HoleRule::SingleCell,
        });
        assert!(
            strict.is_legal(),
            "the strict reading allows a two-cell hole"
        );
    }

    #[test]
    fn a_hole_sealed_only_at_a_corner() {
        // . G G .
        // G . . G     the corners (0,1)-(1,0) and (2,0)-(3,1) etc. touch diagonally only
        // . G G .
        // F joins on the west via (-1,1).
        let pinched = layout(&[
            (-1, 1, F, "-"),
            (1, 0, G, "-"),
            (2, 0, G, "-"),
            (0, 1, G, "-"),
            (3, 1, G, "-"),
            (1, 2, G, "-"),
            (2, 2, G, "-"),
        ]);
        let holes: Vec<_> = pinched
            .check()
            .into_iter()
            .filter(|v| v.rule == Rule::Hole)
            .collect();
        assert_eq!(
            rules_of(&holes),
            vec![(Rule::Hole, 1, 1), (Rule::Hole, 2, 1)]
        );
        let strict = pinched.with_rules(Rules {
            holes: HoleRule::SingleCell,
        });
        assert!(strict.check().iter().all(|v| v.rule != Rule::Hole));
    }

    #[test]
    fn violations_serialise_as_the_contract_says() {
        let v = layout(&[(0, 0, F, "-"), (1, 0, G, "W")]).check();
        let json = serde_json::to_value(&v[1]).expect("serialisable");
        assert_eq!(json["rule"], "wall_mismatch");
        assert_eq!(json["x"], 1);
        assert_eq!(json["y"], 0);
        assert_eq!(json["side"], "west");
        assert_eq!(
            v[0].side,
            Some(Side::East),
            "the fountain's side of the pair comes first"
        );
        let unreachable = serde_json::to_value(&v[2]).expect("serialisable");
        assert_eq!(unreachable["rule"], "unreachable");
        assert!(unreachable.get("side").is_none());
    }
}
