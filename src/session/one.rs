//! One device's audit into its folder: measured, gated, published in every form, recorded in
//! the history. The one-device audit, each lab seat and each A/B arm's reports come from here.

use std::path::{Path, PathBuf};

use crate::audit::{self, AuditEvent, AuditSpec, InstalledHap};
use crate::device::{Device, DeviceError};
use crate::output::relative_to;
use crate::report::publish;
use crate::schema::AuditReport;

use super::{AuditPlan, SessionError};

/// Installs the verified HAPs on a device (`install -r`, judged by hdc's text), so that the
/// audit measures the build that was verified.
pub(super) async fn install_haps(
    device: &impl Device,
    haps: &[(PathBuf, InstalledHap)],
) -> Result<(), DeviceError> {
    for (path, _) in haps {
        device.install(path).await?;
    }
    Ok(())
}

/// `device`, audited by `plan` into `out`: measured, gated, published in every form and
/// recorded in the plan's history; returns the report and the files written.
pub(super) async fn audit(
    device: &impl Device,
    plan: &AuditPlan<'_>,
    out: &Path,
    progress: &dyn Fn(AuditEvent),
) -> Result<(AuditReport, Vec<PathBuf>), SessionError> {
    let pack = &plan.frozen.pack;
    let installed = plan.build.installed();
    let spec = AuditSpec {
        runs: plan.runs(),
        auditor: plan.auditor.as_ref(),
        strict: plan.strict,
        installed: &installed,
        lock: Some(&plan.frozen.lock),
        ..AuditSpec::new(pack, plan.playbooks)
    };
    let run = audit::run(device, &spec, out, progress)
        .await
        .map_err(|e| SessionError::of_audit(e, out))?;
    let mut audited = run.gate(pack);
    let lock = Some(relative_to(&plan.lock, out));
    let mut report = AuditReport::of_audit(&plan.frozen.lock.sha256, &audited, lock);
    report.workspace = plan.build.workspace.clone();
    if let Some(history) = &plan.history {
        audited.figures.trends = history.trends(&report).map_err(SessionError::History)?;
    }
    let written = publish::audit(&report, pack, &audited.figures, out)?;
    // Recorded once its files are there: the history names the report it read back.
    if let Some(history) = &plan.history {
        history
            .record(&written[0], None)
            .map_err(SessionError::History)?;
    }
    Ok((report, written))
}
