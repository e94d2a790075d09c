//! Engine speed: a 6-player final round with all 54 tiles, the check of a 55-tile layout,
//! and the longest wall on a layout full of corner pinch points.

use alhambra_engine::{
    Alhambra, Building, Piece, Pos, ScoringRound, Walls, catalogue, longest_wall, score_round,
};
use std::hint::black_box;

fn main() {
    let six: usize = six_players().iter().map(Alhambra::len).sum();
    let pinch = pinch_board();
    println!(
        "layouts: biggest legal {} tiles; six players {} tiles in all; pinch board {} tiles, wall {} of {} outer segments",
        biggest_legal().len(),
        six,
        pinch.len(),
        longest_wall(&pinch).length,
        alhambra_engine::wall::outer_segments(&pinch).len()
    );
    divan::main();
}

/// A deterministic shuffle (xorshift), so the bench layouts do not depend on a crate.
fn shuffled(seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..54).collect();
    let mut s = seed | 1;
    for i in (1..order.len()).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        order.swap(i, (s % (i as u64 + 1)) as usize);
    }
    order
}

/// Grows one Alhambra from the given tiles, each at its first legal position.
fn grow(tiles: impl IntoIterator<Item = usize>) -> Alhambra {
    let mut a = Alhambra::new();
    for t in tiles {
        let piece = Piece::from(catalogue()[t]);
        if let Some(&pos) = a.legal_positions(piece).first() {
            let _ = a.place(pos, piece);
        }
    }
    a
}

/// The largest legal Alhambra over a few shuffles of all 54 tiles.
fn biggest_legal() -> Alhambra {
    (0..20)
        .map(|seed| grow(shuffled(seed)))
        .max_by_key(Alhambra::len)
        .unwrap_or_default()
}

/// All 54 tiles dealt round-robin to six players.
fn six_players() -> Vec<Alhambra> {
    let order = shuffled(7);
    (0..6)
        .map(|p| grow(order.iter().copied().skip(p).step_by(6)))
        .collect()
}

/// A checkerboard of three-wall tiles: every inner corner is a pinch point and the wall
/// ends are many, so the trail search has to branch.
fn pinch_board() -> Alhambra {
    let three = ["NES", "ESW", "NSW", "NEW"];
    let mut pieces = vec![(Pos::ORIGIN, Piece::FOUNTAIN)];
    for y in -3i32..=3 {
        for x in -3..=3 {
            if (x + y) % 2 == 0 && (x, y) != (0, 0) {
                let w = three[((x * 7 + y * 3).rem_euclid(4)) as usize];
                let walls = Walls::from_letters(w).unwrap_or_default();
                pieces.push((Pos::new(x, y), Piece::new(Building::Tower, walls)));
            }
        }
    }
    Alhambra::from_pieces(pieces).unwrap_or_default()
}

#[divan::bench]
fn score_six_player_final_round(bencher: divan::Bencher) {
    let players = six_players();
    let names = ["Ana", "Ben", "Cy", "Dee", "Eve", "Fay"];
    let refs: Vec<(&str, &Alhambra)> = names.iter().copied().zip(players.iter()).collect();
    bencher.bench(|| score_round(ScoringRound::Third, black_box(&refs)));
}

#[divan::bench]
fn check_55_tile_layout(bencher: divan::Bencher) {
    let a = biggest_legal();
    assert!(a.is_legal());
    bencher.bench(|| black_box(&a).check());
}

#[divan::bench]
fn longest_wall_on_a_pinch_board(bencher: divan::Bencher) {
    let a = pinch_board();
    bencher.bench(|| longest_wall(black_box(&a)));
}

#[divan::bench]
fn legal_positions_on_a_big_layout(bencher: divan::Bencher) {
    let a = biggest_legal();
    let piece = Piece::from(catalogue()[0]);
    bencher.bench(|| black_box(&a).legal_positions(piece));
}
