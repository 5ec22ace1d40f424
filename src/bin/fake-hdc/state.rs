//! Where each fake device stands between invocations, kept in files: its place in its
//! transcript, what is installed, whether it vanished, a phone tool's place.

use std::path::PathBuf;

/// Where one device stands in its transcript, kept in files between invocations.
pub(super) struct State {
    pub(super) dir: PathBuf,
    serial: String,
}

impl State {
    pub(crate) fn of(serial: &str) -> State {
        let dir = std::env::var_os("DWPIPE_FAKE_HDC_STATE").map_or_else(
            || std::env::temp_dir().join("dwpipe-fake-hdc"),
            PathBuf::from,
        );
        let _ = std::fs::create_dir_all(&dir);
        State {
            dir,
            serial: serial.replace([':', '/'], "_"),
        }
    }

    pub(crate) fn file(&self, what: &str) -> PathBuf {
        self.dir.join(format!("{}.{what}", self.serial))
    }

    /// The next exchange of the device's transcript (`key`: `next`), or of one build's
    /// capture (`<hap>.next`).
    pub(crate) fn next(&self, key: &str) -> usize {
        std::fs::read_to_string(self.file(key))
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0)
    }

    pub(crate) fn advance(&self, key: &str, to: usize) {
        let _ = std::fs::write(self.file(key), to.to_string());
    }

    /// Held while a phone tool finds and takes its place: a line's commands run side by side.
    pub(crate) fn lock(&self) -> std::io::Result<std::fs::File> {
        let file = std::fs::File::create(self.file("lock"))?;
        file.lock()?;
        Ok(file)
    }

    /// Where a phone tool's capture (`key`) stands: its current exchange and which of that
    /// line's commands were answered.
    pub(crate) fn place(&self, key: &str) -> Place {
        let text = std::fs::read_to_string(self.file(&format!("{key}.place"))).unwrap_or_default();
        let mut numbers = text.split_whitespace().filter_map(|n| n.parse().ok());
        Place {
            current: numbers.next(),
            served: numbers.collect(),
        }
    }

    pub(crate) fn keep_place(&self, key: &str, place: &Place) {
        let text: Vec<String> = place
            .current
            .iter()
            .chain(&place.served)
            .map(ToString::to_string)
            .collect();
        let text = text.join(" ");
        let _ = std::fs::write(self.file(&format!("{key}.place")), text);
    }

    pub(crate) fn vanished(&self) -> bool {
        self.file("vanished").exists()
    }

    pub(crate) fn vanish(&self) {
        let _ = std::fs::write(self.file("vanished"), "");
    }
}

/// Where a phone tool's capture stands (see `State::place`).
pub(super) struct Place {
    pub(super) current: Option<usize>,
    pub(super) served: Vec<usize>,
}
