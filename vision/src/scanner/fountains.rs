//! Finding the fountains and anchoring each one's grid: fountain candidates from a
//! low-resolution overview of the table, the lattice comb at each to fit a grid whose cell
//! (0, 0) is the fountain, and, for a fountain whose grid grew nothing, the turn and size
//! on the table's plane that make its neighbours tiles.

use super::*;

/// Pixels per tile of the overview the fountains are looked for in.
const OVERVIEW_PX_PER_TILE: f64 = 16.0;
/// How many candidates that read clearer at another size than the profile's are tried:
/// twice as many as a table has fountains (with as many, art and loose tiles crowded out
/// lone far fountains: fresh normal_8404, 8450; 18% more time on hard, 26.0 -> 23.3% of
/// tiles missed on 40 hard dev photos).
const OTHER_SIZE_CANDIDATES: usize = 2 * MOST_PLAYERS;
/// A fountain grown alone is turned on the shared plane or its own lattice (see
/// `turn_lone_fountain`) by steps of this (radians, 3 degrees) ...
const LONE_TURN_STEP: f64 = std::f64::consts::PI / 60.0;
/// ... up to this many each way (together a quarter turn) ...
const LONE_TURN_STEPS: i32 = 15;
/// ... to where at least this many of its neighbours read as tiles, when its own cell
/// lies within this of the plane's (cells, root mean square, after a turn and shift).
const LONE_NEIGHBOURS: usize = 1;
/// Fountains grown to this many tiles or fewer are turned so (more neighbours wanted).
pub(super) const FEW_TILES: usize = 3;
const LONE_MISFIT: f64 = 0.2;
/// The sizes (in the plane's cells) a fountain's own cell may have and still be turned
/// on the plane, when it is a square of the plane but not of its size: its lattice was
/// found a size off (normal 9560: a 27-tile Alhambra read as its fountain alone, on a
/// lattice 1.2 times the tiles' pitch).
const LONE_OFF_SIZE: (f64, f64) = (0.75, 1.35);
/// The sizes (relative to its own cell) a fountain grown alone is turned at when no
/// Alhambra tells the photo's plane (see `turn_lone_fountain`).
const LONE_SIZES: [f64; 5] = [0.88, 0.94, 1.0, 1.06, 1.12];
/// A fountain seen clearest at a tile size within this share of one the overview looked
/// at was among its candidates (the overview's scores fall off beyond: a fountain at 0.67
/// of the profile's pitch was no candidate at 0.8).
const PITCH_COVERED: f64 = 0.1;
/// How long [`reshape`] may go on for an anchoring fountain: the distance that is enough,
/// as a share of the presence limit, and the most looks. Its cell makes the first grid,
/// worth a close fit; a cell met while growing (`RESHAPE_GROWING`) needs only to come
/// inside the limit, as the grid is refitted to every cell found.
const RESHAPE_ANCHOR: (f32, usize) = (0.0, 150);
/// A fountain cell further than this (times the presence limit) from every tile is not
/// reshaped: of 844 so far off in 45 dev photos, none came to read as the fountain, and
/// each costs 150 looks.
const RESHAPE_FAR: f32 = 1.25;

/// What the lattice search at a fountain candidate found.
pub(super) enum Fit {
    /// A fountain: its grid, the pitch found (relative to the profile's), and its rank (ten
    /// per tile beside it, plus how clearly it reads as the fountain).
    Anchored {
        grid: Homography,
        pitch: f64,
        rank: f32,
    },
    /// No fountain within a cell of the candidate; the lattices the comb found there.
    Unanchored(Vec<Homography>),
}

/// What an overview of the table shows under one white balance.
pub(super) struct OverviewReading {
    /// Fountain candidates, clearest first.
    pub(super) candidates: Vec<Candidate>,
    /// The bare table's colour, when it can be told.
    pub(super) table: Option<TableColour>,
    /// How well the clearest candidate's colours fit the profile's fountain.
    pub(super) top_fit: Option<f32>,
}

/// The visible table, straightened, at a few pixels per tile.
pub(super) struct Overview {
    /// BGR pixels; black outside the photo.
    pub(super) image: Mat,
    /// The table point at the image's pixel (0, 0).
    pub(super) lo: Point,
    /// Overview pixels per table millimetre.
    pub(super) q: f64,
    /// Image pixels to overview pixels.
    pub(super) from_image: Homography,
}

impl Overview {
    /// The bare table's colour as this overview shows it under `white`, with its light
    /// about each place.
    pub(super) fn table(&self, white: WhiteBalance) -> Result<Option<TableColour>, ScanError> {
        let bytes = self.image.data_bytes()?;
        let Some(colour) = table_colour(bytes, white) else {
            return Ok(None);
        };
        let size = (self.image.cols() as usize, self.image.rows() as usize);
        let block = OVERVIEW_PX_PER_TILE.round() as usize;
        let light = TableLight::measured(bytes, size, block, white, colour, &self.from_image);
        Ok(Some(TableColour {
            colour,
            white,
            light: light.map(Arc::new),
        }))
    }
}

/// A fitted lattice near a fountain: grid coordinates to table coordinates.
fn lattice_to_table(origin: Point, angle: f64, pitch: (f64, f64)) -> Homography {
    let (s, c) = angle.sin_cos();
    Homography([
        [pitch.0 * c, -pitch.1 * s, origin[0]],
        [pitch.0 * s, pitch.1 * c, origin[1]],
        [0.0, 0.0, 1.0],
    ])
}

/// Window pixels (a, b) of an `n` x `n` window around table point `centre`, turned by
/// `angle`, at `res` pixels per table unit, to table coordinates.
fn window_to_table(centre: Point, angle: f64, res: f64, n: i32) -> Homography {
    let half = f64::from(n) / 2.0;
    lattice_to_table(centre, angle, (1.0 / res, 1.0 / res))
        .after(&Homography::translation(-half, -half))
}

impl Scanner {
    /// Fountain candidates in the overview at `pitch` (relative to the profile's), the
    /// photo's as a fountain told it, when that lies beyond the sizes the first look
    /// covered (tiles of another edition, or markers printed at another size than given):
    /// clearest first, none on a cell already claimed. Empty when the pitch was covered.
    pub(super) fn candidates_at_pitch(
        &self,
        view: &View<'_>,
        image_to_table: &Homography,
        pitch: f64,
    ) -> Result<Vec<Candidate>, ScanError> {
        let covered = OVERVIEW_SCALES
            .iter()
            .any(|&s| (pitch / s - 1.0).abs() <= PITCH_COVERED);
        if covered || !pitch.is_finite() || pitch <= 0.0 {
            return Ok(Vec::new());
        }
        let Some(overview) = self.overview(view, image_to_table)? else {
            return Ok(Vec::new());
        };
        // About the pitch as the first look was about the profile's: the plane is affine,
        // and far tiles differ from near ones.
        let scales = OVERVIEW_SCALES.map(|s| s * pitch);
        let reading = self.candidates_on(view, &overview, &scales)?;
        if debugging() {
            eprintln!(
                "the photo's pitch is {pitch:.2} of the profile's: {} candidates about it",
                reading.candidates.len()
            );
        }
        Ok(reading
            .candidates
            .into_iter()
            .filter(|(c, _, _)| {
                view.table_to_image.apply(*c).is_some_and(|p| {
                    !view
                        .claimed
                        .iter()
                        .any(|(at, size)| dist(*at, p) < 0.5 * size)
                })
            })
            .collect())
    }

    /// Table points that may be fountain centres, most likely first: local maxima of the
    /// profile's fountain-against-everything score over a low-resolution view of the table.
    pub(super) fn fountain_candidates(
        &self,
        view: &View<'_>,
        image_to_table: &Homography,
    ) -> Result<(Vec<Candidate>, Option<TableColour>), ScanError> {
        match self.overview(view, image_to_table)? {
            Some(overview) => {
                let reading = self.candidates_on(view, &overview, &OVERVIEW_SCALES)?;
                Ok((reading.candidates, reading.table))
            }
            None => Ok((Vec::new(), None)),
        }
    }

    /// The visible table at [`OVERVIEW_PX_PER_TILE`] pixels per tile; `None` when the plane
    /// shows no table.
    pub(super) fn overview(
        &self,
        view: &View<'_>,
        image_to_table: &Homography,
    ) -> Result<Option<Overview>, ScanError> {
        let pitch = f64::from(self.profile.pitch_mm);
        // Overview: the visible table at about ten pixels per tile.
        let q = OVERVIEW_PX_PER_TILE / pitch;
        let (w, h) = (f64::from(view.frame.cols()), f64::from(view.frame.rows()));
        let mut lo = [f64::INFINITY; 2];
        let mut hi = [f64::NEG_INFINITY; 2];
        for p in [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]] {
            let Some(t) = image_to_table.apply(p) else {
                continue;
            };
            for k in 0..2 {
                lo[k] = lo[k].min(t[k]);
                hi[k] = hi[k].max(t[k]);
            }
        }
        // More than 4 m of table in view is a horizon artefact: clamp.
        for k in 0..2 {
            let mid = (lo[k] + hi[k]) / 2.0;
            lo[k] = lo[k].max(mid - 2000.0);
            hi[k] = hi[k].min(mid + 2000.0);
        }
        if !(lo[0].is_finite() && lo[1].is_finite() && hi[0] > lo[0] && hi[1] > lo[1]) {
            return Ok(None);
        }
        let (ow, oh) = (
            ((hi[0] - lo[0]) * q).ceil() as i32,
            ((hi[1] - lo[1]) * q).ceil() as i32,
        );
        let to_table = Homography([
            [1.0 / q, 0.0, lo[0]],
            [0.0, 1.0 / q, lo[1]],
            [0.0, 0.0, 1.0],
        ]);
        let m = view.table_to_image.after(&to_table);
        let mut overview = Mat::default();
        imgproc::warp_perspective(
            view.frame,
            &mut overview,
            &Mat::from_slice_2d(&m.0)?,
            Size::new(ow, oh),
            imgproc::INTER_AREA | imgproc::WARP_INVERSE_MAP,
            opencv::core::BORDER_CONSTANT,
            Scalar::all(0.0),
        )?;
        let to_overview = Homography([[q, 0.0, -lo[0] * q], [0.0, q, -lo[1] * q], [0.0, 0.0, 1.0]]);
        Ok(Some(Overview {
            image: overview,
            lo,
            q,
            from_image: to_overview.after(image_to_table),
        }))
    }

    /// [`Scanner::fountain_candidates`] on an overview of the table, under the view's white
    /// balance, the table's colour there, and how well the clearest candidate's colours fit
    /// the profile's fountain ([`crate::appearance::Detectors::fountain_fit`]). Candidates
    /// are looked for at tiles `scales[0]` times the profile's; then, after them, where
    /// another of `scales` reads clearer.
    pub(super) fn candidates_on(
        &self,
        view: &View<'_>,
        overview: &Overview,
        scales: &[f64],
    ) -> Result<OverviewReading, ScanError> {
        let (lo, q) = (overview.lo, overview.q);
        let pitch = f64::from(self.profile.pitch_mm);
        let (ow, oh) = (
            overview.image.cols() as usize,
            overview.image.rows() as usize,
        );
        let bytes = overview.image.data_bytes()?;
        let table = overview.table(view.white)?;
        // Integral images of chromaticity, brightness, and validity (inside the photo).
        let stride = ow + 1;
        let mut integral = vec![[0f64; 4]; stride * (oh + 1)];
        for y in 0..oh {
            let mut row = [0f64; 4];
            for x in 0..ow {
                let i = (y * ow + x) * 3;
                let b = f64::from(bytes[i]) * f64::from(view.white[0]);
                let g = f64::from(bytes[i + 1]) * f64::from(view.white[1]);
                let r = f64::from(bytes[i + 2]) * f64::from(view.white[2]);
                let s = r + g + b + 3.0;
                let valid = if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 0 {
                    0.0
                } else {
                    1.0
                };
                row[0] += r / s * valid;
                row[1] += g / s * valid;
                row[2] += s / 3.0;
                row[3] += valid;
                let above = integral[y * stride + x + 1];
                integral[(y + 1) * stride + x + 1] = [
                    row[0] + above[0],
                    row[1] + above[1],
                    row[2] + above[2],
                    row[3] + above[3],
                ];
            }
        }
        let boxsum = |x0: usize, y0: usize, x1: usize, y1: usize| -> [f64; 4] {
            let (a, b, c, d) = (
                integral[y0 * stride + x0],
                integral[y0 * stride + x1],
                integral[y1 * stride + x0],
                integral[y1 * stride + x1],
            );
            [
                d[0] - b[0] - c[0] + a[0],
                d[1] - b[1] - c[1] + a[1],
                d[2] - b[2] - c[2] + a[2],
                d[3] - b[3] - c[3] + a[3],
            ]
        };
        let tile = pitch * q;
        let detectors = self.profile.detectors();
        // The fountain score (and fit) at each pixel for tiles `scale` times the profile's.
        let scored_at = |scale: f64| -> (Vec<f32>, Vec<f32>) {
            let tile = tile * scale;
            let mut score = vec![f32::NEG_INFINITY; ow * oh];
            let mut fit = vec![f32::NEG_INFINITY; ow * oh];
            // Boxes of an even width, centred on pixel corners: the centre is the middle 38%
            // of a tile and the ring reaches 76% across, as in the cells learned from
            // (`features` leaves a 12% margin; `detect_features` splits 4x4 blocks into 2x2
            // and the rest).
            let centre_half = (0.19 * tile).round().max(1.0) as usize;
            let ring_half = (0.38 * tile).round().max(2.0) as usize;
            let centre_area = (4 * centre_half * centre_half) as f64;
            let ring_area = (4 * ring_half * ring_half) as f64 - centre_area;
            for y in ring_half..oh.saturating_sub(ring_half) {
                for x in ring_half..ow.saturating_sub(ring_half) {
                    let c = boxsum(
                        x - centre_half,
                        y - centre_half,
                        x + centre_half,
                        y + centre_half,
                    );
                    let r = boxsum(x - ring_half, y - ring_half, x + ring_half, y + ring_half);
                    let ring_n = r[3] - c[3];
                    if c[3] < centre_area || ring_n < 0.9 * ring_area {
                        continue;
                    }
                    let (lc, lr) = (c[2] / c[3], (r[2] - c[2]) / ring_n);
                    let f = [
                        (c[0] / c[3]) as f32,
                        (c[1] / c[3]) as f32,
                        ((r[0] - c[0]) / ring_n) as f32,
                        ((r[1] - c[1]) / ring_n) as f32,
                        (lc / lr.max(1.0)) as f32,
                    ];
                    score[y * ow + x] = detectors.fountain_score(&f);
                    fit[y * ow + x] = detectors.fountain_fit(&f);
                }
            }
            (score, fit)
        };
        // Local maxima over about a tile, best first: the maximum over the square around
        // every pixel (a dilation), then equal neighbours on a plateau thinned to one.
        let radius = (0.7 * tile).round().max(1.0) as i32;
        let peaks_of =
            |score: &[f32], most: usize| -> Result<Vec<(f32, usize, usize)>, ScanError> {
                let scores = Mat::new_rows_cols_with_data(oh as i32, ow as i32, score)?;
                let mut around = Mat::default();
                imgproc::dilate(
                    &scores,
                    &mut around,
                    &imgproc::get_structuring_element(
                        imgproc::MORPH_RECT,
                        Size::new(2 * radius + 1, 2 * radius + 1),
                        opencv::core::Point::new(-1, -1),
                    )?,
                    opencv::core::Point::new(-1, -1),
                    1,
                    opencv::core::BORDER_CONSTANT,
                    Scalar::all(f64::from(f32::NEG_INFINITY)),
                )?;
                let around = around.data_typed::<f32>()?;
                let mut peaks: Vec<(f32, usize, usize)> = Vec::new();
                for y in 0..oh {
                    for x in 0..ow {
                        let s = score[y * ow + x];
                        if s > 0.0 && s >= around[y * ow + x] {
                            peaks.push((s, x, y));
                        }
                    }
                }
                let r = radius as usize;
                let mut kept: Vec<(f32, usize, usize)> = Vec::with_capacity(peaks.len());
                for p in peaks {
                    if !kept
                        .iter()
                        .any(|k| k.0 == p.0 && k.1.abs_diff(p.1) <= r && k.2.abs_diff(p.2) <= r)
                    {
                        kept.push(p);
                    }
                }
                kept.sort_by(|a, b| b.0.total_cmp(&a.0));
                kept.truncate(most);
                Ok(kept)
            };
        let Some((&first, others)) = scales.split_first() else {
            return Ok(OverviewReading {
                candidates: Vec::new(),
                table,
                top_fit: None,
            });
        };
        let (score, fit) = scored_at(first);
        let mut peaks: Vec<(f32, usize, usize, f64)> = peaks_of(&score, 24)?
            .into_iter()
            .map(|(s, x, y)| (s, x, y, first))
            .collect();
        let top_fit = peaks.first().map(|&(_, x, y, _)| fit[y * ow + x]);
        // Fountains that read clearer at another size (far from or near a tilted camera)
        // come after all those at the profile's, at the size they read best at: they
        // neither reorder nor crowd out the others.
        if !others.is_empty() {
            let mut best = vec![f32::NEG_INFINITY; ow * oh];
            let mut size = vec![first; ow * oh];
            for &scale in others {
                let (here, _) = scored_at(scale);
                for k in 0..ow * oh {
                    if here[k] > best[k] {
                        best[k] = here[k];
                        size[k] = scale;
                    }
                }
            }
            for k in 0..ow * oh {
                if best[k] <= score[k] {
                    best[k] = f32::NEG_INFINITY;
                }
            }
            peaks.extend(
                peaks_of(&best, OTHER_SIZE_CANDIDATES)?
                    .into_iter()
                    .map(|(s, x, y)| (s, x, y, size[y * ow + x])),
            );
        }
        if debugging() {
            for (score, x, y, size) in &peaks {
                let t = [lo[0] + *x as f64 / q, lo[1] + *y as f64 / q];
                if let Some(p) = view.table_to_image.apply(t) {
                    eprintln!(
                        "fountain candidate {:.0} {:.0} score {score:.1} at size {size:.2}",
                        p[0], p[1]
                    );
                }
            }
        }
        let points = peaks
            .into_iter()
            .map(|(score, x, y, size)| ([lo[0] + x as f64 / q, lo[1] + y as f64 / q], score, size))
            .collect();
        Ok(OverviewReading {
            candidates: points,
            table,
            top_fit,
        })
    }

    /// [`Scanner::fit_grid`] at `centre`, at the photo's pitch `scale`, for the fountain
    /// claimed `k`-th: its own claim must not count as taken while it is looked at again.
    pub(super) fn fit_again(
        &self,
        view: &mut View<'_>,
        k: usize,
        centre: Point,
        scale: f64,
        size: f64,
    ) -> Result<Fit, ScanError> {
        let own = view.claimed[k];
        view.claimed[k] = ([f64::NAN, f64::NAN], 0.0);
        let refit = self.fit_grid(view, centre, Some(scale), size);
        view.claimed[k] = own;
        refit
    }

    /// The grid of the Alhambra whose fountain may be near table point `centre`: edge
    /// direction and tile borders give a first lattice; the cell that reads as a fountain
    /// (the one there or a neighbour) becomes (0, 0). `scale`, when known, is the tiles'
    /// pitch relative to the profile's in this view; `size`, the tile size (relative to
    /// the profile's) the overview saw this fountain clearest at. Without a fountain
    /// there, the lattices the comb found, for a wider look later.
    pub(super) fn fit_grid(
        &self,
        view: &View<'_>,
        centre: Point,
        scale: Option<f64>,
        size: f64,
    ) -> Result<Fit, ScanError> {
        let other_size = size != OVERVIEW_SCALES[0];
        let pitch0 = f64::from(self.profile.pitch_mm);
        const PX: f64 = 32.0; // window pixels per expected pitch
        let res = PX / pitch0;
        let n = (5.0 * PX) as i32;
        let directions: Vec<f64> = {
            let win = self.window(view, centre, 0.0, res, n)?;
            lattice_directions(&win, PX)?
        };
        // With markers the table scale is known near them and tiles are near the learned
        // pitch; far from them (an affine plane under a tilted camera) and without them,
        // it is a guess: wider ranges follow when the first finds nothing.
        let ranges: &[(f64, f64)] = if let Some(s) = scale {
            &[(0.78 * s, 1.28 * s)]
        } else if view.markers {
            &[(0.8, 1.25), (0.55, 0.85), (1.2, 1.8)]
        } else {
            &[(0.7, 1.45)]
        };
        let debug = debugging();
        if debug {
            eprintln!(
                "directions at {:?}: {:?}",
                view.table_to_image.apply(centre),
                directions
                    .iter()
                    .map(|a| a.to_degrees().round())
                    .collect::<Vec<_>>()
            );
        }
        // Every edge direction gets its lattice; the one whose fountain has the most tiles
        // around it wins (a neighbouring Alhambra or the art can set the strongest edges).
        // Most tiles around the fountain first, then how clearly it reads as the fountain,
        // then (a fountain alone, or with no neighbour found yet) how well its quad lies on
        // the edges of its outline.
        let rank = |margin: f32, anchored: &Homography| -> (f32, f32) {
            let score = self.neighbours_present(view, anchored) as f32 * 10.0 + margin.min(9.0);
            let outline = cell_quad(anchored, 0.0, 0.0).map_or(0.0, |q| view.edges.border(&q));
            (score, outline)
        };
        let better = |a: (f32, f32), b: &Option<((f32, f32), Homography, f64)>| {
            b.as_ref()
                .is_none_or(|b| a.0 > b.0.0 || (a.0 == b.0.0 && a.1 > b.0.1))
        };
        let mut best: Option<((f32, f32), Homography, f64)> = None;
        // Pitches the comb found (relative to the profile's) whose lattice anchored no
        // fountain: the fallback below tries them centred on the candidate.
        let mut combed: Vec<(f64, f64)> = Vec::new();
        // The lattices the comb found whose cells around the candidate hold no fountain.
        let mut unanchored: Vec<Homography> = Vec::new();
        // What each direction's window shows (edge profiles, axis tilts) is the same for
        // every range of pitches: measured once.
        let mut looked = Vec::with_capacity(directions.len());
        for &angle in &directions {
            let win = self.window(view, centre, angle, res, n)?;
            looked.push((angle, edge_profiles(&win)?, axis_tilts(&win)?));
        }
        // One look along every direction at the comb's best period in `range` (with
        // `avoid`, each direction's best other peak, away from the period given): each
        // lattice found is anchored on a fountain if it can be. Returns each direction's
        // period.
        type Best = Option<((f32, f32), Homography, f64)>;
        let comb_pass = |range: (f64, f64),
                         avoid: &[Option<f64>],
                         best: &mut Best,
                         combed: &mut Vec<(f64, f64)>,
                         unanchored: &mut Vec<Homography>|
         -> Vec<Option<f64>> {
            let mut found = vec![None; looked.len()];
            for (d, (angle, profiles, (tilt_x, tilt_y))) in looked.iter().enumerate() {
                let (angle, tilt_x, tilt_y) = (*angle, *tilt_x, *tilt_y);
                let avoid = match avoid.get(d) {
                    None => None,
                    Some(None) => continue,
                    Some(Some(p)) => Some(*p),
                };
                let Some(Comb {
                    periods: [(period_x, phase_x), (period_y, phase_y)],
                    joint,
                    ..
                }) = lattice_period(profiles, PX, range, false, avoid)
                else {
                    continue;
                };
                found[d] = Some(joint);
                let half = f64::from(n) / 2.0;
                let nearest = |phase: f64, period: f64| {
                    let k = ((half - phase) / period - 0.5).round();
                    phase + (k + 0.5) * period
                };
                let (a0, b0) = (nearest(phase_x, period_x), nearest(phase_y, period_y));
                // The two axes need not be square to each other on an affine table plane:
                // each one's own lines give its direction.
                let (sx, cx) = tilt_x.sin_cos();
                let (sy, cy) = tilt_y.sin_cos();
                let grid_to_window = Homography([
                    [period_x * cx, -period_y * sy, a0],
                    [period_x * sx, period_y * cy, b0],
                    [0.0, 0.0, 1.0],
                ]);
                let grid = view
                    .table_to_image
                    .after(&window_to_table(centre, angle, res, n))
                    .after(&grid_to_window);
                let Some((margin, anchored)) = self.anchor_fountain(view, &grid) else {
                    combed.push((angle, (period_x + period_y) / (2.0 * PX)));
                    unanchored.push(grid);
                    if debug {
                        eprintln!(
                            "  no fountain at angle {:.1} periods {period_x:.1} {period_y:.1}",
                            angle.to_degrees()
                        );
                    }
                    continue;
                };
                let score = rank(margin, &anchored);
                if debug {
                    eprintln!(
                        "  fit at {:?}: angle {:.1} periods {period_x:.1} {period_y:.1} (expected {PX}): score {score:.1?}",
                        view.table_to_image.apply(centre),
                        angle.to_degrees()
                    );
                }
                if better(score, best) {
                    *best = Some((score, anchored, (period_x + period_y) / (2.0 * PX)));
                }
            }
            found
        };
        let good = |best: &Best| best.as_ref().is_some_and(|b| b.0.0 >= 10.0);
        // Each direction's best period in the first range.
        let mut first_best: Vec<Option<f64>> = Vec::new();
        for (r, &range) in ranges.iter().enumerate() {
            let found = comb_pass(range, &[], &mut best, &mut combed, &mut unanchored);
            if r == 0 {
                first_best = found;
            }
            // Good enough when the fountain has a tile beside it; a fountain read alone may
            // be a lattice turned by the octagon's 45 degrees: keep looking.
            if good(&best) {
                break;
            }
        }
        // A tile alone, or with one or two beside it, shows too few borders for the comb:
        // try the learned pitch too, centred on the candidate, along the edge directions.
        let s = scale.unwrap_or(1.0);
        let alone_at = |tries: &[(f64, f64)], need: f32, best: &mut Best| {
            for &(angle, s) in tries {
                let alone = view.table_to_image.after(&lattice_to_table(
                    centre,
                    angle,
                    (s * pitch0, s * pitch0),
                ));
                if let Some((margin, anchored)) = self.fountain_cell(view, &alone) {
                    let score = rank(margin, &anchored);
                    if score.0 >= need && better(score, best) {
                        *best = Some((score, anchored, s));
                    }
                }
            }
        };
        // Before the photo's pitch is known, a fountain the overview saw clearest at
        // another size is tried at that size as well, the better ranked kept (a far
        // fountain under a tilted camera, a fifth smaller: at the learned pitch alone its
        // cell took in the seams and the table).
        if !good(&best) {
            let sizes: &[f64] = if scale.is_none() && other_size {
                &[size, s]
            } else {
                &[s]
            };
            let learned: Vec<(f64, f64)> = sizes
                .iter()
                .flat_map(|&s| directions.iter().map(move |&angle| (angle, s)))
                .collect();
            alone_at(&learned, 0.0, &mut best);
        }
        // A fountain the overview saw clearer at another size than the profile's lies far
        // from or near a tilted camera: once another fountain has told the photo's pitch,
        // its one range spans that fountain's near and far cells on an affine plane, and
        // the comb's best period there can be the art's or a neighbour's. The next best
        // peak along each direction, then.
        if !good(&best) && scale.is_some() && other_size {
            if debug {
                eprintln!("  runner-up periods:");
            }
            comb_pass(
                ranges[0],
                &first_best,
                &mut best,
                &mut combed,
                &mut unanchored,
            );
        }
        // Failing that, the pitches the comb found whose lattice anchored no fountain (its
        // phase taken from lines in the art), centred on the candidate, when a tile lies
        // beside the fountain there (alone, a fountain read at a wrong pitch can outrank
        // the right one by how clearly it reads).
        let mut distinct: Vec<(f64, f64)> = Vec::new();
        for (angle, p) in combed {
            if (p / s - 1.0).abs() > 0.1
                && !distinct
                    .iter()
                    .any(|&(a, q)| (a - angle).abs() < 0.05 && (p / q - 1.0).abs() < 0.05)
            {
                distinct.push((angle, p));
            }
        }
        if !good(&best) {
            alone_at(&distinct, 10.0, &mut best);
        }
        Ok(match best {
            Some((score, grid, pitch)) => Fit::Anchored {
                grid,
                pitch,
                rank: score.0,
            },
            None => Fit::Unanchored(unanchored),
        })
    }

    /// The fountain found along the first lattices of `lattices` (see
    /// [`Scanner::fountain_near`]) with the most tiles around it, then the clearest.
    pub(super) fn fountain_along(
        &self,
        view: &View<'_>,
        lattices: &[Homography],
    ) -> Option<Homography> {
        let mut best: Option<(f32, Homography)> = None;
        for grid in lattices.iter().take(3) {
            if let Some((margin, anchored)) = self.fountain_near(view, grid) {
                let rank = self.neighbours_present(view, &anchored) as f32 * 10.0 + margin.min(9.0);
                if best.as_ref().is_none_or(|b| rank > b.0) {
                    best = Some((rank, anchored));
                }
            }
        }
        best.map(|(_, g)| g)
    }

    /// The fountain within three cells of the grid's (0, 0): the cell that reads most
    /// clearly as the fountain, read carefully (see [`Scanner::fountain_cell`]).
    fn fountain_near(&self, view: &View<'_>, grid: &Homography) -> Option<(f32, Homography)> {
        const REACH: i32 = 3;
        let mut pick: Option<(f32, (i32, i32))> = None;
        for j in -REACH..=REACH {
            for i in -REACH..=REACH {
                if i.abs() <= 1 && j.abs() <= 1 {
                    continue; // looked at already
                }
                let Some(q) = cell_quad(grid, f64::from(i), f64::from(j))
                    .filter(|q| view.inside(q) && !view.taken(q))
                else {
                    continue;
                };
                let Some(f) = view.features(&q) else { continue };
                let m = self.fountain_margin(&f);
                if m > 0.0
                    && self.profile.presence_distance(&f) <= 1.5 * self.profile.presence_limit
                    && pick.is_none_or(|p| m > p.0)
                {
                    pick = Some((m, (i, j)));
                }
            }
        }
        let (_, (i, j)) = pick?;
        self.fountain_cell(
            view,
            &grid.after(&Homography::translation(f64::from(i), f64::from(j))),
        )
    }

    /// The grid anchored on its fountain: the cell there or around it reading as the
    /// fountain more clearly than as anything else. Small, soft tiles can show stronger
    /// lines inside than on their borders, which puts the phase half a tile off: those
    /// shifts are tried too.
    fn anchor_fountain(&self, view: &View<'_>, grid: &Homography) -> Option<(f32, Homography)> {
        for (sx, sy) in [(0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5)] {
            let shifted = grid.after(&Homography::translation(sx, sy));
            if let Some(found) = self.fountain_cell(view, &shifted) {
                return Some(found);
            }
        }
        None
    }

    /// Whether image point `p` lies within half a cell of the centre of a cell of `grid`
    /// near its fountain (not the fountain's own) that reads as a building present there,
    /// not as a fountain. A fountain centred within a fifth of a cell of `p` would then
    /// overlap that tile: `p` is no fountain's centre.
    pub(super) fn on_a_building(&self, view: &View<'_>, grid: &Homography, p: Point) -> bool {
        const NEAR: i32 = 6;
        let Some(back) = grid.inverse() else {
            return false;
        };
        let Some(g) = back.apply(p) else {
            return false;
        };
        let (i, j) = (g[0].round(), g[1].round());
        if (i, j) == (0.0, 0.0)
            || i.abs() > f64::from(NEAR)
            || j.abs() > f64::from(NEAR)
            || (g[0] - i).hypot(g[1] - j) > 0.5
        {
            return false;
        }
        let building = |q: &[Point; 4], f: &CellFeatures| {
            view.presence_of(&self.profile, q, f).0 && self.fountain_margin(f) < 0.0
        };
        let (i, j) = (i as i32, j as i32);
        // A cell of the lattice centred on `p` that reads as a fountain is one: another
        // Alhambra's, which the lattice, carried cells beyond its own fountain, cuts
        // across. Read through the lattice's cell there, up to half a cell off, the
        // fountain's look mixes with its neighbours' and passed for a building (varied art,
        // 100 photos: 24-32 real fountains turned away so; none with this look).
        let centred = grid.after(&Homography::translation(
            g[0] - f64::from(i),
            g[1] - f64::from(j),
        ));
        if let Some(q) = super::cell_quad(&centred, f64::from(i), f64::from(j))
            && let Some(f) = view.features(&q)
            && self.fountain_margin(&f) >= 0.0
        {
            return false;
        }
        if view
            .best_reading(&self.profile, grid, (i, j), (0.05, &PLUS), None)
            .is_some_and(|(q, f, _)| building(&q, &f))
        {
            return true;
        }
        // A lattice fitted around its fountain drifts a few cells out (0.4 of a cell on
        // dev photos): the tile is also looked for where the edges put it, from the
        // grid's prediction and from the cell centred on `p` (a few cheap edge looks and
        // one cell look each, against a lattice search of hundreds).
        [grid, &centred].into_iter().any(|lattice| {
            let Some((q, _)) = view.align(lattice, i, j) else {
                return false;
            };
            let Some(at) = back.apply(quad_centre(&q)) else {
                return false;
            };
            (at[0] - g[0]).hypot(at[1] - g[1]) < 0.4
                && view.features(&q).is_some_and(|f| building(&q, &f))
        })
    }

    /// Channel gains (B, G, R) under which the cells beside a fountain found alone (at
    /// the grid's (0, 0)) look like tiles: at least two of them, or one clearly; `None`
    /// when no light tried does better than the photo's own. A lamp or a shadow that the
    /// marker paper does not share tints every tile alike, and the profile's colours then
    /// reject them all.
    pub(super) fn neighbours_cast(&self, view: &View<'_>, grid: &Homography) -> Option<[f32; 3]> {
        const STEPS: [f32; 5] = [0.88, 0.94, 1.0, 1.06, 1.12];
        let quads: Vec<[Point; 4]> = [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]
            .iter()
            .filter_map(|&(i, j)| cell_quad(grid, i, j))
            .filter(|q| view.inside(q) && !view.taken(q))
            .collect();
        let patches: Vec<(Mat, Point)> = quads
            .iter()
            .filter_map(|q| Some((sample_patch(view.frame, q).ok()?, quad_centre(q))))
            .collect();
        let limit = self.profile.presence_limit;
        // (tiles present, clear ones, summed distance) under each light: more tiles, then
        // nearer ones, win.
        let judge = |gains: [f32; 3]| -> (usize, usize, f32) {
            let white = [
                view.white[0] * gains[0],
                view.white[1] * gains[1],
                view.white[2] * gains[2],
            ];
            let mut verdict = (0, 0, 0f32);
            for (p, at) in &patches {
                let Ok(f) = features(p, white) else { continue };
                let (mut present, d) = self.profile.presence(&f);
                // Under a cast the bare table can look like a building: it is no tile.
                if present
                    && let Some(table) = &view.table
                    && bare_table(d, limit, || {
                        table_share_of(p, white, table.near(white, *at))
                    })
                {
                    present = false;
                }
                if present {
                    verdict.0 += 1;
                    verdict.1 += usize::from(d <= CLEAR_SHARE * limit);
                }
                verdict.2 += d.min(2.0 * limit);
            }
            verdict
        };
        let plain = judge([1.0; 3]);
        let mut best: Option<((usize, usize, f32), [f32; 3])> = None;
        for b in STEPS {
            for r in STEPS {
                let mean = (b + 1.0 + r) / 3.0;
                let gains = [b / mean, 1.0 / mean, r / mean];
                let v = judge(gains);
                if best
                    .as_ref()
                    .is_none_or(|(w, _)| v.0 > w.0 || (v.0 == w.0 && v.2 < w.2))
                {
                    best = Some((v, gains));
                }
            }
        }
        let (v, gains) = best?;
        (v.0 > plain.0 && (v.0 >= 2 || v.1 >= 1)).then_some(gains)
    }

    /// How many of the four cells beside the grid's (0, 0) hold a tile where it predicts
    /// (the bare table, mostly its own colour and not clearly a tile, holds none).
    fn neighbours_present(&self, view: &View<'_>, grid: &Homography) -> usize {
        [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]
            .iter()
            .filter(|&&(i, j)| {
                cell_quad(grid, i, j)
                    .filter(|q| view.inside(q) && !view.taken(q))
                    .and_then(|q| view.features(&q).map(|f| (q, f)))
                    .is_some_and(|(q, f)| view.presence_of(&self.profile, &q, &f).0)
            })
            .count()
    }

    /// How much more a cell looks like the fountain than like any building, each in its
    /// own best quarter turn (positive: a fountain). Per turn would not do: a building
    /// turned away from upright looks like nothing, and then the near-symmetric fountain
    /// wins (a pavilion read as another player's fountain stopped an Alhambra's growth).
    pub(super) fn fountain_margin(&self, f: &CellFeatures) -> f32 {
        let (mut fountain, mut building) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
        for turn in 0..4u8 {
            let scores = self.profile.building_scores(&f.turned(turn));
            fountain = fountain.max(scores[Building::Fountain as usize]);
            building = scores[1..].iter().copied().fold(building, f32::max);
        }
        fountain - building
    }

    /// Among the 3x3 cells around the grid's (0, 0), the one that reads most clearly as the
    /// fountain (by how much the fountain beats every building), and the grid anchored on
    /// it.
    fn fountain_cell(&self, view: &View<'_>, grid: &Homography) -> Option<(f32, Homography)> {
        let margin = |f: &CellFeatures| self.fountain_margin(f);
        // One look at each of the 3x3 cells as the grid predicts them ...
        let mut pick: Option<(f32, (i32, i32))> = None;
        let mut likeliest: Option<(f32, (i32, i32))> = None;
        let near = |q: &[Point; 4], f: &CellFeatures| {
            self.profile.presence_distance(f) <= 1.5 * self.profile.presence_limit
                && view.table_share(q) <= TABLE_SHARE_LIMIT
        };
        for (di, dj) in SQUARE.map(|(x, y)| (x as i32, y as i32)) {
            // A fountain already read is another player's, next to this one.
            let Some(q) = cell_quad(grid, f64::from(di), f64::from(dj))
                .filter(|q| view.inside(q) && !view.taken(q))
            else {
                continue;
            };
            let Some(f) = view.features(&q) else { continue };
            let m = margin(&f);
            if debugging() && m > 0.0 {
                eprintln!(
                    "    fountain look ({di},{dj}): margin {m:.1} distance {:.1} table share {:.2}",
                    self.profile.presence_distance(&f),
                    view.table_share(&q)
                );
            }
            if m > 0.0 && likeliest.is_none_or(|p| m > p.0) {
                likeliest = Some((m, (di, dj)));
            }
            if m > 0.0 && near(&q, &f) && pick.is_none_or(|p| m > p.0) {
                pick = Some((m, (di, dj)));
            }
        }
        // A fountain alone, its grid centred on the overview's guess, can lie a sixth of a
        // cell off every cell looked at: then it reads unlike any tile. Its likeliest cell,
        // put on the edges nearby, may read as one.
        if pick.is_none()
            && let Some((m, (i, j))) = likeliest
            && let Some((q, _)) = view.align(grid, i, j)
            && view.features(&q).is_some_and(|f| near(&q, &f))
        {
            pick = Some((m, (i, j)));
        }
        // ... then the most fountain-like one read carefully.
        let (_, cell) = pick?;
        let edge = view.align(grid, cell.0, cell.1).map(|(q, _)| q);
        let (mut quad, mut f, mut presence) =
            view.best_reading(&self.profile, grid, cell, (0.05, &SQUARE), edge)?;
        // A fountain that comes close may be a cell the lattice turned or sheared a
        // little (a steeply tilted table, far from the markers): reshaped, it may read.
        // Alone it might be a lattice turned by the octagon's 45 degrees: only a
        // neighbour where the reshaped cell's grid predicts one vouches for it, or, for a
        // fountain that reads as no tile as the lattice put it, reading clearly once
        // reshaped (a tile alone turned off every direction the table's grain shows: its
        // quad's corners on the table; the turn is settled once grown, by its outline).
        let clearly = CLEAR_SHARE * self.profile.presence_limit;
        if (!presence.0 || presence.1 > clearly)
            && presence.1 <= RESHAPE_FAR * self.profile.presence_limit
            && let Some((q, g, p)) = view.reshaped_reading(
                &self.profile,
                &quad,
                (
                    RESHAPE_ANCHOR.0 * self.profile.presence_limit,
                    RESHAPE_ANCHOR.1,
                ),
            )
            && p.1 < presence.1
            && ((!presence.0 && p.0 && p.1 <= clearly)
                || Homography::from_quads(&UNIT_CELL, &q)
                    .is_some_and(|grid| self.neighbours_present(view, &grid) > 0))
        {
            if debugging() {
                eprintln!("    reshaped: distance {:.2} -> {:.2}", presence.1, p.1);
            }
            (quad, f, presence) = (q, g, p);
        }
        let m = margin(&f);
        if !presence.0 || m <= 0.0 {
            return None;
        }
        Homography::from_quads(&UNIT_CELL, &quad).map(|g| (m, g))
    }

    /// A grey window of the table around `centre`, turned by `angle`, at `res` pixels per
    /// table unit, `n` x `n` pixels.
    pub(super) fn window(
        &self,
        view: &View<'_>,
        centre: Point,
        angle: f64,
        res: f64,
        n: i32,
    ) -> Result<Mat, ScanError> {
        let m = view
            .table_to_image
            .after(&window_to_table(centre, angle, res, n));
        let mut colour = Mat::default();
        imgproc::warp_perspective(
            view.frame,
            &mut colour,
            &Mat::from_slice_2d(&m.0)?,
            Size::new(n, n),
            imgproc::INTER_LINEAR | imgproc::WARP_INVERSE_MAP,
            opencv::core::BORDER_REPLICATE,
            Scalar::all(0.0),
        )?;
        let mut grey = Mat::default();
        imgproc::cvt_color(&colour, &mut grey, imgproc::COLOR_BGR2GRAY, 0)?;
        Ok(grey)
    }

    /// The fountain near image point `c_px` on the shared plane (`view.plane_grid`): where
    /// a cell within 0.45 of a cell of it reads most as the fountain (a tile, and more
    /// the fountain than any building), then the turn (steps of `LONE_TURN_STEP` over a
    /// quarter turn) with most neighbours read as tiles (one at least), then the clearest
    /// fountain. `None` when no fountain or no neighbour shows.
    pub(super) fn fountain_on_plane(&self, view: &View<'_>, c_px: Point) -> Option<Homography> {
        self.fountain_on_plane_beside(view, c_px, 1)
    }

    /// [`Scanner::fountain_on_plane`] for a fountain known to be one (it was read as one
    /// on a lattice of its own): turned as most neighbours read as tiles, none needed.
    pub(super) fn fountain_alone_on_plane(
        &self,
        view: &View<'_>,
        c_px: Point,
    ) -> Option<Homography> {
        self.fountain_on_plane_beside(view, c_px, 0)
    }

    /// [`Scanner::fountain_on_plane`] with at least `neighbours` of its neighbours tiles.
    fn fountain_on_plane_beside(
        &self,
        view: &View<'_>,
        c_px: Point,
        neighbours: usize,
    ) -> Option<Homography> {
        let plane = view.plane_grid?;
        let back = plane.inverse()?;
        let on_plane = |angle: f64, at: Point| turned_on(&plane, angle, at);
        // Where: the clearest fountain on a coarse then a fine pattern of shifts, in three
        // turns (a cell turned by half a quarter from the tile's covers its neighbours'
        // corners).
        let fountain_at = |grid: &Homography, step: f64, reach: i32| {
            let mut best: Option<(f32, [Point; 4])> = None;
            for dj in -reach..=reach {
                for di in -reach..=reach {
                    let (x, y) = (f64::from(di) * step, f64::from(dj) * step);
                    let Some(q) =
                        cell_quad(grid, x, y).filter(|q| view.inside(q) && !view.taken(q))
                    else {
                        continue;
                    };
                    let Some(f) = view.features(&q) else { continue };
                    let m = self.fountain_margin(&f);
                    if m > 0.0
                        && best.as_ref().is_none_or(|b| m > b.0)
                        && view.presence_of(&self.profile, &q, &f).0
                    {
                        best = Some((m, q));
                    }
                }
            }
            best.and_then(|(m, q)| Some((m, back.apply(quad_centre(&q))?)))
        };
        let c = back.apply(c_px)?;
        let (_, at, angle) = (0..3)
            .filter_map(|k| {
                let angle = f64::from(k) * std::f64::consts::FRAC_PI_6;
                let (m, at) = fountain_at(&on_plane(angle, c), 0.15, 3)?;
                Some((m, at, angle))
            })
            .max_by(|a, b| a.0.total_cmp(&b.0))?;
        let (_, at) = fountain_at(&on_plane(angle, at), 0.05, 1)?;
        // Which turn: the one whose neighbours are tiles.
        let mut best: Option<((usize, f32), Homography)> = None;
        for step in 0..2 * LONE_TURN_STEPS {
            let grid = on_plane(f64::from(step) * LONE_TURN_STEP, at);
            let Some((q, f, presence)) =
                view.best_reading(&self.profile, &grid, (0, 0), (0.03, &SQUARE), None)
            else {
                continue;
            };
            let margin = self.fountain_margin(&f);
            if !presence.0 || margin <= 0.0 || view.taken(&q) {
                continue;
            }
            let Some(centre) = back.apply(quad_centre(&q)) else {
                continue;
            };
            let grid = on_plane(f64::from(step) * LONE_TURN_STEP, centre);
            let score = (self.neighbours_present(view, &grid), margin);
            if score.0 >= neighbours
                && best
                    .as_ref()
                    .is_none_or(|b| score.0 > b.0.0 || (score.0 == b.0.0 && score.1 > b.0.1))
            {
                best = Some((score, grid));
            }
        }
        best.map(|(_, grid)| grid)
    }

    /// For a fountain that grew alone or to at most [`FEW_TILES`] tiles (`grown`): the grid
    /// turned about the fountain (by `LONE_TURN_STEP` up to `LONE_TURN_STEPS` times each
    /// way) under which most of its four neighbours read as tiles not yet another's, at
    /// least `LONE_NEIGHBOURS` of them and more than the tiles it grew, the fountain still
    /// read there; the least turn (then size change) among equals. On
    /// the plane of the photo's largest Alhambra, whose pitch holds here; without one, on
    /// the fountain's own lattice at the sizes of `LONE_SIZES` (a lattice the comb turned
    /// by the octagon's 45 degrees, misled by the table's grain, has a pitch of its own
    /// too). `None` when no turn does that.
    pub(super) fn turn_lone_fountain(&self, view: &View<'_>, grown: &Growth) -> Option<Homography> {
        if grown.quads.len() > FEW_TILES {
            return None;
        }
        let (plane, sizes): (Homography, &[f64]) = match view.plane_grid {
            Some(plane) => (plane, &[1.0]),
            None => (grown.grid, &LONE_SIZES),
        };
        let back = plane.inverse()?;
        let quad = grown.quads.get(&(0, 0))?;
        let on_plane: Vec<Point> = quad.iter().map(|p| back.apply(*p)).collect::<Option<_>>()?;
        let (mut placed, misfit) = Homography::rigid_fit(&UNIT_CELL, &on_plane)?;
        if misfit > LONE_MISFIT {
            // A fountain anchored from a candidate on a tile beside it, on that tile's
            // lattice seen a size off (the comb there read the art's lines), is a square
            // of the plane all the same, only larger or smaller: its centre and turn
            // still tell where to turn the plane's cells about.
            let size = quad_size(&[on_plane[0], on_plane[1], on_plane[2], on_plane[3]]);
            if !(LONE_OFF_SIZE.0..=LONE_OFF_SIZE.1).contains(&size) {
                return None;
            }
            let scaled = UNIT_CELL.map(|p| [p[0] * size, p[1] * size]);
            let (at_size, shape_misfit) = Homography::rigid_fit(&scaled, &on_plane)?;
            if shape_misfit > LONE_MISFIT * size {
                return None;
            }
            placed = at_size;
        }
        let centre = placed.apply([0.0, 0.0])?;
        let angle = placed.0[1][0].atan2(placed.0[0][0]);
        let mut best: Option<(usize, i32, f64, Homography)> = None;
        let turns = (-LONE_TURN_STEPS..=LONE_TURN_STEPS)
            .flat_map(|step| sizes.iter().map(move |&size| (step, size)));
        for (step, size) in turns {
            let grid = turned_on(&plane, angle + f64::from(step) * LONE_TURN_STEP, centre)
                .after(&Homography::scale(size));
            let still_fountain = cell_quad(&grid, 0.0, 0.0)
                .filter(|q| view.inside(q))
                .and_then(|q| view.features(&q).map(|f| (q, f)))
                .is_some_and(|(q, f)| {
                    self.fountain_margin(&f) > 0.0 && view.presence_of(&self.profile, &q, &f).0
                });
            if !still_fountain {
                continue;
            }
            let n = self.neighbours_present(view, &grid);
            let change = |step: i32, size: f64| (step.abs(), (size - 1.0).abs());
            let better = best
                .as_ref()
                .is_none_or(|b| n > b.0 || (n == b.0 && change(step, size) < change(b.1, b.2)));
            if better {
                best = Some((n, step, size, grid));
            }
        }
        let (n, step, size, grid) = best?;
        if debugging() {
            eprintln!(
                "fountain at {:?} grown to {} tiles: {n} neighbours turned by {:.0} degrees, size {size}",
                quad_centre(quad),
                grown.quads.len(),
                (f64::from(step) * LONE_TURN_STEP).to_degrees()
            );
        }
        // A fountain that grew a tile or two turns only to where more neighbours are.
        let before = grown.quads.len().saturating_sub(1);
        (n >= LONE_NEIGHBOURS.max(before + 1) && (step != 0 || size != 1.0)).then_some(grid)
    }
}
