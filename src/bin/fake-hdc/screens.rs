//! A fake app that answers taps by changing screens, for flows driven through the real hdc
//! process path: a folder with `device.yaml` and `screens.yaml` instead of a transcript.
//!
//! ```yaml
//! format-version: 1
//! bundle: com.example.notes
//! start: list                      # the screen `aa start` shows
//! trace: files/step.ftrace         # what every `hitrace --trace_finish` writes
//! screens:
//!   list:
//!     layout: files/list.json      # what `uitest dumpLayout` writes on this screen
//!     screenshot: files/list.png   # what `uitest screenCap` writes
//!     taps:
//!       - { on: "id:note_item_1", to: editor, after: 2 }  # shown from the 2nd dump after the tap
//!     swipes:
//!       - { on: "id:note_list", to: list-scrolled }       # a swipe that starts inside the node
//!   editor:
//!     layout: files/editor.json
//!     screenshot: files/editor.png
//!     back: list                   # where `keyEvent Back` goes
//! ```
//!
//! A tap hits a node when its point lies in the node's visible rect on the current screen's
//! layout, read by dwpipe's own layout rules. Which screen shows, and which file each device
//! path holds, is kept in the state folder between invocations. A readiness poll finds the
//! app's process and its window drawn while a screen shows. Anything else the app is asked is
//! refused with a `[Fail]` line, so a flow that drifts from the fake fails loudly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use dwpipe::device::{DeviceInfo, SENTINEL};
use dwpipe::probe::layout::Layout;

/// The window manager's table down to the app's row: the status bar, window 9.
const WINDOWS_HEADER: &str = "----------------------------------WindowManagerService----------------------------------\n-------------------------------------ScreenGroup 0-------------------------------------\nWindowName           DisplayId Pid     WinId Type Mode Flag ZOrd Orientation [ x    y    w    h    ]\nSystemUi_StatusBar   0         1572    9     2108 102  0    2    0           [ 0    0    1260 123  ]\n";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ScreensDoc {
    format_version: u32,
    /// The app's bundle, whose window a tap is looked for in.
    bundle: String,
    start: String,
    trace: String,
    screens: BTreeMap<String, ScreenDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ScreenDoc {
    layout: String,
    screenshot: String,
    #[serde(default)]
    taps: Vec<TapDoc>,
    #[serde(default)]
    swipes: Vec<TapDoc>,
    #[serde(default)]
    back: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct TapDoc {
    on: String,
    to: String,
    #[serde(default)]
    after: u32,
}

/// A screens device.
pub(crate) struct Screens {
    root: PathBuf,
    pub(crate) info: DeviceInfo,
    doc: ScreensDoc,
}

/// Where the app stands: its screen (none: stopped), a screen change still to come, and the
/// file each device path holds.
#[derive(Debug, Default)]
struct Now {
    screen: Option<String>,
    pending: Option<(String, u32)>,
    files: BTreeMap<String, String>,
    /// The trace level threshold a 6.0+ phone keeps (`persist.hitrace.level.threshold`), as
    /// its letter; Info (`hitrace.para`'s default) until set.
    level: Option<char>,
}

/// hitrace's levels from 6.0, lowest first: what `--trace_level` takes and `--get_level` says.
const LEVELS: [(char, &str); 4] = [
    ('D', "Debug"),
    ('I', "Info"),
    ('C', "Critical"),
    ('M', "Commercial"),
];

impl Screens {
    /// Loads `root` if it is a screens folder.
    pub(crate) fn load(root: &Path) -> Option<Result<Screens, String>> {
        let loaded = super::fake_device::<ScreensDoc>(root, "screens.yaml")?;
        Some(loaded.and_then(|(info, doc)| {
            if doc.format_version != 1 || !doc.screens.contains_key(&doc.start) {
                return Err(
                    "screens.yaml: format-version 1 and a `start` screen it lists".to_owned(),
                );
            }
            Ok(Screens {
                root: root.to_owned(),
                info,
                doc,
            })
        }))
    }

    /// Answers one shell command body (without dwpipe's status echo) as hdc prints it: the
    /// reply and its status line, or a `[Fail]` line for a command the app does not know. A
    /// body may be several commands as dwpipe joins them: `a; b`, `a & b` (side by side:
    /// answered in order), `echo …$?`, `wait $!` (the status of the one sent to the side).
    pub(crate) fn shell(&self, state: &Path, body: &str) -> String {
        let mut now = self.read(state);
        let mut out = String::new();
        let (mut status, mut aside) = (0, 0);
        for part in body.split(';').map(str::trim) {
            if let Some(text) = part.strip_prefix("echo ") {
                out.push_str(&text.replace("$?", &status.to_string()));
                out.push('\n');
                status = 0;
                continue;
            }
            if part == "wait $!" {
                status = aside;
                continue;
            }
            let (first, last) = match part.split_once(" & ") {
                Some((first, last)) => (Some(first), last),
                None => (None, part),
            };
            for (command, to_the_side) in
                first.map(|f| (f, true)).into_iter().chain([(last, false)])
            {
                let Some((reply, said)) = self.one(&mut now, command, state) else {
                    return format!(
                        "[Fail]fake-hdc: the screens app does not know `{command}`\r\n"
                    );
                };
                out.push_str(&reply);
                if to_the_side {
                    aside = said;
                } else {
                    status = said;
                }
            }
        }
        self.write(state, &now);
        format!("{out}{SENTINEL}{status}\n")
    }

    /// Answers one command: its reply and status, or `None` when the app does not know it.
    fn one(&self, now: &mut Now, body: &str, state: &Path) -> Option<(String, u8)> {
        let words: Vec<&str> = body.split_whitespace().collect();
        if let Some(answer) = self.process_and_window(now, &words) {
            return Some(answer);
        }
        if let Some(answer) = self.trace_level(now, &words) {
            return Some(answer);
        }
        let reply = match words.as_slice() {
            ["aa", "force-stop", _] => {
                now.screen = None;
                now.pending = None;
                Some("force stop process successfully.\n".to_owned())
            }
            ["aa", "start", ..] => {
                now.screen.get_or_insert_with(|| self.doc.start.clone());
                Some("start ability successfully.\n".to_owned())
            }
            [
                "uitest",
                tool @ ("dumpLayout" | "screenCap"),
                "-p",
                _,
                named @ ..,
            ] if !named.is_empty() && !self.names_window(tool, named) => {
                return Some(self.unnamed(tool, named));
            }
            ["uitest", "dumpLayout", "-p", remote, ..] => self.on_screen(now, |s| {
                (remote.to_string(), s.layout.clone(), "DumpLayout saved to:")
            }),
            ["uitest", "screenCap", "-p", remote, ..] => self.on_screen(now, |s| {
                (
                    remote.to_string(),
                    s.screenshot.clone(),
                    "ScreenCap saved to ",
                )
            }),
            ["rm", "-f", remotes @ ..] => {
                for remote in remotes {
                    now.files.remove(*remote);
                }
                Some(String::new())
            }
            // Booted half a second before the first call (the reading `cat` started 50 ticks
            // after boot): every trace it writes is later.
            ["cat", "/proc/self/stat"] => Some(
                "7001 (cat) R 1 1 0 0 -1 4194560 90 0 0 0 0 0 0 0 20 0 1 0 50 9000000 200 0 0 0\n"
                    .to_owned(),
            ),
            ["hitrace", .., "--trace_begin"] => Some(String::new()),
            ["hitrace", "--trace_finish", "-o", remote] => {
                let written = self.below_threshold_dropped(now, state);
                now.files.insert((*remote).to_owned(), written);
                Some(String::new())
            }
            [
                "uitest",
                "uiInput",
                "click" | "doubleClick" | "longClick",
                x,
                y,
            ] => self.tap(now, x, y),
            ["uitest", "uiInput", "inputText", x, y, ..] => self.tap(now, x, y),
            ["uitest", "uiInput", "swipe" | "fling", x, y, ..] => self.swipe(now, x, y),
            ["uitest", "uiInput", "keyEvent", "Back"] => {
                let back = now
                    .screen
                    .as_ref()
                    .and_then(|s| self.doc.screens.get(s))
                    .and_then(|s| s.back.clone());
                if back.is_some() {
                    now.screen = back;
                }
                Some(String::new())
            }
            _ => None,
        };
        reply.map(|reply| (reply, 0))
    }

    /// Whether `tool`'s options after its path are ones this phone's uitest takes, naming
    /// the app's windows (`-b`, dumpLayout only) and the display its window is on (`-d 0`):
    /// from OpenHarmony 5.1 (API 18, `server_main.cpp`).
    fn names_window(&self, tool: &str, named: &[&str]) -> bool {
        let bundle = self.doc.bundle.as_str();
        let takes = match tool {
            "dumpLayout" => named == ["-b", bundle] || named == ["-b", bundle, "-d", "0"],
            _ => named == ["-d", "0"],
        };
        takes && self.info.api_level.is_some_and(|api| api >= 18)
    }

    /// What uitest prints for options it does not take: before 5.1, getopt's refusal and the
    /// tool's usage, status 1; from 5.1, a window or display this phone does not have.
    fn unnamed(&self, tool: &str, named: &[&str]) -> (String, u8) {
        if self.info.api_level.is_some_and(|api| api >= 18) {
            let said = match tool {
                "dumpLayout" => "DumpLayout failed:Get window nodes failed\n",
                _ => "ScreenCap failed: Failed to get display pixelMap\n",
            };
            return (said.to_owned(), 1);
        }
        let option = named.first().map_or("?", |o| o.trim_start_matches('-'));
        (
            format!("uitest: invalid option -- '{option}'\nUSAGE: uitest {tool} -p <path>\n"),
            1,
        )
    }

    /// `hitrace --get_level` and `--trace_level L` as a 6.0+ phone's hitrace prints them
    /// (hitrace_cmd.cpp, 6.0-Release); before 6.0 hitrace has neither.
    fn trace_level(&self, now: &mut Now, words: &[&str]) -> Option<(String, u8)> {
        if self.info.api_level.is_none_or(|api| api < 20) {
            return None;
        }
        let stamp = "2026/12/06 10:00:00";
        match words {
            ["hitrace", "--get_level"] => {
                let level = now.level.unwrap_or('I');
                let name = LEVELS.iter().find(|(l, _)| *l == level)?.1;
                Some((
                    format!("{stamp} the current trace level threshold is {name}\n"),
                    0,
                ))
            }
            ["hitrace", "--trace_level", level] => {
                match LEVELS
                    .iter()
                    .find(|(l, name)| level.len() == 1 && level.starts_with(*l) || name == level)
                {
                    Some((letter, _)) => {
                        now.level = Some(*letter);
                        Some((format!("{stamp} success to set trace level.\n"), 0))
                    }
                    None => Some((
                        format!(
                            "{stamp} error: trace level is illegal input. eg: \"--trace_level I\", \"--trace_level Info\".\n"
                        ),
                        255,
                    )),
                }
            }
            _ => None,
        }
    }

    /// The trace a `--trace_finish` writes: the app's file, less the markers below the level
    /// threshold (a marker's `|D62`-like field) on a 6.0+ phone — hitrace_meter never writes
    /// them. A copy in the state folder when any is dropped.
    fn below_threshold_dropped(&self, now: &Now, state: &Path) -> String {
        let threshold = LEVELS
            .iter()
            .position(|(l, _)| Some(*l) == now.level)
            .unwrap_or(1);
        if self.info.api_level.is_none_or(|api| api < 20) || threshold == 0 {
            return self.doc.trace.clone();
        }
        let Ok(text) = std::fs::read_to_string(self.root.join(&self.doc.trace)) else {
            return self.doc.trace.clone();
        };
        let below = |line: &str| {
            line.trim_end().split('|').any(|field| {
                let mut chars = field.chars();
                let rank = chars
                    .next()
                    .and_then(|c| LEVELS.iter().position(|(l, _)| *l == c));
                let digits: String = chars.collect();
                rank.is_some_and(|r| r < threshold)
                    && digits.len() >= 2
                    && digits.len().is_multiple_of(2)
                    && digits.bytes().all(|b| b.is_ascii_digit())
            })
        };
        let kept: String = text
            .split_inclusive('\n')
            .filter(|line| !below(line))
            .collect();
        let copy = state.join(format!(
            "{}-level-{threshold}.ftrace",
            self.info.serial.replace([':', '/'], "_")
        ));
        match std::fs::write(&copy, kept) {
            Ok(()) => copy.display().to_string(),
            Err(_) => self.doc.trace.clone(),
        }
    }

    /// What a readiness poll asks, with its status: the app's process (pid 5000) while a
    /// screen shows, and its window (13) focused and drawn.
    fn process_and_window(&self, now: &Now, words: &[&str]) -> Option<(String, u8)> {
        let running = now.screen.is_some();
        Some(match words {
            ["pidof", bundle] if *bundle == self.doc.bundle && running => ("5000\n".into(), 0),
            ["pidof", bundle] if *bundle == self.doc.bundle => (String::new(), 1),
            ["hidumper", "-s", "WindowManagerService", "-a", "-a"] => {
                let (pid, focus) = if running { (5000, 13) } else { (0, 9) };
                (
                    format!(
                        "{WINDOWS_HEADER}app0                 0         {pid:<8}13    1    1    0    1    0           [ 0    0    1260 2720 ]\nFocus window: {focus}\ntotal window num: 2\n"
                    ),
                    0,
                )
            }
            ["hidumper", "-s", "WindowManagerService", "-a", "'-w", "13'"] => (
                format!(
                    "WindowName: app0\nWinId: 13\nFirstFrameCallbackCalled: {}\nVisibilityState: 0\n",
                    u8::from(running)
                ),
                0,
            ),
            _ => return None,
        })
    }

    /// The file a device path holds, for `file recv`.
    pub(crate) fn pulled(&self, state: &Path, remote: &str) -> Option<PathBuf> {
        self.read(state)
            .files
            .get(remote)
            .map(|f| self.root.join(f))
    }

    /// A dump or a screenshot of the screen showing: a screen change due at this dump happens
    /// first.
    fn on_screen(
        &self,
        now: &mut Now,
        what: impl Fn(&ScreenDoc) -> (String, String, &'static str),
    ) -> Option<String> {
        let screen = now.screen.clone()?;
        let (remote, file, said) = what(self.doc.screens.get(&screen)?);
        if said.starts_with("Dump")
            && let Some((to, left)) = now.pending.take()
        {
            if left <= 1 {
                now.screen = Some(to.clone());
                let (_, file, _) = what(self.doc.screens.get(&to)?);
                now.files.insert(remote.clone(), file);
                return Some(format!("{said}{remote}\n"));
            }
            now.pending = Some((to, left - 1));
        }
        now.files.insert(remote.clone(), file);
        Some(format!("{said}{remote}\n"))
    }

    /// A tap at `x`,`y`: the first of the screen's taps whose node the point is inside.
    fn tap(&self, now: &mut Now, x: &str, y: &str) -> Option<String> {
        self.gesture(now, x, y, |s| &s.taps)
    }

    /// A swipe starting at `x`,`y`: the first of the screen's swipes whose node it starts in.
    fn swipe(&self, now: &mut Now, x: &str, y: &str) -> Option<String> {
        self.gesture(now, x, y, |s| &s.swipes)
    }

    fn gesture(
        &self,
        now: &mut Now,
        x: &str,
        y: &str,
        of: impl Fn(&ScreenDoc) -> &[TapDoc],
    ) -> Option<String> {
        let (x, y): (i64, i64) = (x.parse().ok()?, y.parse().ok()?);
        if x <= 0 || y <= 0 {
            return Some("Please confirm that the coordinate values are correct.\n".to_owned());
        }
        let screen = self.doc.screens.get(now.screen.as_ref()?)?;
        let bytes = std::fs::read(self.root.join(&screen.layout)).ok()?;
        let layout = Layout::parse(&bytes).ok()?;
        let hit = of(screen).iter().find(|tap| {
            layout
                .visible_rect_of(&self.doc.bundle, &tap.on)
                .is_some_and(|r| r.l <= x && x < r.r && r.t <= y && y < r.b)
        });
        if let Some(tap) = hit {
            if tap.after == 0 {
                now.screen = Some(tap.to.clone());
            } else {
                now.pending = Some((tap.to.clone(), tap.after));
            }
        }
        Some(String::new())
    }

    fn read(&self, state: &Path) -> Now {
        let Ok(text) = std::fs::read_to_string(self.state_file(state)) else {
            return Now::default();
        };
        let mut now = Now::default();
        for line in text.lines() {
            match line.split('\t').collect::<Vec<_>>().as_slice() {
                ["screen", s] => now.screen = Some((*s).to_owned()),
                ["pending", to, n] => now.pending = n.parse().ok().map(|n| ((*to).to_owned(), n)),
                ["file", remote, file] => {
                    now.files.insert((*remote).to_owned(), (*file).to_owned());
                }
                ["level", level] => now.level = level.chars().next(),
                _ => {}
            }
        }
        now
    }

    fn write(&self, state: &Path, now: &Now) {
        let mut lines: Vec<String> = Vec::new();
        if let Some(screen) = &now.screen {
            lines.push(format!("screen\t{screen}"));
        }
        if let Some((to, n)) = &now.pending {
            lines.push(format!("pending\t{to}\t{n}"));
        }
        if let Some(level) = now.level {
            lines.push(format!("level\t{level}"));
        }
        lines.extend(
            now.files
                .iter()
                .map(|(remote, file)| format!("file\t{remote}\t{file}")),
        );
        let text = lines.join("\n");
        let _ = std::fs::write(self.state_file(state), text);
    }

    fn state_file(&self, state: &Path) -> PathBuf {
        state.join(format!(
            "{}.screens",
            self.info.serial.replace([':', '/'], "_")
        ))
    }
}
