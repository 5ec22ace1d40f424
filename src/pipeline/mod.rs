//! `dwpipe deliver`: freeze → review → brief → agent → verify → audit, looping agent → verify
//! → audit through the repair guard, in one run directory `.dwpipe/runs/<time>-<pack8>/` with
//! every artifact, `ledger.jsonl` and `deliver.json`. A request becomes a plan (`plan.rs`);
//! the plan opens its doors (`start.rs`); the engine emits [`Event`]s; only reporters print.

mod claim;
mod delivery;
mod events;
mod gate;
mod guard;
mod halt;
pub(crate) mod ledger;
mod list;
mod page;
mod plan;
mod resume;
mod rounds;
mod run_dir;
mod seal;
mod stages;
mod start;

pub(crate) use claim::ClaimError;
pub(crate) use delivery::{Delivery, DeliveryError, ResumeRefused};
pub(crate) use events::{Event, Note};
pub(crate) use gate::Gated;
pub(crate) use guard::{Next, RepairGuard};
pub(crate) use list::list as list_runs;
pub(crate) use plan::{DEFAULT_PACK, DeliverPlan, DeliverPlanError, DeliverRequest, Mode};
pub(crate) use run_dir::{RUNS_FOLDER, RunDirError};
pub(crate) use seal::RUN_FILE;
pub(crate) use start::{StartError, open_and_run};
