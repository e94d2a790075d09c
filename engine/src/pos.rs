//! A cell of an Alhambra's grid, addressed from the fountain.

use crate::side::Side;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A grid cell: the fountain at (0, 0), x growing east, y growing south.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Pos {
    /// Cells east of the fountain (negative: west).
    pub x: i32,
    /// Cells south of the fountain (negative: north).
    pub y: i32,
}

impl Pos {
    /// The fountain's cell.
    pub const ORIGIN: Pos = Pos { x: 0, y: 0 };

    /// The cell at (x, y).
    pub const fn new(x: i32, y: i32) -> Pos {
        Pos { x, y }
    }

    /// The neighbouring cell across `side`.
    pub fn neighbour(self, side: Side) -> Pos {
        let (dx, dy) = side.step();
        Pos::new(self.x + dx, self.y + dy)
    }

    /// This cell after turning the whole grid a quarter clockwise about the fountain.
    #[must_use]
    pub fn rotated_clockwise(self) -> Pos {
        // Screen coordinates (y down): north (0,-1) must go to east (1,0).
        Pos::new(-self.y, self.x)
    }

    /// This cell after mirroring the grid across the fountain's north-south axis.
    #[must_use]
    pub fn mirrored(self) -> Pos {
        Pos::new(-self.x, self.y)
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.x, self.y)
    }
}
