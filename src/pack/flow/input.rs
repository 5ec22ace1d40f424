//! What a flow's step does to the screen: a tap, a gesture, a key, text.

use super::super::selector::Selector;
use crate::words::words;

/// The three taps of `uitest uiInput`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tap {
    /// `click`.
    Click,
    /// `doubleClick`.
    DoubleClick,
    /// `longClick`.
    LongClick,
}

impl Tap {
    /// The `uitest uiInput` verb.
    pub(crate) fn verb(self) -> &'static str {
        match self {
            Tap::Click => "click",
            Tap::DoubleClick => "doubleClick",
            Tap::LongClick => "longClick",
        }
    }
}

/// A moving gesture of `uitest uiInput`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gesture {
    /// `swipe` (velocity 600 px/s, uitest's default).
    Swipe,
    /// `fling`.
    Fling,
}

/// Where a swipe goes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SwipePath {
    /// From the centre of `on`'s visible rect, `distance` vp (default half the rect) in `direction`.
    On {
        on: Selector,
        direction: Direction,
        distance_vp: Option<f64>,
    },
    /// From one node's centre to another's.
    Between { from: Selector, to: Selector },
}

/// A key of `uitest uiInput keyEvent`: its own three names, or a key code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// `Back`.
    Back,
    /// `Home`.
    Home,
    /// `Power`.
    Power,
    /// A multimodal-input key code (`KEYCODE_ENTER` = 2054).
    Code(u32),
}

/// Key names a pack may press besides `back`, `home` and `power`, with their OpenHarmony key
/// codes (`oh_key_code.h`).
pub(super) const KEY_CODES: &[(&str, u32)] = &[
    ("enter", 2054),
    ("delete", 2055),
    ("tab", 2049),
    ("space", 2050),
    ("escape", 2070),
    ("menu", 2067),
    ("volume-up", 16),
    ("volume-down", 17),
    ("dpad-up", 2012),
    ("dpad-down", 2013),
    ("dpad-left", 2014),
    ("dpad-right", 2015),
];

impl Key {
    pub(crate) fn parse(text: &str) -> Option<Key> {
        match text {
            "back" => Some(Key::Back),
            "home" => Some(Key::Home),
            "power" => Some(Key::Power),
            _ => KEY_CODES
                .iter()
                .find(|(name, _)| *name == text)
                .map(|(_, code)| Key::Code(*code)),
        }
    }

    /// The `keyEvent` argument.
    pub(crate) fn argument(self) -> String {
        match self {
            Key::Back => "Back".to_owned(),
            Key::Home => "Home".to_owned(),
            Key::Power => "Power".to_owned(),
            Key::Code(code) => code.to_string(),
        }
    }
}

words! {
    /// How a flow starts the app.
    pub(crate) enum Launch {
        /// Force-stop, then start.
        Cold = "cold",
        /// Start (brings a running app to the front).
        Warm = "warm",
    }
}

words! {
    /// The way a finger moves across the screen.
    pub(crate) enum Direction {
        /// Towards the top (the content moves up: scrolls down a list).
        Up = "up",
        /// Towards the bottom.
        Down = "down",
        /// Towards the left.
        Left = "left",
        /// Towards the right.
        Right = "right",
    }
}
