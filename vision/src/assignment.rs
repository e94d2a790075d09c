//! The cheapest assignment of rows to distinct columns of a cost matrix (the Hungarian
//! method with potentials, O(rows² · columns)): used to give each tile read a printed
//! tile of its own.

/// For a `rows x columns` cost matrix (`rows <= columns`, row-major, finite costs), the
/// column each row takes in an assignment of least total cost; `None` when the matrix
/// has more rows than columns or a cost that is not finite.
pub fn cheapest_assignment(costs: &[f64], rows: usize, columns: usize) -> Option<Vec<usize>> {
    if rows > columns || costs.len() != rows * columns || costs.iter().any(|c| !c.is_finite()) {
        return None;
    }
    let cost = |r: usize, c: usize| costs[r * columns + c];
    // 1-based as in the textbook form: row 0 and column 0 are the virtual start.
    let mut u = vec![0f64; rows + 1];
    let mut v = vec![0f64; columns + 1];
    // owner[c]: the row holding column c (0: none).
    let mut owner = vec![0usize; columns + 1];
    let mut way = vec![0usize; columns + 1];
    for r in 1..=rows {
        owner[0] = r;
        let mut c0 = 0usize;
        let mut least = vec![f64::INFINITY; columns + 1];
        let mut used = vec![false; columns + 1];
        loop {
            used[c0] = true;
            let r0 = owner[c0];
            let mut delta = f64::INFINITY;
            let mut c1 = 0usize;
            for c in 1..=columns {
                if used[c] {
                    continue;
                }
                let reduced = cost(r0 - 1, c - 1) - u[r0] - v[c];
                if reduced < least[c] {
                    least[c] = reduced;
                    way[c] = c0;
                }
                if least[c] < delta {
                    delta = least[c];
                    c1 = c;
                }
            }
            if c1 == 0 {
                // Cannot happen with finite costs and rows <= columns.
                return None;
            }
            for c in 0..=columns {
                if used[c] {
                    u[owner[c]] += delta;
                    v[c] -= delta;
                } else {
                    least[c] -= delta;
                }
            }
            c0 = c1;
            if owner[c0] == 0 {
                break;
            }
        }
        // Flip the augmenting path.
        loop {
            let c1 = way[c0];
            owner[c0] = owner[c1];
            c0 = c1;
            if c0 == 0 {
                break;
            }
        }
    }
    let mut taken = vec![0usize; rows];
    for c in 1..=columns {
        if owner[c] != 0 {
            taken[owner[c] - 1] = c - 1;
        }
    }
    Some(taken)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn total(costs: &[f64], columns: usize, taken: &[usize]) -> f64 {
        taken
            .iter()
            .enumerate()
            .map(|(r, &c)| costs[r * columns + c])
            .sum()
    }

    /// Every injective assignment, tried one by one.
    fn least_by_trying(costs: &[f64], rows: usize, columns: usize) -> f64 {
        fn go(costs: &[f64], columns: usize, r: usize, rows: usize, used: &mut [bool]) -> f64 {
            if r == rows {
                return 0.0;
            }
            let mut best = f64::INFINITY;
            for c in 0..columns {
                if !used[c] {
                    used[c] = true;
                    let t = costs[r * columns + c] + go(costs, columns, r + 1, rows, used);
                    used[c] = false;
                    best = best.min(t);
                }
            }
            best
        }
        go(costs, columns, 0, rows, &mut vec![false; columns])
    }

    #[test]
    fn two_rows_wanting_one_column_share_it_the_cheapest_way() {
        // Both rows like column 0 best; row 1 loses more by moving, so row 0 moves.
        let costs = [0.0, 1.0, 5.0, 0.0, 9.0, 7.0];
        let taken = cheapest_assignment(&costs, 2, 3).expect("solvable");
        assert_eq!(taken, vec![1, 0]);
    }

    #[test]
    fn more_rows_than_columns_or_bad_costs_are_refused() {
        assert_eq!(cheapest_assignment(&[0.0, 1.0], 2, 1), None);
        assert_eq!(cheapest_assignment(&[0.0, f64::NAN], 1, 2), None);
        assert_eq!(cheapest_assignment(&[0.0], 1, 2), None);
        assert_eq!(cheapest_assignment(&[], 0, 3), Some(vec![]));
    }

    proptest! {
        #[test]
        fn the_assignment_is_one_to_one_and_least_costly(
            rows in 1usize..5,
            extra in 0usize..3,
            seed in proptest::collection::vec(0u8..20, 40),
        ) {
            let columns = rows + extra;
            let costs: Vec<f64> = (0..rows * columns).map(|k| f64::from(seed[k % seed.len()]) + (k % 3) as f64 * 0.5).collect();
            let taken = cheapest_assignment(&costs, rows, columns).expect("solvable");
            let mut seen = taken.clone();
            seen.sort_unstable();
            seen.dedup();
            prop_assert_eq!(seen.len(), rows);
            prop_assert!(taken.iter().all(|&c| c < columns));
            let best = least_by_trying(&costs, rows, columns);
            prop_assert!((total(&costs, columns, &taken) - best).abs() < 1e-9);
        }
    }
}
