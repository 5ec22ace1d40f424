//! Reports: the versioned JSON schema of an audit and of a lab's matrix, and every form
//! rendered from the same structs (Markdown through the embedded templates, JUnit XML, one
//! self-contained HTML page). Reporters render what was already decided: nothing here gates.

mod audit;
pub(crate) mod html;
mod junit;
mod lab;

pub use audit::{AuditReport, ReportCheck, Summary};
pub use html::html;
pub use junit::{junit, junit_lab};
pub use lab::{Cell, Column, DeviceVerdict, LabDevice, LabReport, LabRow, LabVerdict, merge};
