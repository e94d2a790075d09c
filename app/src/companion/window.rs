//! The companion's window: the picture with the Alhambras drawn over it, and beside it the
//! players, the tile being corrected, the scoring rounds and what happened.
//!
//! [`Companion::logic`] takes what the vision worker handed over; [`Companion::ui`] draws.
//! Tests drive both without a worker (see [`Companion::show_frame`]).

use super::cells::{Cells, turned};
use super::learning::{self, Learning};
use super::picture::Picture;
use super::session::Session;
use super::worker::{Report, Shown, Worker};
use alhambra_engine::scoring::{RoundScore, ScoringRound, score_round};
use alhambra_engine::track::{Outcome as GameOutcome, ScoreTrack};
use alhambra_engine::wall::longest_wall;
use alhambra_engine::{Alhambra, Building, Piece, Pos, Side, Walls, catalogue};
use alhambra_vision::geometry::Point;
use alhambra_vision::scanner::ScanOptions;
use alhambra_vision::tracker::{AlhambraState, Wait};
use egui::{Color32, Pos2, Rect, Stroke, Vec2};
use opencv::core::Mat;
use std::collections::HashMap;
use std::path::PathBuf;

/// Lines of the log kept on screen.
const LOG_LINES: usize = 200;

/// A tile read less surely than this is marked on the picture (`eval` counts the errors
/// read at least this surely: those the picture shows unmarked).
const UNSURE: f32 = alhambra_vision::eval::SURE;

/// How the window was started.
pub struct Options {
    /// The source's name, shown in the title bar.
    pub source: String,
    /// Said at the top while it runs (no camera found: the demo instead).
    pub notice: Option<String>,
    /// Where the session is saved.
    pub session_path: PathBuf,
    /// Close once the worker has ended.
    pub close_when_done: bool,
    /// How the table is read (the markers' size); a profile learned keeps them.
    pub scan_options: ScanOptions,
    /// Where a profile learned from the picture is saved (and found at the next start).
    pub profile_path: PathBuf,
}

/// The latest frame's state.
struct Latest {
    frame_index: u64,
    calm: bool,
    read_ms: f64,
    alhambras: Vec<AlhambraState>,
}

/// The window's whole state.
pub struct Companion {
    options: Options,
    worker: Option<Worker>,
    session: Session,
    save_error: Option<String>,
    /// The picture waiting to be uploaded, and the texture showing the last one.
    pending_picture: Option<Picture>,
    texture: Option<egui::TextureHandle>,
    picture_size: [usize; 2],
    latest: Option<Latest>,
    /// Where each Alhambra's cells lie (by tracker id), from the last read of it.
    cells: HashMap<usize, Cells>,
    /// How surely each tile was last read (by tracker id and layout cell).
    confidence: HashMap<(usize, Pos), f32>,
    log: Vec<String>,
    /// The cell being corrected: tracker id and layout cell.
    selected: Option<(usize, Pos)>,
    /// A round's result waiting for the players' word.
    proposal: Option<RoundScore>,
    /// Why the last attempt to record a round failed.
    track_error: Option<String>,
    /// The worker's end (the source ended, or reading failed).
    ended: Option<String>,
    /// The last frame read, what the tiles' look is learned from.
    last_frame: Option<Mat>,
    /// A learning of the tiles' look under way.
    learning: Option<Learning>,
    /// The last change that broke a rule, shown at the top until the next change.
    alarm: Option<String>,
    /// Where the picture was last drawn on the screen, and at what scale.
    shown_at: Option<(Rect, f32)>,
}

impl Companion {
    /// A window over `session`, fed by `worker` (none in tests).
    pub fn new(options: Options, session: Session, worker: Option<Worker>) -> Companion {
        let mut log = Vec::new();
        if let Some(notice) = &options.notice {
            log.push(notice.clone());
        }
        if !session.players.is_empty() {
            log.push(format!(
                "continuing the game saved in {}",
                options.session_path.display()
            ));
        }
        Companion {
            options,
            worker,
            session,
            save_error: None,
            pending_picture: None,
            texture: None,
            picture_size: [0, 0],
            latest: None,
            cells: HashMap::new(),
            confidence: HashMap::new(),
            log,
            selected: None,
            proposal: None,
            track_error: None,
            ended: None,
            last_frame: None,
            learning: None,
            alarm: None,
            shown_at: None,
        }
    }

    /// The session as it stands.
    #[cfg(test)]
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Takes what the worker handed over since the last call.
    pub fn logic(&mut self, ctx: &egui::Context) {
        self.learned();
        let Some(worker) = &self.worker else {
            return;
        };
        let (frame, end) = worker.take();
        if let Some(shown) = frame {
            self.show_frame(*shown);
        }
        if let Some(end) = end {
            self.ended = Some(match end {
                Report::Restarted => {
                    self.log
                        .push(format!("{}: from the start again", self.options.source));
                    return;
                }
                Report::Ended => "the source has no more frames".to_owned(),
                Report::Failed(why) => format!("reading stopped: {why}"),
            });
            if let Some(e) = &self.ended {
                self.log.push(e.clone());
            }
            if self.options.close_when_done {
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
    }

    /// Takes a finished learning: the worker reads with its scanner from then on.
    fn learned(&mut self) {
        let Some(result) = self.learning.as_ref().and_then(Learning::poll) else {
            return;
        };
        self.learning = None;
        match result {
            Ok((scanner, line)) => {
                if let Some(w) = &self.worker {
                    w.use_scanner(scanner);
                }
                self.log.push(line);
            }
            Err(e) => self.log.push(format!("nothing learned: {e}")),
        }
    }

    /// Takes one frame and what the tracker made of it.
    pub fn show_frame(&mut self, shown: Shown) {
        if shown.frame.is_some() {
            self.last_frame = shown.frame;
        }
        if let Some(read) = &shown.read {
            for state in &shown.alhambras {
                let from_it = |a: &alhambra_vision::ScannedAlhambra| {
                    (f64::from(a.fountain_px[0]) - state.fountain_px[0])
                        .hypot(f64::from(a.fountain_px[1]) - state.fountain_px[1])
                };
                let nearest = read
                    .alhambras
                    .iter()
                    .map(|a| (a, from_it(a)))
                    .min_by(|a, b| a.1.total_cmp(&b.1));
                let Some((near, d)) = nearest else { continue };
                if !state.seen || d > 0.5 * state.tile_px.max(1.0) {
                    continue;
                }
                let cells = Cells::of(near, state.turns);
                if !cells.is_empty() {
                    self.cells.insert(state.id, cells);
                }
                self.confidence.retain(|(id, _), _| *id != state.id);
                for t in &near.tiles {
                    let pos = turned(Pos::new(t.x, t.y), state.turns);
                    self.confidence
                        .insert((state.id, pos), t.confidence.unwrap_or(1.0));
                }
            }
        }
        let mut changed = false;
        for (id, layout, lines) in &shown.accepted {
            self.session.accept(*id, layout);
            let name = self.session.player_for(*id).name.clone();
            if self.session.is_set_aside(*id) {
                changed = true;
                continue;
            }
            for line in lines {
                let told = format!("{name}: {line}");
                // An illegal placement is shown at the top until the next change.
                self.alarm =
                    (line.contains("ILLEGAL") || line.contains(", breaks:")).then(|| told.clone());
                self.log.push(told);
            }
            changed = true;
        }
        if changed {
            self.save();
        }
        self.pending_picture = Some(shown.picture);
        self.latest = Some(Latest {
            frame_index: shown.frame_index,
            calm: shown.calm,
            read_ms: shown.read_ms,
            alhambras: shown.alhambras,
        });
        let excess = self.log.len().saturating_sub(LOG_LINES);
        self.log.drain(..excess);
    }

    /// Saves the session; a failure is shown, never fatal.
    fn save(&mut self) {
        self.save_error = self
            .session
            .save(&self.options.session_path)
            .err()
            .map(|e| format!("{e:#}"));
    }

    /// Draws the window.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        if let Some(p) = self.pending_picture.take() {
            self.picture_size = p.size();
            match &mut self.texture {
                Some(t) => t.set(p.image, egui::TextureOptions::LINEAR),
                None => {
                    self.texture = Some(ui.ctx().load_texture(
                        "frame",
                        p.image,
                        egui::TextureOptions::LINEAR,
                    ))
                }
            }
        }
        egui::Panel::top("status").show(ui, |ui| self.status_bar(ui));
        egui::Panel::right("game")
            .default_size(380.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.game_panel(ui));
            });
        egui::CentralPanel::default().show(ui, |ui| self.picture(ui));
    }

    fn status_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.heading("Alhambra table companion");
            ui.separator();
            ui.label(&self.options.source);
            if let Some(l) = &self.latest {
                ui.separator();
                ui.label(format!("frame {} ({:.0} ms)", l.frame_index, l.read_ms));
                ui.separator();
                if l.calm {
                    ui.label("table calm");
                } else {
                    ui.colored_label(Color32::YELLOW, "hand or motion over the table: waiting");
                }
            } else if self.ended.is_none() {
                ui.separator();
                ui.label("starting…");
            }
        });
        if let Some(e) = self
            .ended
            .as_ref()
            .filter(|e| e.starts_with("reading stopped"))
        {
            ui.colored_label(Color32::RED, e);
        }
        if let Some(alarm) = self.alarm.clone() {
            ui.horizontal(|ui| {
                ui.label(
                    egui::RichText::new(alarm)
                        .color(Color32::WHITE)
                        .background_color(Color32::from_rgb(170, 20, 20))
                        .strong(),
                );
                if ui.small_button("OK").clicked() {
                    self.alarm = None;
                }
            });
        }
        if let Some(n) = &self.options.notice {
            ui.colored_label(Color32::LIGHT_BLUE, n);
        }
        if let Some(e) = &self.save_error {
            ui.colored_label(Color32::RED, format!("the game is not saved: {e}"));
        }
    }

    /// The players, the tile being corrected, the scoring and the log.
    fn game_panel(&mut self, ui: &mut egui::Ui) {
        ui.heading("Players");
        if self.session.players.is_empty() {
            ui.label("No Alhambra read yet: each player's fountain must be in view.");
        }
        let names_fixed = self.session.track.is_some();
        let mut renamed = false;
        // What the next round would pay now, per player with a layout.
        let next = self
            .session
            .track
            .as_ref()
            .map_or(Some(ScoringRound::First), ScoreTrack::next_round);
        let standing: HashMap<String, u32> = match next {
            Some(round) => {
                let players = self.session.scored_players();
                let named: Vec<(&str, &Alhambra)> =
                    players.iter().map(|(n, a)| (n.as_str(), a)).collect();
                score_round(round, &named)
                    .players
                    .into_iter()
                    .map(|p| (p.name, p.total))
                    .collect()
            }
            None => HashMap::new(),
        };
        let waits: HashMap<usize, Option<Wait>> = self
            .latest
            .iter()
            .flat_map(|l| &l.alhambras)
            .map(|s| (s.id, s.wait.clone()))
            .collect();
        let mut set_aside: Option<(usize, bool)> = None;
        for k in 0..self.session.players.len() {
            let id = self.session.players[k].alhambra;
            if self.session.players[k].set_aside {
                continue;
            }
            let layout = self.session.layout(id);
            ui.horizontal(|ui| {
                swatch(ui, player_colour(k));
                if names_fixed {
                    ui.strong(&self.session.players[k].name);
                } else {
                    let label = ui.weak(format!("player {}", k + 1));
                    let r = ui
                        .add(
                            egui::TextEdit::singleline(&mut self.session.players[k].name)
                                .desired_width(120.0),
                        )
                        .labelled_by(label.id);
                    renamed |= r.changed();
                }
                if let Some(l) = &layout {
                    ui.label(format!(
                        "{} tiles, wall {}",
                        l.len(),
                        longest_wall(l).length
                    ));
                }
                if let (Some(round), Some(points)) =
                    (next, standing.get(&self.session.players[k].name))
                {
                    ui.weak(format!("round {} now: {points}", round.number()));
                }
                if self.session.may_set_aside(k)
                    && ui
                        .small_button("not a player")
                        .on_hover_text("What the camera reads here is no player's Alhambra")
                        .clicked()
                {
                    set_aside = Some((k, true));
                }
            });
            if let Some(l) = &layout {
                for v in l.check() {
                    ui.colored_label(Color32::from_rgb(255, 90, 90), format!("  {}", v.message));
                }
            }
            if let Some(Some(wait)) = waits.get(&id) {
                ui.weak(format!("  {wait}"));
            }
        }
        let aside: Vec<usize> = (0..self.session.players.len())
            .filter(|&k| self.session.players[k].set_aside)
            .collect();
        if !aside.is_empty() {
            ui.weak("Set aside (not scored):");
            for k in aside {
                ui.horizontal(|ui| {
                    ui.weak(format!("  {}", self.session.players[k].name));
                    if ui.small_button("a player after all").clicked() {
                        set_aside = Some((k, false));
                    }
                });
            }
        }
        if let Some((k, aside)) = set_aside {
            let player = &mut self.session.players[k];
            player.set_aside = aside;
            let told = if aside {
                format!("{} set aside: not a player", player.name)
            } else {
                format!("{} is a player again", player.name)
            };
            if aside && self.selected.is_some_and(|(id, _)| id == player.alhambra) {
                self.selected = None;
            }
            self.log.push(told);
            self.proposal = None;
            renamed = true;
        }
        if renamed {
            self.save();
        }
        ui.separator();
        self.correction_panel(ui);
        self.learning_panel(ui);
        ui.separator();
        self.scoring_panel(ui);
        ui.separator();
        ui.heading("What happened");
        for line in self.log.iter().rev().take(40) {
            ui.label(line);
        }
    }

    /// The tile being corrected: what it is, with a button per building and per wall.
    fn correction_panel(&mut self, ui: &mut egui::Ui) {
        ui.heading("Correct a tile");
        let Some((id, pos)) = self.selected else {
            ui.label("Click a tile on the picture (or an empty cell beside an Alhambra), then what it is.");
            return;
        };
        let name = self.session.player_for(id).name.clone();
        let now = self.session.layout(id).and_then(|l| l.get(pos));
        ui.label(format!("{name}, cell {pos}: {}", describe(now)));
        if now.is_some_and(|p| p.building == Building::Fountain) {
            ui.label("The fountain is where the grid starts: it cannot change.");
            if ui.button("Done").clicked() {
                self.selected = None;
            }
            return;
        }
        let mut said: Option<Option<Piece>> = None;
        ui.horizontal_wrapped(|ui| {
            for b in Building::ALL
                .into_iter()
                .filter(|b| *b != Building::Fountain)
            {
                let on = now.is_some_and(|p| p.building == b);
                let text = egui::RichText::new(b.name()).color(building_colour(b));
                if ui.selectable_label(on, text).clicked() {
                    let walls = now.map_or(Walls::NONE, |p| p.walls);
                    said = Some(Some(Piece::new(b, walls)));
                }
            }
            if ui.selectable_label(now.is_none(), "no tile").clicked() {
                said = Some(None);
            }
        });
        if let Some(piece) = now {
            ui.horizontal(|ui| {
                ui.label("walls:");
                for side in Side::ALL {
                    let on = piece.walls.has(side);
                    if ui.selectable_label(on, side.name()).clicked() {
                        let walls = if on {
                            piece.walls.without(side)
                        } else {
                            piece.walls.with(side)
                        };
                        said = Some(Some(Piece::new(piece.building, walls)));
                    }
                }
            });
            let printed = catalogue()
                .iter()
                .any(|t| t.building == piece.building && t.walls == piece.walls);
            if !printed {
                ui.colored_label(
                    Color32::YELLOW,
                    "no tile of the game has this building with these walls",
                );
            }
        }
        ui.horizontal(|ui| {
            if self.session.is_corrected(id, pos) && ui.button("As the camera read it").clicked() {
                let read = self
                    .session
                    .players
                    .iter()
                    .find(|p| p.alhambra == id)
                    .and_then(|p| p.layout.as_ref()?.to_alhambra().ok()?.get(pos));
                said = Some(read);
            }
            if ui.button("Done").clicked() {
                self.selected = None;
            }
        });
        if let Some(tile) = said {
            self.session.correct(id, pos, tile);
            self.log
                .push(format!("{name}: cell {pos} corrected: {}", describe(tile)));
            self.save();
        }
    }

    /// Learning the tiles' look from the picture, once its tiles are right.
    fn learning_panel(&mut self, ui: &mut egui::Ui) {
        if self.learning.is_some() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("learning the tiles' look from the picture…");
            });
            return;
        }
        let settled = self
            .latest
            .as_ref()
            .is_some_and(|l| l.calm && l.alhambras.iter().all(|s| s.wait.is_none()));
        let ready = settled && self.last_frame.is_some() && !self.session.players.is_empty();
        let button = ui
            .add_enabled(
                ready,
                egui::Button::new("Learn the tiles' look from this picture"),
            )
            .on_hover_text(
                "Once every tile on the picture is right (corrected where misread): the \
                 camera then reads this tile set under this light better.",
            );
        if !ready {
            ui.weak("(when the table is calm and every reading accepted)");
        }
        if button.clicked() {
            self.learn(ui.ctx().clone());
        }
    }

    /// Starts learning from the last frame read, with the layouts as corrected.
    fn learn(&mut self, ctx: egui::Context) {
        let Some(frame) = self.last_frame.clone() else {
            return;
        };
        let layouts: Vec<(usize, Alhambra)> = self
            .session
            .players
            .iter()
            .filter_map(|p| Some((p.alhambra, self.session.layout(p.alhambra)?)))
            .collect();
        let pairs: Vec<(&Cells, &Alhambra)> = layouts
            .iter()
            .filter_map(|(id, l)| Some((self.cells.get(id)?, l)))
            .collect();
        let labels = learning::labels(&pairs);
        match Learning::start(
            frame,
            labels,
            self.options.scan_options.clone(),
            self.options.profile_path.clone(),
            move || ctx.request_repaint(),
        ) {
            Ok(l) => self.learning = Some(l),
            Err(e) => self.log.push(format!("cannot start learning: {e}")),
        }
    }

    /// The next round's button, its result waiting for the players' word, and the track.
    fn scoring_panel(&mut self, ui: &mut egui::Ui) {
        ui.heading("Scoring");
        let track = self.session.track.clone();
        let next = track
            .as_ref()
            .map_or(Some(ScoringRound::First), ScoreTrack::next_round);
        if let Some(proposal) = self.proposal.clone() {
            ui.label(format!(
                "Round {}, from the layouts now accepted:",
                proposal.round.number()
            ));
            breakdown(ui, &proposal);
            // A reading not yet accepted (a tile just laid, a hand over it) is not in it.
            let unsettled: Vec<String> = self
                .latest
                .iter()
                .flat_map(|l| &l.alhambras)
                .filter(|s| s.wait.is_some())
                .filter_map(|s| {
                    let p = self.session.players.iter().find(|p| p.alhambra == s.id)?;
                    Some(p.name.clone())
                })
                .collect();
            if !unsettled.is_empty() {
                ui.colored_label(
                    Color32::YELLOW,
                    format!(
                        "{}: the camera's reading is not settled; wait for a calm view or check it",
                        unsettled.join(", ")
                    ),
                );
            }
            ui.horizontal(|ui| {
                if ui
                    .button(format!(
                        "Add round {} to the track",
                        proposal.round.number()
                    ))
                    .clicked()
                {
                    self.record(&proposal);
                }
                if ui.button("Not yet").clicked() {
                    self.proposal = None;
                }
            });
        } else if let Some(round) = next {
            let players = self.session.scored_players();
            let calm = self.latest.as_ref().is_none_or(|l| l.calm);
            let label = format!("Score round {}", round.number());
            let button = ui.add_enabled(!players.is_empty(), egui::Button::new(label));
            if players.is_empty() {
                ui.weak("No Alhambra accepted yet.");
            } else if !calm {
                ui.weak("A hand is over the table: the layouts shown are the last ones read calm.");
            }
            if button.clicked() {
                let named: Vec<(&str, &Alhambra)> =
                    players.iter().map(|(n, a)| (n.as_str(), a)).collect();
                self.proposal = Some(score_round(round, &named));
                self.track_error = None;
            }
        }
        if let Some(e) = &self.track_error {
            ui.colored_label(Color32::RED, e);
        }
        if let Some(track) = &track {
            score_track(ui, track);
        }
    }

    /// Puts a round's result on the track (started with its players at the first round).
    fn record(&mut self, score: &RoundScore) {
        let mut track = self
            .session
            .track
            .clone()
            .unwrap_or_else(|| ScoreTrack::new(score.players.iter().map(|p| p.name.clone())));
        match track.record(score) {
            Ok(()) => {
                let totals: Vec<String> = score
                    .players
                    .iter()
                    .map(|p| format!("{} {}", p.name, p.total))
                    .collect();
                self.log.push(format!(
                    "round {} scored: {}",
                    score.round.number(),
                    totals.join(", ")
                ));
                self.session.track = Some(track);
                self.proposal = None;
                self.track_error = None;
                self.save();
            }
            Err(e) => self.track_error = Some(format!("not recorded: {e}")),
        }
    }

    /// The picture with every Alhambra drawn over it; a click picks a cell to correct.
    fn picture(&mut self, ui: &mut egui::Ui) {
        let Some(texture) = &self.texture else {
            ui.centered_and_justified(|ui| {
                ui.label(match &self.ended {
                    Some(e) => e.clone(),
                    None => "Waiting for the first frame…".to_owned(),
                });
            });
            return;
        };
        let [w, h] = self.picture_size.map(|v| v.max(1) as f32);
        // As large as the panel allows, in its middle.
        let room = ui.available_rect_before_wrap();
        let scale = (room.width() / w).min(room.height() / h);
        let rect = Rect::from_center_size(room.center(), Vec2::new(w * scale, h * scale));
        let response = ui.allocate_rect(rect, egui::Sense::click());
        let painter = ui.painter_at(rect);
        self.shown_at = Some((rect, scale));
        painter.image(
            texture.id(),
            rect,
            Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0)),
            Color32::WHITE,
        );
        let to_screen = |p: Point| {
            Pos2::new(
                rect.min.x + p[0] as f32 * scale,
                rect.min.y + p[1] as f32 * scale,
            )
        };
        self.draw_overlay(&painter, &to_screen);
        if response.clicked()
            && let Some(at) = response.interact_pointer_pos()
        {
            let p = [
                f64::from((at.x - rect.min.x) / scale),
                f64::from((at.y - rect.min.y) / scale),
            ];
            self.selected = self.cell_at(p);
        }
    }

    /// The Alhambra cell under image point `p`.
    fn cell_at(&self, p: Point) -> Option<(usize, Pos)> {
        let mut ids: Vec<&usize> = self
            .cells
            .keys()
            .filter(|id| !self.session.is_set_aside(**id))
            .collect();
        ids.sort();
        ids.into_iter()
            .find_map(|id| self.cells[id].cell_at(p, 1).map(|pos| (*id, pos)))
    }

    fn draw_overlay(&self, painter: &egui::Painter, to_screen: &dyn Fn(Point) -> Pos2) {
        for (k, player) in self.session.players.iter().enumerate() {
            let id = player.alhambra;
            if player.set_aside {
                continue;
            }
            let (Some(cells), Some(layout)) = (self.cells.get(&id), self.session.layout(id)) else {
                continue;
            };
            let illegal: Vec<Pos> = layout.check().iter().map(|v| v.pos).collect();
            for (pos, piece) in layout.tiles() {
                let Some(q) = cells.quad(pos) else { continue };
                let pts: Vec<Pos2> = q.iter().map(|p| to_screen(*p)).collect();
                let colour = building_colour(piece.building);
                painter.add(egui::Shape::convex_polygon(
                    pts.clone(),
                    colour.gamma_multiply(0.18),
                    Stroke::new(2.0, colour),
                ));
                for side in piece.walls.sides() {
                    if let Some((a, b)) = cells.side(pos, side) {
                        painter.line_segment(
                            [to_screen(a), to_screen(b)],
                            Stroke::new(5.0, Color32::from_rgb(70, 40, 20)),
                        );
                    }
                }
                let centre = pts.iter().fold(Vec2::ZERO, |s, p| s + p.to_vec2()) / 4.0;
                let centre = centre.to_pos2();
                if self.session.is_corrected(id, pos) {
                    painter.circle_filled(centre, 5.0, Color32::YELLOW);
                } else if self.confidence.get(&(id, pos)).is_some_and(|c| *c < UNSURE) {
                    painter.text(
                        centre,
                        egui::Align2::CENTER_CENTER,
                        "?",
                        egui::FontId::proportional(22.0),
                        Color32::YELLOW,
                    );
                }
                if illegal.contains(&pos) {
                    painter.add(egui::Shape::closed_line(
                        pts,
                        Stroke::new(3.0, Color32::RED),
                    ));
                }
            }
            for seg in longest_wall(&layout).segments {
                if let Some((a, b)) = cells.side(seg.pos, seg.side) {
                    painter.line_segment(
                        [to_screen(a), to_screen(b)],
                        Stroke::new(2.5, Color32::from_rgb(255, 170, 0)),
                    );
                }
            }
            if let Some(q) = cells.quad(Pos::ORIGIN) {
                painter.text(
                    to_screen(q[0]),
                    egui::Align2::LEFT_BOTTOM,
                    &player.name,
                    egui::FontId::proportional(16.0),
                    player_colour(k),
                );
            }
        }
        // Tiles read but not yet accepted (a tile just laid, waiting for calm, steady
        // frames): thin and dashed, so the players see it has been noticed.
        for state in self.latest.iter().flat_map(|l| &l.alhambras) {
            let (Some(cells), Some(reading)) = (self.cells.get(&state.id), &state.reading) else {
                continue;
            };
            for (pos, piece) in reading.tiles() {
                if state.accepted.as_ref().and_then(|a| a.get(pos)) == Some(piece) {
                    continue;
                }
                let Some(q) = cells.quad(pos) else { continue };
                let mut pts: Vec<Pos2> = q.iter().map(|p| to_screen(*p)).collect();
                pts.push(pts[0]);
                painter.extend(egui::Shape::dashed_line(
                    &pts,
                    Stroke::new(2.0, building_colour(piece.building)),
                    6.0,
                    4.0,
                ));
            }
        }
        if let Some((id, pos)) = self.selected
            && let Some(q) = self.cells.get(&id).and_then(|c| c.quad(pos))
        {
            painter.add(egui::Shape::closed_line(
                q.iter().map(|p| to_screen(*p)).collect(),
                Stroke::new(3.0, Color32::WHITE),
            ));
        }
    }
}

impl eframe::App for Companion {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        Companion::logic(self, ctx);
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        Companion::ui(self, ui);
    }
}

/// A round's points per player and building.
fn breakdown(ui: &mut egui::Ui, score: &RoundScore) {
    egui::Grid::new("breakdown").striped(true).show(ui, |ui| {
        ui.strong("player");
        for b in Building::ALL
            .into_iter()
            .filter(|b| *b != Building::Fountain)
        {
            ui.colored_label(building_colour(b), &b.name()[..3]);
        }
        ui.strong("wall");
        ui.strong("total");
        ui.end_row();
        for p in &score.players {
            ui.label(&p.name);
            for b in Building::ALL
                .into_iter()
                .filter(|b| *b != Building::Fountain)
            {
                ui.label(p.buildings.get(b).to_string());
            }
            ui.label(p.wall.to_string());
            ui.strong(p.total.to_string());
            ui.end_row();
        }
    });
}

/// The score track: each round's points and the sums, and the winner once it is over.
fn score_track(ui: &mut egui::Ui, track: &ScoreTrack) {
    ui.label("Score track");
    egui::Grid::new("track").striped(true).show(ui, |ui| {
        ui.strong("player");
        for r in 1..=track.rounds_scored() {
            ui.strong(format!("round {r}"));
        }
        ui.strong("total");
        ui.end_row();
        let totals = track.totals();
        for (k, name) in track.players().iter().enumerate() {
            ui.label(name);
            for r in 1..=track.rounds_scored() {
                let points = ScoringRound::from_number(r as u8)
                    .and_then(|round| track.round(round))
                    .and_then(|t| t.get(k).copied())
                    .unwrap_or(0);
                ui.label(points.to_string());
            }
            ui.strong(totals.get(k).copied().unwrap_or(0).to_string());
            ui.end_row();
        }
    });
    match track.outcome() {
        Some(GameOutcome::Winner(name)) => {
            ui.strong(format!("{name} wins"));
        }
        Some(GameOutcome::Draw(names)) => {
            ui.strong(format!("a draw between {}", names.join(" and ")));
        }
        None => {}
    }
}

/// A small square of a player's colour.
fn swatch(ui: &mut egui::Ui, colour: Color32) {
    let (rect, _) = ui.allocate_exact_size(Vec2::splat(12.0), egui::Sense::hover());
    ui.painter().rect_filled(rect, 2.0, colour);
}

/// "garden, walls N E" or "no tile".
fn describe(tile: Option<Piece>) -> String {
    match tile {
        None => "no tile".to_owned(),
        Some(p) if p.walls == Walls::NONE => p.building.name().to_owned(),
        Some(p) => format!("{}, walls {}", p.building.name(), p.walls.letters()),
    }
}

/// A building's colour on the overlay (the colour of its tiles, RULES.md).
fn building_colour(b: Building) -> Color32 {
    match b {
        Building::Fountain => Color32::from_rgb(0, 220, 255),
        Building::Pavilion => Color32::from_rgb(110, 190, 240),
        Building::Seraglio => Color32::from_rgb(230, 50, 50),
        Building::Arcades => Color32::from_rgb(170, 110, 50),
        Building::Chambers => Color32::from_rgb(245, 245, 245),
        Building::Garden => Color32::from_rgb(50, 200, 60),
        Building::Tower => Color32::from_rgb(180, 80, 210),
    }
}

/// A player's colour (their name on the picture and in the list).
fn player_colour(k: usize) -> Color32 {
    const COLOURS: [Color32; 6] = [
        Color32::from_rgb(255, 200, 0),
        Color32::from_rgb(0, 200, 255),
        Color32::from_rgb(255, 100, 180),
        Color32::from_rgb(120, 255, 120),
        Color32::from_rgb(255, 140, 60),
        Color32::from_rgb(190, 160, 255),
    ];
    COLOURS[k % COLOURS.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use alhambra_engine::layout::LayoutFile;
    use alhambra_vision::appearance::Profile;
    use alhambra_vision::geometry::UNIT_CELL;
    use alhambra_vision::{ScanResult, ScannedAlhambra, ScannedTile};
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;
    use opencv::core::{CV_8UC3, Scalar};

    /// A fountain with a garden east of it, walled north, read on 40-pixel cells of a
    /// 320 x 240 picture; the fountain at (100, 100).
    fn frame(index: u64) -> Shown {
        let layout = Alhambra::from_pieces([
            (Pos::ORIGIN, Piece::new(Building::Fountain, Walls::NONE)),
            (
                Pos::new(1, 0),
                Piece::new(Building::Garden, Walls::of(&[Side::North])),
            ),
        ])
        .unwrap_or_default();
        let tiles = LayoutFile::from_alhambra(&layout)
            .tiles
            .into_iter()
            .map(|t| {
                let c = [100.0 + 40.0 * t.x as f32, 100.0 + 40.0 * t.y as f32];
                ScannedTile {
                    x: t.x,
                    y: t.y,
                    building: t.building,
                    walls: t.walls,
                    confidence: Some(0.99),
                    corners_px: Some(
                        UNIT_CELL.map(|u| [c[0] + 40.0 * u[0] as f32, c[1] + 40.0 * u[1] as f32]),
                    ),
                    occluded: false,
                }
            })
            .collect();
        let image = Mat::new_rows_cols_with_default(240, 320, CV_8UC3, Scalar::all(90.0))
            .unwrap_or_default();
        let state = AlhambraState {
            id: 0,
            fountain_px: [100.0, 100.0],
            tile_px: 40.0,
            seen: true,
            accepted: Some(layout.clone()),
            violations: Vec::new(),
            accepted_at: Some(0),
            last_changes: Vec::new(),
            reading: Some(layout.clone()),
            turns: 0,
            wait: None,
        };
        Shown {
            frame_index: index,
            picture: Picture::of(&image).unwrap_or_else(|e| panic!("{e}")),
            calm: true,
            read: Some(ScanResult {
                image: "table".into(),
                alhambras: vec![ScannedAlhambra {
                    fountain_px: [100.0, 100.0],
                    tiles,
                }],
                meta: Default::default(),
            }),
            alhambras: vec![state],
            accepted: if index == 0 {
                vec![(0, layout, vec!["2 tiles, legal".into()])]
            } else {
                Vec::new()
            },
            read_ms: 5.0,
            frame: Some(image),
        }
    }

    fn companion(session_path: PathBuf) -> Companion {
        let options = Options {
            source: "test".into(),
            notice: None,
            profile_path: session_path.with_file_name("session.profile.json"),
            session_path,
            close_when_done: false,
            scan_options: ScanOptions::default(),
        };
        Companion::new(options, Session::default(), None)
    }

    fn temp_session(name: &str) -> PathBuf {
        std::env::temp_dir()
            .join(format!("alhambra-window-{}-{name}", std::process::id()))
            .join("session.json")
    }

    /// A window (session in a scratch folder named `name`) showing [`frame`] 0.
    fn started(name: &str) -> (PathBuf, Harness<'static, Companion>) {
        let path = temp_session(name);
        let mut c = companion(path.clone());
        c.show_frame(frame(0));
        let mut harness = Harness::new_ui_state(|ui, c: &mut Companion| c.ui(ui), c);
        harness.run();
        (path, harness)
    }

    /// The tile on `pos` of Alhambra 0 as the players now say it is.
    fn said_at(harness: &Harness<'_, Companion>, pos: Pos) -> Option<Piece> {
        harness.state().session().layout(0).and_then(|l| l.get(pos))
    }

    #[test]
    fn a_misread_tile_is_put_right_with_two_clicks_and_saved() {
        let (path, mut harness) = started("correct");
        harness.get_by_label("Player 1: 2 tiles, legal");
        // First click: the garden on the picture (its cell's centre, 140, 100).
        let (rect, scale) = harness.state().shown_at.unwrap_or((Rect::NOTHING, 1.0));
        let at = rect.min + Vec2::new(140.0, 100.0) * scale;
        for pressed in [true, false] {
            harness.event(egui::Event::PointerButton {
                pos: at,
                button: egui::PointerButton::Primary,
                pressed,
                modifiers: egui::Modifiers::NONE,
            });
            harness.step();
        }
        harness.run();
        assert_eq!(harness.state().selected, Some((0, Pos::new(1, 0))));
        // Second click: what it is.
        harness.get_by_label("tower").click();
        harness.run();
        assert_eq!(
            said_at(&harness, Pos::new(1, 0)),
            Some(Piece::new(Building::Tower, Walls::of(&[Side::North])))
        );
        // Saved at once, and it holds when the camera reads the table as before.
        let saved = Session::load(&path).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(saved.corrections.len(), 1);
        harness.state_mut().show_frame(frame(1));
        harness.run();
        assert!(harness.state().session().is_corrected(0, Pos::new(1, 0)));
        // A wall taken off by its button.
        harness.get_by_label("north").click();
        harness.run();
        assert_eq!(
            said_at(&harness, Pos::new(1, 0)),
            Some(Piece::new(Building::Tower, Walls::NONE))
        );
        let _ = std::fs::remove_dir_all(path.parent().unwrap_or(&path));
    }

    #[test]
    fn a_scoring_round_is_shown_then_put_on_the_track_when_confirmed() {
        let (path, mut harness) = started("score");
        harness.get_by_label("Score round 1").click();
        harness.run();
        // One player with one garden: first in gardens (5 in round 1), and its north wall
        // a wall of one segment.
        assert!(
            harness.state().session().track.is_none(),
            "not before the players' word"
        );
        harness.get_by_label("Add round 1 to the track").click();
        harness.run();
        let track = harness.state().session().track.clone().unwrap_or_default();
        assert_eq!(track.round(ScoringRound::First), Some(&[6u32][..]));
        harness.get_by_label("Score round 2");
        let saved = Session::load(&path).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(saved.track, Some(track));
        let _ = std::fs::remove_dir_all(path.parent().unwrap_or(&path));
    }

    #[test]
    fn what_is_no_players_alhambra_is_set_aside_with_one_click_and_not_scored() {
        let (path, mut harness) = started("aside");
        harness.get_by_label("Score round 1").click();
        harness.run();
        harness.get_by_label("Add round 1 to the track").click();
        harness.run();
        // Glare on the bare table read as a lone fountain, after round 1: a second
        // "player" the track has no place for.
        let lone =
            Alhambra::from_pieces([(Pos::ORIGIN, Piece::new(Building::Fountain, Walls::NONE))])
                .unwrap_or_default();
        let mut shown = frame(1);
        shown.accepted = vec![(1, lone, vec!["1 tiles, legal".into()])];
        harness.state_mut().show_frame(shown);
        harness.run();
        assert_eq!(harness.state().session().scored_players().len(), 2);
        // Only the one not on the track can be set aside: one click.
        assert_eq!(harness.query_all_by_label("not a player").count(), 1);
        harness.get_by_label("not a player").click();
        harness.run();
        let scored: Vec<String> = harness
            .state()
            .session()
            .scored_players()
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        assert_eq!(scored, vec!["Player 1".to_owned()]);
        let saved = Session::load(&path).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(saved.is_set_aside(1) && !saved.is_set_aside(0));
        // Round 2 goes on the track with the players that are.
        harness.get_by_label("Score round 2").click();
        harness.run();
        harness.get_by_label("Add round 2 to the track").click();
        harness.run();
        let track = harness.state().session().track.clone().unwrap_or_default();
        assert!(track.round(ScoringRound::Second).is_some(), "{track:?}");
        // And undone with one click.
        harness.get_by_label("a player after all").click();
        harness.run();
        assert!(!harness.state().session().is_set_aside(1));
        let _ = std::fs::remove_dir_all(path.parent().unwrap_or(&path));
    }

    #[test]
    fn the_tiles_look_is_learned_from_the_picture_as_it_stands() {
        let scene = alhambra_vision::source::SyntheticScene::tile_added(2)
            .unwrap_or_else(|e| panic!("{e}"));
        let labels = scene.labels_after().clone();
        let image = scene.clean_after().clone();
        // Every Alhambra read as labelled and accepted so.
        let states: Vec<AlhambraState> = labels
            .alhambras
            .iter()
            .enumerate()
            .map(|(id, a)| {
                let layout = a.to_alhambra().unwrap_or_default();
                AlhambraState {
                    id,
                    fountain_px: a.fountain_px.map(f64::from),
                    tile_px: 50.0,
                    seen: true,
                    accepted: Some(layout.clone()),
                    violations: Vec::new(),
                    accepted_at: Some(0),
                    last_changes: Vec::new(),
                    reading: Some(layout),
                    turns: 0,
                    wait: None,
                }
            })
            .collect();
        let accepted = states
            .iter()
            .filter_map(|s| Some((s.id, s.accepted.clone()?, Vec::new())))
            .collect();
        let path = temp_session("learn");
        let mut c = companion(path.clone());
        c.show_frame(Shown {
            frame_index: 0,
            picture: Picture::of(&image).unwrap_or_else(|e| panic!("{e}")),
            calm: true,
            read: Some(labels),
            alhambras: states,
            accepted,
            read_ms: 900.0,
            frame: Some(image),
        });
        let mut harness = Harness::new_ui_state(|ui, c: &mut Companion| c.ui(ui), c);
        harness.run();
        harness
            .get_by_label("Learn the tiles' look from this picture")
            .click();
        // The spinner keeps repainting: one step at a time.
        harness.step();
        harness.step();
        assert!(harness.state().learning.is_some());
        // A few seconds on a thread of its own.
        let ctx = harness.ctx.clone();
        for _ in 0..600 {
            harness.state_mut().logic(&ctx);
            if harness.state().learning.is_none() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let said = harness.state().log.join("\n");
        assert!(said.contains("learned the tiles' look from"), "{said}");
        let profile = harness.state().options.profile_path.clone();
        assert!(Profile::load(&profile).is_ok(), "{said}");
        let _ = std::fs::remove_dir_all(path.parent().unwrap_or(&path));
    }

    #[test]
    fn an_illegal_placement_is_shown_at_the_top_until_the_next_change() {
        let (path, mut harness) = started("alarm");
        let mut illegal = frame(1);
        let layout = illegal.alhambras[0].accepted.clone().unwrap_or_default();
        illegal.accepted = vec![(
            0,
            layout.clone(),
            vec!["tower added at (2,0): ILLEGAL: it faces a wall".into()],
        )];
        harness.state_mut().show_frame(illegal);
        harness.run();
        // At the top, and in the log.
        let said = "Player 1: tower added at (2,0): ILLEGAL: it faces a wall";
        assert_eq!(harness.get_all_by_label(said).count(), 2);
        let mut legal = frame(2);
        legal.accepted = vec![(0, layout, vec!["tower taken away from (2,0): legal".into()])];
        harness.state_mut().show_frame(legal);
        harness.run();
        assert!(harness.state().alarm.is_none());
        assert_eq!(harness.get_all_by_label(said).count(), 1);
        let _ = std::fs::remove_dir_all(path.parent().unwrap_or(&path));
    }
}
