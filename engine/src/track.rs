//! The score track over a game: the three rounds' results added up, the game end's
//! leftover market tiles, and the winner (or a draw).

use crate::catalogue::{Currency, MoneyCard, Tile};
use crate::scoring::{RoundScore, ScoringRound};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a round's result cannot go on the track.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TrackError {
    /// The result names other players than the track.
    #[error("the result is for {found:?}, the track for {expected:?}")]
    OtherPlayers {
        /// The track's players.
        expected: Vec<String>,
        /// The result's players.
        found: Vec<String>,
    },
    /// A round before this one has not been scored.
    #[error("{round} cannot be scored before {missing}")]
    OutOfOrder {
        /// The round given.
        round: ScoringRound,
        /// The first round not yet scored.
        missing: ScoringRound,
    },
}

/// How the game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// One player has the highest total.
    Winner(String),
    /// Several share the highest total.
    Draw(Vec<String>),
}

/// Every player's points, round by round.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ScoreTrack {
    players: Vec<String>,
    /// `rounds[r][p]`: round r+1's total for player p.
    rounds: Vec<Vec<u32>>,
}

impl ScoreTrack {
    /// A track for these players, nothing scored yet.
    pub fn new(players: impl IntoIterator<Item = impl Into<String>>) -> ScoreTrack {
        ScoreTrack {
            players: players.into_iter().map(Into::into).collect(),
            rounds: Vec::new(),
        }
    }

    /// The players, in seating order.
    pub fn players(&self) -> &[String] {
        &self.players
    }

    /// The rounds scored so far.
    pub fn rounds_scored(&self) -> usize {
        self.rounds.len()
    }

    /// The next round to score, `None` once the game is over.
    pub fn next_round(&self) -> Option<ScoringRound> {
        u8::try_from(self.rounds.len() + 1)
            .ok()
            .and_then(ScoringRound::from_number)
    }

    /// Records a round's result; recording a round already scored replaces it (a
    /// correction), a later round must wait for the earlier ones.
    pub fn record(&mut self, score: &RoundScore) -> Result<(), TrackError> {
        let found: Vec<String> = score.players.iter().map(|p| p.name.clone()).collect();
        if found != self.players {
            return Err(TrackError::OtherPlayers {
                expected: self.players.clone(),
                found,
            });
        }
        let index = usize::from(score.round.number() - 1);
        if index > self.rounds.len() {
            let missing = self.next_round().unwrap_or(ScoringRound::Third);
            return Err(TrackError::OutOfOrder {
                round: score.round,
                missing,
            });
        }
        let totals = score.players.iter().map(|p| p.total).collect();
        if index == self.rounds.len() {
            self.rounds.push(totals);
        } else {
            self.rounds[index] = totals;
        }
        Ok(())
    }

    /// A round's totals per player, if scored.
    pub fn round(&self, round: ScoringRound) -> Option<&[u32]> {
        self.rounds
            .get(usize::from(round.number() - 1))
            .map(Vec::as_slice)
    }

    /// Each player's sum over the rounds scored.
    pub fn totals(&self) -> Vec<u32> {
        (0..self.players.len())
            .map(|p| self.rounds.iter().map(|r| r[p]).sum())
            .collect()
    }

    /// The winner or the draw, once all three rounds are scored.
    pub fn outcome(&self) -> Option<Outcome> {
        if self.rounds.len() < 3 || self.players.is_empty() {
            return None;
        }
        let totals = self.totals();
        let best = totals.iter().copied().max()?;
        let mut leaders: Vec<String> = self
            .players
            .iter()
            .zip(&totals)
            .filter(|(_, t)| **t == best)
            .map(|(n, _)| n.clone())
            .collect();
        Some(if leaders.len() == 1 {
            Outcome::Winner(leaders.remove(0))
        } else {
            Outcome::Draw(leaders)
        })
    }
}

/// Game end: who takes each tile left on the market. The space's currency decides: the
/// player holding the most money (sum of values) of it takes the tile; a tie leaves it.
/// Returns, per market space, the tile and the index of the player who takes it.
pub fn leftover_tiles(
    market: &[(Currency, Option<Tile>)],
    money: &[Vec<MoneyCard>],
) -> Vec<(Tile, Option<usize>)> {
    market
        .iter()
        .filter_map(|&(currency, tile)| {
            let tile = tile?;
            let held: Vec<u32> = money
                .iter()
                .map(|hand| {
                    hand.iter()
                        .filter(|c| c.currency == currency)
                        .map(|c| u32::from(c.value))
                        .sum()
                })
                .collect();
            let best = held.iter().copied().max().unwrap_or(0);
            let holders: Vec<usize> = (0..held.len()).filter(|&p| held[p] == best).collect();
            let taker = (best > 0 && holders.len() == 1).then(|| holders[0]);
            Some((tile, taker))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alhambra::Alhambra;
    use crate::catalogue::catalogue;
    use crate::scoring::score_round;

    fn round(r: ScoringRound, names: &[&str]) -> RoundScore {
        let a = Alhambra::new();
        let players: Vec<(&str, &Alhambra)> = names.iter().map(|n| (*n, &a)).collect();
        score_round(r, &players)
    }

    #[test]
    fn rounds_in_order_and_corrections_replace() {
        let mut t = ScoreTrack::new(["Ana", "Ben"]);
        assert_eq!(t.next_round(), Some(ScoringRound::First));
        assert!(matches!(
            t.record(&round(ScoringRound::Second, &["Ana", "Ben"])),
            Err(TrackError::OutOfOrder { .. })
        ));
        assert!(matches!(
            t.record(&round(ScoringRound::First, &["Ana", "Cy"])),
            Err(TrackError::OtherPlayers { .. })
        ));
        let mut r1 = round(ScoringRound::First, &["Ana", "Ben"]);
        r1.players[0].total = 5;
        t.record(&r1).expect("first round");
        r1.players[0].total = 7;
        t.record(&r1).expect("a correction");
        assert_eq!(t.totals(), vec![7, 0]);
        assert_eq!(t.outcome(), None);
        t.record(&round(ScoringRound::Second, &["Ana", "Ben"]))
            .expect("second");
        let mut r3 = round(ScoringRound::Third, &["Ana", "Ben"]);
        r3.players[1].total = 7;
        t.record(&r3).expect("third");
        assert_eq!(t.next_round(), None);
        assert_eq!(
            t.outcome(),
            Some(Outcome::Draw(vec!["Ana".into(), "Ben".into()]))
        );
    }

    #[test]
    fn leftover_tiles_go_to_the_richest_in_their_currency() {
        let tile = catalogue()[0];
        let card = |currency, value| MoneyCard { currency, value };
        let money = vec![
            vec![card(Currency::Blue, 9), card(Currency::Green, 3)],
            vec![
                card(Currency::Blue, 4),
                card(Currency::Blue, 4),
                card(Currency::Green, 3),
            ],
        ];
        let market = [
            (Currency::Blue, Some(tile)),
            (Currency::Green, Some(tile)),
            (Currency::Yellow, Some(tile)),
            (Currency::Orange, None),
        ];
        let out = leftover_tiles(&market, &money);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0].1, Some(0), "9 blue beats 8 blue");
        assert_eq!(out[1].1, None, "a tie leaves the tile");
        assert_eq!(out[2].1, None, "nobody holds yellow");
    }
}
