//! The audit: for every criterion with a probe, run its playbook's session on the device
//! (once per run, shared by every probe of that session), keep every pulled file and saved
//! reply under `evidence/<device>/<run>/<session>/` with its SHA-256, extract one reading per
//! run, aggregate, and gate: the verdicts are recomputed from the measurements, and a report
//! is built from the gated outcome.

mod aggregate;
mod checks;
mod extract;
mod figures;
mod model;
mod plan;
mod run;
mod session;
mod verify;

pub use aggregate::{actual, aggregate, spread};
pub use extract::{
    Context, Decoded, ExtractError, Files, Reading, Screenshot, Trace, Value, extract,
};
pub use figures::{Figures, FrameSeries, ScreenFigure};
pub use model::{
    AuditError, AuditEvent, AuditRun, Audited, EvidenceFile, MeasurementRecord, RunReading,
};
pub use run::run;
pub(crate) use verify::verify;
