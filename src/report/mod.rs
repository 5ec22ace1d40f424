//! Every form a document is kept in, rendered from the typed documents of [`crate::schema`]:
//! Markdown through the embedded templates, JUnit XML, self-contained HTML pages. Renderers
//! are pure functions of what was already decided (nothing here gates, nothing reads
//! evidence); `publish` is the one place their text is written to disk.

mod ab_lab;
mod audit;
mod compare;
pub(crate) mod headline;
pub(crate) mod html;
mod junit;
mod junit_compare;
mod lab;
pub(crate) mod numbers;
mod order;
pub(crate) mod publish;
pub(crate) mod summary;

pub(crate) use ab_lab::rows as ab_lab_rows;

pub use audit::markdown;
pub use compare::markdown as compare_markdown;
pub use html::{compare_html, html};
pub use junit::junit;
pub(crate) use junit::junit_lab;
pub(crate) use junit_compare::junit_compare;
pub(crate) use order::failing_first;
