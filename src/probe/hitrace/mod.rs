//! hitrace: a streaming parser of ftrace text with HiTraceMeter markers, and the frame and
//! cold-start metrics computed from it in the same pass. Memory does not grow with the trace:
//! lines are read in chunks (parsed on every core, a few chunks in flight, and fed to the
//! analysis in order) and only per-frame facts are kept.

mod analysis;
mod blocks;
mod cold_start;
mod frames;
mod line;
mod payload;
mod points;
mod response;
mod scan;

mod report;
#[cfg(test)]
mod tests;

pub use analysis::{Analysis, MarkerCounts};
pub(crate) use cold_start::ColdStart;
pub use frames::FrameStats;
pub(crate) use frames::FrameTracker;
pub use points::{Found, Occurrence};
pub(crate) use report::report;
pub use report::{PointReport, TraceReport, analyze, response_of};
pub use response::Response;
pub(crate) use response::STILL_NS;
