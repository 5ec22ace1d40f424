//! One device's audit into its folder: measured, gated, published in every form, recorded in
//! the history. The one-device audit, each lab seat and each A/B arm's reports come from here.

use std::path::{Path, PathBuf};

use crate::audit::{self, AuditEvent, AuditSpec, InstalledHap, Trend};
use crate::device::{Device, DeviceError};
use crate::diagnostic::chain;
use crate::history::{RecordError, Recorder};
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
        frozen: Some(&plan.frozen),
        require: plan.require.clone(),
        ..AuditSpec::new(pack, &plan.playbooks)
    };
    let run = audit::run(device, &spec, out, progress)
        .await
        .map_err(|e| SessionError::of_audit(e, out))?;
    let mut audited = run.gate(pack);
    let lock = Some(relative_to(&plan.lock, out));
    let mut report = AuditReport::of_audit(&plan.frozen.lock.sha256, &audited, lock);
    report.workspace = plan.build.workspace.clone();
    let Some(history) = &plan.history else {
        let forms = publish::audit(&report, pack, &audited.figures, out)?;
        return Ok((report, forms.paths()));
    };
    // The history was opened before the device was touched; if it fails now, the audit
    // stands and says what was not recorded (an environment error, never a lost audit).
    match history.trends(&report) {
        Ok(trends) => audited.figures.trends = linked(trends, out),
        Err(e) => report.unrecorded = Some(chain(&e)),
    }
    let forms = publish::audit(&report, pack, &audited.figures, out)?;
    // Recorded once its files are there: the history names the report it read back.
    if report.unrecorded.is_none() {
        match record(history, &forms.json, None).await {
            Ok(true) => {}
            // The same run recorded before: said, never silently.
            Ok(false) => progress(AuditEvent::AlreadyRecorded {
                report: forms.json.clone(),
            }),
            Err(e) => {
                report.unrecorded = Some(chain(&e));
                publish::audit_again(&report, pack, &audited.figures, &forms)?;
            }
        }
    }
    Ok((report, forms.paths()))
}

/// Records the report at `path` (as an A/B `arm`) on a thread of its own: a history another
/// writer holds waits out its busy timeout there, while the other devices of a lab go on.
pub(super) async fn record(
    history: &Recorder,
    path: &Path,
    arm: Option<&'static str>,
) -> Result<bool, RecordError> {
    let (history, path) = (history.clone(), path.to_owned());
    tokio::task::spawn_blocking(move || history.record(&path, arm))
        .await
        .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
}

/// Each trend point's link made relative to the audit folder `out`, to the page beside the
/// report the history recorded (its JSON when no page is there): the links hold in a CI
/// artifact or on another machine, and open a page.
fn linked(
    mut trends: std::collections::BTreeMap<String, Trend>,
    out: &Path,
) -> std::collections::BTreeMap<String, Trend> {
    for point in trends.values_mut().flat_map(|t| &mut t.points) {
        if let Some(report) = &mut point.report {
            let json = PathBuf::from(&*report);
            let page = json.with_file_name(crate::schema::files::AUDIT_HTML);
            let target = if page.is_file() { page } else { json };
            *report = relative_to(&target, out);
        }
    }
    trends
}
