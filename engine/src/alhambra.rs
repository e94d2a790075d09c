//! `Alhambra`: one player's grid of tiles around their fountain, with the redesign actions
//! (place, remove, swap) that answer with the violations they would cause before changing
//! anything.

use crate::building::Building;
use crate::catalogue::{self, Tile};
use crate::pos::Pos;
use crate::rules::{self, Rule, Rules, Violation};
use crate::side::{Side, Walls};
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

/// How far from the fountain a tile may lie. The base game has 54 building tiles, so a
/// connected Alhambra never reaches further; the bound keeps every grid computation small
/// whatever a file or a scan says.
pub const MAX_REACH: i32 = 128;

/// What lies on one cell of the grid: a building with its walls. The price is not part of
/// the layout (the camera does not always read it, and no rule needs it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The building on it.
    pub building: Building,
    /// Its walls in the fountain's orientation.
    pub walls: Walls,
}

impl Piece {
    /// The fountain (no walls).
    pub const FOUNTAIN: Piece = Piece {
        building: Building::Fountain,
        walls: Walls::NONE,
    };

    /// A building with walls.
    pub fn new(building: Building, walls: Walls) -> Piece {
        Piece { building, walls }
    }

    /// Whether this (building, walls) pair exists in the base game's catalogue.
    pub fn in_catalogue(self) -> bool {
        catalogue::exists(self.building, self.walls)
    }
}

impl From<Tile> for Piece {
    fn from(tile: Tile) -> Piece {
        Piece {
            building: tile.building,
            walls: tile.walls,
        }
    }
}

impl From<&Tile> for Piece {
    fn from(tile: &Tile) -> Piece {
        Piece::from(*tile)
    }
}

/// A layout that cannot be an Alhambra at all (bad input, not a rule violation).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LayoutError {
    /// Two tiles claim one cell.
    #[error("two tiles on cell {0}")]
    TwoTilesOnOneCell(Pos),
    /// The fountain carries no walls.
    #[error("the fountain at {0} has walls; a fountain has none")]
    FountainWithWalls(Pos),
    /// A cell beyond [`MAX_REACH`].
    #[error("cell {0} is more than {MAX_REACH} cells from (0, 0), the fountain's cell")]
    OutOfReach(Pos),
}

/// One player's Alhambra: the tiles on the grid, addressed from the fountain at (0, 0).
///
/// The grid may hold any layout (a scan can be illegal); [`Alhambra::check`] says what is
/// wrong with it, and the redesign actions refuse changes that would break a rule.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Alhambra {
    cells: BTreeMap<Pos, Piece>,
    rules: Rules,
}

/// What changed on one cell between two readings of an Alhambra.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// A tile appeared on an empty cell.
    Added(Pos, Piece),
    /// The tile on the cell was taken away.
    Removed(Pos, Piece),
    /// The tile on the cell was exchanged for another (before, after).
    Swapped(Pos, Piece, Piece),
}

impl Change {
    /// The cell that changed.
    pub fn pos(self) -> Pos {
        match self {
            Change::Added(p, _) | Change::Removed(p, _) | Change::Swapped(p, _, _) => p,
        }
    }
}

fn in_reach(pos: Pos) -> bool {
    // `unsigned_abs`: `i32::MIN.abs()` overflows (a file may hold any i32).
    pos.x.unsigned_abs() <= MAX_REACH.unsigned_abs()
        && pos.y.unsigned_abs() <= MAX_REACH.unsigned_abs()
}

impl Alhambra {
    /// A new Alhambra: the fountain alone, default rules.
    pub fn new() -> Alhambra {
        let mut cells = BTreeMap::new();
        cells.insert(Pos::ORIGIN, Piece::FOUNTAIN);
        Alhambra {
            cells,
            rules: Rules::default(),
        }
    }

    /// An Alhambra holding exactly these pieces, legal or not.
    pub fn from_pieces(
        pieces: impl IntoIterator<Item = (Pos, Piece)>,
    ) -> Result<Alhambra, LayoutError> {
        let mut cells = BTreeMap::new();
        for (pos, piece) in pieces {
            if !in_reach(pos) {
                return Err(LayoutError::OutOfReach(pos));
            }
            if piece.building == Building::Fountain && piece.walls != Walls::NONE {
                return Err(LayoutError::FountainWithWalls(pos));
            }
            if cells.insert(pos, piece).is_some() {
                return Err(LayoutError::TwoTilesOnOneCell(pos));
            }
        }
        Ok(Alhambra {
            cells,
            rules: Rules::default(),
        })
    }

    /// The same Alhambra judged by other (house) rules.
    #[must_use]
    pub fn with_rules(mut self, rules: Rules) -> Alhambra {
        self.rules = rules;
        self
    }

    /// The rules this Alhambra is judged by.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The piece on a cell.
    pub fn get(&self, pos: Pos) -> Option<Piece> {
        self.cells.get(&pos).copied()
    }

    /// Every tile with its cell, ordered by x then y.
    pub fn tiles(&self) -> impl Iterator<Item = (Pos, Piece)> + '_ {
        self.cells.iter().map(|(&p, &t)| (p, t))
    }

    /// How many tiles (the fountain included).
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether the grid holds no tile at all (not even a fountain).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// How many tiles of a building type.
    pub fn count(&self, building: Building) -> u32 {
        self.cells
            .values()
            .filter(|t| t.building == building)
            .count() as u32
    }

    /// The tile counts of the six scoring types, in [`Building::SCORING`] order.
    pub fn building_counts(&self) -> [u32; 6] {
        let mut counts = [0; 6];
        for piece in self.cells.values() {
            if let Some(i) = piece.building.scoring_index() {
                counts[i] += 1;
            }
        }
        counts
    }

    /// The smallest and largest occupied x and y: `(min, max)`, or `None` when empty.
    pub fn bounds(&self) -> Option<(Pos, Pos)> {
        let mut it = self.cells.keys();
        let first = *it.next()?;
        Some(it.fold((first, first), |(lo, hi), p| {
            (
                Pos::new(lo.x.min(p.x), lo.y.min(p.y)),
                Pos::new(hi.x.max(p.x), hi.y.max(p.y)),
            )
        }))
    }

    /// Whether the layout breaks no rule.
    pub fn is_legal(&self) -> bool {
        rules::check(self).is_empty()
    }

    /// Every rule the layout breaks, as CONTRACTS.md lists them: fountain count, wall
    /// mismatches, unreachable tiles, holes. Empty when legal.
    pub fn check(&self) -> Vec<Violation> {
        rules::check(self)
    }

    /// What placing `piece` on `pos` would break; empty when the placement is legal.
    pub fn preview_place(&self, pos: Pos, piece: Piece) -> Vec<Violation> {
        if !in_reach(pos) {
            return vec![Violation::new(
                Rule::OutOfReach,
                pos,
                None,
                format!("{pos} is more than {MAX_REACH} cells from (0, 0), the fountain's cell"),
            )];
        }
        if let Some(there) = self.get(pos) {
            return vec![Violation::new(
                Rule::Occupied,
                pos,
                None,
                format!("{pos} already holds a {}", there.building),
            )];
        }
        let joined = Side::ALL
            .into_iter()
            .any(|s| self.cells.contains_key(&pos.neighbour(s)));
        if !joined {
            return vec![Violation::new(
                Rule::NotJoined,
                pos,
                None,
                format!(
                    "a {} at {pos} would share no full side with the Alhambra",
                    piece.building
                ),
            )];
        }
        let mut after = self.clone();
        after.cells.insert(pos, piece);
        rules::new_violations(self, &after)
    }

    /// Places `piece` on `pos` if that breaks no rule; otherwise changes nothing and
    /// returns what it would break.
    pub fn place(&mut self, pos: Pos, piece: Piece) -> Result<(), Vec<Violation>> {
        let violations = self.preview_place(pos, piece);
        if !violations.is_empty() {
            return Err(violations);
        }
        self.cells.insert(pos, piece);
        Ok(())
    }

    /// What taking the tile on `pos` away (to the reserve) would break.
    pub fn preview_remove(&self, pos: Pos) -> Vec<Violation> {
        match self.get(pos) {
            None => vec![Violation::new(
                Rule::NothingThere,
                pos,
                None,
                format!("there is no tile at {pos} to take away"),
            )],
            Some(p) if p.building == Building::Fountain => {
                vec![Violation::new(
                    Rule::FountainFixed,
                    pos,
                    None,
                    format!("the fountain at {pos} can never be taken away"),
                )]
            }
            Some(_) => {
                let mut after = self.clone();
                after.cells.remove(&pos);
                rules::new_violations(self, &after)
            }
        }
    }

    /// Takes the tile on `pos` away if that breaks no rule, returning it.
    pub fn remove(&mut self, pos: Pos) -> Result<Piece, Vec<Violation>> {
        let violations = self.preview_remove(pos);
        if !violations.is_empty() {
            return Err(violations);
        }
        self.cells.remove(&pos).ok_or_else(Vec::new)
    }

    /// What exchanging the tile on `pos` for `piece` (from the reserve) would break.
    pub fn preview_swap(&self, pos: Pos, piece: Piece) -> Vec<Violation> {
        match self.get(pos) {
            None => vec![Violation::new(
                Rule::NothingThere,
                pos,
                None,
                format!("there is no tile at {pos} to exchange"),
            )],
            Some(p) if p.building == Building::Fountain || piece.building == Building::Fountain => {
                vec![Violation::new(
                    Rule::FountainFixed,
                    pos,
                    None,
                    format!("the fountain cannot be exchanged (at {pos})"),
                )]
            }
            Some(_) => {
                let mut after = self.clone();
                after.cells.insert(pos, piece);
                rules::new_violations(self, &after)
            }
        }
    }

    /// Exchanges the tile on `pos` for `piece` if that breaks no rule, returning the old one.
    pub fn swap(&mut self, pos: Pos, piece: Piece) -> Result<Piece, Vec<Violation>> {
        let violations = self.preview_swap(pos, piece);
        if !violations.is_empty() {
            return Err(violations);
        }
        self.cells.insert(pos, piece).ok_or_else(Vec::new)
    }

    /// Every empty cell where `piece` could be placed legally, ordered by x then y.
    pub fn legal_positions(&self, piece: Piece) -> Vec<Pos> {
        let candidates: BTreeSet<Pos> = self
            .cells
            .keys()
            .flat_map(|&p| Side::ALL.map(|s| p.neighbour(s)))
            .filter(|p| !self.cells.contains_key(p))
            .collect();
        candidates
            .into_iter()
            .filter(|&p| self.preview_place(p, piece).is_empty())
            .collect()
    }

    /// The whole Alhambra turned a quarter clockwise about the fountain, walls with it.
    #[must_use]
    pub fn rotated_clockwise(&self) -> Alhambra {
        let cells = self
            .tiles()
            .map(|(p, t)| {
                (
                    p.rotated_clockwise(),
                    Piece::new(t.building, t.walls.rotated_clockwise()),
                )
            })
            .collect();
        Alhambra {
            cells,
            rules: self.rules,
        }
    }

    /// The whole Alhambra mirrored across the fountain's north-south axis.
    #[must_use]
    pub fn mirrored(&self) -> Alhambra {
        let cells = self
            .tiles()
            .map(|(p, t)| (p.mirrored(), Piece::new(t.building, t.walls.mirrored())))
            .collect();
        Alhambra {
            cells,
            rules: self.rules,
        }
    }

    /// The cell-by-cell changes from `before` to `self`, ordered by cell.
    pub fn changes_since(&self, before: &Alhambra) -> Vec<Change> {
        let cells: BTreeSet<Pos> = self
            .cells
            .keys()
            .chain(before.cells.keys())
            .copied()
            .collect();
        cells
            .into_iter()
            .filter_map(|p| match (before.get(p), self.get(p)) {
                (None, Some(t)) => Some(Change::Added(p, t)),
                (Some(t), None) => Some(Change::Removed(p, t)),
                (Some(a), Some(b)) if a != b => Some(Change::Swapped(p, a, b)),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(b: Building, walls: &str) -> Piece {
        Piece::new(b, Walls::from_letters(walls).unwrap_or_default())
    }

    #[test]
    fn placement_answers_before_changing_anything() {
        let mut a = Alhambra::new();
        assert_eq!(
            a.place(Pos::new(1, 0), piece(Building::Garden, "N")),
            Ok(())
        );
        let before = a.clone();
        let err = a
            .place(Pos::new(1, 0), piece(Building::Tower, "-"))
            .unwrap_err();
        assert_eq!(err[0].rule, Rule::Occupied);
        let err = a
            .place(Pos::new(5, 5), piece(Building::Tower, "-"))
            .unwrap_err();
        assert_eq!(err[0].rule, Rule::NotJoined);
        // A west wall facing the fountain's open east side.
        let err = a
            .place(Pos::new(0, 1), piece(Building::Tower, "N"))
            .unwrap_err();
        assert!(
            err.iter()
                .any(|v| v.rule == Rule::WallMismatch && v.pos == Pos::new(0, 1))
        );
        assert_eq!(a, before);
    }

    #[test]
    fn a_cell_at_the_ends_of_the_integers_is_out_of_reach_not_a_panic() {
        for pos in [
            Pos::new(i32::MIN, 0),
            Pos::new(0, i32::MIN),
            Pos::new(i32::MAX, 1),
        ] {
            let layout = [
                (Pos::ORIGIN, Piece::FOUNTAIN),
                (pos, piece(Building::Garden, "-")),
            ];
            assert_eq!(
                Alhambra::from_pieces(layout),
                Err(LayoutError::OutOfReach(pos))
            );
        }
    }

    #[test]
    fn the_fountain_stays() {
        let mut a = Alhambra::new();
        assert_eq!(
            a.remove(Pos::ORIGIN).unwrap_err()[0].rule,
            Rule::FountainFixed
        );
        assert_eq!(
            a.swap(Pos::ORIGIN, piece(Building::Garden, "-"))
                .unwrap_err()[0]
                .rule,
            Rule::FountainFixed
        );
        assert_eq!(
            a.remove(Pos::new(3, 3)).unwrap_err()[0].rule,
            Rule::NothingThere
        );
    }

    #[test]
    fn removing_a_bridge_strands_the_tiles_behind_it() {
        let mut a = Alhambra::new();
        a.place(Pos::new(1, 0), piece(Building::Garden, "-"))
            .expect("legal");
        a.place(Pos::new(2, 0), piece(Building::Tower, "-"))
            .expect("legal");
        let err = a.remove(Pos::new(1, 0)).unwrap_err();
        assert!(
            err.iter()
                .any(|v| v.rule == Rule::Unreachable && v.pos == Pos::new(2, 0))
        );
        assert_eq!(a.remove(Pos::new(2, 0)), Ok(piece(Building::Tower, "-")));
    }

    #[test]
    fn legal_positions_respect_the_walls() {
        let mut a = Alhambra::new();
        a.place(Pos::new(1, 0), piece(Building::Garden, "E"))
            .expect("legal");
        let spots = a.legal_positions(piece(Building::Tower, "-"));
        assert!(!spots.contains(&Pos::new(2, 0)), "walled east side");
        assert!(spots.contains(&Pos::new(-1, 0)));
        assert!(spots.contains(&Pos::new(1, 1)));
        for p in spots {
            assert!(a.preview_place(p, piece(Building::Tower, "-")).is_empty());
        }
    }

    #[test]
    fn changes_name_added_removed_and_swapped_cells() {
        let mut a = Alhambra::new();
        a.place(Pos::new(1, 0), piece(Building::Garden, "-"))
            .expect("legal");
        a.place(Pos::new(-1, 0), piece(Building::Garden, "-"))
            .expect("legal");
        let mut b = a.clone();
        b.remove(Pos::new(-1, 0)).expect("legal");
        b.swap(Pos::new(1, 0), piece(Building::Tower, "-"))
            .expect("legal");
        b.place(Pos::new(0, 1), piece(Building::Pavilion, "-"))
            .expect("legal");
        let changes = b.changes_since(&a);
        assert_eq!(changes.len(), 3);
        assert!(matches!(changes[0], Change::Removed(p, _) if p == Pos::new(-1, 0)));
        assert!(matches!(changes[1], Change::Added(p, _) if p == Pos::new(0, 1)));
        assert!(matches!(changes[2], Change::Swapped(p, _, _) if p == Pos::new(1, 0)));
    }

    #[test]
    fn bad_layouts_are_errors_not_violations() {
        let two = [
            (Pos::ORIGIN, Piece::FOUNTAIN),
            (Pos::ORIGIN, piece(Building::Garden, "-")),
        ];
        assert_eq!(
            Alhambra::from_pieces(two),
            Err(LayoutError::TwoTilesOnOneCell(Pos::ORIGIN))
        );
        let far = [(Pos::new(MAX_REACH + 1, 0), Piece::FOUNTAIN)];
        assert!(matches!(
            Alhambra::from_pieces(far),
            Err(LayoutError::OutOfReach(_))
        ));
        let walled = [(Pos::ORIGIN, piece(Building::Fountain, "N"))];
        assert!(matches!(
            Alhambra::from_pieces(walled),
            Err(LayoutError::FountainWithWalls(_))
        ));
    }
}
