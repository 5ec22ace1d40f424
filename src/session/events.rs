//! What a session tells whoever shows its progress: each audit's events, a lab's devices
//! beginning and ending, an A/B session's switches and escalations.

use crate::audit::AuditEvent;
use crate::device::DeviceError;

use crate::schema::Arm;
use crate::target::Capped;

use super::seat::SeatError;

/// What a session is doing, for whoever shows progress.
#[derive(Debug)]
pub(crate) enum Event<'a> {
    /// The audit of the one device (an A/B session's arm included) went on.
    Audit(AuditEvent),
    /// A lab's device's audit (or A/B session) went on.
    DeviceAudit(&'a str, AuditEvent),
    /// hdc servers of the lab did not answer (their devices are in no column).
    Unreachable(&'a [(String, DeviceError)]),
    /// The lab runs fewer devices at once than asked: the open-file limit allows no more.
    Capped(Capped),
    /// A lab's device began.
    DeviceStarted(&'a str),
    /// A lab's device ended: its outcome in words (`pass with warnings (…)`, `regressed
    /// against the baseline; …`), or why it has none.
    DeviceEnded(&'a str, Result<&'a str, &'a SeatError>),
    /// An A/B session switches the device to an arm's build.
    Installing(Arm),
    /// An audit was attested (`--sign-key`).
    Attested(&'a crate::attest::AttestOutcome),
    /// An audit could not be attested: why (the session goes on; its reports stand).
    NotAttested {
        /// The audit report.
        report: &'a std::path::Path,
        /// Why.
        why: &'a [crate::diagnostic::Diagnostic],
    },
    /// Criteria were still unknown: each arm goes on to this many runs.
    Escalated {
        /// Runs per arm from now on.
        runs: u32,
        /// The criteria still unknown.
        unknown: &'a [String],
    },
}

/// Receives a session's events (the terminal's progress, a test's log, a delivery's stage).
pub(crate) trait Reporter {
    /// One event.
    fn event(&self, event: Event<'_>);
}
