//! The audit: for every criterion with a probe, run its playbook's session on the device
//! (once per run, shared by every probe of that session), keep every pulled file and saved
//! reply under `evidence/<device>/<run>/<session>/` with its SHA-256, extract one reading per
//! run, aggregate, and gate: the verdicts are recomputed from the measurements, and a report
//! is built from the gated outcome.

mod aggregate;
mod capture;
mod checks;
mod error;
mod evidence;
mod extract;
mod faults;
mod figures;
mod flow;
mod gesture;
mod inputs;
mod keep;
mod measure;
mod model;
mod placement;
mod plan;
mod ready;
mod rebuild;
mod run;
mod session;
mod stability;
mod state;
mod thumbnail;
mod trace_level;
mod window;

pub use aggregate::{actual, aggregate};
pub(crate) use checks::folded;
pub use error::AuditError;
pub(crate) use evidence::SOURCE_RECORD;
pub use evidence::{Context, Files};
pub use extract::{Decoded, Value, extract};
pub use extract::{ExtractError, Reading, Screenshot, Trace};
pub use figures::Figures;
pub(crate) use figures::{FlowFigure, FrameSeries, Trend, TrendPoint};
pub(crate) use measure::AsRecorded;
pub use model::{AuditEvent, AuditRun, Audited, MeasurementRecord};
pub use model::{DeviceTime, InstalledHap, Workspace};
pub use model::{EvidenceFile, Inputs, RunReading};
pub use plan::AuditSpec;
pub(crate) use plan::evidence_root;
pub(crate) use rebuild::{Recorded, rebuild};
pub use run::run;
pub(crate) use run::{Ongoing, Prepared};
pub(crate) use state::parse as parse_state;
pub use state::{DeviceState, DeviceStates, Required, Zone, render as render_state};
pub use thumbnail::{Shrunk, thumbnail_of};
