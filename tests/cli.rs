//! End-to-end: the built `alhambra` binary run on the files in fixtures/, as a user runs it.

use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(path)
}

fn alhambra(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_alhambra"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("exactly one JSON document on stdout")
}

/// Exit 2 with exactly one line on stderr naming the file (or the argument), no panic.
fn assert_bad_input(o: &Output, mentions: &str) {
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(o));
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains(mentions), "{err} should mention {mentions}");
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn check_a_legal_layout() {
    let path = fixture("layouts/legal.json");
    let o = alhambra(&["check", path.to_str().unwrap_or_default()]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("legal: 9 tiles"), "{}", stdout(&o));
    let o = alhambra(&["check", path.to_str().unwrap_or_default(), "--json"]);
    assert_eq!(
        json(&o),
        serde_json::json!({"legal": true, "violations": []})
    );
}

#[test]
fn check_reports_each_violation_as_the_contract_says() {
    let o = alhambra(&[
        "check",
        fixture("layouts/wall_mismatch.json")
            .to_str()
            .unwrap_or_default(),
        "--json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "a finding is not a failure unless asked"
    );
    let v = json(&o);
    assert_eq!(v["legal"], false);
    let violations = v["violations"].as_array().cloned().unwrap_or_default();
    let summary: Vec<(String, i64, i64, String)> = violations
        .iter()
        .map(|x| {
            (
                x["rule"].as_str().unwrap_or_default().to_owned(),
                x["x"].as_i64().unwrap_or(-99),
                x["y"].as_i64().unwrap_or(-99),
                x["side"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("wall_mismatch".into(), 1, 0, "east".into()),
            ("wall_mismatch".into(), 2, 0, "west".into()),
            ("unreachable".into(), 2, 0, String::new()),
        ]
    );
    for x in &violations {
        let message = x["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("(2,0)") || message.contains("(1,0)"),
            "{message}"
        );
    }
}

#[test]
fn check_holes_by_default_and_under_the_house_rule() {
    let two = fixture("layouts/two_cell_hole.json");
    let o = alhambra(&["check", two.to_str().unwrap_or_default(), "--json"]);
    let holes = json(&o)["violations"]
        .as_array()
        .map(|v| v.len())
        .unwrap_or(0);
    assert_eq!(holes, 2, "one per enclosed empty cell");
    let o = alhambra(&[
        "check",
        two.to_str().unwrap_or_default(),
        "--json",
        "--holes",
        "single-cell",
    ]);
    assert_eq!(json(&o)["legal"], true);
    let one = fixture("layouts/hole.json");
    let o = alhambra(&[
        "check",
        one.to_str().unwrap_or_default(),
        "--holes",
        "single-cell",
    ]);
    assert!(stdout(&o).contains("hole"), "{}", stdout(&o));
}

#[test]
fn check_can_fail_on_a_finding_when_asked() {
    let path = fixture("layouts/unreachable.json");
    let o = alhambra(&[
        "check",
        path.to_str().unwrap_or_default(),
        "--fail-if-illegal",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let o = alhambra(&[
        "check",
        fixture("layouts/legal.json").to_str().unwrap_or_default(),
        "--fail-if-illegal",
    ]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn bad_layouts_are_bad_input() {
    for (file, problem) in [
        (
            "layouts/two_tiles_on_one_cell.json",
            "two tiles on cell (1,0)",
        ),
        ("layouts/unknown_building.json", "castle"),
        ("layouts/unknown_side.json", "`up`"),
        ("layouts/truncated.json", "EOF"),
    ] {
        let path = fixture(file);
        let o = alhambra(&["check", path.to_str().unwrap_or_default()]);
        assert_bad_input(&o, file.rsplit('/').next().unwrap_or(file));
        assert!(stderr(&o).contains(problem), "{}", stderr(&o));
    }
    let o = alhambra(&["check", "/no/such/layout.json"]);
    assert_bad_input(&o, "/no/such/layout.json");
}

#[test]
fn bad_input_of_every_shape_is_one_line_and_exit_2() {
    let dir = std::env::temp_dir().join(format!("alhambra-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cases: [(&str, &[u8]); 6] = [
        ("empty.json", b""),
        ("binary.json", &[0xff, 0xfe, 0x00, 0x12]),
        ("array.json", b"[1, 2, 3]"),
        (
            "missing.json",
            br#"{"tiles": [{"x": 0, "building": "fountain"}]}"#,
        ),
        (
            "far.json",
            br#"{"tiles": [{"x": 2000000000, "y": 0, "building": "fountain"}]}"#,
        ),
        (
            "walled_fountain.json",
            br#"{"tiles": [{"x": 0, "y": 0, "building": "fountain", "walls": ["north"]}]}"#,
        ),
    ];
    for (name, bytes) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("write");
        let o = alhambra(&["check", path.to_str().unwrap_or_default()]);
        assert_bad_input(&o, name);
        let game = dir.join(format!("game-{name}"));
        std::fs::write(&game, bytes).expect("write");
        let o = alhambra(&["score", game.to_str().unwrap_or_default(), "--round", "1"]);
        assert_bad_input(&o, &format!("game-{name}"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn score_the_final_round() {
    let path = fixture("games/three_players.json");
    let o = alhambra(&[
        "score",
        path.to_str().unwrap_or_default(),
        "--round",
        "3",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Towers 3/3/2: the two tied first share (21+13)/2 = 17, the third gets 6.
    // Ana's walls close a ring of 12 around her 3x3 Alhambra.
    let expected = serde_json::json!({"round": 3, "players": [
        {"name": "Ana", "buildings": {"pavilion": 0, "seraglio": 9, "arcades": 0, "chambers": 0, "garden": 20, "tower": 17}, "wall": 12, "total": 58},
        {"name": "Ben", "buildings": {"pavilion": 0, "seraglio": 17, "arcades": 0, "chambers": 19, "garden": 0, "tower": 17}, "wall": 5, "total": 58},
        {"name": "Cy", "buildings": {"pavilion": 16, "seraglio": 0, "arcades": 0, "chambers": 0, "garden": 0, "tower": 6}, "wall": 1, "total": 23}
    ]});
    assert_eq!(json(&o), expected);
    let text = alhambra(&["score", path.to_str().unwrap_or_default(), "--round", "3"]);
    assert!(stdout(&text).contains("Ana"), "{}", stdout(&text));
    assert!(
        stdout(&text)
            .lines()
            .any(|l| l.starts_with("Cy") && l.trim_end().ends_with("23"))
    );
}

#[test]
fn score_rounds_one_and_two_pay_fewer_places() {
    let path = fixture("games/three_players.json");
    let o = alhambra(&[
        "score",
        path.to_str().unwrap_or_default(),
        "--round",
        "1",
        "--json",
    ]);
    let v = json(&o);
    // Round 1, towers tied first: 6 / 2 = 3 each; Cy is third, unpaid.
    assert_eq!(v["players"][0]["buildings"]["tower"], 3);
    assert_eq!(v["players"][2]["buildings"]["tower"], 0);
    let o = alhambra(&[
        "score",
        path.to_str().unwrap_or_default(),
        "--round",
        "2",
        "--json",
    ]);
    let v = json(&o);
    // Round 2, towers: (13 + 6) / 2 = 9 each for the tied first, Cy third gets 0.
    assert_eq!(v["players"][1]["buildings"]["tower"], 9);
    assert_eq!(v["players"][2]["buildings"]["tower"], 0);
}

#[test]
fn score_refuses_a_round_that_does_not_exist() {
    let path = fixture("games/three_players.json");
    for round in ["0", "4", "x"] {
        let o = alhambra(&["score", path.to_str().unwrap_or_default(), "--round", round]);
        assert_bad_input(&o, "--round");
    }
    let o = alhambra(&["score", "/no/such/game.json", "--round", "1"]);
    assert_bad_input(&o, "/no/such/game.json");
}

#[test]
fn help_and_version_succeed() {
    let o = alhambra(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("score") && stdout(&o).contains("check"));
    assert_eq!(alhambra(&["--version"]).status.code(), Some(0));
}
