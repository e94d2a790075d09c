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
fn check_says_what_the_game_does_not_print_without_calling_it_a_violation() {
    let path = fixture("layouts/not_printed.json");
    let o = alhambra(&["check", path.to_str().unwrap_or_default()]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(
        text.contains("not printed in the base game")
            && text.contains("pavilion with walls NES at (1,0)"),
        "{text}"
    );
    assert!(
        text.contains("laid 3 times, printed 2: garden without walls"),
        "{text}"
    );
    assert!(text.contains("legal: 5 tiles"), "{text}");
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
fn check_and_score_end_quietly_when_the_reader_has_gone() {
    let layout = fixture("layouts/legal.json");
    let game = fixture("games/three_players.json");
    let runs: [&[&str]; 4] = [
        &["check", arg(&layout)],
        &["check", arg(&layout), "--json"],
        &["score", arg(&game), "--round", "3"],
        &["score", arg(&game), "--round", "3", "--json"],
    ];
    for args in runs {
        // A pipe whose reading end is closed before the command writes (`... | head -c0`).
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let o = Command::new(env!("CARGO_BIN_EXE_alhambra"))
            .args(args)
            .stdout(writer)
            .output()
            .expect("the binary runs");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
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
    // Every tile of the bundled game is printed, and every layout legal: no note.
    assert!(stderr(&text).is_empty(), "{}", stderr(&text));
}

#[test]
fn score_notes_what_the_game_does_not_print_and_scores_it_all_the_same() {
    let path = fixture("games/not_printed.json");
    let o = alhambra(&["score", path.to_str().unwrap_or_default(), "--round", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let notes = stderr(&o);
    assert!(
        notes.contains(
            "note: Ana's Alhambra: not printed in the base game (misread, or an expansion piece?): pavilion with walls NES at (0,-1)"
        ),
        "{notes}"
    );
    assert!(
        notes.contains("note: Ana's Alhambra: laid 3 times, printed 2: garden without walls"),
        "{notes}"
    );
    assert!(!notes.contains("Ben's"), "{notes}");
    // A note, not a verdict: the three gardens and the pavilion still score.
    assert!(
        stdout(&o)
            .lines()
            .any(|l| l.starts_with("Ana") && l.trim_end().ends_with("38")),
        "{}",
        stdout(&o)
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
    for command in ["scan", "synth", "eval", "calibrate"] {
        assert!(stdout(&o).contains(command), "{command}: {}", stdout(&o));
    }
    let o = alhambra(&["scan", "--help"]);
    assert!(stdout(&o).contains("JSON array"), "{}", stdout(&o));
    assert_eq!(alhambra(&["--version"]).status.code(), Some(0));
}

// ---- synth, scan, calibrate appearance, eval ----

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("alhambra-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn arg(p: &std::path::Path) -> &str {
    p.to_str().unwrap_or_default()
}

/// Renders photos with `alhambra synth ARGS`, which must succeed.
fn synth(args: &[&str]) {
    let o = alhambra(&[&["synth"], args].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Learns a profile from `photo` and its sibling labels into `out`, which must succeed;
/// the command's output, for what it says.
fn learn_profile(photo: &std::path::Path, out: &std::path::Path) -> Output {
    let o = alhambra(&["calibrate", "appearance", arg(photo), "--out", arg(out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    o
}

/// The `meta` of a rendered photo's labels (`Null` when they cannot be read).
fn labels_meta(labels: &std::path::Path) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(labels).unwrap_or_default())
            .unwrap_or_default();
    v["meta"].clone()
}

/// `alhambra eval SET --profile PROFILE --json`, which must succeed: its overall figures.
fn eval_overall(set: &std::path::Path, profile: &std::path::Path) -> serde_json::Value {
    let o = alhambra(&["eval", arg(set), "--profile", arg(profile), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    json(&o)["overall"].clone()
}

#[test]
fn synth_writes_a_photo_and_its_labels_the_same_for_the_same_seed() {
    let dir = scratch("synth");
    let (a, b) = (dir.join("a"), dir.join("b"));
    for out in [&a, &b] {
        let o = alhambra(&[
            "synth",
            "--seed",
            "3",
            "--players",
            "2",
            "--difficulty",
            "easy",
            "--out",
            arg(out),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o).lines().count(), 1, "{}", stdout(&o));
        assert!(stdout(&o).contains("easy_3.jpg"), "{}", stdout(&o));
    }
    for name in ["easy_3.jpg", "easy_3.json"] {
        let first = std::fs::read(a.join(name)).expect("written");
        assert!(!first.is_empty());
        assert_eq!(
            first,
            std::fs::read(b.join(name)).expect("written"),
            "{name} differs"
        );
    }
    let labels: serde_json::Value =
        serde_json::from_slice(&std::fs::read(a.join("easy_3.json")).expect("labels"))
            .expect("JSON labels");
    assert_eq!(labels["image"], "easy_3.jpg");
    assert_eq!(labels["meta"]["difficulty"], "easy");
    assert_eq!(labels["alhambras"].as_array().map(Vec::len), Some(2));
    let o = alhambra(&["synth", "--seed", "10", "--count", "2", "--out", arg(&a)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 2);
    assert!(a.join("normal_10.jpg").is_file() && a.join("normal_11.json").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Checks one scan result object against the contract's shape; returns its fountains.
fn assert_scan_shape(v: &serde_json::Value, image: &str) -> Vec<[f64; 2]> {
    assert_eq!(v["image"], image, "{v}");
    assert!(v["meta"]["plane"].is_string(), "meta.plane: {v}");
    let alhambras = v["alhambras"].as_array().expect("alhambras is an array");
    let mut fountains = Vec::new();
    for a in alhambras {
        let f = a["fountain_px"].as_array().expect("fountain_px");
        assert_eq!(f.len(), 2);
        fountains.push([
            f[0].as_f64().unwrap_or(f64::NAN),
            f[1].as_f64().unwrap_or(f64::NAN),
        ]);
        let tiles = a["tiles"].as_array().expect("tiles");
        assert!(!tiles.is_empty(), "an Alhambra has tiles: {a}");
        for t in tiles {
            assert!(t["x"].is_i64() && t["y"].is_i64(), "{t}");
            assert!(
                [
                    "fountain", "pavilion", "seraglio", "arcades", "chambers", "garden", "tower"
                ]
                .contains(&t["building"].as_str().unwrap_or_default()),
                "{t}"
            );
            for side in t["walls"].as_array().cloned().unwrap_or_default() {
                assert!(
                    ["north", "east", "south", "west"].contains(&side.as_str().unwrap_or_default()),
                    "{t}"
                );
            }
            let c = t["confidence"].as_f64().unwrap_or(-1.0);
            assert!((0.0..=1.0).contains(&c), "{t}");
            assert_eq!(t["corners_px"].as_array().map(Vec::len), Some(4), "{t}");
        }
    }
    fountains
}

#[test]
fn scan_json_finds_the_alhambras_of_a_rendered_photo() {
    let photo = fixture("photos/easy/easy_105.jpg");
    let o = alhambra(&["scan", arg(&photo), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert!(v.is_object(), "one image: one object");
    let found = assert_scan_shape(&v, "easy_105.jpg");
    assert_eq!(v["meta"]["plane"], "markers");
    let labels: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixture("photos/easy/easy_105.json")).expect("labels"),
    )
    .expect("labels JSON");
    let tile_px = labels["meta"]["tile_px"].as_f64().unwrap_or(60.0);
    // Not the accuracy (the scanner is being tuned): that it finds a labelled Alhambra.
    let near = labels["alhambras"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .any(|a| {
            let l = [
                a["fountain_px"][0].as_f64().unwrap_or(f64::NAN),
                a["fountain_px"][1].as_f64().unwrap_or(f64::NAN),
            ];
            found
                .iter()
                .any(|f| (f[0] - l[0]).hypot(f[1] - l[1]) < tile_px)
        });
    assert!(near, "no fountain within a tile of a label: {found:?}");
}

#[test]
fn scan_json_of_several_images_is_one_array() {
    let a = fixture("photos/easy/easy_102.jpg");
    let b = fixture("photos/normal/normal_104.jpg");
    let o = alhambra(&["scan", arg(&a), arg(&b), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let all = v.as_array().expect("several images: an array");
    assert_eq!(all.len(), 2);
    assert_scan_shape(&all[0], "easy_102.jpg");
    assert_scan_shape(&all[1], "normal_104.jpg");
}

#[test]
fn scan_prints_each_alhambra_as_a_grid_with_its_rule_check() {
    let photo = fixture("photos/easy/easy_102.jpg");
    let o = alhambra(&["scan", arg(&photo)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("easy_102.jpg"), "{text}");
    assert!(text.contains("Alhambra 1"), "{text}");
    assert!(text.contains("fountain at pixel"), "{text}");
    assert!(text.contains("Fnt"), "the grid is drawn: {text}");
    assert!(text.contains("legal"), "{text}");
}

#[test]
fn scan_of_a_photo_without_alhambras_is_an_empty_result() {
    let dir = scratch("blank");
    // A plain grey photo (BMP: no encoder needed in the test).
    let (w, h) = (320u32, 240u32);
    let row = (w * 3).div_ceil(4) * 4;
    let mut bmp = Vec::new();
    bmp.extend(b"BM");
    bmp.extend((54 + row * h).to_le_bytes());
    bmp.extend([0u8; 4]);
    bmp.extend(54u32.to_le_bytes());
    bmp.extend(40u32.to_le_bytes());
    bmp.extend(w.to_le_bytes());
    bmp.extend(h.to_le_bytes());
    bmp.extend(1u16.to_le_bytes());
    bmp.extend(24u16.to_le_bytes());
    bmp.extend([0u8; 24]);
    bmp.extend(std::iter::repeat_n(128u8, (row * h) as usize));
    let path = dir.join("grey.bmp");
    std::fs::write(&path, bmp).expect("write");
    let o = alhambra(&["scan", arg(&path), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["alhambras"], serde_json::json!([]));
    assert_eq!(v["image"], "grey.bmp");
    // Read as text, a photo without colour says why little can be read in it; a photo in
    // colour does not.
    let o = alhambra(&["scan", arg(&path)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("no colour"), "{}", stdout(&o));
    let o = alhambra(&["scan", arg(&fixture("photos/easy/easy_105.jpg"))]);
    assert!(!stdout(&o).contains("no colour"), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scan_refuses_what_is_not_a_photo() {
    let dir = scratch("scan-bad");
    let text = dir.join("notes.txt");
    std::fs::write(&text, "not a photo\n").expect("write");
    let empty = dir.join("empty.jpg");
    std::fs::write(&empty, b"").expect("write");
    // A PNG header claiming 50000 x 50000 pixels.
    let huge = dir.join("huge.png");
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend(50_000u32.to_be_bytes());
    png.extend(50_000u32.to_be_bytes());
    png.extend([8, 2, 0, 0, 0, 0, 0, 0, 0]);
    std::fs::write(&huge, png).expect("write");
    let missing = dir.join("missing.jpg");
    for path in [&text, &empty, &huge, &missing] {
        let o = alhambra(&["scan", arg(path)]);
        assert_bad_input(&o, arg(path));
        // Also when it comes after a good photo, and with --json.
        let good = fixture("photos/easy/easy_105.jpg");
        let o = alhambra(&["scan", arg(&good), arg(path), "--json"]);
        assert_bad_input(&o, arg(path));
    }
    assert!(stderr(&alhambra(&["scan", arg(&huge)])).contains("50000x50000"));
    assert!(stderr(&alhambra(&["scan", arg(&empty)])).contains("empty"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scan_refuses_a_camera_file_of_another_image_size() {
    let dir = scratch("camera");
    let camera = dir.join("camera.json");
    std::fs::write(
        &camera,
        r#"{"version": 1, "image_size": [640, 480], "camera_matrix": [[500, 0, 320], [0, 500, 240], [0, 0, 1]],
 "distortion": [0.1, -0.05, 0, 0, 0], "rms_px": 0.39, "board": "9x6", "square_mm": 25.0,
 "photos_used": 13, "created": "2026-11-30T12:00:00Z"}"#,
    )
    .expect("write");
    let photo = fixture("photos/easy/easy_105.jpg");
    let o = alhambra(&["scan", arg(&photo), "--camera", arg(&camera)]);
    assert_bad_input(&o, "easy_105.jpg");
    assert!(stderr(&o).contains("640x480"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scan_debug_writes_a_picture_per_stage_and_image() {
    let dir = scratch("debug");
    let photo = fixture("photos/normal/normal_104.jpg");
    let out = dir.join("stages");
    let o = alhambra(&["scan", arg(&photo), "--debug", arg(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for stage in ["rectified", "clusters", "lattice", "overlay"] {
        let png = std::fs::read(out.join(format!("normal_104_{stage}.png")))
            .unwrap_or_else(|e| panic!("{stage} picture: {e}"));
        assert!(png.starts_with(b"\x89PNG"), "{stage}: a PNG");
        assert!(png.len() > 10_000, "{stage}: a picture of the photo");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn calibrate_appearance_writes_a_profile_that_scan_accepts() {
    let dir = scratch("appearance");
    let profile = dir.join("profile.json");
    let photo = fixture("photos/easy/easy_102.jpg");
    let labels = fixture("photos/easy/easy_102.json");
    let o = alhambra(&[
        "calibrate",
        "appearance",
        arg(&photo),
        "--labels",
        arg(&labels),
        "--out",
        arg(&profile),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("pitch"), "{}", stdout(&o));
    assert!(stdout(&o).contains("1 photo"), "{}", stdout(&o));
    let o = alhambra(&[
        "scan",
        arg(&fixture("photos/easy/easy_105.jpg")),
        "--profile",
        arg(&profile),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_scan_shape(&json(&o), "easy_105.jpg");

    // Without --labels: the image's sibling NAME.json.
    let sibling = dir.join("sibling.json");
    let o = alhambra(&[
        "calibrate",
        "appearance",
        arg(&photo),
        "--out",
        arg(&sibling),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // Another version, or a truncated file: refused, naming the file.
    let text = std::fs::read_to_string(&profile).expect("profile");
    let mut value: serde_json::Value = serde_json::from_str(&text).expect("profile JSON");
    value["version"] = serde_json::json!(99);
    let other = dir.join("other_version.json");
    std::fs::write(&other, value.to_string()).expect("write");
    let truncated = dir.join("truncated.json");
    std::fs::write(&truncated, &text[..text.len() / 2]).expect("write");
    for bad in [&other, &truncated] {
        let o = alhambra(&[
            "scan",
            arg(&fixture("photos/easy/easy_105.jpg")),
            "--profile",
            arg(bad),
        ]);
        assert_bad_input(&o, arg(bad));
    }
    assert!(
        stderr(&alhambra(&[
            "scan",
            arg(&fixture("photos/easy/easy_105.jpg")),
            "--profile",
            arg(&other)
        ]))
        .contains("version 99")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The labels of fixture easy_102 with `edit` applied to every tile, written to `dir/name`.
fn edited_labels(
    dir: &std::path::Path,
    name: &str,
    mut edit: impl FnMut(&mut serde_json::Value),
) -> PathBuf {
    let text = std::fs::read_to_string(fixture("photos/easy/easy_102.json")).expect("labels");
    let mut value: serde_json::Value = serde_json::from_str(&text).expect("labels JSON");
    for a in value["alhambras"].as_array_mut().into_iter().flatten() {
        for t in a["tiles"].as_array_mut().into_iter().flatten() {
            edit(t);
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, value.to_string()).expect("write");
    path
}

/// `calibrate appearance PHOTO --labels LABELS --out OUT`.
fn calibrate_with(
    photo: &std::path::Path,
    labels: &std::path::Path,
    out: &std::path::Path,
) -> Output {
    alhambra(&[
        "calibrate",
        "appearance",
        arg(photo),
        "--labels",
        arg(labels),
        "--out",
        arg(out),
    ])
}

#[test]
fn calibrate_appearance_needs_corners_and_a_labels_file_per_photo() {
    let dir = scratch("appearance-bad");
    let photo = fixture("photos/easy/easy_102.jpg");
    let bare = edited_labels(&dir, "no_corners.json", |t| {
        if let Some(t) = t.as_object_mut() {
            t.remove("corners_px");
        }
    });
    let out = dir.join("p.json");
    let o = calibrate_with(&photo, &bare, &out);
    assert_bad_input(&o, "no_corners.json");
    assert!(stderr(&o).contains("corners_px"), "{}", stderr(&o));
    assert!(!out.exists());
    // One labels file for two photos.
    let o = alhambra(&[
        "calibrate",
        "appearance",
        arg(&photo),
        arg(&fixture("photos/easy/easy_105.jpg")),
        "--labels",
        arg(&fixture("photos/easy/easy_102.json")),
        "--out",
        arg(&out),
    ]);
    assert_bad_input(&o, "--labels");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn calibrate_appearance_borrows_a_building_no_labelled_tile_shows() {
    let dir = scratch("appearance-borrow");
    let photo = fixture("photos/easy/easy_102.jpg");
    // Every seraglio hidden, as under a hand.
    let labels = edited_labels(&dir, "no_seraglio.json", |t| {
        if t["building"] == "seraglio" {
            t["occluded"] = serde_json::json!(true);
        }
    });
    let out = dir.join("p.json");
    let o = calibrate_with(&photo, &labels, &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("6 of 7 building kinds seen (1 borrowed)"),
        "{}",
        stdout(&o)
    );
    assert!(
        stderr(&o).contains("no labelled tile shows seraglio"),
        "{}",
        stderr(&o)
    );
    let profile: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("profile")).expect("JSON");
    let kinds = profile["buildings"].as_array().expect("buildings");
    assert_eq!(kinds.len(), 7);
    assert!(
        kinds.iter().all(|b| !b.is_null()),
        "a building left unlearned"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn eval_prints_the_table_and_the_json() {
    let folder = fixture("photos/easy");
    let o = alhambra(&["eval", arg(&folder)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    for column in [
        "photos",
        "bldg err%",
        "wall err%",
        "missed%",
        "sure wrong%",
        "ms p95",
    ] {
        assert!(text.contains(column), "{column}: {text}");
    }
    assert!(
        text.lines()
            .any(|l| l.starts_with("overall") && l.split_whitespace().nth(1) == Some("2")),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("easy")), "{text}");
    // Every easy fixture reads exactly: no failure of any kind.
    assert!(
        text.contains("by what went wrong first:\n  overall: 0 not found (0 of them a fountain alone), 0 with tiles missed"),
        "{text}"
    );
    let o = alhambra(&["eval", arg(&folder), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["overall"]["photos"], 2);
    assert_eq!(v["per_difficulty"]["easy"]["photos"], 2);
    for key in [
        "building_error_pct",
        "wall_error_pct",
        "missed_pct",
        "phantom_pct",
        "alhambra_exact_pct",
        "photo_exact_pct",
        "score_exact_pct",
        "ms_median",
        "ms_p95",
        "sure_wrong_pct",
    ] {
        assert!(v["overall"][key].is_number(), "{key}: {v}");
    }
    for key in [
        "not_found",
        "only_walls",
        "outer_walls_extra",
        "inner_walls_missed",
    ] {
        assert_eq!(v["overall"]["failures"][key], 0, "{key}: {v}");
    }
}

#[test]
fn scan_reads_the_easy_fixtures_exactly_and_the_harder_ones_within_bounds() {
    // The committed rendered photos with the bundled profile: every easy Alhambra exact;
    // on normal and hard, bounds a little outside today's figures (normal 18% of tiles
    // missed, 1% of walls wrong, 64% of Alhambras exact; hard 44% missed, 44% exact), so
    // that a scanner reading clearly worse fails.
    let o = alhambra(&["eval", arg(&fixture("photos")), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let at = |difficulty: &str, key: &str| -> f64 {
        v["per_difficulty"][difficulty][key]
            .as_f64()
            .unwrap_or(f64::NAN)
    };
    assert_eq!(at("easy", "photos"), 2.0, "{v}");
    assert_eq!(at("easy", "alhambra_exact_pct"), 100.0, "{v}");
    assert_eq!(at("easy", "missed_pct"), 0.0, "{v}");
    assert_eq!(at("easy", "phantom_pct"), 0.0, "{v}");
    assert!(at("normal", "building_error_pct") <= 1.0, "{v}");
    assert!(at("normal", "wall_error_pct") <= 2.0, "{v}");
    assert!(at("normal", "missed_pct") <= 25.0, "{v}");
    assert!(at("normal", "phantom_pct") <= 2.0, "{v}");
    assert!(at("normal", "alhambra_exact_pct") >= 50.0, "{v}");
    assert!(at("hard", "building_error_pct") <= 2.0, "{v}");
    assert!(at("hard", "missed_pct") <= 55.0, "{v}");
    assert!(at("hard", "alhambra_exact_pct") >= 30.0, "{v}");
}

#[test]
fn eval_of_a_folder_without_labelled_photos_is_bad_input() {
    let dir = scratch("eval-empty");
    std::fs::write(dir.join("lonely.jpg"), b"no labels beside it").expect("write");
    let o = alhambra(&["eval", arg(&dir)]);
    assert_bad_input(&o, arg(&dir));
    let o = alhambra(&["eval", "/no/such/folder"]);
    assert_bad_input(&o, "/no/such/folder");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scan_takes_the_marker_size_from_the_printed_sheet() {
    let dir = std::env::temp_dir().join(format!("alhambra-sheet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let sheet = dir.join("sheet.png");
    let o = alhambra(&[
        "markers",
        "--out",
        sheet.to_str().unwrap_or_default(),
        "--marker-mm",
        "40",
        "--dpi",
        "100",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let info = dir.join("sheet.json");
    assert!(info.is_file(), "markers writes sheet.json beside the sheet");
    let photo = fixture("photos/easy/easy_102.jpg");
    let o = alhambra(&[
        "scan",
        photo.to_str().unwrap_or_default(),
        "--sheet",
        info.to_str().unwrap_or_default(),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        !json(&o)["alhambras"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .is_empty()
    );
    let bad = dir.join("bad.json");
    std::fs::write(&bad, br#"{"version": 7, "marker_mm": 40}"#).expect("write");
    let o = alhambra(&[
        "scan",
        photo.to_str().unwrap_or_default(),
        "--sheet",
        bad.to_str().unwrap_or_default(),
    ]);
    assert_bad_input(&o, "bad.json");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tiles_far_from_the_profiles_size_are_found() {
    // The bundled normal photo (40 mm markers) read as if its markers were 27 mm: the
    // tiles measure two thirds of the profile's pitch on the table, beyond the sizes the
    // first look for fountains covers (an edition with smaller tiles, or the wrong
    // --marker-mm). Before the second look at the photo's own pitch, one of its five
    // Alhambras was not found (21% of tiles missed); at 60 mm (1.5 times) all were, one
    // wall read wrong either way (80% of Alhambras exact).
    for (mm, name) in [(27.0, "small"), (60.0, "large")] {
        let dir = scratch(&format!("pitch-{name}"));
        std::fs::copy(
            fixture("photos/normal/normal_100.jpg"),
            dir.join("normal_100.jpg"),
        )
        .expect("copy photo");
        let text =
            std::fs::read_to_string(fixture("photos/normal/normal_100.json")).expect("labels");
        let mut labels: serde_json::Value = serde_json::from_str(&text).expect("labels JSON");
        labels["meta"]["marker_mm"] = serde_json::json!(mm);
        std::fs::write(dir.join("normal_100.json"), labels.to_string()).expect("write labels");
        let o = alhambra(&["eval", arg(&dir), "--json"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v = json(&o);
        let at = |key: &str| v["overall"][key].as_f64().unwrap_or(f64::NAN);
        assert!(at("missed_pct") <= 5.0, "{mm} mm: {v}");
        assert!(at("phantom_pct") <= 2.0, "{mm} mm: {v}");
        assert!(at("alhambra_exact_pct") >= 80.0, "{mm} mm: {v}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn an_alhambra_in_duller_light_than_the_rest_is_read_in_its_own() {
    // A rendered easy photo whose smaller Alhambra alone lies in a duller light (colours
    // taken 55% of the way to grey over it and a little around: haze, a lamp's pool
    // elsewhere). The photo's tone, told mostly by the other Alhambra, is right; this
    // one's tiles read partly. Without a reading in its own tone 4 of its 7 tiles were
    // missed.
    use opencv::core::{Mat, Vector};
    use opencv::imgcodecs;
    use opencv::prelude::*;
    let dir = scratch("duller");
    let (plain, set) = (dir.join("plain"), dir.join("set").join("easy"));
    synth(&[
        "--seed",
        "7622",
        "--difficulty",
        "easy",
        "--out",
        arg(&plain),
    ]);
    let text = std::fs::read_to_string(plain.join("easy_7622.json")).expect("labels");
    let labels: serde_json::Value = serde_json::from_str(&text).expect("labels are JSON");
    let corners = |a: &serde_json::Value| -> Vec<[f64; 2]> {
        a["tiles"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|t| t["corners_px"].as_array().cloned().unwrap_or_default())
            .map(|p| [p[0].as_f64().unwrap_or(0.0), p[1].as_f64().unwrap_or(0.0)])
            .collect()
    };
    let alhambras = labels["alhambras"].as_array().expect("alhambras");
    let smallest = alhambras
        .iter()
        .min_by_key(|a| a["tiles"].as_array().map_or(0, Vec::len))
        .expect("an Alhambra");
    let points = corners(smallest);
    let (x0, x1) = points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p[0]), hi.max(p[0]))
    });
    let (y0, y1) = points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p[1]), hi.max(p[1]))
    });
    let margin = 12.0;
    let (x0, x1, y0, y1) = (x0 - margin, x1 + margin, y0 - margin, y1 + margin);
    // The box must hold no other Alhambra's tile.
    for other in alhambras.iter().filter(|a| !std::ptr::eq(*a, smallest)) {
        assert!(
            corners(other)
                .iter()
                .all(|p| p[0] < x0 || p[0] > x1 || p[1] < y0 || p[1] > y1),
            "the duller box reaches another Alhambra"
        );
    }
    let mut img: Mat =
        imgcodecs::imread(arg(&plain.join("easy_7622.jpg")), imgcodecs::IMREAD_COLOR)
            .expect("photo");
    let (w, h) = (img.cols() as usize, img.rows() as usize);
    let bytes = img.data_bytes_mut().expect("pixels");
    for y in (y0.max(0.0) as usize)..(y1.min(h as f64) as usize) {
        for x in (x0.max(0.0) as usize)..(x1.min(w as f64) as usize) {
            let px = &mut bytes[3 * (y * w + x)..3 * (y * w + x) + 3];
            let grey = (f64::from(px[0]) + f64::from(px[1]) + f64::from(px[2])) / 3.0;
            for c in px.iter_mut() {
                *c = (grey + 0.45 * (f64::from(*c) - grey))
                    .round()
                    .clamp(0.0, 255.0) as u8;
            }
        }
    }
    std::fs::create_dir_all(&set).expect("set dir");
    let params = Vector::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, 92]);
    assert!(imgcodecs::imwrite(arg(&set.join("easy_7622.jpg")), &img, &params).expect("write"));
    std::fs::write(set.join("easy_7622.json"), &text).expect("labels");
    let o = alhambra(&["eval", arg(&dir.join("set")), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let at = |key: &str| v["overall"][key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("missed_pct"), 0.0, "{v}");
    assert_eq!(at("phantom_pct"), 0.0, "{v}");
    assert_eq!(at("alhambra_exact_pct"), 100.0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tiles_under_a_lamps_pool_are_read_with_the_light_made_even() {
    // Rendered easy photos under a warm lamp's pool: the table and the tiles on it
    // brighten and yellow towards the middle, up to 1.7 times in red. Tiles in the pool
    // look unlike the profile's; read again with the light the bare table shows made
    // even, 11 of 19 Alhambras are exact (9 before, 7 with the table's colour told about
    // each place but the light not made even).
    use opencv::core::{Mat, Vector};
    use opencv::imgcodecs;
    use opencv::prelude::*;
    let dir = scratch("lamp");
    let (plain, set) = (dir.join("plain"), dir.join("set").join("easy"));
    synth(&[
        "--seed",
        "7622",
        "--count",
        "6",
        "--difficulty",
        "easy",
        "--out",
        arg(&plain),
    ]);
    std::fs::create_dir_all(&set).expect("set dir");
    for seed in 7622..7628 {
        let name = format!("easy_{seed}");
        let mut img: Mat = imgcodecs::imread(
            arg(&plain.join(format!("{name}.jpg"))),
            imgcodecs::IMREAD_COLOR,
        )
        .expect("photo");
        let (w, h) = (img.cols() as usize, img.rows() as usize);
        let spread = 2.0 * (0.22 * w as f64).powi(2);
        let bytes = img.data_bytes_mut().expect("pixels");
        for y in 0..h {
            for x in 0..w {
                let (dx, dy) = (x as f64 - w as f64 / 2.0, y as f64 - h as f64 / 2.0);
                let pool = (-(dx * dx + dy * dy) / spread).exp();
                let px = &mut bytes[3 * (y * w + x)..3 * (y * w + x) + 3];
                // Blue, green, red: a warm light.
                for (c, gain) in px.iter_mut().zip([0.45, 0.6, 0.7]) {
                    *c = (f64::from(*c) * (1.0 + gain * pool)).round().min(255.0) as u8;
                }
            }
        }
        let params = Vector::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, 92]);
        let out = set.join(format!("{name}.jpg"));
        assert!(imgcodecs::imwrite(arg(&out), &img, &params).expect("write"));
        std::fs::copy(
            plain.join(format!("{name}.json")),
            set.join(format!("{name}.json")),
        )
        .expect("labels");
    }
    let o = alhambra(&["eval", arg(&dir.join("set")), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let at = |key: &str| v["overall"][key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("phantom_pct"), 0.0, "{v}");
    assert_eq!(at("building_error_pct"), 0.0, "{v}");
    assert!(at("alhambra_exact_pct") >= 55.0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_labelled_photo_teaches_walls_of_another_look() {
    // Tiles whose walls are light sandstone, not this renderer's dark stone: learned from
    // one labelled photo of them, the walls of other photos are read. (When sides were
    // told by their darkest band, a third of these sides were misread.)
    let dir = scratch("light-walls");
    let (train, set) = (dir.join("train"), dir.join("set").join("easy"));
    for (seed, count, difficulty, out) in
        [("7", "1", "normal", &train), ("7500", "3", "easy", &set)]
    {
        synth(&[
            "--seed",
            seed,
            "--count",
            count,
            "--difficulty",
            difficulty,
            "--walls",
            "light",
            "--out",
            arg(out),
        ]);
    }
    let profile = dir.join("light.json");
    learn_profile(&train.join("normal_7.jpg"), &profile);
    let v = eval_overall(&dir.join("set"), &profile);
    let at = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("photos"), 3.0, "{v}");
    assert!(at("wall_error_pct") <= 1.0, "{v}");
    assert!(at("alhambra_exact_pct") >= 60.0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tiles_laid_loosely_are_read() {
    // Tiles laid as players lay them, each against those already down: rows drift by
    // millimetres and tiles sit up to 3 degrees askew. Learned from one neatly laid
    // photo, the easy loose photos are read as exactly as neat ones.
    let dir = scratch("loose");
    let (train, set) = (dir.join("train"), dir.join("set").join("easy"));
    synth(&["--seed", "7", "--out", arg(&train)]);
    synth(&[
        "--seed",
        "7700",
        "--count",
        "3",
        "--difficulty",
        "easy",
        "--laying",
        "loose",
        "--out",
        arg(&set),
    ]);
    let meta = labels_meta(&set.join("easy_7700.json"));
    assert_eq!(meta["laying"], "loose", "{meta}");
    let profile = dir.join("profile.json");
    learn_profile(&train.join("normal_7.jpg"), &profile);
    let v = eval_overall(&dir.join("set"), &profile);
    let at = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("photos"), 3.0, "{v}");
    assert!(at("building_error_pct") <= 0.5, "{v}");
    assert!(at("wall_error_pct") <= 0.5, "{v}");
    assert!(at("alhambra_exact_pct") >= 90.0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_labelled_photo_teaches_a_tile_set_drawn_unlike_this_renderers() {
    // The second tile set: buildings seen from above on grey-green paving, crenellated
    // grey walls, round badges, a fountain on a lawn with no player's colour, no drawn
    // rim. Nothing of it is in the scanner's defaults: one labelled photo has to teach it.
    let dir = scratch("plan-tiles");
    let (train, set) = (dir.join("train"), dir.join("set").join("easy"));
    for (seed, count, difficulty, out) in
        [("7", "1", "normal", &train), ("7600", "3", "easy", &set)]
    {
        synth(&[
            "--seed",
            seed,
            "--count",
            count,
            "--difficulty",
            difficulty,
            "--tiles",
            "plan",
            "--out",
            arg(out),
        ]);
    }
    let meta = labels_meta(&train.join("normal_7.json"));
    assert_eq!(meta["tiles"], "plan", "{meta}");
    let profile = dir.join("plan.json");
    learn_profile(&train.join("normal_7.jpg"), &profile);
    let v = eval_overall(&dir.join("set"), &profile);
    let at = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("photos"), 3.0, "{v}");
    assert!(at("building_error_pct") <= 1.0, "{v}");
    assert!(at("wall_error_pct") <= 1.0, "{v}");
    assert!(at("missed_pct") <= 2.0, "{v}");
    assert!(at("alhambra_exact_pct") >= 60.0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `eval --json`'s overall figures for the second tile set's photo of `seed` at
/// `difficulty`, read with the profile learned from that set's normal photo of seed 7.
fn plan_photo_overall(name: &str, seed: &str, difficulty: &str) -> serde_json::Value {
    photo_overall(name, seed, difficulty, "plan")
}

/// `eval`'s overall figures for one rendered photo of tile set `tiles`, read with a profile
/// learned from that set's labelled photo (`synth --seed 7`).
fn photo_overall(name: &str, seed: &str, difficulty: &str, tiles: &str) -> serde_json::Value {
    let dir = scratch(name);
    let (train, set) = (dir.join("train"), dir.join("set"));
    synth(&["--seed", "7", "--tiles", tiles, "--out", arg(&train)]);
    synth(&[
        "--seed",
        seed,
        "--difficulty",
        difficulty,
        "--tiles",
        tiles,
        "--out",
        arg(&set),
    ]);
    let profile = dir.join("profile.json");
    learn_profile(&train.join("normal_7.jpg"), &profile);
    let v = eval_overall(&set, &profile);
    let _ = std::fs::remove_dir_all(&dir);
    v
}

#[test]
fn a_tile_another_reading_of_the_photo_saw_plainly_is_kept() {
    // A seraglio at the edge of a 26-tile Alhambra, read plainly (0.65 of the presence
    // limit) in one of the photo's two readings; the reading kept, grown otherwise, left
    // its cell empty. One tile of 54 stays missed: a chambers another Alhambra grew onto
    // (dropped there as out of reach), which its own never looked at again.
    let v = photo_overall("other-look", "8450", "normal", "iso");
    let at = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    assert!(at("missed_pct") < 2.0, "{v}");
    assert_eq!(at("phantom_pct"), 0.0, "{v}");
}

#[test]
fn a_patch_of_table_that_reads_as_a_fountain_only_in_the_plain_light_is_no_player() {
    // A patch of pale table beside an Alhambra's edge read as a fountain alone (2.8
    // against a presence limit of 3.0); under the light its own colours call for it read
    // 3.9, far from any tile. The photo's real lone fountain (1.1 there) stays.
    let v = photo_overall("lone-patch", "8474", "normal", "iso");
    let at = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("phantom_pct"), 0.0, "{v}");
    assert!(at("missed_pct") < 4.0, "{v}");
}

#[test]
fn no_two_fountains_are_read_on_one_tiles_worth_of_table() {
    // hard_8738: an Alhambra's fountain was missed and some of its tiles read as lone
    // fountains, two pairs of them under a cell apart (0.7-0.9 of a cell): tiles never
    // overlap, so one of each pair goes. Two phantom tiles of 48 stay.
    let v = photo_overall("overlapping-fountains", "8738", "hard", "iso");
    let at = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    assert!(at("phantom_pct") < 5.0, "{v}");
}

#[test]
fn a_pale_tile_on_a_cream_table_that_shows_its_art_is_no_other_fountain() {
    // normal_8474: a tower at an Alhambra's corner, on a cream table under a bright light,
    // read a little like a fountain (a seventh as clearly as its own) and 56% in the
    // table's colour, so growth stopped there as at another player's fountain. Its drawn
    // lines (0.75 of the fountain's edge strength) tell a tile; most cells off any tile
    // that stopped growth so show 0.25-0.5. Every tile of the photo is then read.
    let v = photo_overall("pale-tower", "8474", "normal", "iso");
    let at = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("missed_pct"), 0.0, "{v}");
    assert_eq!(at("phantom_pct"), 0.0, "{v}");
}

#[test]
fn a_bare_cloth_beside_a_lone_fountain_is_no_tile_under_any_light() {
    // A grey cloth, second tile set (whose chambers have slate roofs): the lone
    // fountains were read again under casts and their own light, while the cloth's colour
    // was still compared under the photo's white balance. Six cells of bare cloth were then
    // read as chambers around one fountain.
    let v = plan_photo_overall("bare-cloth", "8014", "normal");
    assert_eq!(v["phantom_pct"].as_f64(), Some(0.0), "{v}");
}

#[test]
fn a_bay_of_dark_table_between_tiles_is_no_tile() {
    // Second tile set on a dark wooden table: two cells of bare wood by an Alhambra's tiles
    // read as a tower and a seraglio (within the presence limit of the wood), 0.6-0.7 of
    // each the table's colour as a whole, the rest on the neighbours' edges and shadows.
    // Their middles are the table; a tile's shows its building.
    let v = plan_photo_overall("dark-bays", "8826", "normal");
    assert_eq!(v["phantom_pct"].as_f64(), Some(0.0), "{v}");
}

#[test]
fn a_fountain_alone_off_the_overviews_guess_is_found() {
    // Second tile set, 30 mm markers: a player's fountain lies alone, and the overview
    // put its centre a sixth of a cell off. No cell of the grids tried around that guess
    // read near enough a tile to be read carefully, and the fountain was missed.
    let v = plan_photo_overall("lone-fountain", "8104", "easy");
    assert_eq!(v["missed_pct"].as_f64(), Some(0.0), "{v}");
}

#[test]
fn a_fountain_alone_turned_off_the_tables_grain_is_found() {
    // Second tile set, normal_8831: a lone fountain lies turned off every direction the
    // wood's grain and the other Alhambras show, so each lattice tried put its quad's
    // corners on the table, and it read as no tile (3.2-3.5 against a limit of 2.9)
    // although it read far more like the fountain than like any building. Reshaped onto
    // the tile it reads clearly (0.15-0.3), and alone that now anchors it.
    let v = plan_photo_overall("lone-turned-fountain", "8831", "normal");
    assert_eq!(v["missed_pct"].as_f64(), Some(0.0), "{v}");
    assert_eq!(v["phantom_pct"].as_f64(), Some(0.0), "{v}");
}

#[test]
fn a_fountain_is_not_turned_onto_bare_table_that_reads_as_tiles_under_a_cast() {
    // Second tile set, normal_8832, dark wood: a fountain with an arcade beside it, read
    // again under a reddening cast, was turned by 42 degrees to where two cells of wood
    // read as seraglios (their distance within the limit, 0.9 of them the table's
    // colour), losing the arcade and reading three phantoms. Bare table is no neighbour.
    let v = plan_photo_overall("turned-onto-table", "8832", "normal");
    assert_eq!(v["phantom_pct"].as_f64(), Some(0.0), "{v}");
    assert_eq!(v["missed_pct"].as_f64(), Some(0.0), "{v}");
}

#[test]
fn a_cell_straddling_another_alhambras_tile_is_no_tile_of_a_lone_fountain() {
    // Second tile set, normal_8836, grey cloth: a lone fountain, turned 15 degrees to
    // where a neighbour reads as a tile, took a cell half on another Alhambra's chambers
    // (its centre 0.53 of a cell from that tile's) and half on the cloth: a phantom
    // chambers. Tiles cannot overlap: such a cell is taken.
    let v = plan_photo_overall("straddling-cell", "8836", "normal");
    // Four of its five Alhambras exact (the fifth has a phantom of its own, in a hole).
    assert!(v["alhambra_exact_pct"].as_f64() >= Some(80.0), "{v}");
}

#[test]
fn fountains_seen_clearest_at_another_size_are_all_looked_at() {
    // Fresh normal photos, tilted camera. normal_8463: a far fountain a fifth smaller than
    // the profile's, with one tile beside it, was tried at the learned pitch only and
    // missed. normal_8450: a lone fountain was the seventh of those seen clearest at
    // another size, and only six were tried.
    let dir = scratch("other-size");
    let (train, set) = (dir.join("train"), dir.join("set"));
    synth(&["--seed", "7", "--out", arg(&train)]);
    let profile = dir.join("profile.json");
    learn_profile(&train.join("normal_7.jpg"), &profile);
    for seed in ["8463", "8450"] {
        synth(&["--seed", seed, "--difficulty", "normal", "--out", arg(&set)]);
        let photo = set.join(format!("normal_{seed}.jpg"));
        let o = alhambra(&["scan", arg(&photo), "--profile", arg(&profile), "--json"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let found = assert_scan_shape(&json(&o), &format!("normal_{seed}.jpg"));
        let labels: serde_json::Value = serde_json::from_slice(
            &std::fs::read(set.join(format!("normal_{seed}.json"))).expect("labels"),
        )
        .expect("labels JSON");
        let tile_px = labels["meta"]["tile_px"].as_f64().unwrap_or(60.0);
        let fountain = match seed {
            "8463" => [264.0, 629.0],
            _ => [1790.0, 448.0],
        };
        // The labels place that fountain there, and the scan must find it.
        let labelled = labels["alhambras"].as_array().cloned().unwrap_or_default();
        assert!(
            labelled.iter().any(|a| {
                let l = [
                    a["fountain_px"][0].as_f64().unwrap_or(f64::NAN),
                    a["fountain_px"][1].as_f64().unwrap_or(f64::NAN),
                ];
                (l[0] - fountain[0]).hypot(l[1] - fountain[1]) < 0.3 * tile_px
            }),
            "normal_{seed}: no labelled fountain at {fountain:?}"
        );
        assert!(
            found
                .iter()
                .any(|f| (f[0] - fountain[0]).hypot(f[1] - fountain[1]) < 0.3 * tile_px),
            "normal_{seed}: the fountain at {fountain:?} was not found: {found:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tiles_under_a_light_the_marker_paper_does_not_share_are_read() {
    // The tiles 8% greener, or 15% bluer, than the marker paper says (a lamp over the
    // tiles, paper that is not quite white): under the paper's white balance every tile
    // looked unlike the profile's and not even the fountains were read (93% and 99% of
    // tiles missed on six such photos each); the scan now tries the casts under which the
    // clearest fountain looks most like the profile's. 12% less blue: some Alhambras were
    // read, others not (24% missed); the light the read ones call for is now tried on the
    // whole photo.
    use opencv::core::{Mat, Vec3b, Vector};
    use opencv::imgcodecs;
    use opencv::prelude::*;
    let dir = scratch("tint");
    let (plain, set) = (dir.join("plain"), dir.join("set").join("easy"));
    for seed in ["7600", "7601", "7604"] {
        synth(&["--seed", seed, "--difficulty", "easy", "--out", arg(&plain)]);
    }
    std::fs::create_dir_all(&set).expect("set dir");
    // (photo, BGR channel, factor)
    for (stem, channel, factor) in [
        ("easy_7600", 1, 1.08f32),
        ("easy_7601", 0, 0.88),
        ("easy_7604", 0, 1.15),
    ] {
        let labels = plain.join(format!("{stem}.json"));
        let text = std::fs::read_to_string(&labels).expect("labels");
        let v: serde_json::Value = serde_json::from_str(&text).expect("labels are JSON");
        // Each marker's sheet (the marker and its white margin) keeps the plain light.
        let sheets: Vec<[f64; 4]> = v["meta"]["markers"]
            .as_array()
            .expect("markers in the labels")
            .iter()
            .map(|m| {
                let c: Vec<[f64; 2]> = m["corners_px"]
                    .as_array()
                    .expect("marker corners")
                    .iter()
                    .map(|p| [p[0].as_f64().unwrap_or(0.0), p[1].as_f64().unwrap_or(0.0)])
                    .collect();
                let (xs, ys): (Vec<f64>, Vec<f64>) = c.iter().map(|p| (p[0], p[1])).unzip();
                let (x0, x1) = (
                    xs.iter().copied().fold(f64::MAX, f64::min),
                    xs.iter().copied().fold(f64::MIN, f64::max),
                );
                let (y0, y1) = (
                    ys.iter().copied().fold(f64::MAX, f64::min),
                    ys.iter().copied().fold(f64::MIN, f64::max),
                );
                let (cx, cy, hw, hh) = (
                    (x0 + x1) / 2.0,
                    (y0 + y1) / 2.0,
                    0.9 * (x1 - x0),
                    0.9 * (y1 - y0),
                );
                [cx - hw, cy - hh, cx + hw, cy + hh]
            })
            .collect();
        let photo = plain.join(format!("{stem}.jpg"));
        let mut img: Mat = imgcodecs::imread(arg(&photo), imgcodecs::IMREAD_COLOR).expect("photo");
        for y in 0..img.rows() {
            for x in 0..img.cols() {
                let (fx, fy) = (f64::from(x), f64::from(y));
                if sheets
                    .iter()
                    .any(|s| fx >= s[0] && fx <= s[2] && fy >= s[1] && fy <= s[3])
                {
                    continue;
                }
                let px = img.at_2d_mut::<Vec3b>(y, x).expect("pixel");
                px[channel] = (f32::from(px[channel]) * factor).round().min(255.0) as u8;
            }
        }
        let params = Vector::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, 92]);
        let out = set.join(format!("{stem}.jpg"));
        assert!(imgcodecs::imwrite(arg(&out), &img, &params).expect("write"));
        std::fs::copy(&labels, set.join(format!("{stem}.json"))).expect("copy labels");
    }
    let o = alhambra(&["eval", arg(&dir.join("set")), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let at = |key: &str| v["overall"][key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("photos"), 3.0, "{v}");
    assert!(at("missed_pct") <= 5.0, "{v}");
    assert!(at("alhambra_exact_pct") >= 75.0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tiles_shot_more_or_less_colourful_than_the_labelled_photo_are_read() {
    // The same scenes with every colour blended towards its own grey (a camera's lower
    // saturation) or pushed away from it: the profile's colours no longer fit, and the
    // marker paper, grey either way, cannot tell. Blended 0.55 of the way, 20% of the
    // tiles of 40 easy photos were missed and half the Alhambras read wrong; pushed 25%
    // further, 5% and a quarter. The scan now fits the photo's tone on the tiles it read
    // surely and reads the photo again in the profile's.
    use opencv::core::{Mat, Vec3b, Vector};
    use opencv::imgcodecs;
    use opencv::prelude::*;
    let dir = scratch("saturation");
    let (plain, set) = (dir.join("plain"), dir.join("set").join("easy"));
    for seed in ["7610", "7611", "7612", "7613"] {
        synth(&["--seed", seed, "--difficulty", "easy", "--out", arg(&plain)]);
    }
    std::fs::create_dir_all(&set).expect("set dir");
    for (stem, saturation) in [
        ("easy_7610", 0.5f32),
        ("easy_7611", 0.6),
        ("easy_7612", 1.35),
        ("easy_7613", 1.5),
    ] {
        let photo = plain.join(format!("{stem}.jpg"));
        let mut img: Mat = imgcodecs::imread(arg(&photo), imgcodecs::IMREAD_COLOR).expect("photo");
        for y in 0..img.rows() {
            for x in 0..img.cols() {
                let px = img.at_2d_mut::<Vec3b>(y, x).expect("pixel");
                let grey = (f32::from(px[0]) + f32::from(px[1]) + f32::from(px[2])) / 3.0;
                for c in 0..3 {
                    let v = grey + saturation * (f32::from(px[c]) - grey);
                    px[c] = v.round().clamp(0.0, 255.0) as u8;
                }
            }
        }
        let params = Vector::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, 92]);
        let out = set.join(format!("{stem}.jpg"));
        assert!(imgcodecs::imwrite(arg(&out), &img, &params).expect("write"));
        std::fs::copy(
            plain.join(format!("{stem}.json")),
            set.join(format!("{stem}.json")),
        )
        .expect("copy labels");
    }
    let o = alhambra(&["eval", arg(&dir.join("set")), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let at = |key: &str| v["overall"][key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("photos"), 4.0, "{v}");
    assert!(at("missed_pct") <= 3.0, "{v}");
    assert!(at("phantom_pct") <= 1.0, "{v}");
    assert!(at("alhambra_exact_pct") >= 80.0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same photo reads the same in every run. Nothing the scanner sums or searches may
/// follow a hash set's order, which is new in every process: a rendered photo of the dev
/// set (seed 6005) read its seams a few hundredths of a pixel differently from run to run,
/// and on other photos a tile differently.
#[test]
fn scan_reads_a_photo_the_same_in_every_run() {
    let dir = scratch("same_every_run");
    let d = arg(&dir);
    for (seed, difficulty) in [("7", "normal"), ("6005", "normal")] {
        synth(&["--seed", seed, "--difficulty", difficulty, "--out", d]);
    }
    let profile = dir.join("profile.json");
    learn_profile(&dir.join("normal_7.jpg"), &profile);
    let photo = dir.join("normal_6005.jpg");
    let scan = || {
        let o = alhambra(&["scan", arg(&photo), "--profile", arg(&profile), "--json"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stdout(&o)
    };
    let first = scan();
    for run in 2..=5 {
        assert!(
            scan() == first,
            "run {run} read the photo differently from the first"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The contract's files are JSON objects: a layout or a game written as arrays of their
/// fields in order (which serde's derived structs would read) is bad input.
#[test]
fn check_and_score_refuse_arrays_in_place_of_objects() {
    let dir = scratch("arrays");
    let layout = dir.join("layout.json");
    std::fs::write(
        &layout,
        r#"[[[0, 0, "fountain"], [1, 0, "tower", ["east"]]]]"#,
    )
    .expect("write");
    assert_bad_input(&alhambra(&["check", arg(&layout)]), "layout.json");
    let tiles = dir.join("tiles.json");
    std::fs::write(&tiles, r#"{"tiles": [[0, 0, "fountain"]]}"#).expect("write");
    assert_bad_input(&alhambra(&["check", arg(&tiles), "--json"]), "tiles.json");
    let game = dir.join("game.json");
    std::fs::write(
        &game,
        r#"{"players": [["A", {"tiles": [{"x": 0, "y": 0, "building": "fountain"}]}],
                        ["B", {"tiles": [{"x": 0, "y": 0, "building": "fountain"}]}]]}"#,
    )
    .expect("write");
    assert_bad_input(
        &alhambra(&["score", arg(&game), "--round", "1"]),
        "game.json",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A marker too small and soft for ArUco's own reading (about 30 px across, blurred, seen
/// at a slant: hard seed 7300) still gives the table plane: ArUco finds its square, and
/// its bits are matched whole against every marker. Before, the scan fell back on the
/// tile lattice with tiles taken to be square in the image.
#[test]
fn a_small_blurred_marker_still_gives_the_table_plane() {
    let dir = scratch("soft_marker");
    synth(&["--seed", "7300", "--difficulty", "hard", "--out", arg(&dir)]);
    let o = alhambra(&["scan", arg(&dir.join("hard_7300.jpg")), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o)["meta"]["plane"], "markers");
    let _ = std::fs::remove_dir_all(&dir);
}

/// One labelled photo is enough to adapt even when it shows no marker: the tiles' look
/// needs none, and the tile size is then assumed (and said so) instead of refused.
#[test]
fn calibrate_appearance_learns_from_a_photo_without_markers() {
    use opencv::core::{Point, Scalar, Vec3b, Vector};
    use opencv::prelude::*;
    use opencv::{imgcodecs, imgproc};
    let dir = scratch("no_markers");
    // Seed 7300's hard table with its marker (small and blurred, but read) covered by
    // the table's colour, paper and all.
    synth(&["--seed", "7300", "--difficulty", "hard", "--out", arg(&dir)]);
    let photo = dir.join("hard_7300.jpg");
    let text = std::fs::read_to_string(dir.join("hard_7300.json")).expect("labels");
    let labels: serde_json::Value = serde_json::from_str(&text).expect("labels JSON");
    let mut image = imgcodecs::imread(arg(&photo), imgcodecs::IMREAD_COLOR).expect("photo");
    for marker in labels["meta"]["markers"].as_array().into_iter().flatten() {
        let corners: Vec<[f64; 2]> = marker["corners_px"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| [p[0].as_f64().unwrap_or(0.0), p[1].as_f64().unwrap_or(0.0)])
            .collect();
        let c = corners
            .iter()
            .fold([0.0, 0.0], |a, p| [a[0] + p[0] / 4.0, a[1] + p[1] / 4.0]);
        let at = |k: f64, p: &[f64; 2]| [c[0] + k * (p[0] - c[0]), c[1] + k * (p[1] - c[1])];
        let outside = at(2.5, &corners[0]);
        let table = *image
            .at_2d::<Vec3b>(outside[1] as i32, outside[0] as i32)
            .expect("table beside the marker");
        let paper: Vector<Point> = corners
            .iter()
            .map(|p| {
                let q = at(1.8, p);
                Point::new(q[0] as i32, q[1] as i32)
            })
            .collect();
        let colour = Scalar::new(
            f64::from(table[0]),
            f64::from(table[1]),
            f64::from(table[2]),
            0.0,
        );
        imgproc::fill_convex_poly(&mut image, &paper, colour, imgproc::LINE_8, 0)
            .expect("cover the marker");
    }
    imgcodecs::imwrite(arg(&photo), &image, &Vector::new()).expect("write photo");
    let profile = dir.join("profile.json");
    let o = learn_profile(&dir.join("hard_7300.jpg"), &profile);
    assert!(stdout(&o).contains("no ArUco marker"), "{}", stdout(&o));
    assert!(stderr(&o).contains("50 mm"), "{}", stderr(&o));
    let text = std::fs::read_to_string(&profile).expect("profile written");
    let value: serde_json::Value = serde_json::from_str(&text).expect("profile JSON");
    assert_eq!(value["pitch_mm"].as_f64(), Some(50.0));
    let o = alhambra(&[
        "scan",
        arg(&dir.join("hard_7300.jpg")),
        "--profile",
        arg(&profile),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tiles: usize = json(&o)["alhambras"].as_array().map_or(0, |a| {
        a.iter()
            .map(|x| x["tiles"].as_array().map_or(0, Vec::len))
            .sum()
    });
    assert!(
        tiles >= 10,
        "the photo it learned from reads: {tiles} tiles"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tiles beyond a hand are read. A tile beside the fountain is painted over (skin,
/// as a hand), cutting three or more tiles off from the fountain; growth stopped at it
/// and every tile beyond was missed. It now looks across a cell that reads as no tile
/// and is not the bare table, and says where it did.
#[test]
fn tiles_beyond_a_hand_over_the_alhambra_are_read() {
    use opencv::core::{Mat, Point, Scalar, Vector};
    use opencv::{imgcodecs, imgproc};
    use std::collections::{HashMap, HashSet};
    let dir = scratch("hand_over");
    let (plain, set) = (dir.join("plain"), dir.join("set").join("easy"));
    let seeds = ["7620", "7621", "7622", "7623"];
    for seed in seeds {
        synth(&["--seed", seed, "--difficulty", "easy", "--out", arg(&plain)]);
    }
    // The first tile beside a fountain whose removal cuts the most tiles off (3 or more).
    let mut chosen = None;
    'photos: for seed in seeds {
        let stem = format!("easy_{seed}");
        let text = std::fs::read_to_string(plain.join(format!("{stem}.json"))).expect("labels");
        let v: serde_json::Value = serde_json::from_str(&text).expect("labels are JSON");
        for (a, alh) in v["alhambras"]
            .as_array()
            .expect("alhambras")
            .iter()
            .enumerate()
        {
            let tiles: HashMap<(i64, i64), usize> = alh["tiles"]
                .as_array()
                .expect("tiles")
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    (
                        (t["x"].as_i64().unwrap_or(0), t["y"].as_i64().unwrap_or(0)),
                        k,
                    )
                })
                .collect();
            for cut in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                if !tiles.contains_key(&cut) {
                    continue;
                }
                let mut joined = HashSet::new();
                let mut todo = vec![(0, 0)];
                while let Some(p) = todo.pop() {
                    if p != cut && tiles.contains_key(&p) && joined.insert(p) {
                        todo.extend(
                            [(1, 0), (-1, 0), (0, 1), (0, -1)].map(|d| (p.0 + d.0, p.1 + d.1)),
                        );
                    }
                }
                if tiles.len() - 1 - joined.len() >= 3 {
                    chosen = Some((stem, v.clone(), a, tiles[&cut]));
                    break 'photos;
                }
            }
        }
    }
    let (stem, mut labels, a, k) = chosen.expect("a tile beside a fountain that cuts others off");
    let tile = &mut labels["alhambras"][a]["tiles"][k];
    let corners: Vec<[f64; 2]> = tile["corners_px"]
        .as_array()
        .expect("corners")
        .iter()
        .map(|p| [p[0].as_f64().unwrap_or(0.0), p[1].as_f64().unwrap_or(0.0)])
        .collect();
    tile["occluded"] = serde_json::Value::Bool(true);
    let (cx, cy) = (
        corners.iter().map(|p| p[0]).sum::<f64>() / 4.0,
        corners.iter().map(|p| p[1]).sum::<f64>() / 4.0,
    );
    // A little past the tile's edges, as a finger would be.
    let poly: Vector<Point> = corners
        .iter()
        .map(|p| {
            Point::new(
                (cx + 1.1 * (p[0] - cx)).round() as i32,
                (cy + 1.1 * (p[1] - cy)).round() as i32,
            )
        })
        .collect();
    let mut img: Mat = imgcodecs::imread(
        arg(&plain.join(format!("{stem}.jpg"))),
        imgcodecs::IMREAD_COLOR,
    )
    .expect("photo");
    imgproc::fill_convex_poly(
        &mut img,
        &poly,
        Scalar::new(95.0, 130.0, 190.0, 0.0),
        imgproc::LINE_AA,
        0,
    )
    .expect("paint");
    std::fs::create_dir_all(&set).expect("set dir");
    let photo = set.join(format!("{stem}.jpg"));
    let params = Vector::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, 92]);
    assert!(imgcodecs::imwrite(arg(&photo), &img, &params).expect("write"));
    std::fs::write(set.join(format!("{stem}.json")), labels.to_string()).expect("labels");
    let o = alhambra(&["eval", arg(&dir.join("set")), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let at = |key: &str| v["overall"][key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("photos"), 1.0, "{v}");
    assert!(at("missed_pct") <= 1.0, "{stem}: {v}");
    assert!(at("phantom_pct") <= 1.0, "{stem}: {v}");
    let o = alhambra(&["scan", arg(&photo)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("not read between tiles"),
        "{}",
        stdout(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The rendered table of `synthetic:2:tile` (a hand lays a tile), and the name of the
/// building laid as the JSON says it.
fn tile_scene() -> (alhambra_vision::source::SyntheticScene, serde_json::Value) {
    let scene = alhambra_vision::source::SyntheticScene::tile_added(2).expect("it renders");
    let added = scene.added_tile().expect("the tile story adds a tile");
    let building = serde_json::to_value(added.piece.building).expect("a building");
    (scene, building)
}

/// Asserts that `watch --json` told one change besides the first layouts: `building`
/// added.
fn assert_one_tile_added(v: &serde_json::Value, building: &serde_json::Value) {
    let changes: Vec<&serde_json::Value> = v["accepted"]
        .as_array()
        .expect("accepted")
        .iter()
        .filter(|a| a["initial"] == false)
        .flat_map(|a| a["changes"].as_array().expect("changes"))
        .collect();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0]["change"], "added");
    assert_eq!(&changes[0]["building"], building);
}

#[test]
fn watch_tells_the_tile_a_hand_puts_down_as_it_happens() {
    let (scene, building) = tile_scene();
    let game = scratch("watch").join("game.json");
    let picture = game.with_file_name("live.png");
    let o = alhambra(&[
        "watch",
        "synthetic:2:tile",
        "--json",
        "--game-out",
        arg(&game),
        "--overlay",
        arg(&picture),
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_one_tile_added(&v, &building);
    let frames = v["frames"].as_u64().expect("frames");
    let read = v["frames_read"].as_u64().expect("frames read");
    assert!(read > 0 && read < frames, "{read} of {frames} frames read");
    let finals = v["alhambras"].as_array().expect("alhambras");
    assert!(!finals.is_empty());
    assert!(
        finals.iter().all(|a| a["layout"]["tiles"].is_array()),
        "{finals:?}"
    );
    // The last frame read, with what was read drawn over it, is a picture of its size.
    let drawn = opencv::imgcodecs::imread(arg(&picture), opencv::imgcodecs::IMREAD_COLOR)
        .expect("the overlay reads");
    assert_eq!(
        opencv::prelude::MatTraitConst::size(&drawn).expect("a size"),
        opencv::prelude::MatTraitConst::size(scene.clean_after()).expect("a size")
    );
    // The game file of the layouts accepted is what `score` reads.
    let scored = alhambra(&["score", arg(&game), "--round", "3", "--json"]);
    assert_eq!(scored.status.code(), Some(0), "stderr: {}", stderr(&scored));
    assert_eq!(json(&scored)["players"].as_array().map(Vec::len), Some(2));
    // In words, the same as it happens.
    let o = alhambra(&["watch", "synthetic:2:tile"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let text = stdout(&o);
    let said = format!("{} added at", building.as_str().expect("a name"));
    assert!(text.contains(&said), "{text}");
    assert!(text.contains("frames,"), "{text}");
}

#[test]
fn watch_reads_a_folder_of_photos_taken_after_each_turn() {
    use opencv::core::Vector;
    use opencv::imgcodecs;
    // Two photos of one table: before and after a tile is laid.
    let (scene, building) = tile_scene();
    let dir = scratch("turns");
    for (name, image) in [
        ("1.png", scene.clean_before()),
        ("2.png", scene.clean_after()),
    ] {
        let path = dir.join(name);
        assert!(imgcodecs::imwrite(arg(&path), image, &Vector::new()).expect("written"));
    }
    // Each held for five frames: one that differs from the last, and calm ones to settle.
    let o = alhambra(&["watch", arg(&dir), "--hold", "5", "--json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["frames"], 10);
    assert_one_tile_added(&v, &building);
    // Shown once each, the photos never settle: nothing is accepted, and the text says
    // what to do.
    let o = alhambra(&["watch", arg(&dir), "--json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(json(&o)["accepted"].as_array().map(Vec::len), Some(0));
    let o = alhambra(&["watch", arg(&dir)]);
    assert!(stdout(&o).contains("--hold 5"), "{}", stdout(&o));
}

#[test]
fn watch_reads_a_video_file() {
    use alhambra_vision::source::FrameSource;
    use opencv::prelude::*;
    use opencv::videoio;
    // The rendered tile-laying sequence as a motion-JPEG AVI (OpenCV's own writer and
    // reader: no FFmpeg needed).
    let (mut scene, building) = tile_scene();
    let video = scratch("video").join("table.avi");
    let first = scene.clean_before().size().expect("a size");
    let fourcc = videoio::VideoWriter::fourcc('M', 'J', 'P', 'G').expect("a codec");
    let mut writer = videoio::VideoWriter::new_with_backend(
        arg(&video),
        videoio::CAP_OPENCV_MJPEG,
        fourcc,
        10.0,
        first,
        true,
    )
    .expect("a writer");
    assert!(
        writer.is_opened().expect("asked"),
        "OpenCV cannot write MJPEG AVI here"
    );
    while let Some(frame) = scene.next_frame().expect("a frame") {
        writer.write(&frame.image).expect("written");
    }
    writer.release().expect("closed");
    let o = alhambra(&["watch", arg(&video), "--json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["frames"].as_u64(), Some(scene.len()));
    assert_one_tile_added(&v, &building);
}

#[test]
fn watch_refuses_a_source_that_is_not_there() {
    assert_bad_input(
        &alhambra(&["watch", "/no/such/footage"]),
        "/no/such/footage",
    );
    assert_bad_input(&alhambra(&["watch", "synthetic:x"]), "synthetic:x");
    assert_bad_input(
        &alhambra(&[
            "watch",
            "synthetic:2",
            "--game-out",
            "/no/such/folder/game.json",
        ]),
        "/no/such/folder/game.json",
    );
    let text = scratch("overlay").join("live.txt");
    assert_bad_input(
        &alhambra(&["watch", "synthetic:2", "--overlay", arg(&text)]),
        "live.txt",
    );
    // No camera on these machines (CI): said in one line, not a hang. (With a camera, one
    // frame is read and that is all.)
    let o = alhambra(&["watch", "camera", "--frames", "1"]);
    if o.status.code() != Some(0) {
        assert_bad_input(&o, "no camera found");
        // Named by default only, the camera falls back to the demo sequence, saying so.
        let o = alhambra(&["watch", "--frames", "2"]);
        assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
        assert!(stderr(&o).contains("demo sequence"), "{}", stderr(&o));
        assert!(stdout(&o).contains("2 frames"), "{}", stdout(&o));
    }
}

// ---- the companion window ----

/// An X server of its own for a test that opens a window (none on CI): Xvfb on a free
/// display number, stopped when dropped.
struct VirtualDisplay {
    server: std::process::Child,
    display: String,
}

impl VirtualDisplay {
    fn start() -> VirtualDisplay {
        for n in 90..140 {
            let socket = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
            let lock = PathBuf::from(format!("/tmp/.X{n}-lock"));
            if socket.exists() || lock.exists() {
                continue;
            }
            let display = format!(":{n}");
            let Ok(mut server) = Command::new("Xvfb")
                .args([
                    display.as_str(),
                    "-screen",
                    "0",
                    "1280x800x24",
                    "-nolisten",
                    "tcp",
                ])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
            else {
                panic!("Xvfb does not start: scripts/install-deps installs it (package xvfb)");
            };
            for _ in 0..100 {
                if socket.exists() {
                    return VirtualDisplay { server, display };
                }
                if let Ok(Some(_)) = server.try_wait() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            let _ = server.kill();
            let _ = server.wait();
        }
        panic!("no free X display for Xvfb between :90 and :139");
    }
}

impl Drop for VirtualDisplay {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

#[test]
fn the_demo_window_follows_the_table_and_keeps_the_game() {
    let (scene, building) = tile_scene();
    let x = VirtualDisplay::start();
    let session = scratch("demo-window").join("game").join("session.json");
    let o = Command::new(env!("CARGO_BIN_EXE_alhambra"))
        .args(["demo", "--session", arg(&session), "--close-when-done"])
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("the binary runs");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    // The session saved as it went: a player per Alhambra, each with the layout accepted
    // last, the tile laid among them.
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&session).expect("the session is saved"))
            .expect("the session is JSON");
    let players = saved["players"].as_array().expect("players");
    assert_eq!(
        players.len(),
        scene.labels_after().alhambras.len(),
        "{saved}"
    );
    let laid: usize = players
        .iter()
        .flat_map(|p| p["layout"]["tiles"].as_array().expect("tiles"))
        .filter(|t| t["building"] == building)
        .count();
    let before: usize = scene
        .labels_before()
        .alhambras
        .iter()
        .flat_map(|a| &a.tiles)
        .filter(|t| serde_json::to_value(t.building).ok().as_ref() == Some(&building))
        .count();
    assert_eq!(laid, before + 1, "{saved}");
    // Opened without a command and without a camera (CI), it shows the demo, saying so.
    let own = session.with_file_name("own.json");
    let o = Command::new(env!("CARGO_BIN_EXE_alhambra"))
        .args(["--session", arg(&own), "--frames", "2", "--close-when-done"])
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("the binary runs");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    if open_camera_fails() {
        assert!(
            stderr(&o).contains("showing the demo footage"),
            "{}",
            stderr(&o)
        );
    }
    // Without a display: one line, exit 2.
    let o = Command::new(env!("CARGO_BIN_EXE_alhambra"))
        .args(["demo", "--session", arg(&session)])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .expect("the binary runs");
    assert_bad_input(&o, "no display");
    let _ = std::fs::remove_dir_all(
        session
            .parent()
            .and_then(|p| p.parent())
            .unwrap_or(&session),
    );
}

/// Whether `watch camera` finds no camera here (as on CI).
fn open_camera_fails() -> bool {
    alhambra(&["watch", "camera", "--frames", "1"])
        .status
        .code()
        != Some(0)
}

/// The eval of one normal photo rendered from `seed` in `art`, with a profile learned from
/// the labelled photo of seed 7 in the same art (in scratch folder `name`, removed after).
fn eval_one_learned_from_seed_7(name: &str, art: &str, seed: &str) -> serde_json::Value {
    let dir = scratch(name);
    let (learn, set) = (dir.join("learn"), dir.join("set"));
    for (seed, out) in [("7", &learn), (seed, &set)] {
        synth(&[
            "--seed",
            seed,
            "--difficulty",
            "normal",
            "--art",
            art,
            "--out",
            arg(out),
        ]);
    }
    let profile = dir.join("profile.json");
    learn_profile(&learn.join("normal_7.jpg"), &profile);
    let v = eval_overall(&set, &profile);
    let _ = std::fs::remove_dir_all(&dir);
    v
}

/// Evaluates one normal photo of the usual art (see [`eval_one_learned_from_seed_7`]) and
/// asserts that under 2% of its tiles were missed and under 2% read where there is none
/// (in a photo of under 50 tiles, none).
fn assert_one_photo_read_whole(name: &str, seed: &str) {
    let v = eval_one_learned_from_seed_7(name, "same", seed);
    let at = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("photos"), 1.0, "{v}");
    assert!(at("missed_pct") < 2.0, "{v}");
    assert!(at("phantom_pct") < 2.0, "{v}");
}

/// A lone fountain whose lattice was fitted a quarter larger than the table's tiles (off
/// the plane the largest Alhambra shows, with no tile beside it there) stays alone on that
/// plane: on its own lattice it took another Alhambra's far tile, at the end of a row
/// five cells from that one's fountain (one tile missed, one phantom of 49).
#[test]
fn a_lone_fountain_read_at_another_size_takes_no_tile_of_another_alhambra() {
    assert_one_photo_read_whole("lone_size", "9082");
}

/// A tile the kept reading's quad read as the bare table, off the tile, is read from
/// another look that saw it plainly on the same cell: it was dropped as the table (one
/// tile missed of 45), while three other looks read it at a fifth of the presence limit.
#[test]
fn a_tile_read_as_the_table_by_one_look_and_plainly_by_another_is_kept() {
    assert_one_photo_read_whole("clearer_look", "9057");
}

/// Tiles whose art is drawn off their centres pull the grid grown on them off the tiles,
/// and their outer sides then lie over the table or inside a wall: the sides are read on
/// the grid the seams settle within a far reach. Held-out varied 9011: 8 sides of 228
/// were read wrongly on the near grid (2 of 6 Alhambras exact), none on the far one.
#[test]
fn walls_of_tiles_drawn_off_centre_are_read_on_the_grid_the_seams_settle() {
    let v = eval_one_learned_from_seed_7("far_seams", "varied", "9011");
    let at = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("photos"), 1.0, "{v}");
    assert!(at("wall_error_pct") < 1.5, "{v}");
    assert!(at("missed_pct") < 2.0, "{v}");
}

/// A hand and pale planks beside an Alhambra are not read as its tiles. Tiles drawn each
/// with its own illustration teach a profile broad looks, and in this photo an open hand
/// beside an Alhambra and the pale planks about it read as five tiles (chambers mostly);
/// they look far more like the photo's own bare table, and are dropped.
#[test]
fn a_hand_and_pale_planks_beside_an_alhambra_are_no_tiles() {
    let v = eval_one_learned_from_seed_7("own_table", "varied", "7704");
    let at = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    assert_eq!(at("photos"), 1.0, "{v}");
    // Was 5 of 41 tiles (12%); one tile is 2.4%.
    assert!(at("phantom_pct") < 3.0, "{v}");
    assert!(at("missed_pct") < 30.0, "{v}");
}
