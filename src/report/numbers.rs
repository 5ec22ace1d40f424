//! Numbers as every page and summary prints them, so that one value reads the same in the
//! HTML, the Markdown and the terminal: at most three decimals with no trailing zeros, a sign
//! on a difference, p as a probability (never rounded to `0`).

use std::fmt::Write;

/// `32.398`, `700`, `0.5`; `—` for nothing.
pub(crate) fn num(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), trimmed)
}

fn trimmed(v: f64) -> String {
    let text = format!("{v:.3}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// `32.398 ms/s`, or `—`.
pub(crate) fn quantity(value: Option<f64>, unit: Option<&str>) -> String {
    match (value, unit) {
        // A contrast ratio is said as the platform and the pack say it: `4.5:1`.
        (Some(v), Some("ratio")) => format!("{}:1", trimmed(v)),
        (Some(v), Some(unit)) if !unit.is_empty() => format!("{} {unit}", trimmed(v)),
        _ => num(value),
    }
}

/// `+61.5 ms (+8.8%)`, or `—`.
pub(crate) fn delta(value: Option<f64>, pct: Option<f64>, unit: Option<&str>) -> String {
    let Some(v) = value else {
        return "—".to_owned();
    };
    let sign = if v > 0.0 { "+" } else { "" };
    // A difference of contrast ratios is a number, not a ratio of its own.
    let shown = match unit {
        Some("ratio") => trimmed(v),
        _ => quantity(Some(v), unit),
    };
    let mut text = format!("{sign}{shown}");
    if let Some(p) = pct {
        let _ = write!(text, " ({p:+.1}%)");
    }
    text
}

/// `0.0198`, `0.0002`, `1.1e-5`; `—`: as the comparison's reason words it (`p = 0.0002 ≤
/// 0.05`), so the table and the why beside it read the same.
pub(crate) fn p_value(p: Option<f64>) -> String {
    match p {
        None => "—".to_owned(),
        Some(p) if p < 1e-4 => format!("{p:.1e}"),
        Some(p) => format!("{p:.4}"),
    }
}

/// A compared criterion's numbers as every form shows them (the page, the Markdown, the
/// summary): each arm's median with its n, the delta, its interval, p and the floor.
pub(crate) struct ComparedCells {
    pub(crate) baseline: String,
    pub(crate) candidate: String,
    pub(crate) delta: String,
    pub(crate) interval: String,
    pub(crate) p: String,
    pub(crate) floor: String,
}

impl ComparedCells {
    pub(crate) fn of(c: &crate::schema::Compared) -> ComparedCells {
        let unit = c.unit.as_deref();
        let arm =
            |arm: &crate::schema::ArmStats| format!("{} ({})", quantity(arm.median, unit), arm.n);
        ComparedCells {
            baseline: arm(&c.baseline),
            candidate: arm(&c.candidate),
            delta: delta(c.delta, c.delta_pct, unit),
            interval: c.ci95.map_or_else(
                || "—".to_owned(),
                |[lo, hi]| format!("[{}, {}]", num(Some(lo)), quantity(Some(hi), unit)),
            ),
            p: p_value(c.p),
            floor: c.floor.map_or_else(
                || "—".to_owned(),
                |f| format!("±{}", quantity(Some(f), unit)),
            ),
        }
    }
}

#[cfg(test)]
mod tests;
