//! The longest outer wall: the longest trail through the walled sides that face empty
//! cells, each segment used once, passing corner pinch points in any pairing.

use crate::alhambra::Alhambra;
use crate::pos::Pos;
use crate::side::Side;
use std::collections::HashMap;

/// One wall segment: the side of the tile that carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Segment {
    /// The tile carrying the wall.
    pub pos: Pos,
    /// Which of its sides.
    pub side: Side,
}

impl Segment {
    /// The two lattice corners it joins; tile (x, y) spans corners (x, y) to (x+1, y+1).
    pub fn ends(self) -> ((i32, i32), (i32, i32)) {
        let Pos { x, y } = self.pos;
        match self.side {
            Side::North => ((x, y), (x + 1, y)),
            Side::East => ((x + 1, y), (x + 1, y + 1)),
            Side::South => ((x, y + 1), (x + 1, y + 1)),
            Side::West => ((x, y), (x, y + 1)),
        }
    }
}

/// A longest outer wall of an Alhambra.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LongestWall {
    /// Its length in segments, which is also its points.
    pub length: u32,
    /// The segments of one longest trail (unordered).
    pub segments: Vec<Segment>,
    /// False only if the search gave up on an absurdly branching layout (never for a layout
    /// of the real game); the length is then a lower bound.
    pub exhaustive: bool,
}

/// Search steps before giving up (about a fifth of a second). Only layouts that break the
/// rules reach it: under the default hole rule no corner joins more than two outer
/// segments, and the trail is found without branching. A checkerboard of 17-25
/// three-wall tiles touching at corners does reach it (an independent check found one
/// scoring 55 where 56 was possible); the result then says it is a lower bound.
const STEP_BUDGET: u64 = 20_000_000;

/// The walled sides facing an empty cell.
pub fn outer_segments(alhambra: &Alhambra) -> Vec<Segment> {
    alhambra
        .tiles()
        .flat_map(|(pos, piece)| piece.walls.sides().map(move |side| Segment { pos, side }))
        .filter(|s| alhambra.get(s.pos.neighbour(s.side)).is_none())
        .collect()
}

/// The longest continuous outer wall.
pub fn longest_wall(alhambra: &Alhambra) -> LongestWall {
    let segments = outer_segments(alhambra);
    let mut vertex_of: HashMap<(i32, i32), usize> = HashMap::new();
    let mut edges = Vec::with_capacity(segments.len());
    for s in &segments {
        let (a, b) = s.ends();
        let n = vertex_of.len();
        let a = *vertex_of.entry(a).or_insert(n);
        let n = vertex_of.len();
        let b = *vertex_of.entry(b).or_insert(n);
        edges.push((a, b));
    }
    let trail = longest_trail(vertex_of.len(), &edges);
    LongestWall {
        length: trail.edges.len() as u32,
        segments: trail.edges.iter().map(|&e| segments[e]).collect(),
        exhaustive: trail.exhaustive,
    }
}

struct Trail {
    edges: Vec<usize>,
    exhaustive: bool,
}

/// The longest trail (no edge twice, vertices may repeat) of an undirected graph.
///
/// Per connected component: with at most two odd-degree vertices an Euler trail uses every
/// edge. Otherwise a maximal open trail must start at an odd vertex (an even start would
/// leave an unused edge to extend by), so a depth-first search from the odd vertices, cut
/// short once it reaches the bound `edges - (odd/2 - 1)` (each removed edge fixes at most
/// two odd vertices), is exact.
fn longest_trail(vertex_count: usize, edges: &[(usize, usize)]) -> Trail {
    let mut adjacency = vec![Vec::new(); vertex_count];
    for (e, &(a, b)) in edges.iter().enumerate() {
        adjacency[a].push((e, b));
        adjacency[b].push((e, a));
    }
    let mut component = vec![usize::MAX; vertex_count];
    let mut best = Trail {
        edges: Vec::new(),
        exhaustive: true,
    };
    let mut steps = 0u64;
    for start in 0..vertex_count {
        if component[start] != usize::MAX {
            continue;
        }
        // Collect the component.
        let mut vertices = vec![start];
        component[start] = start;
        let mut i = 0;
        while i < vertices.len() {
            for &(_, w) in &adjacency[vertices[i]] {
                if component[w] == usize::MAX {
                    component[w] = start;
                    vertices.push(w);
                }
            }
            i += 1;
        }
        let mut comp_edges: Vec<usize> = vertices
            .iter()
            .flat_map(|&v| adjacency[v].iter().map(|&(e, _)| e))
            .collect();
        comp_edges.sort_unstable();
        comp_edges.dedup();
        if comp_edges.len() <= best.edges.len() {
            continue;
        }
        let odd: Vec<usize> = vertices
            .iter()
            .copied()
            .filter(|&v| adjacency[v].len() % 2 == 1)
            .collect();
        if odd.len() <= 2 {
            best = Trail {
                edges: comp_edges,
                exhaustive: best.exhaustive,
            };
            continue;
        }
        let bound = comp_edges.len() - (odd.len() / 2 - 1);
        let mut search = Search {
            adjacency: &adjacency,
            used: vec![false; edges.len()],
            path: Vec::new(),
            best: Vec::new(),
            bound,
            steps: &mut steps,
        };
        for &v in &odd {
            search.run(v);
            if search.best.len() == bound || *search.steps > STEP_BUDGET {
                break;
            }
        }
        let found = search.best;
        let exhaustive = best.exhaustive && steps <= STEP_BUDGET;
        if found.len() > best.edges.len() {
            best = Trail {
                edges: found,
                exhaustive,
            };
        } else {
            best.exhaustive = exhaustive;
        }
    }
    best
}

struct Search<'a> {
    adjacency: &'a [Vec<(usize, usize)>],
    used: Vec<bool>,
    path: Vec<usize>,
    best: Vec<usize>,
    bound: usize,
    steps: &'a mut u64,
}

impl Search<'_> {
    /// Extends the current trail from `v` in every way; true once the bound is reached.
    fn run(&mut self, v: usize) -> bool {
        *self.steps += 1;
        if self.path.len() > self.best.len() {
            self.best = self.path.clone();
            if self.best.len() == self.bound {
                return true;
            }
        }
        if *self.steps > STEP_BUDGET {
            return true;
        }
        for &(e, w) in &self.adjacency[v] {
            if self.used[e] {
                continue;
            }
            self.used[e] = true;
            self.path.push(e);
            let done = self.run(w);
            self.path.pop();
            self.used[e] = false;
            if done {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alhambra::Piece;
    use crate::building::Building;
    use crate::side::Walls;

    fn layout(tiles: &[(i32, i32, &str)]) -> Alhambra {
        Alhambra::from_pieces(tiles.iter().map(|&(x, y, w)| {
            let b = if (x, y) == (0, 0) {
                Building::Fountain
            } else {
                Building::Garden
            };
            (
                Pos::new(x, y),
                Piece::new(b, Walls::from_letters(w).unwrap_or_default()),
            )
        }))
        .expect("well-formed")
    }

    #[test]
    fn no_walls_no_points() {
        assert_eq!(longest_wall(&Alhambra::new()).length, 0);
    }

    #[test]
    fn a_fully_walled_three_by_three_ring_counts_all_twelve() {
        let a = layout(&[
            (-1, -1, "NW"),
            (0, -1, "N"),
            (1, -1, "NE"),
            (-1, 0, "W"),
            (0, 0, "-"),
            (1, 0, "E"),
            (-1, 1, "SW"),
            (0, 1, "S"),
            (1, 1, "ES"),
        ]);
        let wall = longest_wall(&a);
        assert_eq!(wall.length, 12);
        assert!(wall.exhaustive);
    }

    #[test]
    fn back_to_back_walls_never_count() {
        // Garden east wall against tower west wall: neither faces an empty cell.
        let a = layout(&[(0, 0, "-"), (1, 0, "E"), (2, 0, "W")]);
        assert_eq!(longest_wall(&a).length, 0);
    }

    #[test]
    fn separate_walls_do_not_add_up() {
        // A north wall on (1,0) and a south wall on (-1,0): not joined end to end.
        let a = layout(&[(-1, 0, "S"), (0, 0, "-"), (1, 0, "N")]);
        assert_eq!(longest_wall(&a).length, 1);
        // North walls on three tiles in a row and the last one's east wall join into one
        // wall of 4.
        let b = layout(&[(0, 0, "-"), (1, 0, "N"), (2, 0, "N"), (3, 0, "NE")]);
        assert_eq!(longest_wall(&b).length, 4);
    }

    /// Gardens on the given cells, the fountain out of the way at (9, 9).
    fn gardens(tiles: &[(i32, i32, &str)]) -> Alhambra {
        Alhambra::from_pieces(
            tiles
                .iter()
                .map(|&(x, y, w)| {
                    (
                        Pos::new(x, y),
                        Piece::new(Building::Garden, Walls::from_letters(w).unwrap_or_default()),
                    )
                })
                .chain([(Pos::new(9, 9), Piece::FOUNTAIN)]),
        )
        .expect("well-formed")
    }

    #[test]
    fn a_corner_pinch_point_joins_two_rings_into_one_wall() {
        // Two walled 2x2 blocks touching at the corner (0,0): a figure eight, one trail.
        let a = gardens(&[
            (-2, -2, "NW"),
            (-1, -2, "NE"),
            (-2, -1, "SW"),
            (-1, -1, "ES"),
            (0, 0, "NW"),
            (1, 0, "NE"),
            (0, 1, "SW"),
            (1, 1, "ES"),
        ]);
        assert_eq!(longest_wall(&a).length, 16);
    }

    #[test]
    fn at_a_pinch_point_the_trail_takes_the_two_longest_arms() {
        // Four arms meet at corner (0,0): up 1, right 2, left 2, down 1. A trail passes the
        // point once, so the best pairs left with right.
        let a = gardens(&[(0, -1, "SW"), (1, -1, "S"), (-1, 0, "NE"), (-2, 0, "N")]);
        let wall = longest_wall(&a);
        assert_eq!(outer_segments(&a).len(), 6);
        assert_eq!(wall.length, 4);
        assert!(wall.exhaustive);
        assert_eq!(wall.segments.len(), 4);
    }
}
