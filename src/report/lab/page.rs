//! `lab.html`: the matrix as one self-contained page, each device linking to its own report.

use crate::report::headline;
use crate::report::html::{FOOT, escape, head, name, said, scrolling};
use std::fmt::Write;

use crate::schema::{Cell, LabReport, files};

/// `lab.html`: the matrix as one self-contained page, each device linking to its own report.
pub(crate) fn html(report: &LabReport) -> String {
    let mut page = head(
        "lab",
        "Lab audit",
        report.verdict.as_str(),
        &headline::lab(report),
    );
    let _ = write!(
        page,
        "<p><small>pack sha256:{} · {} device(s)</small></p>",
        escape(&report.pack_sha256),
        report.devices.len(),
    );
    page.push_str(&scrolling(&matrix(report)));
    for device in report.devices.iter().filter(|d| d.error.is_some()) {
        let _ = write!(
            page,
            "<p><b>{}</b>: {}</p>",
            name(&device.name()),
            said(device.error.as_deref().unwrap_or_default())
        );
    }
    for device in report.devices.iter().filter(|d| d.unrecorded.is_some()) {
        let _ = write!(
            page,
            "<p><b>{}</b>: not recorded in the history: {}</p>",
            name(&device.name()),
            said(device.unrecorded.as_deref().unwrap_or_default())
        );
    }
    for server in &report.unreachable {
        let _ = write!(
            page,
            "<p><b>hdc server {}</b> did not answer: {} (its devices are in no column)</p>",
            name(&server.server),
            said(&server.reason)
        );
    }
    page.push_str(FOOT);
    page
}

/// The criterion × device table, with each device's verdict under its column.
fn matrix(report: &LabReport) -> String {
    // One first column, the only sticky one: on a phone the device columns scroll under the
    // criterion, never under a wider header that would hide their verdicts.
    let mut page = String::from("<table><tr><th scope=\"col\">criterion</th>");
    for device in &report.devices {
        let serial = name(&device.name());
        let about = [
            device.model.as_deref(),
            device.software_version.as_deref(),
            Some(device.server.as_str()),
        ]
        .into_iter()
        .flatten()
        .map(name)
        .collect::<Vec<_>>()
        .join(" · ");
        match &device.report {
            Some(json) => {
                let html = json
                    .strip_suffix(files::DEVICE_AUDIT)
                    .map_or_else(|| json.clone(), |dir| format!("{dir}{}", files::AUDIT_HTML));
                let _ = write!(
                    page,
                    "<th><a href=\"{}\">{serial}</a><br><small>{about}</small></th>",
                    escape(&html)
                );
            }
            None => {
                let _ = write!(page, "<th>{serial}<br><small>{about}</small></th>");
            }
        }
    }
    page.push_str("</tr>");
    for row in &report.rows {
        let _ = write!(
            page,
            "<tr><th scope=\"row\">{}<br><small>{} · {}</small></th>",
            escape(&row.criterion_id),
            escape(&row.dimension),
            escape(&row.weight)
        );
        for (i, result) in row.results.iter().enumerate() {
            let class = match result {
                Cell::NoReport => "error",
                other => other.as_str(),
            };
            let detail = row
                .details
                .get(i)
                .and_then(Option::as_deref)
                .map_or_else(String::new, |d| format!("<br><small>{}</small>", said(d)));
            let _ = write!(
                page,
                "<td class=\"{}\">{}{detail}</td>",
                escape(class),
                escape(result.as_str())
            );
        }
        page.push_str("</tr>\n");
    }
    page.push_str("<tr><th scope=\"row\">device verdict</th>");
    for device in &report.devices {
        let verdict = escape(device.said());
        // Why it has no report, where a reader sees it (a title alone is hidden on a phone).
        let why = device
            .error
            .as_deref()
            .map_or_else(String::new, |e| format!("<br><small>{}</small>", said(e)));
        let _ = write!(
            page,
            "<td class=\"{}\"><b>{verdict}</b>{why}</td>",
            device.class()
        );
    }
    page.push_str("</tr></table>");
    page
}
