//! A delivery's page, `deliver.html` in its run folder: how it ended and why, the agent's claim
//! beside what was measured, every round's stages with their outcomes, and the last audit's
//! criteria, each report linked relative to the run folder.

use std::fmt::Write;

use super::{FOOT, escape, head, scrolling};
use crate::report::headline::{Headline, Tone};
use crate::schema::{DeliverReport, TerminalReason};

/// One line of the run's ledger, as the page shows it.
pub(crate) struct Step {
    /// `review`, `brief`, `agent`, `verify`, `audit`, `deliver`.
    pub(crate) stage: &'static str,
    /// Its round (0 for the first), when it has one.
    pub(crate) round: Option<u32>,
    /// Its outcome in the ledger's word (`pass`, `fail`, `exited 0`, …).
    pub(crate) outcome: String,
    /// How long it took, in seconds.
    pub(crate) seconds: f64,
    /// Why, when the ledger says.
    pub(crate) reason: Option<String>,
    /// What the stage wrote, relative to the run folder (a verification's report, an audit's
    /// page, or its folder when it stopped short of one).
    pub(crate) link: Option<String>,
}

/// Where the last audit measured: `device FMR… (ALN-AL00)`, or `a replay of the capture …`
/// (the terminal and the PR summary say so too).
fn measured_on(report: &DeliverReport) -> Option<String> {
    let sources: Vec<String> = report
        .sources
        .iter()
        .map(|s| {
            if s.is_replay() {
                format!("a replay of {s}")
            } else {
                s.to_string()
            }
        })
        .collect();
    (!sources.is_empty()).then(|| format!("on {}", sources.join(", ")))
}

/// The page's markup.
pub(crate) fn deliver_html(report: &DeliverReport, steps: &[Step]) -> String {
    let verified = report.terminal_reason == TerminalReason::Verified;
    let measured = if verified {
        "the last audit passed"
    } else {
        "not verified"
    };
    let claim = report.agent_claim.map_or("nothing", |c| c.as_str());
    let headline = Headline {
        tone: match report.terminal_reason {
            TerminalReason::Verified => Tone::Pass,
            TerminalReason::EnvironmentError | TerminalReason::Interrupted => Tone::Amber,
            _ => Tone::Fail,
        },
        text: format!(
            "{}: {} {}; the agent said {claim}, dwpipe measured: {measured}{}{}",
            report.terminal_reason.as_str().to_uppercase(),
            report.terminal_reason,
            report.repairs_said(),
            measured_on(report).map_or_else(String::new, |on| format!(" — {on}")),
            report
                .detail
                .as_deref()
                .map_or_else(String::new, |d| format!(" — {d}"))
        ),
    };
    let mut page = head(
        "delivery",
        "Delivery",
        report.terminal_reason.as_str(),
        &headline,
    );
    page.push_str("<table class=\"facts\">");
    let facts = [
        ("why it ended", Some(report.terminal_reason.to_string())),
        ("detail", report.detail.clone()),
        ("the agent's claim", Some(claim.to_owned())),
        ("its run ended", report.agent_ending.clone()),
        ("measured", Some(measured.to_owned())),
        ("measured on", measured_on(report)),
        ("repair rounds", Some(report.repairs.to_string())),
        ("pack", Some(format!("sha256:{}", report.pack_sha256))),
        (
            "still failing",
            (!report.unresolved.is_empty()).then(|| report.unresolved.join(", ")),
        ),
    ];
    for (label, text) in facts {
        if let Some(text) = text {
            let _ = write!(page, "<tr><th>{label}</th><td>{}</td></tr>", escape(&text));
        }
    }
    page.push_str("</table>");
    page.push_str(&rounds(steps));
    if !report.criteria.is_empty() {
        let _ = write!(
            page,
            "<section><h2>The last audit{}</h2>",
            report
                .audit_round
                .map_or_else(String::new, |r| format!(" (round {r})"))
        );
        let mut table = String::from(
            "<table><tr><th scope=\"col\">criterion</th><th scope=\"col\">result</th></tr>",
        );
        for (id, result) in &report.criteria {
            let word = result.split([':', ' ']).next().unwrap_or_default();
            let _ = write!(
                table,
                "<tr><td>{}</td><td class=\"{}\">{}</td></tr>",
                escape(id),
                escape(word),
                escape(result)
            );
        }
        table.push_str("</table>");
        page.push_str(&scrolling(&table));
        page.push_str("</section>");
    }
    let signed: Vec<&str> = report.attestations().collect();
    if !signed.is_empty() {
        page.push_str("<section><h2>Attestation</h2><p>The last audit, signed as in-toto statements (SLSA's verification summary and dwpipe's verdict) about the HAPs it installed. Check one with <code>dwpipe verify-attestation FILE --key KEY.pub.pem --evidence FOLDER</code>.</p><ul>");
        for path in signed {
            let _ = write!(page, "<li><a href=\"{0}\">{0}</a></li>", escape(path));
        }
        page.push_str("</ul></section>");
    }
    if !report.reports.is_empty() {
        page.push_str("<section><h2>Reports</h2><ul>");
        for path in &report.reports {
            let _ = write!(page, "<li><a href=\"{0}\">{0}</a></li>", escape(path));
        }
        page.push_str("</ul></section>");
    }
    page.push_str(FOOT);
    page
}

/// Every round's stages: what each came to, how long it took, why, and a link to what it
/// wrote.
fn rounds(steps: &[Step]) -> String {
    let mut table = String::from(
        "<table><tr><th scope=\"col\">round</th><th scope=\"col\">stage</th><th scope=\"col\">outcome</th><th scope=\"col\">time</th><th scope=\"col\">why</th></tr>",
    );
    for step in steps {
        let class = match step.outcome.as_str() {
            "pass" | "verified" => "pass",
            "fail" => "fail",
            _ => "",
        };
        let stage = match &step.link {
            Some(link) => format!("<a href=\"{}\">{}</a>", escape(link), step.stage),
            None => step.stage.to_owned(),
        };
        let _ = write!(
            table,
            "<tr><td>{}</td><td>{stage}</td><td class=\"{class}\">{}</td><td>{:.1} s</td><td><small>{}</small></td></tr>",
            step.round
                .map_or_else(|| "—".to_owned(), |r| (r + 1).to_string()),
            escape(&step.outcome),
            step.seconds,
            escape(step.reason.as_deref().unwrap_or(""))
        );
    }
    table.push_str("</table>");
    format!("<section><h2>Rounds</h2>{}</section>", scrolling(&table))
}
