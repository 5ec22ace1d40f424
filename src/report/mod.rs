//! Reports: the versioned JSON schema of an audit and the Markdown rendered from the same
//! structs through Handlebars templates embedded from `templates/`.

mod audit;
pub(crate) mod html;
mod junit;
mod spec;

pub use audit::{AuditReport, PublishError, ReportCheck, Summary};
pub use html::html;
pub use junit::{junit, junit_lab};
pub use spec::SpecView;
