//! The four sides of a tile and the `Walls` bitset saying which of them carry a wall.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A side of a tile, in the fountain's orientation (north = the roofs' side, up on screen).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Up on screen, y - 1.
    North,
    /// Right, x + 1.
    East,
    /// Down, y + 1.
    South,
    /// Left, x - 1.
    West,
}

impl Side {
    /// The four sides clockwise from north.
    pub const ALL: [Side; 4] = [Side::North, Side::East, Side::South, Side::West];

    /// The side facing this one across a shared edge.
    pub fn opposite(self) -> Side {
        match self {
            Side::North => Side::South,
            Side::East => Side::West,
            Side::South => Side::North,
            Side::West => Side::East,
        }
    }

    /// The side a quarter turn clockwise from this one.
    pub fn clockwise(self) -> Side {
        match self {
            Side::North => Side::East,
            Side::East => Side::South,
            Side::South => Side::West,
            Side::West => Side::North,
        }
    }

    /// The side seen in a mirror across the north-south axis (east and west trade places).
    pub fn mirrored(self) -> Side {
        match self {
            Side::East => Side::West,
            Side::West => Side::East,
            s => s,
        }
    }

    /// The grid step (dx, dy) towards the neighbour on this side.
    pub fn step(self) -> (i32, i32) {
        match self {
            Side::North => (0, -1),
            Side::East => (1, 0),
            Side::South => (0, 1),
            Side::West => (-1, 0),
        }
    }

    /// The name used in files and messages.
    pub fn name(self) -> &'static str {
        match self {
            Side::North => "north",
            Side::East => "east",
            Side::South => "south",
            Side::West => "west",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which sides of a tile carry a wall. Four bits, so no side can be listed twice.
///
/// In files it is a list of side names (`["north", "east"]`), clockwise from north.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Walls(u8);

impl Walls {
    /// No wall.
    pub const NONE: Walls = Walls(0);

    /// Walls on the given sides.
    pub fn of(sides: &[Side]) -> Walls {
        sides.iter().fold(Walls::NONE, |w, &s| w.with(s))
    }

    /// Walls from the letters N, E, S, W (as in the catalogue); `-` or "" for none.
    /// `None` for any other character.
    pub fn from_letters(letters: &str) -> Option<Walls> {
        let mut walls = Walls::NONE;
        for c in letters.chars() {
            walls = match c {
                'N' => walls.with(Side::North),
                'E' => walls.with(Side::East),
                'S' => walls.with(Side::South),
                'W' => walls.with(Side::West),
                '-' => walls,
                _ => return None,
            };
        }
        Some(walls)
    }

    /// The raw bits (north = 1, east = 2, south = 4, west = 8).
    pub fn bits(self) -> u8 {
        self.0
    }

    /// From raw bits; bits above the fourth are dropped.
    pub fn from_bits(bits: u8) -> Walls {
        Walls(bits & 0b1111)
    }

    /// Whether `side` carries a wall.
    pub fn has(self, side: Side) -> bool {
        self.0 & side.bit() != 0
    }

    /// These walls plus one on `side`.
    #[must_use]
    pub fn with(self, side: Side) -> Walls {
        Walls(self.0 | side.bit())
    }

    /// These walls without the one on `side`.
    #[must_use]
    pub fn without(self, side: Side) -> Walls {
        Walls(self.0 & !side.bit())
    }

    /// How many sides carry a wall.
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The walled sides, clockwise from north.
    pub fn sides(self) -> impl Iterator<Item = Side> {
        Side::ALL.into_iter().filter(move |&s| self.has(s))
    }

    /// The walls after turning the tile a quarter clockwise.
    #[must_use]
    pub fn rotated_clockwise(self) -> Walls {
        Walls::of(&self.sides().map(Side::clockwise).collect::<Vec<_>>())
    }

    /// The walls of the tile's mirror image across the north-south axis.
    #[must_use]
    pub fn mirrored(self) -> Walls {
        Walls::of(&self.sides().map(Side::mirrored).collect::<Vec<_>>())
    }

    /// Catalogue letters, e.g. `NE`, or `-` for none.
    pub fn letters(self) -> String {
        if self.0 == 0 {
            return "-".to_owned();
        }
        self.sides()
            .map(|s| match s {
                Side::North => 'N',
                Side::East => 'E',
                Side::South => 'S',
                Side::West => 'W',
            })
            .collect()
    }
}

impl fmt::Display for Walls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.letters())
    }
}

impl Serialize for Walls {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.sides())
    }
}

impl<'de> Deserialize<'de> for Walls {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // `null` is read as no wall, like the field left out.
        let sides = Option::<Vec<Side>>::deserialize(deserializer)?.unwrap_or_default();
        let mut walls = Walls::NONE;
        for side in sides {
            if walls.has(side) {
                return Err(serde::de::Error::custom(format!(
                    "the {side} wall is listed twice"
                )));
            }
            walls = walls.with(side);
        }
        Ok(walls)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_quarter_turns_are_the_identity() {
        for bits in 0..16 {
            let w = Walls::from_bits(bits);
            let turned = w
                .rotated_clockwise()
                .rotated_clockwise()
                .rotated_clockwise()
                .rotated_clockwise();
            assert_eq!(turned, w);
            assert_eq!(w.mirrored().mirrored(), w);
            assert_eq!(w.rotated_clockwise().count(), w.count());
        }
    }

    #[test]
    fn letters_round_trip() {
        for bits in 0..16 {
            let w = Walls::from_bits(bits);
            assert_eq!(Walls::from_letters(&w.letters()), Some(w));
        }
        assert_eq!(Walls::from_letters("NX"), None);
    }

    #[test]
    fn serde_is_a_list_of_side_names() {
        let w = Walls::of(&[Side::West, Side::North]);
        assert_eq!(
            serde_json::to_string(&w).ok().as_deref(),
            Some(r#"["north","west"]"#)
        );
        let back: Walls = serde_json::from_str(r#"["west","north"]"#).expect("valid walls");
        assert_eq!(back, w);
        assert!(serde_json::from_str::<Walls>(r#"["north","north"]"#).is_err());
        assert!(serde_json::from_str::<Walls>(r#"["up"]"#).is_err());
        let none: Walls = serde_json::from_str("null").expect("null is no wall");
        assert_eq!(none, Walls::NONE);
    }
}
