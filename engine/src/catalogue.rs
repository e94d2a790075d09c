//! The game's material as data: the 54 building tiles with their prices and walls, and the
//! 108 money cards.

use crate::building::Building;
use crate::pos::Pos;
use crate::side::Walls;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::OnceLock;

/// A building tile of the base game, as printed: type, price and walls (roofs north).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Tile {
    /// Index in [`catalogue`] (0..54), stable across versions.
    pub id: u8,
    /// Its building type (never the fountain).
    pub building: Building,
    /// The price printed on its badge.
    pub price: u8,
    /// Its walls in the fixed orientation.
    pub walls: Walls,
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} ({})", self.building, self.price, self.walls)
    }
}

/// The catalogue in RULES.md's notation: per type, `price:walls` entries.
const CATALOGUE_TEXT: [(Building, &str); 6] = [
    (Building::Pavilion, "2:NEW 3:SW 4:ES 5:NW 6:N 7:E 8:-"),
    (Building::Seraglio, "3:ESW 4:NE 5:SW 6:ES 7:W 8:S 9:-"),
    (
        Building::Arcades,
        "4:NES 5:NW 6:SW 6:NE 7:ES 8:N 8:E 9:- 10:-",
    ),
    (
        Building::Chambers,
        "5:NSW 6:ES 7:SW 7:NE 8:NW 9:W 9:S 10:- 11:-",
    ),
    (
        Building::Garden,
        "6:ESW 7:NSW 8:SW 8:NE 8:NW 9:E 10:N 10:W 10:- 11:- 12:S",
    ),
    (
        Building::Tower,
        "7:NEW 8:NES 9:ES 9:NE 9:NW 10:W 11:N 11:S 11:- 12:- 13:E",
    ),
];

/// The 54 building tiles of the base game, pavilions first, each type by price.
pub fn catalogue() -> &'static [Tile] {
    static TILES: OnceLock<Vec<Tile>> = OnceLock::new();
    TILES.get_or_init(|| {
        let mut tiles = Vec::with_capacity(54);
        for (building, text) in CATALOGUE_TEXT {
            for entry in text.split_whitespace() {
                let (price, walls) = entry.split_once(':').unwrap_or((entry, "-"));
                // The table is a constant checked by tests; a typo would fail them.
                let price = price.parse().unwrap_or(0);
                let walls = Walls::from_letters(walls).unwrap_or(Walls::NONE);
                let id = tiles.len() as u8;
                tiles.push(Tile {
                    id,
                    building,
                    price,
                    walls,
                });
            }
        }
        tiles
    })
}

/// Whether some tile of the catalogue has this building with exactly these walls
/// (the fountain, with no walls, counts as existing).
pub fn exists(building: Building, walls: Walls) -> bool {
    if building == Building::Fountain {
        return walls == Walls::NONE;
    }
    catalogue()
        .iter()
        .any(|t| t.building == building && t.walls == walls)
}

/// The catalogue tiles with this building and these walls (several prices may match).
pub fn matching(building: Building, walls: Walls) -> impl Iterator<Item = &'static Tile> {
    catalogue()
        .iter()
        .filter(move |t| t.building == building && t.walls == walls)
}

/// What a layout holds that the base game does not print: (building, walls) pairs no tile
/// has, with where they lie, and pairs laid more often than the game prints them. A
/// misread, an expansion piece or a second copy of the game: worth saying, never a rule
/// broken.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotPrinted {
    /// Each tile whose pair no printed tile has, in the order given.
    pub unknown: Vec<(Pos, Building, Walls)>,
    /// Each pair laid more often than printed: the pair, how often laid, how often printed.
    pub extra: Vec<(Building, Walls, usize, usize)>,
}

impl NotPrinted {
    /// Checks the tiles of a layout (the fountain is printed once per player and never
    /// counted).
    pub fn of(tiles: impl IntoIterator<Item = (Pos, Building, Walls)>) -> NotPrinted {
        let mut out = NotPrinted::default();
        let mut laid: Vec<(Building, Walls, usize)> = Vec::new();
        for (pos, building, walls) in tiles {
            if building == Building::Fountain {
                continue;
            }
            if !exists(building, walls) {
                out.unknown.push((pos, building, walls));
                continue;
            }
            match laid
                .iter_mut()
                .find(|(b, w, _)| (*b, *w) == (building, walls))
            {
                Some(entry) => entry.2 += 1,
                None => laid.push((building, walls, 1)),
            }
        }
        for (building, walls, n) in laid {
            let printed = matching(building, walls).count();
            if n > printed {
                out.extra.push((building, walls, n, printed));
            }
        }
        out
    }

    /// Whether everything laid is printed, as often as laid.
    pub fn is_empty(&self) -> bool {
        self.unknown.is_empty() && self.extra.is_empty()
    }
}

/// One of the four currencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Currency {
    /// Yellow.
    Yellow,
    /// Green.
    Green,
    /// Blue.
    Blue,
    /// Orange.
    Orange,
}

impl Currency {
    /// All four, in the order of the market's spaces.
    pub const ALL: [Currency; 4] = [
        Currency::Yellow,
        Currency::Green,
        Currency::Blue,
        Currency::Orange,
    ];

    /// The name used in files.
    pub fn name(self) -> &'static str {
        match self {
            Currency::Yellow => "yellow",
            Currency::Green => "green",
            Currency::Blue => "blue",
            Currency::Orange => "orange",
        }
    }
}

/// A money card: a currency and a value from 1 to 9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MoneyCard {
    /// Its currency.
    pub currency: Currency,
    /// Its value, 1 to 9.
    pub value: u8,
}

/// The 108 money cards: every currency, every value 1-9, three copies each.
pub fn money_cards() -> Vec<MoneyCard> {
    let mut cards = Vec::with_capacity(108);
    for currency in Currency::ALL {
        for value in 1..=9 {
            for _ in 0..3 {
                cards.push(MoneyCard { currency, value });
            }
        }
    }
    cards
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layout_says_what_the_game_does_not_print() {
        let w = |l: &str| Walls::from_letters(l).unwrap_or(Walls::NONE);
        let none = NotPrinted::of([
            (Pos::new(0, 0), Building::Fountain, Walls::NONE),
            (Pos::new(1, 0), Building::Garden, Walls::NONE),
            (Pos::new(2, 0), Building::Garden, Walls::NONE),
        ]);
        assert!(none.is_empty(), "two plain gardens are printed: {none:?}");
        let found = NotPrinted::of([
            (Pos::new(1, 0), Building::Pavilion, w("NES")),
            (Pos::new(2, 0), Building::Garden, Walls::NONE),
            (Pos::new(3, 0), Building::Garden, Walls::NONE),
            (Pos::new(4, 0), Building::Garden, Walls::NONE),
        ]);
        assert_eq!(
            found.unknown,
            vec![(Pos::new(1, 0), Building::Pavilion, w("NES"))]
        );
        assert_eq!(found.extra, vec![(Building::Garden, Walls::NONE, 3, 2)]);
    }
    use crate::side::Side;

    #[test]
    fn fifty_four_tiles_with_the_counts_of_the_rules() {
        let tiles = catalogue();
        assert_eq!(tiles.len(), 54);
        for b in Building::SCORING {
            let n = tiles.iter().filter(|t| t.building == b).count();
            assert_eq!(n, b.tile_count(), "{b}");
        }
        for (i, t) in tiles.iter().enumerate() {
            assert_eq!(usize::from(t.id), i);
            assert!(t.price > 0);
        }
    }

    #[test]
    fn prices_run_over_the_ranges_of_the_rules() {
        let ranges = [(2, 8), (3, 9), (4, 10), (5, 11), (6, 12), (7, 13)];
        for (b, (lo, hi)) in Building::SCORING.into_iter().zip(ranges) {
            let prices: Vec<u8> = catalogue()
                .iter()
                .filter(|t| t.building == b)
                .map(|t| t.price)
                .collect();
            assert_eq!(prices.iter().min(), Some(&lo), "{b}");
            assert_eq!(prices.iter().max(), Some(&hi), "{b}");
            assert!(
                prices.windows(2).all(|w| w[0] <= w[1]),
                "{b} sorted by price"
            );
            for p in lo..=hi {
                assert!(prices.contains(&p), "{b} has a tile at {p}");
            }
        }
    }

    #[test]
    fn wall_facts_of_the_rules() {
        let tiles = catalogue();
        assert!(
            tiles.iter().all(|t| t.walls.count() < 4),
            "no four-wall tile"
        );
        for t in tiles.iter().filter(|t| t.walls.count() == 2) {
            let opposite = (t.walls.has(Side::North) && t.walls.has(Side::South))
                || (t.walls.has(Side::East) && t.walls.has(Side::West));
            assert!(!opposite, "{t} is a corner");
        }
        let sides: u32 = tiles.iter().map(|t| t.walls.count()).sum();
        assert_eq!(sides, 80);
    }

    #[test]
    fn eight_type_and_price_pairs_are_ambiguous() {
        let tiles = catalogue();
        let mut ambiguous = 0;
        for (i, a) in tiles.iter().enumerate() {
            if tiles[..i]
                .iter()
                .any(|b| b.building == a.building && b.price == a.price)
            {
                ambiguous += 1;
            }
        }
        // Four (type, price) pairs have three tiles and four have two.
        let pairs: std::collections::BTreeSet<(Building, u8)> = tiles
            .iter()
            .filter(|a| {
                tiles
                    .iter()
                    .filter(|b| b.building == a.building && b.price == a.price)
                    .count()
                    > 1
            })
            .map(|t| (t.building, t.price))
            .collect();
        assert_eq!(pairs.len(), 8);
        assert_eq!(ambiguous, 12);
    }

    #[test]
    fn existence_follows_the_catalogue() {
        assert!(exists(
            Building::Garden,
            Walls::from_letters("N").unwrap_or_default()
        ));
        assert!(exists(Building::Fountain, Walls::NONE));
        assert!(!exists(Building::Fountain, Walls::of(&[Side::North])));
        assert!(!exists(
            Building::Pavilion,
            Walls::of(&[Side::North, Side::South])
        ));
        assert_eq!(matching(Building::Garden, Walls::NONE).count(), 2);
    }

    #[test]
    fn one_hundred_and_eight_money_cards() {
        let cards = money_cards();
        assert_eq!(cards.len(), 108);
        for c in Currency::ALL {
            let total: u32 = cards
                .iter()
                .filter(|m| m.currency == c)
                .map(|m| u32::from(m.value))
                .sum();
            assert_eq!(total, 3 * 45);
        }
    }
}
