//! A frame prepared for reading, and the looks at its cells: a quad's features under the
//! view's white balance (each taken once), whether it holds a tile, is covered, or is the
//! bare table, and the quad near a grid cell that looks most like a tile (shifted,
//! deglared, reshaped, read under glare). The edge map the grid fits settle on.

use super::*;

/// How far (in cells) a cell is searched around where the grid predicts it.
const SHIFT_RANGE: f64 = 0.2;
/// Shares of a cell's black level taken off to read it under glare (see [`deglared`]).
const DEGLARE_SHARES: [f32; 4] = [0.25, 0.5, 0.75, 1.0];
/// A cell no look finds a tile in joins under glare (see [`Profile::glare_distance`]) only
/// within this share of the presence limit: washed-out tiles on dev photos matched their
/// building under glare at 0.1-0.9 of the limit (most under 0.5), empty cells beside
/// Alhambras whose black level allowed the glare at 0.67 and more.
const GLARE_LIMIT: f32 = 0.6;
/// A cell is read under glare only when at least this share of its pixels is clipped in
/// some channel: what taking the glare off cannot undo. (Without it a photo shot duller
/// than the labelled one read partly as washed out: an easy photo at 0.6 saturation, 6 ->
/// 3 of 6 Alhambras exact. Washed-out tiles the glare profiles recovered on dev photos
/// were 20-64% clipped, a few hazy ones 1-8%.)
const GLARE_CLIPPED: f32 = 0.1;
/// The most looks the quad of a cell read under glare is reshaped with.
const GLARE_LOOKS: usize = 40;

/// Edge strength of the frame (gradient magnitude, slightly blurred so that a seam's two
/// edges make one ridge): what cell borders are aligned on.
pub(super) struct EdgeMap {
    pub(super) width: usize,
    pub(super) height: usize,
    pub(super) data: Vec<f32>,
    /// Grey levels, lightly smoothed (for the dark lines of seams); bytes, as a 4K
    /// photo's working copy is three megapixels.
    pub(super) lum: Vec<u8>,
}

impl EdgeMap {
    pub(super) fn new(frame: &Mat) -> Result<EdgeMap, ScanError> {
        let mut grey = Mat::default();
        imgproc::cvt_color(frame, &mut grey, imgproc::COLOR_BGR2GRAY, 0)?;
        let (gx, gy) = gradients(&grey)?;
        let mut mag = Mat::default();
        opencv::core::magnitude(&gx, &gy, &mut mag)?;
        let mut blurred = Mat::default();
        imgproc::gaussian_blur(
            &mag,
            &mut blurred,
            Size::new(5, 5),
            1.2,
            1.2,
            opencv::core::BORDER_REPLICATE,
        )?;
        let mut lum = Mat::default();
        imgproc::gaussian_blur(
            &grey,
            &mut lum,
            Size::new(3, 3),
            0.8,
            0.8,
            opencv::core::BORDER_REPLICATE,
        )?;
        Ok(EdgeMap {
            width: frame.cols() as usize,
            height: frame.rows() as usize,
            data: blurred.data_typed::<f32>()?.to_vec(),
            lum: lum.data_bytes()?.to_vec(),
        })
    }

    pub(super) fn at(&self, p: Point) -> f32 {
        Self::sample(&self.data, self.width, self.height, p)
    }

    /// Smoothed grey level at `p`.
    pub(super) fn lum_at(&self, p: Point) -> f32 {
        Self::sample(&self.lum, self.width, self.height, p)
    }

    fn sample<T: Copy + Into<f32>>(d: &[T], width: usize, height: usize, p: Point) -> f32 {
        // Pixel centres at whole coordinates, as OpenCV's warps (and so the cell quads)
        // have them.
        let (x, y) = (p[0], p[1]);
        if !(x >= 0.0 && y >= 0.0 && x < (width - 1) as f64 && y < (height - 1) as f64) {
            return 0.0;
        }
        let (x0, y0) = (x as usize, y as usize);
        let (tx, ty) = ((x - x0 as f64) as f32, (y - y0 as f64) as f32);
        let i = y0 * width + x0;
        let v = |k: usize| -> f32 { d[k].into() };
        (v(i) * (1.0 - tx) + v(i + 1) * tx) * (1.0 - ty)
            + (v(i + width) * (1.0 - tx) + v(i + width + 1) * tx) * ty
    }

    /// Mean edge strength inside a quad (its middle 0.6 each way): a tile's art, however
    /// washed out, against the bare table.
    pub(super) fn interior(&self, q: &[Point; 4]) -> f32 {
        const SAMPLES: i32 = 9;
        let Some(h) = Homography::from_quads(&UNIT_CELL, q) else {
            return 0.0;
        };
        let mut sum = 0.0;
        for j in 0..SAMPLES {
            for i in 0..SAMPLES {
                let at = |k: i32| -0.3 + 0.6 * f64::from(k) / f64::from(SAMPLES - 1);
                if let Some(p) = h.apply([at(i), at(j)]) {
                    sum += self.at(p);
                }
            }
        }
        sum / (SAMPLES * SAMPLES) as f32
    }

    /// Mean edge strength along the four sides of a quad.
    pub(super) fn border(&self, q: &[Point; 4]) -> f32 {
        const SAMPLES: usize = 10;
        let mut sum = 0.0;
        for k in 0..4 {
            let (a, b) = (q[k], q[(k + 1) % 4]);
            for s in 0..SAMPLES {
                let t = (s as f64 + 0.5) / SAMPLES as f64;
                sum += self.at([a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]);
            }
        }
        sum / (4 * SAMPLES) as f32
    }
}

/// One way of looking at the photo, what every whole reading starts from: its pixels (as
/// shot, in another tone or with the light made even), their edges, the plane the table
/// is seen through, whether markers told that plane, and the white balance.
#[derive(Clone, Copy)]
pub(super) struct Photo<'a> {
    pub(super) frame: &'a Mat,
    pub(super) edges: &'a EdgeMap,
    pub(super) image_to_table: Homography,
    /// Whether the plane comes from markers (true scale) or is a guess.
    pub(super) markers: bool,
    pub(super) white: WhiteBalance,
    /// The Alhambras an earlier frame read, when they are to be grown again or kept
    /// instead of searched for (see [`super::Scanner::scan_from`]).
    pub(super) known: Option<Known<'a>>,
    /// Looks at these pixels remembered from earlier frames of a still camera, where
    /// they did not change, and where this reading's looks are remembered for the next
    /// (see [`super::remembered`]).
    pub(super) remembered: Option<&'a RefCell<Looks>>,
}

/// The Alhambras an earlier frame read: the lattices (grid to image pixels) of those to
/// grow again, and the cells (image centre and size) and fountains of those kept as read,
/// which the others may not grow into; and the plane it was read through.
#[derive(Clone, Copy)]
pub(super) struct Known<'a> {
    pub(super) grids: &'a [Homography],
    pub(super) kept_cells: &'a [(Point, f64)],
    pub(super) kept_fountains: &'a [Point],
    /// The markers' plane the earlier frame was read through, if any.
    pub(super) plane: Option<&'a crate::plane::Plane>,
}

impl<'a> Photo<'a> {
    /// The same look at other pixels of the same photo (its edges stay those of the photo
    /// as shot: a tone or evened light moves no border).
    pub(super) fn showing<'b>(self, frame: &'b Mat) -> Photo<'b>
    where
        'a: 'b,
    {
        Photo {
            frame,
            remembered: None,
            ..self
        }
    }

    /// The same look remembering its looks in `remembered` (see [`Photo::remembered`]):
    /// for other pixels than the photo as shot, their own.
    pub(super) fn remembering<'b>(self, remembered: Option<&'b RefCell<Looks>>) -> Photo<'b>
    where
        'a: 'b,
    {
        Photo { remembered, ..self }
    }

    /// The same look under another white balance.
    pub(super) fn under(self, white: WhiteBalance) -> Photo<'a> {
        Photo { white, ..self }
    }

    /// The same look through another plane.
    pub(super) fn through(self, image_to_table: Homography) -> Photo<'a> {
        Photo {
            image_to_table,
            ..self
        }
    }
}

/// A frame prepared for reading: the image, the plane, the white balance, the edges.
pub(super) struct View<'a> {
    pub(super) frame: &'a Mat,
    /// Whether the plane comes from markers (true scale) or is a guess.
    pub(super) markers: bool,
    pub(super) table_to_image: Homography,
    pub(super) white: WhiteBalance,
    pub(super) edges: &'a EdgeMap,
    /// The table's own colour in this photo, when it could be told: the commonest colour
    /// of the view.
    pub(super) table: Option<TableColour>,
    /// Image centre and size of every cell that is another Alhambra's: while fountains
    /// are anchored, the fountains found so far; while an Alhambra grows, the others' cells.
    pub(super) claimed: Vec<(Point, f64)>,
    /// The other Alhambras' fountains (image centres) while an Alhambra grows: a tile
    /// reached only across covered cells must lie nearer its own (see `ring`).
    pub(super) fountains: Vec<Point>,
    /// The grid of the photo's largest Alhambra once grown: the table's plane as its many
    /// tiles show it (see `on_shared_plane`).
    pub(super) plane_grid: Option<Homography>,
    /// Features already taken, by quad and white balance: the lattice fits, growth and
    /// the final reading look at many quads more than once (a third of all looks on a
    /// normal photo), and a look is most of a scan's time.
    pub(super) looked: RefCell<HashMap<LookKey, Option<CellFeatures>>>,
    /// The share of bare table measured in quads already (see [`View::table_share`]), by
    /// quad, white balance and table colour: a cell read with the glare taken off asks
    /// it once for each share of glare.
    pub(super) table_shares: RefCell<HashMap<(LookKey, [u32; 3]), TableShare>>,
    /// The cells and fountains of Alhambras an earlier frame read and kept as read
    /// (see [`Known`]): always another Alhambra's.
    pub(super) kept_cells: Vec<(Point, f64)>,
    pub(super) kept_fountains: Vec<Point>,
    /// See [`Photo::remembered`].
    pub(super) remembered: Option<&'a RefCell<Looks>>,
}

/// A quad's corners and a white balance, bit for bit: equal keys give equal features.
pub(super) type LookKey = ([u64; 8], [u32; 3]);

impl<'a> View<'a> {
    /// A view of the table through `image_to_table` (`None` when it cannot be inverted),
    /// nothing claimed yet and the table's colour not yet told.
    pub(super) fn new(photo: Photo<'a>) -> Option<View<'a>> {
        let (kept_cells, kept_fountains) = photo.known.map_or((Vec::new(), Vec::new()), |k| {
            (k.kept_cells.to_vec(), k.kept_fountains.to_vec())
        });
        Some(View {
            frame: photo.frame,
            markers: photo.markers,
            table_to_image: photo.image_to_table.inverse()?,
            white: photo.white,
            edges: photo.edges,
            table: None,
            claimed: kept_cells.clone(),
            fountains: kept_fountains.clone(),
            plane_grid: None,
            looked: RefCell::default(),
            table_shares: RefCell::default(),
            kept_cells,
            kept_fountains,
            remembered: photo.remembered,
        })
    }

    /// Sees `cells` and `fountains` as the other Alhambras', with those kept as read.
    pub(super) fn others(&mut self, mut cells: Vec<(Point, f64)>, mut fountains: Vec<Point>) {
        cells.extend_from_slice(&self.kept_cells);
        fountains.extend_from_slice(&self.kept_fountains);
        self.claimed = cells;
        self.fountains = fountains;
    }

    /// Sees every Alhambra of `alhambras` but the `k`th as another's, besides those seen so
    /// already.
    pub(super) fn claim_others(&mut self, alhambras: &[FoundAlhambra], k: usize) {
        for (o, other) in alhambras.iter().enumerate() {
            if o == k {
                continue;
            }
            self.fountains.push(other.fountain_px);
            self.claimed.extend(
                other
                    .tiles
                    .iter()
                    .map(|t| (quad_centre(&t.corners_px), quad_size(&t.corners_px))),
            );
        }
    }

    /// Whether some empty cell beside Alhambra `a`'s tiles (on its grid, in the picture, not
    /// mostly the table) has features `reads_a_tile` takes for a tile: where a reading under
    /// another profile would grow further (one look at each).
    pub(super) fn cell_beside_reads_a_tile(
        &self,
        a: &FoundAlhambra,
        reads_a_tile: impl Fn(&CellFeatures) -> bool,
    ) -> bool {
        let Some(to_grid) = a.grid.inverse() else {
            return false;
        };
        let cells: HashSet<(i32, i32)> = a
            .tiles
            .iter()
            .filter_map(|t| to_grid.apply(quad_centre(&t.corners_px)))
            .map(|g| (g[0].round() as i32, g[1].round() as i32))
            .collect();
        cells.iter().any(|&(i, j)| {
            [(1, 0), (-1, 0), (0, 1), (0, -1)].iter().any(|(di, dj)| {
                let n = (i + di, j + dj);
                !cells.contains(&n)
                    && cell_quad(&a.grid, f64::from(n.0), f64::from(n.1))
                        .filter(|q| self.inside(q) && self.table_share(q) <= TABLE_SHARE_LIMIT)
                        .and_then(|q| self.features(&q))
                        .is_some_and(|f| reads_a_tile(&f))
            })
        })
    }

    /// Whether a quad lies on a cell already read into an Alhambra: its centre nearer than
    /// [`TAKEN_REACH`] of a cell to that cell's. Two tiles that do not overlap each hold
    /// their inscribed circle, so their centres lie a cell apart at least; half a cell let
    /// a lone fountain's lattice, turned, read a cell straddling another Alhambra's tile
    /// and the table beside it as a tile (plan normal_8836).
    pub(super) fn taken(&self, q: &[Point; 4]) -> bool {
        let c = quad_centre(q);
        self.claimed
            .iter()
            .any(|(p, size)| dist(*p, c) < TAKEN_REACH * size)
    }

    /// Whether quad `q` shares a side with a cell of another Alhambra (see [`View::taken`]).
    pub(super) fn beside_taken(&self, q: &[Point; 4]) -> bool {
        let c = quad_centre(q);
        self.claimed
            .iter()
            .any(|(p, size)| dist(*p, c) < 1.25 * size)
    }

    pub(super) fn inside(&self, q: &[Point; 4]) -> bool {
        let (w, h) = (f64::from(self.frame.cols()), f64::from(self.frame.rows()));
        q.iter()
            .all(|p| p[0] >= 0.0 && p[1] >= 0.0 && p[0] < w && p[1] < h)
    }

    /// The quad of cell (i, j) best aligned with the edges near where `grid` puts it, and
    /// whether that best lies strictly inside the search range (a real border nearby).
    pub(super) fn align(&self, grid: &Homography, i: i32, j: i32) -> Option<([Point; 4], bool)> {
        let (ci, cj) = (f64::from(i), f64::from(j));
        let mut best: Option<(f32, f64, f64)> = None;
        let search = |best: &mut Option<(f32, f64, f64)>, ox: f64, oy: f64, step: f64, n: i32| {
            for sy in -n..=n {
                for sx in -n..=n {
                    let (dx, dy) = (ox + f64::from(sx) * step, oy + f64::from(sy) * step);
                    let Some(q) = cell_quad(grid, ci + dx, cj + dy) else {
                        continue;
                    };
                    let s = self.edges.border(&q);
                    if best.is_none_or(|b| s > b.0) {
                        *best = Some((s, dx, dy));
                    }
                }
            }
        };
        search(&mut best, 0.0, 0.0, SHIFT_RANGE / 4.0, 4);
        let (_, cx, cy) = best?;
        let interior = cx.abs() < SHIFT_RANGE - 1e-9 && cy.abs() < SHIFT_RANGE - 1e-9;
        search(&mut best, cx, cy, SHIFT_RANGE / 16.0, 3);
        let (_, dx, dy) = best?;
        let q = cell_quad(grid, ci + dx, cj + dy)?;
        self.inside(&q).then_some((q, interior))
    }

    /// The quad near `q` (see [`reshape`]) that looks most like a tile, with its features
    /// and presence; `None` when no look there could be taken.
    pub(super) fn reshaped_reading(
        &self,
        profile: &Profile,
        q: &[Point; 4],
        (enough, looks): (f32, usize),
    ) -> Option<([Point; 4], CellFeatures, (bool, f32))> {
        let model = self
            .features(q)
            .map_or(profile, |f| profile.interior_for(&f));
        let (q, _) = reshape(q, RESHAPE_REACH, (-enough, looks), |t| {
            if !self.inside(t) {
                return None;
            }
            self.features(t).map(|f| -model.tile_distance(&f))
        })?;
        let f = self.features(&q)?;
        let presence = self.presence_of(profile, &q, &f);
        Some((q, f, presence))
    }

    /// The quad near grid cell (i, j) whose picture looks most like a tile: the grid's
    /// prediction moved by `step` cells in the directions of `pattern`, and an `extra`
    /// candidate. Returns the quad, its features and its presence (is a tile, distance);
    /// `None` when the cell is out of the picture.
    pub(super) fn best_reading(
        &self,
        profile: &Profile,
        grid: &Homography,
        (i, j): (i32, i32),
        (step, pattern): (f64, &[(f64, f64)]),
        extra: Option<[Point; 4]>,
    ) -> Option<([Point; 4], CellFeatures, (bool, f32))> {
        let (ci, cj) = (f64::from(i), f64::from(j));
        let mut candidates: Vec<[Point; 4]> = Vec::with_capacity(pattern.len() + 1);
        for (dx, dy) in pattern {
            if let Some(q) = cell_quad(grid, ci + dx * step, cj + dy * step) {
                candidates.push(q);
            }
        }
        candidates.extend(extra);
        // Rank by the cheap distance to the buildings; the full presence test (nearest
        // labelled examples) only for the best.
        let mut best: Option<([Point; 4], CellFeatures, f32)> = None;
        let mut model: Option<&Profile> = None;
        for q in candidates {
            if !self.inside(&q) {
                continue;
            }
            let Some(f) = self.features(&q) else {
                continue;
            };
            // The first look's focus picks the model that ranks them all.
            let d = model
                .get_or_insert_with(|| profile.interior_for(&f))
                .tile_distance(&f);
            if best.as_ref().is_none_or(|b| d < b.2) {
                best = Some((q, f, d));
            }
        }
        let (q, f, _) = best?;
        let presence = self.presence_of(profile, &q, &f);
        Some((q, f, presence))
    }

    /// The features of quad `q` with glare taken off (see [`deglared`]), the share that
    /// makes it look most like a tile, and the presence then; `None` when no look there
    /// could be taken.
    pub(super) fn deglared_reading(
        &self,
        profile: &Profile,
        q: &[Point; 4],
    ) -> Option<(CellFeatures, (bool, f32), f32)> {
        let key = self.look_key(q);
        let mut patch: Option<Mat> = None;
        let mut best: Option<(CellFeatures, (bool, f32), f32)> = None;
        for share in DEGLARE_SHARES {
            let remembered = self.remembered.and_then(|looks| {
                looks
                    .borrow()
                    .get(&remembered_key(&key, Some(share)))
                    .cloned()
            });
            let f = match remembered {
                Some(f) => f,
                None => {
                    if patch.is_none() {
                        patch = Some(sample_patch(self.frame, q).ok()?);
                    }
                    FEATURE_CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let f = patch.as_ref().and_then(|patch| {
                        deglared(patch, share)
                            .and_then(|p| features(&p, self.white))
                            .ok()
                    });
                    if let Some(looks) = self.remembered {
                        looks
                            .borrow_mut()
                            .insert(remembered_key(&key, Some(share)), f.clone());
                    }
                    f
                }
            };
            let Some(f) = f else {
                continue;
            };
            let presence = self.presence_of(profile, q, &f);
            let better = best.as_ref().is_none_or(|(_, b, _)| {
                (presence.0 && !b.0) || (presence.0 == b.0 && presence.1 < b.1)
            });
            if better {
                best = Some((f, presence, share));
            }
        }
        best
    }

    /// How quad `q` reads under glare: the level and distance (see
    /// [`Profile::glare_distance`]); `None` when no level's lift is possible there, or
    /// when hardly any of it is clipped ([`GLARE_CLIPPED`]).
    pub(super) fn glare_distance(&self, profile: &Profile, q: &[Point; 4]) -> Option<(usize, f32)> {
        if !self.inside(q) {
            return None;
        }
        // The cheap test first: most cells asked about are not clipped.
        let patch = sample_patch(self.frame, q).ok()?;
        let bytes = patch.data_bytes().ok()?;
        let clipped = bytes
            .chunks_exact(3)
            .filter(|p| p.iter().any(|&v| v >= 250))
            .count();
        if (clipped as f32) < GLARE_CLIPPED * (bytes.len() / 3) as f32 {
            return None;
        }
        let f = self.features(q)?;
        let black = black_level(&patch).ok()?;
        profile.glare_distance(&f, black, self.white)
    }

    /// The quad near `q` that reads best as a tile under glare, with the level and the
    /// distance: within [`GLARE_LIMIT`] of the presence limit, and not mostly bare table
    /// however alike (a bright grey table matched a pale tile set's washed-out tiles
    /// closely, all of it the table's colour; washed-out tiles on dev photos were at most
    /// 0.64 the table's colour); `None` otherwise. Washed-out tiles are seldom where the
    /// grid predicts them (it was fitted without them), and their match under glare falls
    /// off faster with a misplaced quad than a tile's plain one: the quad is reshaped to
    /// fit, when the start comes within twice the limit.
    pub(super) fn glare_reading(
        &self,
        profile: &Profile,
        q: &[Point; 4],
    ) -> Option<([Point; 4], usize, f32)> {
        if profile.glare.is_empty() {
            return None;
        }
        let limit = GLARE_LIMIT * profile.presence_limit;
        let (_, start) = self.glare_distance(profile, q)?;
        if start > 2.0 * limit {
            return None;
        }
        let (best, _) = reshape(q, RESHAPE_REACH, (-0.5 * limit, GLARE_LOOKS), |t| {
            self.glare_distance(profile, t).map(|(_, d)| -d)
        })?;
        let (level, d) = self.glare_distance(profile, &best)?;
        (d <= limit && self.table_share(&best) <= TABLE_SHARE_LIMIT).then_some((best, level, d))
    }

    /// The side features of quad `q`, with `glare` (a share, see [`deglared`]) taken off
    /// when given.
    pub(super) fn side_features(
        &self,
        q: &[Point; 4],
        glare: Option<f32>,
    ) -> Option<[[f32; SIDE_DIMS]; 4]> {
        if !self.inside(q) {
            return None;
        }
        FEATURE_CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut patch = sample_patch(self.frame, q).ok()?;
        if let Some(share) = glare {
            patch = deglared(&patch, share).ok()?;
        }
        features(&patch, self.white).ok().map(|f| f.sides)
    }

    /// Whether quad `q`, with features `f`, holds a tile (and its distance): the
    /// profile's presence, unless the quad is mostly bare table and not clearly a tile.
    pub(super) fn presence_of(
        &self,
        profile: &Profile,
        q: &[Point; 4],
        f: &CellFeatures,
    ) -> (bool, f32) {
        let mut presence = profile.presence(f);
        if presence.0 && bare_table(presence.1, profile.presence_limit, || self.table_shares(q)) {
            presence.0 = false;
        }
        presence
    }

    /// Whether quad `q` is covered: hardly any of it the bare table (whose colour must be
    /// known), or only half covered (see [`HALF_COVERED_TABLE_SHARE`]). Asked of cells
    /// that read as no tile.
    pub(super) fn cover(&self, q: &[Point; 4]) -> Option<Cover> {
        self.table.as_ref()?;
        let share = self.table_share(q);
        if share < COVERED_TABLE_SHARE {
            Some(Cover::Whole)
        } else if share < HALF_COVERED_TABLE_SHARE {
            Some(Cover::Half)
        } else {
            None
        }
    }

    /// The share of a quad's pixels that look like the bare table (0 when the table's
    /// colour is unknown).
    pub(super) fn table_share(&self, q: &[Point; 4]) -> f32 {
        self.table_shares(q).whole
    }

    /// The shares of a quad's pixels, over all of it and over its middle, that look like
    /// the bare table (0 when the table's colour is unknown).
    pub(super) fn table_shares(&self, q: &[Point; 4]) -> TableShare {
        let Some(table) = self
            .table
            .as_ref()
            .map(|t| t.near(self.white, quad_centre(q)))
        else {
            return TableShare::default();
        };
        let key = (self.look_key(q), table.map(f32::to_bits));
        if let Some(&known) = self.table_shares.borrow().get(&key) {
            return known;
        }
        let share = sample_patch(self.frame, q).map_or(TableShare::default(), |patch| {
            table_share_of(&patch, self.white, table)
        });
        self.table_shares.borrow_mut().insert(key, share);
        share
    }

    /// Quad `q` under this view's white balance, bit for bit.
    fn look_key(&self, q: &[Point; 4]) -> LookKey {
        let mut corners = [0u64; 8];
        for (k, p) in q.iter().enumerate() {
            corners[2 * k] = p[0].to_bits();
            corners[2 * k + 1] = p[1].to_bits();
        }
        (corners, self.white.map(f32::to_bits))
    }

    /// Features of an image quad, in the quad's own orientation.
    pub(super) fn features(&self, q: &[Point; 4]) -> Option<CellFeatures> {
        let key = self.look_key(q);
        if let Some(known) = self.looked.borrow().get(&key) {
            return known.clone();
        }
        let earlier = self
            .remembered
            .and_then(|looks| looks.borrow().get(&remembered_key(&key, None)).cloned());
        let f = match earlier {
            Some(f) => f,
            None => {
                FEATURE_CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let f = sample_patch(self.frame, q)
                    .ok()
                    .and_then(|patch| features(&patch, self.white).ok());
                if let Some(looks) = self.remembered {
                    looks
                        .borrow_mut()
                        .insert(remembered_key(&key, None), f.clone());
                }
                f
            }
        };
        self.looked.borrow_mut().insert(key, f.clone());
        f
    }
}
