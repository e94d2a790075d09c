//! The game as the companion keeps it between runs: the players' names, each Alhambra's
//! last accepted layout, the players' corrections of misread tiles, and the score track.
//! Saved after every change (to a temporary file, then renamed), so a crash or a closed
//! lid loses nothing; loaded again at the next start.

use alhambra_calibration::camera::write_atomically;
use alhambra_engine::layout::LayoutFile;
use alhambra_engine::track::ScoreTrack;
use alhambra_engine::{Alhambra, Building, Piece, Pos, Walls};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The session file's format version.
pub const SESSION_VERSION: u32 = 1;

/// One player: the Alhambra the tracker follows for them (its id, in order of first
/// sight) and its last accepted layout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerRecord {
    /// The tracker's id of the player's Alhambra.
    pub alhambra: usize,
    /// The name shown and scored.
    pub name: String,
    /// The last layout the tracker accepted (before corrections).
    #[serde(default)]
    pub layout: Option<LayoutFile>,
    /// Set aside by the players: what the camera follows there is no player's Alhambra
    /// (glare on bare table read as a lone fountain, a stray tile). Not scored, not drawn.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub set_aside: bool,
}

/// A tile as the players say it is: a building and its walls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileSaid {
    /// The building.
    pub building: Building,
    /// The walled sides.
    #[serde(default)]
    pub walls: Walls,
}

impl TileSaid {
    fn of(piece: Piece) -> TileSaid {
        TileSaid {
            building: piece.building,
            walls: piece.walls,
        }
    }

    fn piece(self) -> Piece {
        Piece::new(self.building, self.walls)
    }
}

/// A player's correction of one cell: what the tracker had read there when it was made,
/// and what lies there (`None`: no tile). It holds while the tracker reads the cell as it
/// did then; once the tracker reads something else there (the tile was exchanged), the
/// camera's word is new and the correction is dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Correction {
    /// The tracker's id of the Alhambra.
    pub alhambra: usize,
    /// The cell.
    pub x: i32,
    /// The cell.
    pub y: i32,
    /// What the tracker had read there.
    pub read: Option<TileSaid>,
    /// What lies there.
    pub tile: Option<TileSaid>,
}

impl Correction {
    /// The cell corrected.
    pub fn pos(&self) -> Pos {
        Pos::new(self.x, self.y)
    }
}

/// Everything the companion saves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// Always [`SESSION_VERSION`].
    pub version: u32,
    /// The players, in order of their Alhambra's first sight.
    pub players: Vec<PlayerRecord>,
    /// The corrections in force.
    #[serde(default)]
    pub corrections: Vec<Correction>,
    /// The rounds scored so far (its players are fixed by the first round scored).
    #[serde(default)]
    pub track: Option<ScoreTrack>,
}

impl Default for Session {
    fn default() -> Session {
        Session {
            version: SESSION_VERSION,
            players: Vec::new(),
            corrections: Vec::new(),
            track: None,
        }
    }
}

impl Session {
    /// The session saved at `path`; a new one when there is no file there. A file that
    /// cannot be read is an error naming it (never overwritten unseen).
    pub fn load(path: &Path) -> Result<Session> {
        let shown = path.display();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Session::default()),
            Err(e) => return Err(e).with_context(|| format!("{shown}: cannot read the session")),
        };
        let session: Session = serde_json::from_str(&text).with_context(|| {
            format!("{shown}: not a companion session file (--new-game sets it aside)")
        })?;
        if session.version != SESSION_VERSION {
            anyhow::bail!(
                "{shown}: session version {}, this build reads version {SESSION_VERSION}",
                session.version
            );
        }
        Ok(session)
    }

    /// Writes the session to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("{}: cannot create the folder", dir.display()))?;
        }
        let text = serde_json::to_string_pretty(self)? + "\n";
        write_atomically(path, text.as_bytes()).map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// The player following Alhambra `id`, added (named "Player N") when new.
    pub fn player_for(&mut self, id: usize) -> &mut PlayerRecord {
        let k = match self.players.iter().position(|p| p.alhambra == id) {
            Some(k) => k,
            None => {
                let name = format!("Player {}", self.players.len() + 1);
                self.players.push(PlayerRecord {
                    alhambra: id,
                    name,
                    layout: None,
                    set_aside: false,
                });
                self.players.len() - 1
            }
        };
        &mut self.players[k]
    }

    /// Takes a layout the tracker accepted for Alhambra `id`: corrections of cells it now
    /// reads otherwise than when they were made are dropped.
    pub fn accept(&mut self, id: usize, layout: &Alhambra) {
        self.corrections
            .retain(|c| c.alhambra != id || layout.get(c.pos()).map(TileSaid::of) == c.read);
        self.player_for(id).layout = Some(LayoutFile::from_alhambra(layout));
    }

    /// Says what lies on cell `pos` of Alhambra `id` (`None`: no tile), against what the
    /// tracker read there.
    pub fn correct(&mut self, id: usize, pos: Pos, tile: Option<Piece>) {
        let read = self
            .read_layout(id)
            .and_then(|l| l.get(pos))
            .map(TileSaid::of);
        self.corrections
            .retain(|c| !(c.alhambra == id && c.pos() == pos));
        let tile = tile.map(TileSaid::of);
        if tile != read {
            self.corrections.push(Correction {
                alhambra: id,
                x: pos.x,
                y: pos.y,
                read,
                tile,
            });
        }
    }

    /// The layout last accepted for Alhambra `id`, as read.
    fn read_layout(&self, id: usize) -> Option<Alhambra> {
        self.players
            .iter()
            .find(|p| p.alhambra == id)?
            .layout
            .as_ref()?
            .to_alhambra()
            .ok()
    }

    /// Alhambra `id` as the players say it is: the accepted layout with their corrections.
    pub fn layout(&self, id: usize) -> Option<Alhambra> {
        let read = self.read_layout(id)?;
        let mine: Vec<&Correction> = self
            .corrections
            .iter()
            .filter(|c| c.alhambra == id)
            .collect();
        let kept = read
            .tiles()
            .filter(|(p, _)| !mine.iter().any(|c| c.pos() == *p))
            .collect::<Vec<_>>();
        let said = mine
            .iter()
            .filter_map(|c| c.tile.map(|t| (c.pos(), t.piece())));
        // A correction cannot make a cell hold two tiles; a walled fountain said by hand
        // falls back to the reading.
        Alhambra::from_pieces(kept.into_iter().chain(said))
            .or(Ok::<_, ()>(read))
            .ok()
    }

    /// Whether cell `pos` of Alhambra `id` was corrected.
    pub fn is_corrected(&self, id: usize, pos: Pos) -> bool {
        self.corrections
            .iter()
            .any(|c| c.alhambra == id && c.pos() == pos)
    }

    /// The names of the players who have a layout, with their layouts as said, in order
    /// (those set aside left out).
    pub fn scored_players(&self) -> Vec<(String, Alhambra)> {
        self.players
            .iter()
            .filter(|p| !p.set_aside)
            .filter_map(|p| Some((p.name.clone(), self.layout(p.alhambra)?)))
            .collect()
    }

    /// Whether Alhambra `id` was set aside (see [`PlayerRecord::set_aside`]).
    pub fn is_set_aside(&self, id: usize) -> bool {
        self.players.iter().any(|p| p.alhambra == id && p.set_aside)
    }

    /// Whether the player at `k` may be set aside: not while the score track holds their
    /// name (its rounds are the same players throughout).
    pub fn may_set_aside(&self, k: usize) -> bool {
        self.players.get(k).is_some_and(|p| {
            self.track
                .as_ref()
                .is_none_or(|t| !t.players().contains(&p.name))
        })
    }
}

/// Where the session is kept when no `--session` is given: the user's data folder.
pub fn default_path() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("alhambra").join("session.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(pieces: &[(i32, i32, Building, &str)]) -> Alhambra {
        Alhambra::from_pieces(pieces.iter().map(|&(x, y, b, w)| {
            (
                Pos::new(x, y),
                Piece::new(b, Walls::from_letters(w).unwrap_or(Walls::NONE)),
            )
        }))
        .unwrap_or_default()
    }

    #[test]
    fn a_correction_holds_until_the_camera_reads_the_cell_otherwise() {
        let mut s = Session::default();
        let read = layout(&[
            (0, 0, Building::Fountain, ""),
            (1, 0, Building::Garden, "N"),
        ]);
        s.accept(0, &read);
        assert_eq!(s.players[0].name, "Player 1");
        // The garden is a tower; a tile missed west of the fountain is a pavilion.
        s.correct(
            0,
            Pos::new(1, 0),
            Some(Piece::new(Building::Tower, Walls::NONE)),
        );
        s.correct(
            0,
            Pos::new(-1, 0),
            Some(Piece::new(Building::Pavilion, Walls::NONE)),
        );
        let said = s.layout(0).unwrap_or_default();
        assert_eq!(said.len(), 3);
        assert_eq!(
            said.get(Pos::new(1, 0)).map(|p| p.building),
            Some(Building::Tower)
        );
        // Accepted again as before: both corrections hold.
        s.accept(0, &read);
        assert_eq!(s.corrections.len(), 2);
        // The garden is exchanged for a chambers on the table: that correction goes.
        let exchanged = layout(&[
            (0, 0, Building::Fountain, ""),
            (1, 0, Building::Chambers, "N"),
        ]);
        s.accept(0, &exchanged);
        assert_eq!(s.corrections.len(), 1);
        assert_eq!(
            s.layout(0)
                .and_then(|l| l.get(Pos::new(1, 0)))
                .map(|p| p.building),
            Some(Building::Chambers)
        );
        // Saying what was read takes the correction back.
        s.correct(0, Pos::new(-1, 0), None);
        assert!(s.corrections.is_empty());
    }

    #[test]
    fn a_session_survives_a_save_and_a_load_and_bad_files_are_named() {
        let dir = std::env::temp_dir().join(format!("alhambra-session-{}", std::process::id()));
        let path = dir.join("s.json");
        let mut s = Session::default();
        s.accept(3, &layout(&[(0, 0, Building::Fountain, "")]));
        s.correct(
            3,
            Pos::new(0, 1),
            Some(Piece::new(Building::Garden, Walls::NONE)),
        );
        s.save(&path).unwrap_or_else(|e| panic!("{e:#}"));
        let back = Session::load(&path).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(back, s);
        std::fs::write(&path, "{not json").unwrap_or_default();
        let err = format!(
            "{:#}",
            Session::load(&path)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        );
        assert!(err.contains("s.json") && err.contains("session"), "{err}");
        assert_eq!(
            Session::load(&dir.join("none.json")).ok(),
            Some(Session::default())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
