//! Reading the photo again where its first reading says it was read wrongly: in the tone
//! its sure tiles tell (a camera's saturation and contrast), each Alhambra in its own tone
//! and under its own light's colours, under a profile moved towards how this photo's tiles
//! look, and under the colour casts that make the clearest fountain look most like the
//! profile's.

use super::*;

/// How far past the presence limit a tile surely read still tells the tone: in the wrong
/// tone the tiles read are far from the profile's looks (lone fountains are anchored up
/// to 1.5 times the limit), and a reading in a tone told wrong is kept only if it reads
/// more.
const TONE_REACH: f32 = 1.5;
/// The fewest tiles read surely that tell one Alhambra's tone, when it differs from the
/// photo's (see `Scanner::toned_alhambras`): as many as for the photo (an Alhambra in
/// duller light than the rest shows few tiles; a tone told wrong grows no more than the
/// tiles that look like tiles in it).
const ALHAMBRA_TONE_LEAST: usize = TONE_LEAST;
/// Most readings again in a corrected tone.
const TONE_ROUNDS: usize = 3;
/// How far a photo's saturation (a share) must be off the profile's for the photo to be
/// read again in the profile's tone.
const TONE_SATURATION_OFF: f32 = 0.08;
/// The same for contrast: wider, as blur lowers the contrast the tiles show as much as a
/// tone curve does (sharp rendered photos read 0.82-1.03 against a profile learned with
/// blurred variants).
const TONE_CONTRAST_OFF: f32 = 0.15;
/// How many tiles the profile's own look of each building counts for against the tiles
/// of a photo when it is adapted to the photo.
const ADAPTED_PRIOR: f32 = 2.0;
/// The fewest tiles read surely that the profile is adapted to.
const ADAPTED_LEAST: usize = 8;
/// The fewest tiles read surely in one Alhambra that tell the colour map it lies under.
const MAPPED_LEAST: usize = 6;

/// Whether a tone told by the tiles is well off the profile's. More contrast is what blur
/// calls for too (a blurred photo's tiles show less of it than the profile's): only less
/// contrast, or another saturation, is a tone.
fn tone_is_off(tone: &Tone) -> bool {
    (tone.saturation - 1.0).abs() > TONE_SATURATION_OFF || tone.contrast < 1.0 - TONE_CONTRAST_OFF
}

impl Scanner {
    /// When the tiles read surely say the photo's tone is well off the profile's, the
    /// photo in the profile's tone, read again: `alhambras` become that reading when it
    /// reads more (as many Alhambras with tiles, more tiles), else take each Alhambra it
    /// reads much better (see `take_larger`). Returns the photo in the tone kept, if any.
    /// (Not only where a cell beside the tiles read would read as a tile in the new tone:
    /// that saved the time on hard photos but lost most of the gain on photos shot duller
    /// or brighter; see docs/eval.txt.)
    pub(super) fn toned_reading(
        &self,
        photo: Photo<'_>,
        alhambras: &mut Vec<FoundAlhambra>,
        looks: &mut Vec<FoundAlhambra>,
    ) -> Result<Option<Mat>, ScanError> {
        let mut kept: Option<Mat> = None;
        let mut total = Tone::NONE;
        // Again from each reading in the corrected tone that read more: a tone told by
        // the few tiles read in the wrong one falls short (they read despite it), and the
        // tiles read in the corrected one tell the rest. (Going on after a reading that
        // read no more: dev desaturated photos 84 -> 88% exact, dev hard the same, at up to
        // two readings more a photo; hard photos' haze and glare read as another tone.)
        for _ in 0..TONE_ROUNDS {
            let Some(tone) = self.tone_told(alhambras.iter().flat_map(|a| &a.tiles), TONE_LEAST)
            else {
                break;
            };
            if debugging() {
                eprintln!("photo tone {tone:?} after {total:?}");
            }
            if !tone_is_off(&tone) {
                break;
            }
            total = total.then(tone);
            let toned = total.apply(photo.frame, photo.white)?;
            let again = self.read_table(photo.showing(&toned))?.alhambras;
            tell_readings("toned", &again, alhambras);
            looks.extend(again.iter().cloned());
            if take_whole_or_larger(alhambras, again) {
                kept = Some(toned);
            } else {
                break;
            }
        }
        Ok(kept)
    }

    /// The tone `tiles` were read in against the profile's, told by those read surely (at
    /// least `least` of them; see `Profile::tone_of`).
    fn tone_told<'a>(
        &self,
        tiles: impl Iterator<Item = &'a FoundTile>,
        least: usize,
    ) -> Option<Tone> {
        let limit = self.profile.presence_limit;
        self.profile.tone_of(
            tiles
                .filter(|t| {
                    t.glare.is_none()
                        && t.reading.building_confidence >= 0.9
                        && t.presence <= TONE_REACH * limit
                })
                .map(|t| (&t.features, t.reading.building)),
            least,
        )
    }

    /// Each Alhambra whose tiles read surely say its tone is well off the profile's (the
    /// photo's tone as read being right elsewhere), grown again from its grid in the
    /// photo put in its tone; the new reading is kept when it joins more tiles.
    pub(super) fn toned_alhambras(
        &self,
        photo: Photo<'_>,
        alhambras: &mut [FoundAlhambra],
    ) -> Result<(), ScanError> {
        for k in 0..alhambras.len() {
            let a = &alhambras[k];
            let Some(tone) = self.tone_told(a.tiles.iter(), ALHAMBRA_TONE_LEAST) else {
                continue;
            };
            if debugging() {
                eprintln!("fountain at {:?}: tone {tone:?}", a.fountain_px);
            }
            if !tone_is_off(&tone) {
                continue;
            }
            let (white, through) = (photo.white, photo.image_to_table);
            let toned = tone.apply(photo.frame, white)?;
            let light = [
                white[0] * a.light[0],
                white[1] * a.light[1],
                white[2] * a.light[2],
            ];
            let Some(mut view) = View::new(photo.showing(&toned).under(light)) else {
                continue;
            };
            // The table's colour in the new tone, as the overview shows it.
            if let Some(overview) = self.overview(&view, &through)? {
                view.table = overview.table(light)?;
            }
            view.claim_others(alhambras, k);
            let Some(mut again) = self.grow(&view, alhambras[k].grid) else {
                continue;
            };
            if debugging() {
                eprintln!(
                    "fountain at {:?} in its own tone: {} tiles joined (was {})",
                    alhambras[k].fountain_px,
                    again.joined(),
                    alhambras[k].joined()
                );
            }
            if again.joined() > alhambras[k].joined() || far_surer(&again, &alhambras[k]) {
                again.light = alhambras[k].light;
                alhambras[k] = again;
            }
        }
        Ok(())
    }

    /// Each Alhambra grown again from its grid under the profile moved by the colour map
    /// its own sure tiles tell (see [`Profile::mapped`]), where some cell beside its tiles
    /// reads as a tile under it and not before: one Alhambra may lie in light the rest of
    /// the table does not (a lamp's pool), which moves the look of a building it holds no
    /// sure tile of as well. Kept when it joins more tiles and breaks no more rules.
    pub(super) fn mapped_alhambras(
        &self,
        photo: Photo<'_>,
        alhambras: &mut [FoundAlhambra],
        looks: &mut Vec<FoundAlhambra>,
    ) -> Result<(), ScanError> {
        let limit = self.profile.presence_limit;
        for k in 0..alhambras.len() {
            let a = &alhambras[k];
            let sure = a
                .tiles
                .iter()
                .filter(|t| {
                    t.glare.is_none() && t.reading.building_confidence >= 0.9 && t.presence <= limit
                })
                .map(|t| (&t.features, t.reading.building));
            let Some(profile) = self.profile.mapped(sure, MAPPED_LEAST) else {
                continue;
            };
            let light = [
                photo.white[0] * a.light[0],
                photo.white[1] * a.light[1],
                photo.white[2] * a.light[2],
            ];
            let Some(mut view) = View::new(photo.under(light)) else {
                continue;
            };
            let promising = view.cell_beside_reads_a_tile(a, |f| {
                profile.presence(f).0 && !self.profile.presence(f).0
            });
            if debugging() {
                eprintln!(
                    "fountain at {:?} under its own colours: promising {promising}",
                    a.fountain_px
                );
            }
            if !promising {
                continue;
            }
            view.claim_others(alhambras, k);
            let mapped = Scanner::new(profile, self.options.clone());
            let Some(mut again) = mapped.grow(&view, alhambras[k].grid) else {
                continue;
            };
            if debugging() {
                eprintln!(
                    "fountain at {:?} under its own colours: {} tiles joined (was {})",
                    alhambras[k].fountain_px,
                    again.joined(),
                    alhambras[k].joined()
                );
            }
            looks.push(again.clone());
            if again.joined() > alhambras[k].joined()
                && violations(std::slice::from_ref(&again))
                    <= violations(std::slice::from_ref(&alhambras[k]))
            {
                again.light = alhambras[k].light;
                alhambras[k] = again;
            }
        }
        Ok(())
    }

    /// The Alhambras grown again from the fountains of `reading`, with the profile moved
    /// towards how the tiles it read surely look in this photo (see [`Profile::adapted`]);
    /// `None` when too few were read surely to tell.
    pub(super) fn adapted_reading(
        &self,
        photo: Photo<'_>,
        reading: &TableReading,
    ) -> Result<Option<Vec<FoundAlhambra>>, ScanError> {
        let limit = self.profile.presence_limit;
        let sure = reading
            .alhambras
            .iter()
            .flat_map(|a| &a.tiles)
            .filter(|t| {
                t.glare.is_none() && t.reading.building_confidence >= 0.9 && t.presence <= limit
            })
            .map(|t| (&t.features, t.reading.building));
        let Some(profile) = self.profile.adapted(sure, ADAPTED_PRIOR, ADAPTED_LEAST) else {
            return Ok(None);
        };
        let Some(mut view) = View::new(photo) else {
            return Ok(None);
        };
        view.table = reading.table.clone();
        // Growing again costs about a third of a reading: only when some empty cell beside
        // an Alhambra's tiles would now hold one (one look at each; a fountain read alone
        // is not grown again, see `take_much_larger`).
        let now_a_tile = |f: &CellFeatures| profile.presence(f).0 && !self.profile.presence(f).0;
        let promising = reading
            .alhambras
            .iter()
            .filter(|a| a.tiles.len() >= 2)
            .any(|a| view.cell_beside_reads_a_tile(a, now_a_tile));
        if !promising {
            return Ok(None);
        }
        let adapted = Scanner::new(profile, self.options.clone());
        let mut anchors = reading.anchors.clone();
        Ok(Some(adapted.grow_from(&mut view, &mut anchors)))
    }

    /// The colour casts (channel gains, B G R) under which the clearest fountain
    /// candidate's colours fit the profile's fountain better than under the photo's own
    /// white balance, with that fit, best first. (Not how much it outscores everything
    /// else: more blue makes the fountain's basin outscore the rest more, and a blue cast
    /// was then made worse.)
    pub(super) fn likely_casts(&self, photo: Photo<'_>) -> Result<Vec<(f32, [f32; 3])>, ScanError> {
        let (image_to_table, white) = (&photo.image_to_table, photo.white);
        let Some(plain_view) = View::new(photo) else {
            return Ok(Vec::new());
        };
        // The table's picture is the same under every cast: warped once.
        let Some(overview) = self.overview(&plain_view, image_to_table)? else {
            return Ok(Vec::new());
        };
        let fit_under = |gains: [f32; 3]| -> Result<f32, ScanError> {
            let view = View {
                white: [
                    white[0] * gains[0],
                    white[1] * gains[1],
                    white[2] * gains[2],
                ],
                claimed: Vec::new(),
                fountains: Vec::new(),
                looked: RefCell::default(),
                table_shares: RefCell::default(),
                table: plain_view.table.clone(),
                kept_cells: plain_view.kept_cells.clone(),
                kept_fountains: plain_view.kept_fountains.clone(),
                ..plain_view
            };
            let reading = self.candidates_on(&view, &overview, &[1.0])?;
            Ok(reading.top_fit.unwrap_or(f32::NEG_INFINITY))
        };
        // One channel at a time, 8% and 16% each way.
        let plain = fit_under([1.0; 3])?;
        let mut better: Vec<(f32, [f32; 3])> = Vec::new();
        for k in 0..3 {
            for step in [0.92f32, 0.85, 1.08, 1.16] {
                let mut gains = [1.0f32; 3];
                gains[k] = step;
                let mean = (gains[0] + gains[1] + gains[2]) / 3.0;
                let gains = gains.map(|g| g / mean);
                let score = fit_under(gains)?;
                if score > plain {
                    better.push((score, gains));
                }
            }
        }
        better.sort_by(|a, b| b.0.total_cmp(&a.0));
        if debugging() {
            eprintln!("cast: plain {plain:.1}, better {better:?}");
        }
        Ok(better)
    }
}
