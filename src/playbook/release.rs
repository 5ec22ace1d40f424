//! Which probes a release lets the hdc shell read, and why not: each probe's session's shell
//! lines held against the access table (`device::access_table`, OpenHarmony's policy per
//! release). `dwpipe probes --api-level N` and `doctor --device` say it before anything runs.

use serde::Serialize;

use super::model::Step;
use super::set::Playbooks;
use crate::device::{Access, Family, access_table};

/// Whether a probe reads on a release.
#[derive(schemars::JsonSchema, Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Readable {
    /// It makes no read the table knows: its tools (hitrace, uitest, aa, hidumper) run in
    /// domains of their own, which were not held against the policy.
    Unchecked,
    /// No read of it is refused.
    Yes,
    /// A read of it is refused, and dwpipe reads something else in its place (`fallback`).
    Partly,
    /// A read it needs is refused: every run is unverified.
    No,
}

impl Readable {
    /// The words, for people.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Readable::Unchecked => {
                "not held against the policy (its tools run in domains of their own; only /proc, sysfs and SmartPerf's reads were checked)"
            }
            Readable::Yes => "readable",
            Readable::Partly => "readable in part",
            Readable::No => "not readable",
        }
    }
}

/// One read a probe makes, on the release.
#[derive(schemars::JsonSchema, Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct ReadOn {
    /// What is read.
    pub(crate) read: String,
    /// Who may read it on the release.
    pub(crate) access: Access,
    /// The policy lines that say so.
    pub(crate) policy: String,
    /// What dwpipe still reads where it is refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fallback: Option<String>,
}

/// How one probe fares on a release.
#[derive(schemars::JsonSchema, Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct ProbeOnRelease {
    /// Whether it reads.
    pub(crate) readable: Readable,
    /// Each read of its session's that the table knows.
    pub(crate) reads: Vec<ReadOn>,
}

/// How `probe` (by its playbook's session) fares on `family`; `None` for a probe without a
/// playbook.
pub(crate) fn probe_on(
    playbooks: &Playbooks,
    probe: &str,
    family: &Family,
) -> Option<ProbeOnRelease> {
    let playbook = playbooks.probes.get(probe)?;
    let session = playbooks.sessions.get(&playbook.session)?;
    let table = access_table();
    let mut reads: Vec<ReadOn> = Vec::new();
    for step in session.standalone() {
        let Step::Shell { template, .. } = step else {
            continue;
        };
        for read in table.reads_in(template) {
            let Some(rule) = read.rule(family) else {
                continue;
            };
            if reads.iter().any(|r| r.read == read.read) {
                continue;
            }
            reads.push(ReadOn {
                read: read.read.clone(),
                access: rule.access,
                policy: rule.policy.clone(),
                fallback: read.fallback.clone(),
            });
        }
    }
    let refused = || reads.iter().filter(|r| !r.access.on_production());
    let readable = if reads.is_empty() {
        Readable::Unchecked
    } else if refused().next().is_none() {
        Readable::Yes
    } else if refused().all(|r| r.fallback.is_some()) {
        Readable::Partly
    } else {
        Readable::No
    };
    Some(ProbeOnRelease { readable, reads })
}

#[cfg(test)]
mod tests;
