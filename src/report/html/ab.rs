//! `ab.html` and `ab-lab.html`: a same-device A/B session as a page — both builds with their
//! SHA-256, the blocks in the order they ran with their warm-ups, the candidate against the
//! pack, the candidate against the baseline with every run drawn, and what the device was
//! left with; and a lab's sessions as a criterion × device matrix linking to each.

use std::fmt::Write;

use super::compare::{criteria_table, distributions};
use super::{FOOT, escape, head, name, said, scrolling};
use crate::report::ab_lab_rows;
use crate::report::headline;
use crate::schema::{AbLabReport, AbRecord, Comparison, files};

/// The page of one session, its links relative to the session's folder.
pub(crate) fn ab_html(record: &AbRecord, comparison: &Comparison) -> String {
    let mut page = head(
        "A/B",
        "Same-device A/B",
        record.regression.as_str(),
        &headline::ab(record),
    );
    let _ = write!(
        page,
        "<table class=\"facts\"><tr><th>device</th><td>{}</td></tr>",
        name(&record.serial)
    );
    for (label, arm) in [
        ("baseline", &record.baseline),
        ("candidate", &record.candidate),
    ] {
        let folder = arm
            .report
            .rsplit_once('/')
            .map_or(String::new(), |(dir, _)| format!("{dir}/"));
        let _ = write!(
            page,
            "<tr><th>{label}</th><td>{}{} · sha256:{} · {} run(s) · against the pack: <b>{}</b> · <a href=\"{}\">its audit</a> (<a href=\"{}\">page</a>)</td></tr>",
            escape(&arm.hap),
            arm.version
                .as_ref()
                .map_or_else(String::new, |v| format!(" · {}", said(&v.to_string()))),
            escape(&arm.sha256),
            arm.runs,
            arm.verdict.as_str(),
            escape(&arm.report),
            escape(&format!("{folder}{}", files::AUDIT_HTML)),
        );
    }
    let _ = write!(
        page,
        "<tr><th>left installed</th><td>{}</td></tr><tr><th>comparison</th><td><a href=\"{}\">{}</a> · <a href=\"{}\">{}</a></td></tr><tr><th>dwpipe</th><td>{} · runs per arm asked {}, at most {}</td></tr></table>",
        escape(&record.left_installed.to_string()),
        escape(&record.comparison),
        escape(&record.comparison),
        escape(files::COMPARISON_HTML),
        escape(files::COMPARISON_HTML),
        escape(&record.dwpipe_version),
        record.runs[0],
        record.runs[1],
    );
    if let Some(why) = &record.unrecorded {
        let _ = write!(
            page,
            "<p><b>Not recorded in the history</b>: {}</p>",
            said(why)
        );
    }
    page.push_str("<section><h2>Blocks, in the order they ran</h2><p><small>Each block installs its build and discards one warm-up run before the runs it measures, so that neither build always runs first or on a cold device.</small></p>");
    let mut blocks = String::from(
        "<table><tr><th>block</th><th>build</th><th>runs measured</th><th>warm-up (not read)</th></tr>",
    );
    for (i, block) in record.blocks.iter().enumerate() {
        let _ = write!(
            blocks,
            "<tr><td>{}</td><td>{}</td><td>{}–{}</td><td><a href=\"{}\">{}</a></td></tr>",
            i + 1,
            block.arm.as_str(),
            block.runs[0],
            block.runs[1],
            escape(&block.warm_up),
            escape(&block.warm_up)
        );
    }
    blocks.push_str("</table>");
    page.push_str(&scrolling(&blocks));
    page.push_str("</section><section><h2>The candidate against the baseline</h2>");
    page.push_str(&scrolling(&criteria_table(comparison)));
    page.push_str("</section>");
    for c in comparison.criteria.iter().filter(|c| c.floor.is_some()) {
        page.push_str(&distributions(c));
    }
    page.push_str(FOOT);
    page
}

/// The page of a lab's sessions, each device's column linking to its session's page.
pub(crate) fn ab_lab_html(report: &AbLabReport) -> String {
    let mut page = head(
        "A/B lab",
        "Same-device A/B lab",
        report.verdict.as_str(),
        &headline::ab_lab(report),
    );
    // The two builds, as the release engineer knows them: version and digest.
    if !report.builds.is_empty() {
        page.push_str("<table class=\"facts\">");
        for build in &report.builds {
            let _ = write!(
                page,
                "<tr><th>{}</th><td>{} · {} · sha256:{}</td></tr>",
                build.arm.as_str(),
                escape(&build.hap),
                said(&build.version.to_string()),
                escape(&build.sha256),
            );
        }
        page.push_str("</table>");
    }
    let rows = ab_lab_rows(report);
    let mut table = String::from("<table>");
    for (i, row) in rows.iter().enumerate() {
        table.push_str("<tr>");
        for (column, cell) in row.iter().enumerate() {
            let device = column.checked_sub(1).and_then(|d| report.devices.get(d));
            match (i, device) {
                (0, Some(device)) if device.error.is_none() => {
                    let _ = write!(
                        table,
                        "<th><a href=\"{}/ab.html\">{}</a></th>",
                        escape(&device.folder),
                        name(cell)
                    );
                }
                (0, _) => {
                    let _ = write!(table, "<th>{}</th>", name(cell));
                }
                (_, None) => {
                    let _ = write!(table, "<td>{}</td>", name(cell));
                }
                (_, Some(_)) => {
                    let word = cell.split_whitespace().next().unwrap_or("");
                    let class = match word {
                        "pass" | "same" | "improved" => "pass",
                        "fail" | "regressed" => "fail",
                        _ => "amber",
                    };
                    let _ = write!(table, "<td class=\"{class}\">{}</td>", name(cell));
                }
            }
        }
        table.push_str("</tr>");
    }
    table.push_str("</table>");
    page.push_str(&scrolling(&table));
    for device in &report.devices {
        if let Some(error) = &device.error {
            let _ = write!(
                page,
                "<p><b>{}</b> stopped: {}</p>",
                name(&device.serial),
                said(error)
            );
        }
        if let Some(left) = &device.left_installed {
            let _ = write!(
                page,
                "<p><b>{}</b>: {}</p>",
                name(&device.serial),
                escape(&left.to_string())
            );
        }
        if let Some(why) = &device.unrecorded {
            let _ = write!(
                page,
                "<p><b>{}</b> not recorded in the history: {}</p>",
                name(&device.serial),
                said(why)
            );
        }
    }
    for server in &report.unreachable {
        let _ = write!(
            page,
            "<p><b>hdc server {}</b> did not answer (its devices were not compared): {}</p>",
            name(&server.server),
            said(&server.reason)
        );
    }
    page.push_str(FOOT);
    page
}
