//! `ab-lab.md`, and the rows the terminal prints: a lab's A/B matrix for people — both
//! verdicts per device, then each criterion's regression verdict with its delta.

use std::fmt::Write;

use crate::schema::{AbCell, AbLabReport};
use crate::text::{CELL, LINE, one_line};

/// The matrix as text rows: the header, the two verdicts, then every criterion.
pub(crate) fn rows(report: &AbLabReport) -> Vec<Vec<String>> {
    let mut rows = vec![
        std::iter::once("criterion".to_owned())
            .chain(report.devices.iter().map(|d| d.serial.clone()))
            .collect(),
        std::iter::once("against the pack".to_owned())
            .chain(report.devices.iter().map(|d| {
                d.absolute
                    .map_or_else(|| "stopped".to_owned(), |v| v.as_str().to_owned())
            }))
            .collect(),
        std::iter::once("against the baseline".to_owned())
            .chain(report.devices.iter().map(|d| {
                d.regression
                    .map_or_else(|| "stopped".to_owned(), |v| v.as_str().to_owned())
            }))
            .collect::<Vec<String>>(),
    ];
    let mut ids: Vec<&str> = Vec::new();
    for cell in report.devices.iter().flat_map(|d| &d.criteria) {
        if !ids.contains(&cell.criterion_id.as_str()) {
            ids.push(&cell.criterion_id);
        }
    }
    for id in ids {
        let mut row = vec![id.to_owned()];
        for device in &report.devices {
            row.push(
                device
                    .criteria
                    .iter()
                    .find(|c| c.criterion_id == id)
                    .map_or_else(|| "—".to_owned(), cell_text),
            );
        }
        rows.push(row);
    }
    rows
}

/// The Markdown text of the matrix (`ab-lab.md`).
pub(crate) fn markdown(report: &AbLabReport) -> String {
    let rows = rows(report);
    let mut md = format!("# Same-device A/B: {}\n\n", report.verdict.as_str());
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row
            .iter()
            .map(|c| one_line(c, CELL).replace('|', "\\|"))
            .collect();
        let _ = writeln!(md, "| {} |", cells.join(" | "));
        if i == 0 {
            let _ = writeln!(md, "|{}", "---|".repeat(row.len()));
        }
    }
    md.push('\n');
    for device in &report.devices {
        let serial = one_line(&device.serial, CELL);
        match &device.error {
            Some(error) => {
                let _ = writeln!(md, "- `{serial}` stopped: {}", one_line(error, LINE));
            }
            None => {
                let _ = writeln!(
                    md,
                    "- `{serial}`: [comparison]({}/compare.md), [session]({}/ab.json)",
                    device.folder, device.folder
                );
            }
        }
        if let Some(why) = &device.unrecorded {
            let _ = writeln!(
                md,
                "- `{serial}` not recorded in the history: {}",
                one_line(why, LINE)
            );
        }
    }
    for down in &report.unreachable {
        let _ = writeln!(
            md,
            "- hdc server `{}` did not answer (its devices were not compared): {}",
            one_line(&down.server, CELL),
            one_line(&down.reason, LINE)
        );
    }
    md
}

/// `regressed +69 ms (+9.8%)`.
fn cell_text(cell: &AbCell) -> String {
    match cell.delta {
        Some(_) => format!(
            "{} {}",
            cell.verdict,
            crate::report::numbers::delta(cell.delta, cell.delta_pct, cell.unit.as_deref())
        ),
        None => cell.verdict.as_str().to_owned(),
    }
}
