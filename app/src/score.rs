//! `alhambra score`: a scoring round over a game file.

use crate::Outcome;
use crate::cli::ScoreArgs;
use crate::input::read_json;
use crate::not_printed;
use crate::output;
use alhambra_engine::{Alhambra, Building, GameFile, ScoringRound, score_round};
use anyhow::{Context, Result};

/// Scores the round and prints the table or the JSON.
pub fn run(args: &ScoreArgs) -> Result<Outcome> {
    let game: GameFile = read_json(&args.game)?;
    let players = game
        .to_alhambras()
        .with_context(|| args.game.display().to_string())?;
    let round = ScoringRound::from_number(args.round)
        .with_context(|| format!("round {} does not exist (1, 2 or 3)", args.round))?;
    let refs: Vec<(&str, &Alhambra)> = players.iter().map(|(n, a)| (n.as_str(), a)).collect();
    let score = score_round(round, &refs);
    if args.json {
        output::print(&(serde_json::to_string(&score)? + "\n"))?;
    } else {
        output::print(&table(&score))?;
    }
    for ((name, alhambra), s) in players.iter().zip(&score.players) {
        for line in not_printed::lines(alhambra) {
            eprintln!("note: {name}'s Alhambra: {line}");
        }
        let broken = alhambra.check().len();
        if broken > 0 {
            eprintln!(
                "note: {name}'s Alhambra breaks the placement rules in {broken} place(s); `alhambra check` lists them"
            );
        }
        if !s.longest_wall.exhaustive {
            eprintln!(
                "note: {name}'s wall is too branched to search fully; {} is a lower bound",
                s.wall
            );
        }
    }
    Ok(Outcome::Done)
}

fn table(score: &alhambra_engine::RoundScore) -> String {
    let name_width = score
        .players
        .iter()
        .map(|p| p.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut out = format!("Scoring {}\n", score.round);
    out.push_str(&format!("{:<name_width$}", "player"));
    for b in Building::SCORING {
        out.push_str(&format!(" {:>8}", b.name()));
    }
    out.push_str(&format!(" {:>5} {:>6}\n", "wall", "total"));
    for p in &score.players {
        out.push_str(&format!("{:<name_width$}", p.name));
        for b in Building::SCORING {
            let cell = format!("{} ({})", p.buildings.get(b), p.counts.get(b));
            out.push_str(&format!(" {cell:>8}"));
        }
        out.push_str(&format!(" {:>5} {:>6}\n", p.wall, p.total));
    }
    out.push_str("points (tiles) per building type; wall = longest outer wall in segments\n");
    out
}
