//! Invariants of the rules and the scoring over generated layouts: legal growth stays
//! legal, scores and violations do not care how the layout is turned or mirrored, a legal
//! swap keeps every tile reachable, and the wall search equals a brute-force search.

use alhambra_engine::{
    Alhambra, Building, Piece, Pos, Rule, ScoringRound, Side, Walls, catalogue, longest_wall,
    score_round, wall::outer_segments,
};
use proptest::prelude::*;
use proptest::sample::Index;

/// Grows an Alhambra by legal placements: each step takes a catalogue tile and one of its
/// legal positions (skipping tiles that fit nowhere).
fn grow(steps: &[(usize, Index)]) -> Alhambra {
    let mut a = Alhambra::new();
    for (tile, at) in steps {
        let piece = Piece::from(catalogue()[*tile]);
        let spots = a.legal_positions(piece);
        if spots.is_empty() {
            continue;
        }
        let pos = *at.get(&spots);
        assert_eq!(
            a.place(pos, piece),
            Ok(()),
            "a listed legal position is accepted"
        );
    }
    a
}

fn growth() -> impl Strategy<Value = Vec<(usize, Index)>> {
    prop::collection::vec((0usize..54, any::<Index>()), 0..30)
}

/// Any layout at all, legal or not: tiles with arbitrary walls scattered on a small area.
fn scatter() -> impl Strategy<Value = Alhambra> {
    prop::collection::btree_map((-3i32..4, -3i32..4), (1usize..7, 0u8..16), 0..20).prop_map(
        |cells| {
            let pieces = cells.into_iter().map(|((x, y), (b, w))| {
                let building = if (x, y) == (0, 0) {
                    Building::Fountain
                } else {
                    Building::ALL[b]
                };
                let walls = if building == Building::Fountain {
                    Walls::NONE
                } else {
                    Walls::from_bits(w)
                };
                (Pos::new(x, y), Piece::new(building, walls))
            });
            Alhambra::from_pieces(pieces).unwrap_or_default()
        },
    )
}

fn rule_counts(a: &Alhambra) -> Vec<(Rule, usize)> {
    let v = a.check();
    [
        Rule::FountainCount,
        Rule::WallMismatch,
        Rule::Unreachable,
        Rule::Hole,
    ]
    .into_iter()
    .map(|r| (r, v.iter().filter(|x| x.rule == r).count()))
    .collect()
}

/// The longest trail by trying every start and every continuation, no pruning.
fn brute_force_wall(a: &Alhambra) -> u32 {
    let segs: Vec<_> = outer_segments(a).into_iter().map(|s| s.ends()).collect();
    type Corner = (i32, i32);
    fn extend(v: Corner, segs: &[(Corner, Corner)], used: &mut Vec<bool>) -> u32 {
        let mut best = 0;
        for i in 0..segs.len() {
            if used[i] {
                continue;
            }
            let (p, q) = segs[i];
            let next = if p == v {
                q
            } else if q == v {
                p
            } else {
                continue;
            };
            used[i] = true;
            best = best.max(1 + extend(next, segs, used));
            used[i] = false;
        }
        best
    }
    let mut used = vec![false; segs.len()];
    segs.iter()
        .flat_map(|&(p, q)| [p, q])
        .map(|v| extend(v, &segs, &mut used))
        .max()
        .unwrap_or(0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn legal_growth_stays_legal(steps in growth()) {
        let a = grow(&steps);
        prop_assert!(a.is_legal(), "{:?}", a.check());
        // Every catalogue tile placed exists in the catalogue.
        prop_assert!(a.tiles().all(|(_, t)| t.in_catalogue()));
    }

    #[test]
    fn scores_ignore_turning_and_mirroring(steps in growth(), other in growth()) {
        let a = grow(&steps);
        let b = grow(&other);
        let base = score_round(ScoringRound::Third, &[("a", &a), ("b", &b)]);
        let mut turned_a = a.clone();
        for _ in 0..4 {
            turned_a = turned_a.rotated_clockwise();
            let turned = score_round(ScoringRound::Third, &[("a", &turned_a), ("b", &b)]);
            prop_assert_eq!(turned.players[0].total, base.players[0].total);
            prop_assert_eq!(turned.players[0].wall, base.players[0].wall);
            prop_assert!(turned_a.is_legal());
        }
        prop_assert_eq!(turned_a, a.clone());
        let mirrored = score_round(ScoringRound::Third, &[("a", &a.mirrored()), ("b", &b.mirrored())]);
        for (m, p) in mirrored.players.iter().zip(&base.players) {
            prop_assert_eq!((m.total, m.wall, m.buildings), (p.total, p.wall, p.buildings));
        }
    }

    #[test]
    fn violations_ignore_turning_and_mirroring(a in scatter()) {
        let counts = rule_counts(&a);
        prop_assert_eq!(rule_counts(&a.rotated_clockwise()), counts.clone());
        prop_assert_eq!(rule_counts(&a.mirrored()), counts);
    }

    #[test]
    fn a_legal_swap_never_changes_reachability(steps in growth(), tile in 0usize..54, which in any::<Index>()) {
        let a = grow(&steps);
        let spots: Vec<Pos> = a.tiles().filter(|(_, t)| t.building != Building::Fountain).map(|(p, _)| p).collect();
        prop_assume!(!spots.is_empty());
        let pos = *which.get(&spots);
        let piece = Piece::from(catalogue()[tile]);
        let mut b = a.clone();
        if b.swap(pos, piece).is_ok() {
            prop_assert!(b.check().iter().all(|v| v.rule != Rule::Unreachable));
            // Every shared side keeps its kind: the walk is the same.
            for side in Side::ALL {
                if a.get(pos.neighbour(side)).is_some() {
                    prop_assert_eq!(b.get(pos).map(|t| t.walls.has(side)), a.get(pos).map(|t| t.walls.has(side)));
                }
            }
        }
    }

    #[test]
    fn the_wall_search_equals_brute_force(a in scatter()) {
        prop_assume!(outer_segments(&a).len() <= 14);
        let wall = longest_wall(&a);
        prop_assert!(wall.exhaustive);
        prop_assert_eq!(wall.length, brute_force_wall(&a));
        prop_assert_eq!(wall.segments.len() as u32, wall.length);
    }

    #[test]
    fn check_never_panics_and_is_stable(a in scatter()) {
        prop_assert_eq!(a.check(), a.check());
    }
}
