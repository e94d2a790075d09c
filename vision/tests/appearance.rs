//! Appearance learned from one labelled rendered photo reads the other photos of that set:
//! the profile carries the adaptation, not the scanner's defaults.

use alhambra_engine::Building;
use alhambra_vision::ScanResult;
use alhambra_vision::appearance::Profile;
use alhambra_vision::default_profile::built_in_samples;
use alhambra_vision::eval::{Tally, compare_photo};
use alhambra_vision::scanner::{ScanOptions, Scanner};
use alhambra_vision::synth::{Difficulty, RenderedScene, SceneOptions, render};
use alhambra_vision::training::{
    EXAMPLE_VARIANTS, VARIANTS, learn_profile, learn_profile_borrowing, photo_samples,
};

fn marker_mm(labels: &ScanResult) -> f64 {
    labels.marker_mm().unwrap_or(40.0)
}

/// An easy rendered scene of this seed.
fn easy(seed: u64) -> SceneOptions {
    SceneOptions {
        seed,
        difficulty: Difficulty::Easy,
        ..SceneOptions::default()
    }
}

/// The profile learned from the one labelled easy photo of seed 7.
fn profile_from_easy_7() -> Profile {
    let train = render(&easy(7)).expect("renders");
    let samples =
        photo_samples(&train.image, &train.labels, marker_mm(&train.labels)).expect("samples");
    learn_profile(&[samples]).expect("learns from one photo")
}

/// A rendered scene read with `profile`, at the marker size its labels give.
fn scan_with(profile: &Profile, scene: &RenderedScene) -> ScanResult {
    Scanner::new(
        profile.clone(),
        ScanOptions {
            marker_mm: marker_mm(&scene.labels),
            ..ScanOptions::default()
        },
    )
    .scan(&scene.image)
    .expect("scans")
    .to_result("x")
}

#[test]
fn every_variant_shapes_the_buildings_but_few_are_kept_as_examples() {
    let train = render(&easy(7)).expect("renders");
    let tiles = train
        .labels
        .alhambras
        .iter()
        .flat_map(|a| &a.tiles)
        .filter(|t| t.corners_px.is_some() && !t.occluded)
        .count();
    let profile = profile_from_easy_7();
    // The Gaussians' moments rest on the tile as labelled and all its variants...
    let learned: u32 = profile.buildings.iter().flatten().map(|g| g.n).sum();
    assert_eq!(learned as usize, tiles * (1 + VARIANTS));
    // ...the nearest-neighbour test on the tile and its first few, which it scans through.
    assert_eq!(profile.examples.tiles.len(), tiles * (1 + EXAMPLE_VARIANTS));
}

#[test]
fn a_profile_from_one_easy_photo_reads_other_easy_photos() {
    let profile = profile_from_easy_7();
    let mut total = Tally::default();
    for seed in 31..37 {
        let scene = render(&easy(seed)).expect("renders");
        total.add(&compare_photo(&scene.labels, &scan_with(&profile, &scene)));
    }
    let rates = total.rates();
    // A profile that did not carry over would miss most tiles and misread buildings. The
    // scanner still misses whole Alhambras now and then (eval: ~2-3% of tiles on easy
    // photos, unevenly: one photo can lose a fifth), hence the margin on missed tiles.
    assert!(total.tiles > 120, "{total:?}");
    assert!(rates.missed_pct < 20.0, "{rates:?}");
    assert!(rates.building_error_pct < 2.0, "{rates:?}");
    assert!(rates.wall_error_pct < 3.0, "{rates:?}");
}

#[test]
fn a_building_the_labelled_photo_lacks_is_borrowed_and_read() {
    // The labelled photo with every tower hidden, as if the game had none yet.
    let train = render(&easy(7)).expect("renders");
    let mut labels = train.labels.clone();
    let mut hidden = 0;
    for t in labels.alhambras.iter_mut().flat_map(|a| a.tiles.iter_mut()) {
        if t.building == Building::Tower && !t.occluded {
            t.occluded = true;
            hidden += 1;
        }
    }
    assert!(hidden > 0, "the labelled photo shows no tower to hide");
    let samples = photo_samples(&train.image, &labels, marker_mm(&labels)).expect("samples");
    let alone = learn_profile(std::slice::from_ref(&samples)).expect("learns");
    assert!(alone.buildings[Building::Tower as usize].is_none());
    let fallback = built_in_samples().expect("the built-in photo").samples;
    let (profile, borrowed) =
        learn_profile_borrowing(&[samples], &fallback).expect("learns, borrowing");
    assert_eq!(borrowed, vec![Building::Tower]);
    assert!(profile.buildings.iter().all(Option::is_some));
    // Towers are read on other photos, where the profile alone reads none.
    let (mut labelled, mut read, mut read_alone) = (0, 0, 0);
    let towers = |r: &ScanResult| {
        r.alhambras
            .iter()
            .flat_map(|a| &a.tiles)
            .filter(|t| t.building == Building::Tower && !t.occluded)
            .count()
    };
    let mut total = Tally::default();
    for seed in 31..35 {
        let scene = render(&easy(seed)).expect("renders");
        let scan = scan_with(&profile, &scene);
        total.add(&compare_photo(&scene.labels, &scan));
        labelled += towers(&scene.labels);
        read += towers(&scan);
        read_alone += towers(&scan_with(&alone, &scene));
    }
    assert!(labelled >= 5, "{labelled} towers in the photos");
    assert_eq!(read_alone, 0);
    assert!(
        10 * read >= 8 * labelled,
        "{read} of {labelled} towers read"
    );
    let rates = total.rates();
    assert!(rates.missed_pct < 20.0, "{rates:?}");
    assert!(rates.building_error_pct < 2.0, "{rates:?}");
}

#[test]
fn a_fountain_whose_lattice_the_grain_turned_is_read_with_its_tile() {
    // Two easy scenes where a fountain with one or two tiles beside it lies on a wood
    // grain that leads the comb to a lattice turned by 40-45 degrees, and no Alhambra is
    // large enough to tell the table's plane: the turn (and the size) is found around the
    // fountain's own cell.
    let profile = profile_from_easy_7();
    for seed in [7111, 7128] {
        let scene = render(&easy(seed)).expect("renders");
        let tally = compare_photo(&scene.labels, &scan_with(&profile, &scene));
        assert_eq!(tally.missed, 0, "seed {seed}: {tally:?}");
    }
}

/// The rendered normal scene of `seed` as `synth` writes it: JPEG-encoded at its quality
/// (the encoding moves seams and edges enough to change readings).
fn normal_as_written(seed: u64) -> RenderedScene {
    as_written(seed, Difficulty::Normal)
}

/// The scene of `seed` at `difficulty` as `synth` writes it (JPEG at its quality).
fn as_written(seed: u64, difficulty: Difficulty) -> RenderedScene {
    use opencv::core::Vector;
    use opencv::imgcodecs;
    let mut scene = render(&SceneOptions {
        seed,
        difficulty,
        ..SceneOptions::default()
    })
    .expect("renders");
    let mut jpeg = Vector::<u8>::new();
    let params = Vector::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, scene.jpeg_quality]);
    assert!(imgcodecs::imencode(".jpg", &scene.image, &mut jpeg, &params).expect("encodes"));
    scene.image = imgcodecs::imdecode(&jpeg, imgcodecs::IMREAD_COLOR).expect("decodes");
    scene
}

#[test]
fn loose_tiles_walled_off_beside_an_alhambra_are_not_read_into_it() {
    // Normal scenes where tiles beside an Alhambra, a little off its lattice (loose ones,
    // or another player's), were taken by growth's wider looks: 7, 1 and 1 phantom tiles.
    // Read into the Alhambra they are walled off from its fountain, and their own look
    // is past the presence limit: they are dropped.
    let profile = profile_from_easy_7();
    for seed in [6028, 7252, 7256] {
        let scene = normal_as_written(seed);
        let tally = compare_photo(&scene.labels, &scan_with(&profile, &scene));
        assert_eq!(tally.phantom, 0, "seed {seed}: {tally:?}");
    }
}

#[test]
fn a_fountain_beside_another_players_far_tiles_leaves_them_to_their_alhambra() {
    // A normal scene where a player's fountain lies beside the far end of another's
    // Alhambra: grown ring by ring together, the fountain reached seven of the other's
    // tiles first (8 missed, 7 phantom), and both then broke rules (tiles walled off from
    // their fountain). Grown one after the other, largest first, neither breaks a rule.
    // As `synth` writes it: the scene's JPEG is what moves the seams enough for the race
    // to go wrong.
    let profile = profile_from_easy_7();
    let tally = read_normal(&profile, 7202);
    assert_eq!(tally.phantom, 0, "{tally:?}");
    assert!(tally.missed <= 2, "{tally:?}");
}

#[test]
fn far_fountains_that_read_clearer_smaller_are_found() {
    // The bundled photo `scripts/run` scans, read as it reads it (built-in profile): its
    // two back Alhambras lie far from a tilted camera on an affine plane, and their
    // fountains scored under the faint limit at the profile's tile size; at 0.8 of it
    // they read clearest of all.
    use alhambra_vision::default_profile::default_profile;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/photos/normal");
    let image = opencv::imgcodecs::imread(
        &*dir.join("normal_100.jpg").to_string_lossy(),
        opencv::imgcodecs::IMREAD_COLOR,
    )
    .expect("reads the photo");
    let labels: ScanResult = serde_json::from_slice(
        &std::fs::read(dir.join("normal_100.json")).expect("reads the labels"),
    )
    .expect("labels JSON");
    let profile = default_profile().expect("built-in profile");
    let read = Scanner::new(
        profile,
        ScanOptions {
            marker_mm: marker_mm(&labels),
            ..ScanOptions::default()
        },
    )
    .scan(&image)
    .expect("scans")
    .to_result("normal_100.jpg");
    let tally = compare_photo(&labels, &read);
    assert_eq!(tally.alhambras, 5, "{tally:?}");
    assert_eq!(tally.alhambras_exact, 5, "{tally:?}");
}

#[test]
fn a_fountain_anchored_alone_on_a_wrong_lattice_is_anchored_again_from_its_own_candidate() {
    // A normal scene read with the markers' size given wrong (40 mm for 50), profile from
    // the normal photo of seed 7: the table then reads a quarter off the profile's
    // pitch, and a candidate two cells from a fountain anchored it alone on a lattice
    // turned and sized by the art's lines (its 11 tiles missed). The candidate on the
    // fountain itself, skipped as taken, now looks again and keeps the lattice with
    // tiles around the fountain.
    let profile = profile_from_normal_7();
    let scene = normal_as_written(7218);
    let read = Scanner::new(
        profile,
        ScanOptions {
            marker_mm: 40.0,
            ..ScanOptions::default()
        },
    )
    .scan(&scene.image)
    .expect("scans")
    .to_result("x");
    let tally = compare_photo(&scene.labels, &read);
    assert!(tally.missed <= 2, "{tally:?}");
}

#[test]
fn a_fountain_anchored_on_a_lattice_a_size_off_is_turned_on_the_plane() {
    // Normal scene 9560: a candidate on a tile beside a 27-tile Alhambra's fountain
    // anchored the fountain on that tile's lattice, 1.2 times the tiles' pitch; grown
    // alone, it was not turned on the other Alhambra's plane (its cell, on that plane,
    // no unit square: 0.21 of a cell off, 0.2 allowed): 26 tiles missed.
    let profile = profile_from_normal_7();
    let tally = read_normal(&profile, 9560);
    assert!(tally.missed <= 2, "{tally:?}");
}

#[test]
fn tiles_beyond_an_arm_near_the_colour_of_the_table_are_reached() {
    // Normal scene 8421: a brown arm lies across an Alhambra on a wood table. Part of
    // its pixels are within the table colour's tolerance (0.2-0.57 of the cells it hid),
    // so growth took those cells for the bare table and stopped: the two tiles beyond
    // the arm, which read clearly, were missed.
    let profile = profile_from_normal_7();
    let tally = read_normal(&profile, 8421);
    assert!(tally.missed <= 2, "{tally:?}");
}

/// How the normal scene of `seed`, as `synth` writes it, reads with `profile`.
fn read_normal(profile: &Profile, seed: u64) -> Tally {
    let scene = normal_as_written(seed);
    compare_photo(&scene.labels, &scan_with(profile, &scene))
}

/// The profile of the normal photo of seed 7, as `calibrate appearance` learns it.
fn profile_from_normal_7() -> Profile {
    let train = normal_as_written(7);
    let samples =
        photo_samples(&train.image, &train.labels, marker_mm(&train.labels)).expect("samples");
    learn_profile(&[samples]).expect("learns from one photo")
}

#[test]
fn a_tile_is_read_under_the_light_its_alhambras_own_tiles_tell() {
    // Normal scene 8498: the 12-tile Alhambra at (620, 266) reads a chambers beside its
    // tiles too far from the chambers' look to be a tile (1 missed). Under the colour map
    // its own sure tiles tell (every building's look moved as their colours moved from the
    // labelled photo's), the cell reads as a tile and the Alhambra is exact.
    let profile = profile_from_normal_7();
    let tally = read_normal(&profile, 8498);
    assert_eq!(tally.missed, 0, "{tally:?}");
    assert_eq!(tally.alhambras_exact, tally.alhambras, "{tally:?}");
}

#[test]
fn a_tile_between_two_alhambras_goes_to_the_one_that_reads_it_as_a_tile() {
    // Normal scene 8016: Alhambras a tile apart. Grown one after the other within each
    // ring, the first took the other's tiles, turned and shifted on its own lattice
    // (1 of 4 Alhambras exact, a phantom). Settled by how well each reads the cell, 3.
    let profile = profile_from_normal_7();
    let tally = read_normal(&profile, 8016);
    assert_eq!(tally.phantom, 0, "{tally:?}");
    assert!(tally.alhambras_exact >= 3, "{tally:?}");
}

#[test]
fn a_fountain_grown_to_two_tiles_on_a_turned_lattice_is_turned_to_its_neighbours() {
    // Normal scene 8043: the comb turned a 13-tile Alhambra's lattice by 21 degrees, on
    // which one cell beside the fountain still read as a tile (11 tiles missed). Turned
    // on the plane of the photo's largest Alhambra, all four neighbours are tiles.
    let profile = profile_from_normal_7();
    let tally = read_normal(&profile, 8043);
    assert!(tally.missed <= 1, "{tally:?}");
}

#[test]
fn tiles_washed_out_by_a_patch_of_glare_are_grown_with_the_glare_taken_off() {
    // Normal scene 8001: a bright patch on the table lies over one side of a 24-tile
    // Alhambra; its seraglios read 4.9-5.2 from every building as they are (presence
    // limit 3.0), 1.4-1.9 with the glare taken off. Growth looked without glare only at
    // cells within 1.5 limits (6 tiles missed).
    let profile = profile_from_normal_7();
    let tally = read_normal(&profile, 8001);
    assert!(tally.missed <= 3, "{tally:?}");
    assert_eq!(tally.phantom, 0, "{tally:?}");
}

#[test]
fn an_outer_wall_the_lattice_cuts_is_read_on_the_tiles_edge() {
    // Easy scene 8128: in a 2-tile and a 4-tile Alhambra the lattice put a tile's outer
    // sides 4-6% of a tile inside its edge, and its walls, cut, read as open sides with
    // full confidence (4 wall errors, 2 of 4 Alhambras exact). Read with the sides moved
    // out onto the tiles' edges, every wall is right.
    let profile = profile_from_normal_7();
    let scene = as_written(8128, Difficulty::Easy);
    let tally = compare_photo(&scene.labels, &scan_with(&profile, &scene));
    assert_eq!(tally.wall_errors, 0, "{tally:?}");
    assert_eq!(tally.alhambras_exact, tally.alhambras, "{tally:?}");
}

#[test]
fn tiles_washed_out_past_taking_off_are_read_against_the_tiles_under_glare() {
    // Normal scene 8474: glare over a 13-tile Alhambra clips a seraglio, a garden and a
    // tower beside its fountain (red and green at 250 in 30-50% of their pixels): 5.3,
    // 4.2 and 5.5 from every building as they are, no better with the glare taken off
    // (4 tiles missed, 2 of 4 Alhambras exact). Against the labelled tiles with glare put
    // on, 0.2-0.3.
    let profile = profile_from_normal_7();
    let tally = read_normal(&profile, 8474);
    assert!(tally.missed <= 1, "{tally:?}");
    assert!(tally.alhambras_exact >= 3, "{tally:?}");
}

#[test]
fn tiles_washed_out_by_haze_are_not_taken_for_another_players_fountain() {
    // Normal scene 8461: haze pales an 18-tile and a 5-tile Alhambra; their towers,
    // pavilions and chambers read a little like a fountain (margins 10-38 where their
    // own fountains read 35-85), and growth stopped at each as at another player's
    // (10 tiles missed). Judged against their own fountain's margin, they join (the lamp
    // test in tests/cli.rs guards the bare table lit as pale).
    let profile = profile_from_normal_7();
    let tally = read_normal(&profile, 8461);
    assert!(tally.missed <= 6, "{tally:?}");
    assert_eq!(tally.phantom, 0, "{tally:?}");
}

#[test]
fn a_washed_out_tile_reads_as_its_building_under_glare_and_a_dark_cell_under_none() {
    use alhambra_vision::appearance::{Focus, black_level, features, glared, sample_patch};
    use alhambra_vision::plane::find_plane;
    let profile = profile_from_easy_7();
    assert!(!profile.glare.is_empty(), "glare profiles are learned");
    let scene = render(&easy(8)).expect("renders");
    let white = find_plane(&scene.image, marker_mm(&scene.labels))
        .expect("looks for markers")
        .map_or([1.0; 3], |p| p.white);
    let (mut tiles, mut beyond, mut within, mut right) = (0, 0, 0, 0);
    for t in scene.labels.alhambras.iter().flat_map(|a| &a.tiles) {
        let Some(q) = t.corners_px else { continue };
        if t.occluded || t.building == Building::Fountain {
            continue;
        }
        let q = q.map(|p| [f64::from(p[0]), f64::from(p[1])]);
        // Glare of a level learned, on another photo's tiles: 19 of its 23 tiles within
        // the limit. (Between two levels it reads farther: at 0.38, 16 of the 23; all as
        // their own building either way.)
        let washed = glared(
            &sample_patch(&scene.image, &q).expect("samples"),
            0.3,
            white,
        )
        .expect("glares");
        let f = features(&washed, white).expect("features");
        tiles += 1;
        beyond += usize::from(!profile.presence(&f).0);
        let black = black_level(&washed).expect("black level");
        if let Some((level, d)) = profile.glare_distance(&f, black, white)
            && d <= 0.6 * profile.presence_limit
        {
            let reading = profile.glare[level].read(&f, Focus::Sharp);
            within += 1;
            right += usize::from(reading.building == t.building);
        }
    }
    assert!(tiles >= 20, "{tiles} tiles");
    assert!(
        2 * beyond >= tiles,
        "only {beyond} of {tiles} washed-out tiles lost plainly"
    );
    assert!(
        4 * within >= 3 * tiles,
        "{within} of {tiles} tiles within the limit"
    );
    assert_eq!(
        right, within,
        "every tile read under glare reads as its own building"
    );
    // A cell darker than any glare leaves its darkest pixels reads under none.
    let dark = opencv::core::Mat::new_rows_cols_with_default(
        48,
        48,
        opencv::core::CV_8UC3,
        opencv::core::Scalar::all(25.0),
    )
    .expect("a patch");
    let f = features(&dark, white).expect("features");
    assert_eq!(
        profile.glare_distance(&f, black_level(&dark).expect("black"), white),
        None
    );
}
