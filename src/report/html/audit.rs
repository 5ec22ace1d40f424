//! An audit's page: its banner, its criteria, what was not verified, its diagnostics and its
//! failures' evidence.

use super::{FOOT, escape, head, scrolling};
use crate::audit::Figures;
use crate::pack::Pack;
use crate::report::html::Page;
use crate::schema::AuditReport;
use std::fmt::Write;

/// The page's markup.
pub(super) fn render(view: &Page) -> String {
    let mut page = head("audit", "Audit", view.verdict, &view.headline);
    page.push_str("<table class=\"facts\">");
    for (label, text) in &view.facts {
        let _ = write!(page, "<tr><th>{label}</th><td>{}</td></tr>", escape(text));
    }
    if let Some(links) = &view.lock {
        let _ = write!(
            page,
            "<tr><th>criteria</th><td><a href=\"{}\">spec.md</a> · <a href=\"{}\">{}</a></td></tr>",
            escape(&links.spec),
            escape(&links.lock),
            escape(&links.lock)
        );
    }
    page.push_str("</table>");
    page.push_str(&scrolling(&criteria_table(view)));
    page.push_str(&failures(view));
    page.push_str(&not_verified(view));
    page.push_str(&diagnostics(view));
    for chart in &view.cold_starts {
        page.push_str(&super::charts::cold_start(chart));
    }
    for chart in &view.frames {
        page.push_str(&super::charts::frames(chart));
    }
    if let Some(screen) = &view.screen {
        page.push_str(&super::overlay::screen(screen));
    }
    for strip in &view.flows {
        page.push_str(&super::flows::strip(strip));
    }
    page.push_str(&super::trends::trends(&view.trends));
    page.push_str(FOOT);
    page
}

/// Every criterion's row, failing ones first.
pub(super) fn criteria_table(view: &Page) -> String {
    let mut page = String::from(
        "<table><tr><th>criterion</th><th>result</th><th>actual</th><th>expected</th><th>statement</th><th>dimension</th><th>weight</th><th>recomputed</th><th>evidence</th></tr>",
    );
    // The result beside the criterion (the column kept in view on a phone), then what was
    // measured against what: the verdict needs no sideways scroll.
    for row in &view.rows {
        let (result, recomputed) = (row.result, row.recomputed);
        // A pass with a warning is marked, and not in a clean pass's green.
        let (class, marked) = match (result, row.warnings.as_slice()) {
            (_, []) => (result, String::new()),
            ("pass", codes) => ("amber", warned(codes)),
            (_, codes) => (result, warned(codes)),
        };
        let _ = write!(
            page,
            "<tr><td>{}</td><td class=\"{class}\">{result}{marked}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{recomputed}\">{recomputed}{}</td><td><small>{}</small></td></tr>",
            escape(row.criterion_id),
            escape(row.actual.unwrap_or("—")),
            escape(row.expected.unwrap_or("—")),
            escape(row.statement.unwrap_or("—")),
            row.dimension,
            row.weight,
            row.reason
                .as_ref()
                .map_or_else(String::new, |r| format!("<br><small>{}</small>", escape(r))),
            escape(row.evidence)
        );
    }
    page.push_str("</table>");
    page
}

/// A row's warnings under its result: `⚠ W_MEASUREMENT_UNSTABLE`.
fn warned(codes: &[&str]) -> String {
    format!("<br><small>⚠ {}</small>", escape(&codes.join(", ")))
}

/// The criteria not verified, each with why: a must among them fails the audit.
pub(super) fn not_verified(view: &Page) -> String {
    if view.unverified.is_empty() {
        return String::new();
    }
    let mut html = String::from("<section><h2>Not verified</h2><ul class=\"unverified\">");
    for (id, why) in &view.unverified {
        let _ = write!(html, "<li><b>{}</b>: {}</li>", escape(id), escape(why));
    }
    html.push_str("</ul></section>");
    html
}

/// Every error and warning, with its code and how to fix it.
pub(super) fn diagnostics(view: &Page) -> String {
    if view.diagnostics.is_empty() {
        return String::new();
    }
    let mut html = String::from("<section><h2>Errors and warnings</h2><ul class=\"diagnostics\">");
    for d in &view.diagnostics {
        let class = match d.severity {
            crate::diagnostic::Severity::Error => "fail",
            crate::diagnostic::Severity::Warning => "warn",
        };
        let _ = write!(
            html,
            "<li class=\"{class}\"><code>{}</code>{}: {}{}</li>",
            escape(&d.code),
            d.criterion_id
                .as_ref()
                .map_or_else(String::new, |c| format!(" ({})", escape(c))),
            escape(&d.message),
            d.fix.as_ref().map_or_else(String::new, |f| format!(
                "<br><small>fix: {}</small>",
                escape(f)
            ))
        );
    }
    html.push_str("</ul></section>");
    html
}

/// What failed, each with its measured value, the threshold, why, and its evidence files.
pub(super) fn failures(view: &Page) -> String {
    if view.failures.is_empty() {
        return String::new();
    }
    let mut html = String::from("<section><h2>What failed</h2><ul class=\"failed\">");
    for f in &view.failures {
        let _ = write!(
            html,
            "<li><b>{}</b>{}: measured <b>{}</b>, threshold <b>{}</b>{}",
            escape(f.criterion_id),
            f.statement
                .map_or_else(String::new, |s| format!(" ({})", escape(s))),
            escape(f.actual.unwrap_or("nothing")),
            escape(f.expected.unwrap_or("none")),
            f.reason
                .map_or_else(String::new, |r| format!(" — {}", escape(r)))
        );
        for (run, files) in &f.files {
            let links: Vec<String> = files
                .iter()
                .map(|path| {
                    let name = path.rsplit('/').next().unwrap_or(path);
                    format!("<a href=\"{}\">{}</a>", escape(path), escape(name))
                })
                .collect();
            let _ = write!(
                html,
                "<br><small>run {run} evidence: {}</small>",
                links.join(" · ")
            );
        }
        html.push_str("</li>");
    }
    html.push_str("</ul></section>");
    html
}

/// Renders the page of an audit report with the figures its audit decoded.
pub fn html(report: &AuditReport, figures: &Figures, pack: &Pack) -> String {
    render(&Page::new(report, figures, pack))
}
