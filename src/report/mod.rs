//! Reports: the versioned JSON schema of an audit and of a lab's matrix, and every form
//! rendered from the same structs (Markdown through the embedded templates, JUnit XML, one
//! self-contained HTML page). Reporters render what was already decided: nothing here gates.

mod ab_lab;
mod audit;
mod compare;
pub(crate) mod html;
mod junit;
mod lab;

pub(crate) use ab_lab::{AbColumn, AbLabReport};
pub(crate) use audit::ReportCheck;
pub use audit::{AuditReport, Summary};
pub use compare::markdown as compare_markdown;
pub(crate) use compare::publish as publish_comparison;
pub use html::{compare_html, html};
pub use junit::junit;
pub(crate) use junit::junit_compare;
pub(crate) use junit::junit_lab;
pub(crate) use lab::{Column, LabReport, LabVerdict, UnreachableServer, merge};
