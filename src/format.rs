//! The `format-version` of every document dwpipe writes, in one place. Files users keep
//! (locks, captures, reports, ledgers' run summaries) outlive a release: a document whose shape
//! changes gets its number bumped here, and its reader takes the previous number or refuses it
//! with a fix. Adding an optional field does not change a shape.

/// `pack.lock.json` (2: the warnings are sealed with the pack; 1 is still read).
pub(crate) const LOCK: u32 = 2;
/// A capture's `transcript.yaml` (2: every pause recorded as a `sleep` exchange, the
/// recording dwpipe and the sessions it ran; 3: where each visit of the audit began, its run
/// plan; 1 and 2 are still read, and refused by an audit: their sessions slept where they now
/// poll, their run plan is unknown).
pub(crate) const TRANSCRIPT: u32 = 3;
/// `audit-<n>.json` (2: the source, the inputs kept as evidence, each measurement's
/// extractor revision; 3: each check's statement, runs that say the same thing named once in
/// its evidence, the start and end times, the workspace; 4: a copy of the lock and the source
/// kept among the inputs, the report naming the copy; 5: when the audit held its device and
/// its run's name kept among the inputs (`times.json`), the report's times rebuilt from them;
/// 1 to 4 are still read).
pub(crate) const AUDIT: u32 = 5;
/// `review-<n>.json`.
pub(crate) const REVIEW: u32 = 1;
/// `verify-<n>.json` (2: a command may be `inconclusive`, with its reason and the compiler
/// errors hvigor printed; 1 is still read).
pub(crate) const VERIFY: u32 = 2;
/// `compare.json` (2: its lock's SHA-256 and each report's; 1 is still read, as unbound).
pub(crate) const COMPARE: u32 = 2;
/// A flow run's `flow.json`, kept beside its evidence.
pub(crate) const FLOW: u32 = 1;
/// `ab.json`, a same-device A/B session's record.
pub(crate) const AB: u32 = 1;
/// `ab-lab.json`, a lab's A/B matrix.
pub(crate) const AB_LAB: u32 = 1;
/// `dwpipe history --json`.
pub(crate) const HISTORY: u32 = 1;
/// `dwpipe probes --json`.
pub(crate) const PROBES: u32 = 1;
/// `dwpipe runs --json`.
pub(crate) const RUNS: u32 = 1;
/// `lab.json`.
pub(crate) const LAB: u32 = 1;
/// `deliver.json`.
pub(crate) const DELIVER: u32 = 1;
/// A run directory's `run.json`.
pub(crate) const RUN: u32 = 1;
/// A stop hook's record of an agent session's rounds (`.dwpipe/hooks/*.json`).
pub(crate) const HOOK: u32 = 1;
/// `dwpipe devices --json`.
pub(crate) const DEVICES: u32 = 1;
/// `dwpipe freeze --json`.
pub(crate) const FREEZE: u32 = 1;
/// The diagnostics of a refused command under `--json`.
pub(crate) const DIAGNOSTICS: u32 = 1;
