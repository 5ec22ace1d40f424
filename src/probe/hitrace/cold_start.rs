//! The cold start, gathered while the trace streams by (research/hitrace.md §3.1): from the
//! finger-up (`service report touchId:…, type: up`) or, without one, the first ability-start
//! marker, to the end of the first present fence after the render service processed the app's
//! first transaction, split into the DevEco Launch phases by the markers that were found.

use serde::Serialize;

use super::scan::{SliceKind, contains, find, has, is_commit, needles, round3, text};

needles! {
    ABILITY = b"Ability";
    START_BY_SCB = b"StartUIAbilityBySCB";
    START_ABILITY = b"AbilityManagerService::StartAbility";
    START_PROCESS = b"AppMgrServiceInner::StartProcess";
    LOAD_ABILITY = b"AppMgrServiceInner::LoadAbility";
    ATTACH_APPLICATION = b"AppMgrServiceInner::AttachApplication";
    HANDLE_LAUNCH = b"MainThread::HandleLaunchAbility";
    ABILITY_TRANSACTION = b"HandleAbilityTransaction";
}

/// Whether `name` is a launch marker. Every `B` before a launch is asked, so the three
/// markers naming an ability are looked for only in names holding `Ability`.
fn is_launch(name: &[u8]) -> bool {
    has(name, &START_PROCESS)
        || (has(name, &ABILITY)
            && [&START_BY_SCB, &START_ABILITY, &LOAD_ABILITY]
                .into_iter()
                .any(|needle| has(name, needle)))
}

/// How long before the first launch marker a finger-up still counts as its cause.
const TOUCH_WINDOW_NS: u64 = 3_000_000_000;

/// A launch phase found in the trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Phase {
    /// DevEco Launch phase name.
    pub(crate) name: &'static str,
    /// The marker that opened it.
    pub(crate) marker: String,
    /// When it began, ms after the start.
    pub(crate) start_ms: f64,
    /// How long it lasted (until the next phase, or the end).
    pub(crate) duration_ms: f64,
}

/// A measured cold start.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct ColdStart {
    /// Start to first frame on screen.
    pub(crate) ms: f64,
    /// The marker used as the start.
    pub(crate) start_marker: String,
    /// The marker whose end was the first frame on screen.
    pub(crate) end_marker: String,
    /// The app process the launch was attributed to.
    pub(crate) app_pid: Option<u32>,
    /// The phases, in order.
    pub(crate) phases: Vec<Phase>,
}

/// Launch facts collected in one pass.
#[derive(Debug, Default)]
pub(crate) struct ColdStartTracker {
    bundle: Option<String>,
    last_touch_up: Option<(u64, String)>,
    start: Option<(u64, String)>,
    phases: Vec<(&'static str, String, u64)>,
    app_pid: Option<u32>,
    last_commands_begin: u64,
    marshalled: Option<u64>,
    rendered: Option<u64>,
    committed: Option<u64>,
    end: Option<u64>,
}

impl ColdStartTracker {
    /// Tracks the launch of `bundle` (the first launched bundle when `None`).
    pub(crate) fn new(bundle: Option<String>) -> ColdStartTracker {
        ColdStartTracker {
            bundle,
            ..ColdStartTracker::default()
        }
    }

    fn phase(&mut self, name: &'static str, marker: &[u8], ts: u64) {
        if !self.phases.iter().any(|(n, _, _)| *n == name) {
            self.phases.push((name, text(marker), ts));
        }
    }

    /// Whether a `##bundle` marker is about the tracked bundle (locking onto the first one
    /// seen when none was named).
    fn is_our_bundle(&mut self, name: &[u8]) -> bool {
        let Some(at) = find(name, b"##") else {
            return self.bundle.is_none();
        };
        let found = String::from_utf8_lossy(&name[at + 2..]).trim().to_owned();
        match &self.bundle {
            Some(bundle) => *bundle == found,
            None => {
                self.bundle = Some(found);
                true
            }
        }
    }

    fn mentions_app(&self, name: &[u8]) -> bool {
        let Some(pid) = self.app_pid else {
            return false;
        };
        [
            format!("[{pid},"),
            format!("({pid},"),
            format!("[pid:{pid},"),
            format!("[pid:{pid}]"),
        ]
        .iter()
        .any(|needle| contains(name, needle.as_bytes()))
    }

    /// A `B` slice began.
    pub(crate) fn begin(
        &mut self,
        name: &[u8],
        kind: SliceKind,
        parent: Option<SliceKind>,
        ts: u64,
        tid: u32,
        pid: Option<u32>,
    ) {
        if self.end.is_some() {
            return;
        }
        if self.start.is_none() {
            if name.starts_with(b"service report ")
                && (contains(name, b"type: up") || contains(name, b"button-up"))
            {
                self.last_touch_up = Some((ts, text(name)));
                return;
            }
            if is_launch(name) {
                self.start = Some(match self.last_touch_up.take() {
                    Some((touch, marker)) if ts.saturating_sub(touch) <= TOUCH_WINDOW_NS => {
                        (touch, marker)
                    }
                    _ => (ts, text(name)),
                });
            } else {
                return;
            }
        }
        if has(name, &START_PROCESS) || has(name, &LOAD_ABILITY) {
            self.phase("process creation", name, ts);
        } else if has(name, &ATTACH_APPLICATION) && self.is_our_bundle(name) {
            self.phase("application launching", name, ts);
        } else if has(name, &HANDLE_LAUNCH) && self.app_pid.is_none() && self.is_our_bundle(name) {
            self.app_pid = pid.or(Some(tid));
            self.phase("ability launching", name, ts);
        } else if has(name, &ABILITY_TRANSACTION) && self.app_pid.is_some() {
            self.phase("foreground", name, ts);
        } else if self.app_pid.is_some() && self.rendered.is_none() {
            self.first_frame(name, kind, parent, tid, ts);
        } else if self.rendered.is_some() && self.committed.is_none() && is_commit(name) {
            self.committed = Some(ts);
        }
    }

    fn first_frame(
        &mut self,
        name: &[u8],
        kind: SliceKind,
        parent: Option<SliceKind>,
        tid: u32,
        ts: u64,
    ) {
        let on_app_main_thread = Some(tid) == self.app_pid;
        if on_app_main_thread && name.starts_with(b"ReceiveVsync") {
            self.phase("first frame (app)", name, ts);
        } else if name.starts_with(b"MarshRSTransactionData")
            && (on_app_main_thread || self.mentions_app(name))
        {
            self.phase("first frame (app)", name, ts);
            self.marshalled.get_or_insert(ts);
        } else if kind == SliceKind::ProcessCommands {
            self.last_commands_begin = ts;
            // Render-service builds without per-transaction ids: the first batch after the
            // app marshalled its first transaction is the one that carried it.
            let anonymous = !name.contains(&b'[') && !name.contains(&b'(');
            if self.mentions_app(name) || (anonymous && self.marshalled.is_some()) {
                self.rendered = Some(ts);
                self.phase("first frame (render)", name, ts);
            }
        } else if parent == Some(SliceKind::ProcessCommands) && self.mentions_app(name) {
            self.rendered = Some(self.last_commands_begin);
            self.phase("first frame (render)", name, self.last_commands_begin);
        }
    }

    /// A present fence ended.
    pub(crate) fn present(&mut self, fence_begin: u64, fence_end: u64) {
        if self.end.is_some() {
            return;
        }
        if let Some(after) = self.committed.or(self.rendered)
            && fence_begin >= after
        {
            self.end = Some(fence_end);
        }
    }

    /// Why the trace holds no whole launch: the first marker of the chain that is missing, and
    /// the hitrace tag that records it. `None` when it holds one.
    pub(crate) fn missing(&self) -> Option<String> {
        let app = self.bundle.as_deref().unwrap_or("the app");
        let reason = if self.start.is_none() {
            "no launch marker (`StartUIAbilityBySCB`, `AbilityManagerService::StartAbility`, \
             `AppMgrServiceInner::StartProcess` or `LoadAbility`): launch the app while tracing, \
             with the hitrace tags `ability` and `app`"
                .to_owned()
        } else if self.app_pid.is_none() {
            format!(
                "a launch began, but no `MainThread::HandleLaunchAbility` of {app} followed: \
                 trace with the `ability` tag, and check the bundle name"
            )
        } else if self.rendered.is_none() {
            format!(
                "{app} launched, but no first frame followed: no `MarshRSTransactionData` of the \
                 app and no `RSMainThread::ProcessCommands` carrying it (trace with the `graphic` \
                 tag)"
            )
        } else if self.end.is_none() {
            "the first frame was rendered, but no present fence (`Waiting for Present Fence`) \
             ended after it: trace with the `graphic` tag, until the first frame is on screen"
                .to_owned()
        } else {
            return None;
        };
        Some(reason)
    }

    /// The measured cold start, when the trace holds a whole one.
    pub(crate) fn result(&self) -> Option<ColdStart> {
        let (start, start_marker) = self.start.clone()?;
        let end = self.end?;
        let ms = |ns: u64| round3(ns as f64 / 1e6);
        let phases = self
            .phases
            .iter()
            .enumerate()
            .map(|(i, (name, marker, ts))| {
                let until = self.phases.get(i + 1).map_or(end, |next| next.2);
                Phase {
                    name,
                    marker: marker.clone(),
                    start_ms: ms(ts.saturating_sub(start)),
                    duration_ms: ms(until.saturating_sub(*ts)),
                }
            })
            .collect();
        Some(ColdStart {
            ms: ms(end.saturating_sub(start)),
            start_marker,
            end_marker: "Waiting for Present Fence (end)".to_owned(),
            app_pid: self.app_pid,
            phases,
        })
    }
}
