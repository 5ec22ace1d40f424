//! The pieces every page is made of: its head and style, SVG openings, escaping, base64 images.

use crate::report::headline::Headline;

/// The smallest touch target the platform accepts (vp); smaller ones are drawn in red.
pub(super) const TOUCH_BASELINE_VP: f64 = 48.0;

/// The pages' shared look: verdict colours, the banner, bordered tables that scroll sideways
/// on a narrow screen with their first column kept in view, charts that shrink to fit.
pub(super) const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d1d1f}main{max-width:1200px}\
h1 .pass{color:#1a7f37}h1 .fail{color:#cf222e}h1 .amber{color:#7d4e00}\
p.banner{padding:10px 14px;border-radius:6px;font-size:16px;font-weight:600}p.banner.pass{background:#dafbe1;color:#116329}\
p.banner.fail{background:#ffebe9;color:#a40e26}p.banner.amber{background:#fff8c5;color:#6b4200}\
div.scroll{overflow-x:auto;max-width:100%}div.scroll td:first-child,div.scroll th:first-child{position:sticky;left:0;background:#fff;box-shadow:inset -1px 0 #d0d7de}\
table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}\
td.pass{background:#dafbe1}td.fail,td.error,td.regressed{background:#ffebe9}td.unverified,td.amber,td.not-measured{background:#fff8c5}\
section{margin-top:28px}small{color:#57606a}div.chart{overflow-x:auto;max-width:100%}figure.screen svg{max-width:100%;height:auto}p,li,h2,table.facts td{overflow-wrap:anywhere}\
table.facts th{background:#f6f8fa;font-weight:600}ul.failed li,ul.diagnostics li,ul.unverified li{margin:6px 0}a{color:#0969da}\
ul.diagnostics li.fail code{color:#cf222e}ul.diagnostics li.warn code{color:#9a6700}details{margin:6px 0}\
figure.screen{display:inline-block;max-width:100%;box-sizing:border-box;margin:0;padding:8px;border:1px solid #d0d7de;border-radius:6px;background:#f6f8fa}";

/// The start of a page: its title, the shared style, the heading with the verdict and the
/// banner that says it in one line; the page's content follows inside `<main>`.
pub(crate) fn head(kind: &str, heading: &str, verdict: &str, headline: &Headline) -> String {
    let verdict = escape(verdict);
    let tone = headline.tone.class();
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>dwpipe {kind}: {verdict}</title>\n<style>{STYLE}</style></head>\n<body><main><h1>{heading}: <span class=\"{tone}\">{verdict}</span></h1>\n<p class=\"banner {tone}\" role=\"status\">{}</p>\n",
        escape(&headline.text)
    )
}

/// The end of a page.
pub(crate) const FOOT: &str = "</main></body></html>\n";

/// A table that scrolls sideways on a narrow screen, its first column kept in view (and
/// reachable by keyboard, so that a reader without a pointer can scroll it too).
pub(crate) fn scrolling(table: &str) -> String {
    format!("<div class=\"scroll\" tabindex=\"0\">{table}</div>")
}

/// The opening tag of a chart `width` × `height` units big that scales to the page's width,
/// labelled for a screen reader as one picture (its data is in a table beside it).
pub(crate) fn svg_open(width: f64, height: f64, label: &str) -> String {
    svg_open_as("img", width, height, label)
}

/// As [`svg_open`], with its role: `group` for a chart whose marks are links (the content of
/// an `img` is not reachable, so links inside one would be lost to a keyboard).
pub(crate) fn svg_open_as(role: &str, width: f64, height: f64, label: &str) -> String {
    // Drawn in a narrow frame (`CHART_WIDTH` units, labels of at least 13) and
    // scaled to the page: on a 400 px phone (352 px of content) a label is still 9.5 px and
    // the whole chart is on the screen; on a wide one it grows to at most 1.25 times.
    // Close it with [`SVG_CLOSE`].
    format!(
        "<div class=\"chart\"><svg width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" style=\"width:100%;height:auto;max-width:{1:.0}px\" xmlns=\"http://www.w3.org/2000/svg\" role=\"{role}\" aria-label=\"{0}\">",
        escape(label),
        width * 1.25,
    )
}

/// How wide every chart is drawn, in its own units; its labels are at least 13 units, 9.5 px
/// on a phone.
pub(crate) const CHART_WIDTH: f64 = 480.0;

/// Closes a chart [`svg_open_as`] opened.
pub(crate) const SVG_CLOSE: &str = "</svg></div>";

/// Text made safe for HTML content and attributes (a control character written as its
/// escape: a NUL or an ESC from a device is shown, never passed on).
pub(crate) fn escape(text: &str) -> String {
    crate::text::without_controls(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// A name a device or a server gave (a serial, a model), escaped and at most a column wide.
pub(crate) fn name(text: &str) -> String {
    escape(&crate::text::one_line(text, crate::text::CELL))
}

/// A sentence a device or a file said (an error), escaped, on one line of bounded length.
pub(crate) fn said(text: &str) -> String {
    escape(&crate::text::one_line(text, crate::text::LINE))
}

pub(super) fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
