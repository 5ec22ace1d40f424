//! Every page dwpipe writes, in a real browser. Headless Chromium renders the page of a
//! failing audit (the screenshot must show the page's styling and charts, the DOM the inline
//! SVG and the embedded screenshot, nothing fetched from the network); then every page kind
//! made from the bundled fixtures — an audit that passes, one that fails, a pass with unstable
//! runs, a flow, a lab complete and incomplete, a comparison, an A/B session and an A/B lab, a
//! trend — each in a 400 px window with a measuring script: its banner, no chart label cut by
//! its drawing's edge or lying on another, no horizontal overflow, and the accessibility
//! engine axe-core with no serious or critical violation.
//!
//! Needs Debian's `chromium` and axe-core (`.ci/browser-deps` installs both):
//! `cargo test --features browser --test integration browser::`.

#![cfg(feature = "browser")]

use std::path::Path;
use std::process::Command;

use crate::support::Test;
use dwpipe::probe::screenshot::Image;

const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

fn chromium(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("chromium")
        .args(CHROMIUM_FLAGS)
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .args(args)
        .output()
        .expect("chromium is installed (apt-get install chromium)")
}

#[test]
fn the_html_report_renders_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let pack = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/notes/pack.yaml");
    let capture = Path::new(env!("CARGO_MANIFEST_DIR")).join("device-fixtures/notes-fail");
    Test::new(dir.path())
        .args(["freeze", pack.to_str().unwrap()])
        .run();
    Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            capture.to_str().unwrap(),
            "--out",
            "out",
        ])
        .status(1)
        .run();
    let page = format!("file://{}", dir.path().join("out/report.html").display());

    let dom = chromium(dir.path(), &["--dump-dom", &page]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains("<svg") && dom.contains("data:image/png;base64,"),
        "inline SVG and screenshot"
    );
    assert!(
        dom.contains("P-01 cold start: 1200ms") && dom.contains("frame intervals"),
        "charts present"
    );
    assert!(
        dom.contains("Flow open-note") && dom.contains("≤ 900 ms") && !dom.contains("1600 ms fail"),
        "the flow's filmstrip and its time axis, against the pack's own thresholds"
    );
    for drawn in [
        "threshold 800 ms",
        ">1500</text>",
        ">frames</text>",
        "budget 16.67 ms",
        ">58</text>",
        "What failed",
        "href=\"evidence/FMR0223C13000649/spec.md\"",
        "href=\"evidence/FMR0223C13000649/1/cold-start/trace.ftrace\"",
    ] {
        assert!(dom.contains(drawn), "{drawn} is on the page");
    }
    // The spec it links is the copy the audit folder keeps.
    assert!(
        dir.path()
            .join("out/evidence/FMR0223C13000649/spec.md")
            .is_file()
    );
    for fetch in ["src=\"http", "href=\"http", "url(http", "<script", "<link"] {
        assert!(
            !dom.contains(fetch),
            "the page must not fetch anything: found {fetch}"
        );
    }

    let shot = dir.path().join("shot.png");
    let output = chromium(
        dir.path(),
        &[
            "--window-size=900,1800",
            &format!("--screenshot={}", shot.display()),
            &page,
        ],
    );
    assert!(
        shot.is_file(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let image = Image::decode(&std::fs::read(&shot).unwrap()).unwrap();
    assert_eq!((image.width, image.height), (900, 1800));
    let count = |colour: [u8; 3]| image.rgb.iter().filter(|px| **px == colour).count();
    assert!(
        count([0xcf, 0x22, 0x2e]) > 50,
        "the red of the failed verdict and the dropped frames"
    );
    assert!(
        count([0xff, 0xeb, 0xe9]) > 1000,
        "the failed cells' background: the stylesheet applied"
    );
    assert!(
        count([0x09, 0x69, 0xda]) > 500,
        "the blue of the charts and boxes"
    );
}

/// The measuring script's findings on one page.
struct Measured {
    /// `checked N: [...]`: chart labels cut by their drawing's edge.
    cut: String,
    /// `[...]`: chart labels lying on each other.
    overlaps: String,
    /// `WIDTH/VIEWPORT`: how wide the page laid out in the window.
    width: String,
    /// `[...]`: chart labels rendered smaller than 9 CSS px.
    small: String,
    /// axe-core's serious and critical violations, or why it did not run.
    axe: String,
}

/// axe-core, as `.ci/browser-deps` installs it (or `DWPIPE_AXE`): outside CI a missing one
/// skips the accessibility check with a line; inside CI it fails.
#[track_caller]
fn axe() -> Option<String> {
    let path = std::env::var_os("DWPIPE_AXE").map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("target/browser-deps/node_modules/axe-core/axe.min.js")
        },
        std::path::PathBuf::from,
    );
    match std::fs::read_to_string(&path) {
        Ok(script) => Some(script),
        Err(_) if std::env::var_os("CI").is_some() => {
            panic!(
                "axe-core is missing at {} (run .ci/browser-deps)",
                path.display()
            )
        }
        Err(_) => {
            crate::support::skipped!(
                "the accessibility check (no axe-core at {}; run .ci/browser-deps)",
                path.display()
            );
            None
        }
    }
}

/// Renders `page` 400 CSS px wide with the measuring script (and axe-core) added. Headless
/// Chromium's window is at least 500 px wide, so the page is laid out in a 400 px frame of a
/// wrapper page, and tells the wrapper what it found.
#[track_caller]
fn measure(dir: &Path, page: &Path, axe: Option<&str>) -> Measured {
    let html = std::fs::read_to_string(page).unwrap();
    let measured = page.with_extension("measured.html");
    let mut scripts = format!("{SAY}{MEASURE}");
    if let Some(axe) = axe {
        scripts = format!("{scripts}<script>{axe}</script>{RUN_AXE}");
    }
    std::fs::write(
        &measured,
        html.replace("</body>", &format!("{scripts}</body>")),
    )
    .unwrap();
    let frame = page.with_extension("frame.html");
    std::fs::write(
        &frame,
        format!(
            "<!DOCTYPE html><html><body style=\"margin:0\"><iframe title=\"page\" src=\"{}\" style=\"width:400px;height:2400px;border:0\"></iframe>{LISTEN}</body></html>",
            measured.file_name().unwrap().to_string_lossy()
        ),
    )
    .unwrap();
    let dom = chromium(
        dir,
        &[
            "--window-size=900,2400",
            "--virtual-time-budget=20000",
            "--dump-dom",
            &format!("file://{}", frame.display()),
        ],
    );
    let dom = String::from_utf8_lossy(&dom.stdout).into_owned();
    let found = |id: &str| {
        dom.split(&format!("<pre id=\"{id}\">"))
            .nth(1)
            .and_then(|rest| rest.split("</pre>").next())
            .unwrap_or_else(|| panic!("the measuring script wrote no {id} on {}", page.display()))
            .replace("&quot;", "\"")
            .replace("&gt;", ">")
            .replace("&lt;", "<")
            .replace("&amp;", "&")
    };
    Measured {
        cut: found("cut"),
        overlaps: found("overlaps"),
        small: found("small"),
        width: found("width"),
        axe: if axe.is_some() {
            found("axe")
        } else {
            "[]".to_owned()
        },
    }
}

/// Every page kind from the bundled fixtures, with what its banner must say: `(name, page,
/// banner class, words in the banner)`.
#[track_caller]
fn every_page(root: &Path) -> Vec<(&'static str, std::path::PathBuf, &'static str, &'static str)> {
    use crate::support::{device, fake_hdc, fixture};
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let capture = |name: &str| {
        repo.join("device-fixtures")
            .join(name)
            .display()
            .to_string()
    };
    let frozen = |name: &str, pack: &Path| {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        Test::new(&dir)
            .args(["freeze", pack.to_str().unwrap()])
            .status(0)
            .run();
        dir
    };
    let replay = |dir: &Path, from: &str, out: &str, extra: &[&str], expected: i32| {
        let from = capture(from);
        let mut args = vec![
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            &from,
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        Test::new(dir).args(&args).status(expected).run();
        dir.join(out)
    };
    let mut pages = Vec::new();

    let example = frozen("example", &repo.join("examples/notes/pack.yaml"));
    let out = replay(&example, "notes-fail", "fail", &[], 1);
    pages.push((
        "audit that fails",
        out.join("report.html"),
        "fail",
        "FAIL: 7 of 9 failed (6 must, 1 should), 0 unverified — replay of the capture",
    ));
    let out = replay(&example, "notes-pass", "pass", &[], 0);
    pages.push((
        "audit that passes",
        out.join("report.html"),
        "pass",
        "PASS: 9 of 9 passed, 0 unverified — replay of",
    ));
    let out = replay(&example, "notes-unstable", "unstable", &[], 0);
    pages.push((
        "pass with unstable runs",
        out.join("report.html"),
        "amber",
        "PASS WITH WARNINGS",
    ));

    let editor = frozen("editor", &fixture("packs/editor.yaml"));
    let out = replay(&editor, "notes-editor-fail", "flow", &[], 1);
    pages.push(("a flow", out.join("report.html"), "fail", "FAIL:"));

    // A lab of `devices` (capture, serial) behind 10.0.0.1 and `servers`.
    let lab = |name: &str, devices: &[(&str, &str)], servers: &[&str], expected: i32| {
        let dir = frozen(name, &repo.join("examples/notes/pack.yaml"));
        let served: Vec<String> = devices
            .iter()
            .map(|(from, serial)| format!("10.0.0.1:8710={}", device(&dir, from, serial, false)))
            .collect();
        let mut args = vec!["--devices", "all", "--out", "lab"];
        for server in servers {
            args.extend(["--server", server]);
        }
        crate::lab::lab_audit(&dir, "hdc", &served, &args)
            .status(expected)
            .run();
        dir.join("lab/lab.html")
    };
    pages.push((
        "lab",
        lab(
            "lab",
            &[("notes-pass", "LAB01"), ("notes-fail", "LAB02")],
            &["10.0.0.1:8710"],
            1,
        ),
        "fail",
        "FAIL: 1 of 2 device(s) passed, 1 failed",
    ));
    pages.push((
        "lab incomplete",
        lab(
            "lab-incomplete",
            &[("notes-pass", "LAB01")],
            &["10.0.0.1:8710", "10.0.0.9:8710"],
            3,
        ),
        "amber",
        "INCOMPLETE: 1 of 1 device(s) passed, 0 failed — hdc server 10.0.0.9:8710 is unreachable",
    ));

    let cold = frozen("cold", &fixture("packs/cold-start.yaml"));
    for arm in ["base", "same", "slower"] {
        replay(
            &cold,
            &format!("regress-{arm}"),
            arm,
            &["--history", "history.sqlite"],
            0,
        );
    }
    let trend = replay(
        &cold,
        "regress-faster",
        "faster",
        &["--history", "history.sqlite"],
        0,
    );
    pages.push(("trend", trend.join("report.html"), "pass", "PASS"));

    // A delivery that ends not verified: its own page, rounds and all.
    let delivery = crate::support::delivery::project(
        crate::support::delivery::FIXING_AGENT,
        crate::support::delivery::SPACING,
        "notes-fail",
        "",
    );
    let (code, summary, stderr) = crate::support::delivery::deliver(delivery.path(), &[]);
    assert_eq!(code, 1, "{stderr}");
    let run = crate::support::delivery::run_dir(&summary, delivery.path());
    let kept = root.join("delivery");
    crate::support::copy_tree(&run, &kept);
    pages.push(("delivery", kept.join("deliver.html"), "fail", "NO_CHANGES"));
    Test::new(&cold)
        .args([
            "compare",
            "base/audit-1.json",
            "slower/audit-1.json",
            "--out",
            "compare",
        ])
        .status(1)
        .run();
    pages.push((
        "comparison",
        cold.join("compare/compare.html"),
        "fail",
        "REGRESSED: 1 of 1 criterion regressed",
    ));

    let ab = frozen("ab", &fixture("packs/cold-start.yaml"));
    let hdc = fake_hdc(&ab, "hdc", &[capture("ab-phone-4")], "");
    let args = crate::ab::ab_args(&ab, &hdc, &["--device", "AB0PHONE04"], "16");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Test::new(&ab).args(&args).status(1).run();
    pages.push((
        "A/B",
        ab.join("out/ab.html"),
        "fail",
        "REGRESSED against the baseline; the candidate PASSES the pack",
    ));

    let ab_lab = frozen("ab-lab", &fixture("packs/cold-start.yaml"));
    let phones: Vec<String> = [1, 4]
        .iter()
        .map(|i| format!("10.0.0.1:8710={}", capture(&format!("ab-phone-{i}"))))
        .collect();
    let hdc = fake_hdc(&ab_lab, "hdc", &phones, "");
    let args = crate::ab::ab_args(
        &ab_lab,
        &hdc,
        &["--devices", "all", "--server", "10.0.0.1:8710"],
        "16",
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Test::new(&ab_lab).args(&args).status(1).run();
    pages.push((
        "A/B lab",
        ab_lab.join("out/ab-lab.html"),
        "fail",
        "FAIL: 2 device(s); 1 regressed against the baseline",
    ));
    pages
}

/// Every page kind: its banner, its labels, its width at 400 px, and axe-core's verdict.
#[test]
fn every_page_reads_at_a_glance_on_a_phone_and_for_every_reader() {
    // `DWPIPE_KEEP_PAGES=DIR` keeps every page made here, to be looked at.
    let kept = std::env::var_os("DWPIPE_KEEP_PAGES").map(std::path::PathBuf::from);
    let dir = match &kept {
        Some(kept) => {
            std::fs::create_dir_all(kept).unwrap();
            tempfile::Builder::new()
                .prefix("pages-")
                .tempdir_in(kept)
                .unwrap()
                .keep()
        }
        None => tempfile::tempdir().unwrap().keep(),
    };
    let _cleanup = Cleanup(kept.is_none().then(|| dir.clone()));
    let axe = axe();
    let mut problems = Vec::new();
    for (name, page, tone, words) in every_page(&dir) {
        let html = std::fs::read_to_string(&page).unwrap();
        let banner = html
            .split("<p class=\"banner ")
            .nth(1)
            .and_then(|rest| rest.split("</p>").next())
            .unwrap_or_else(|| panic!("{name}: no banner"));
        if !banner.starts_with(&format!("{tone}\""))
            || !banner.contains(&words.replace('\'', "&#39;"))
        {
            problems.push(format!(
                "{name}: the banner is `{banner}`, wanted {tone} with `{words}`"
            ));
        }
        let shown = SHOWN
            .iter()
            .find(|(page, _)| *page == name)
            .map_or(&[][..], |(_, shown)| *shown);
        for must in ["<meta name=\"viewport\"", "<main>", "</main>"]
            .iter()
            .chain(shown)
        {
            if !html.contains(must) {
                problems.push(format!("{name}: no {must}"));
            }
        }
        let measured = measure(&dir, &page, axe.as_deref());
        if !measured.cut.ends_with(": []") {
            problems.push(format!(
                "{name}: labels cut by their drawing's edge: {}",
                measured.cut
            ));
        }
        if measured.overlaps != "[]" {
            problems.push(format!(
                "{name}: labels on top of each other: {}",
                measured.overlaps
            ));
        }
        if measured.small != "[]" {
            problems.push(format!(
                "{name}: chart labels under 9 px on a phone: {}",
                measured.small
            ));
        }
        let (width, viewport) = measured.width.split_once('/').unwrap();
        assert_eq!(viewport, "400", "{name}: laid out in a 400 px frame");
        if width.parse::<u32>().unwrap() > viewport.parse::<u32>().unwrap() {
            problems.push(format!("{name}: {width} px wide in a {viewport} px window"));
        }
        if measured.axe != "[]" {
            problems.push(format!("{name}: axe-core: {}", measured.axe));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What a page shows besides its banner: the replay label, the diagnostics with their codes,
/// the pack's thresholds, the builds.
const SHOWN: &[(&str, &[&str])] = &[
    (
        "audit that fails",
        &["<th>replay</th>", "What failed", "threshold 800 ms"],
    ),
    (
        "pass with unstable runs",
        &[
            "Errors and warnings",
            "<code>W_MEASUREMENT_UNSTABLE</code>",
            "⚠ W_MEASUREMENT_UNSTABLE",
        ],
    ),
    (
        "a flow",
        &["threshold: at most 900 ms", "threshold: at most 100 ms"],
    ),
    (
        "trend",
        &[
            "threshold: at most 1100 ms",
            "square: a replay",
            "the points as a table",
        ],
    ),
    ("comparison", &["replay of the capture", "700.5 ms (10)"]),
    (
        "A/B",
        &["version 1.1.0 (code 1001000)", "warm-up/1-baseline"],
    ),
    ("A/B lab", &["href=\"AB0PHONE04/ab.html\""]),
    ("lab incomplete", &["10.0.0.9:8710"]),
];

/// Names every `<text>` whose box leaves its `<svg>`'s drawing area (its viewBox, or its
/// width and height), in `<pre id="cut">checked N: [...]</pre>`; every two labels of one
/// drawing whose boxes overlap, in `<pre id="overlaps">`; and how wide the page laid out
/// against the window, in `<pre id="width">`.
const MEASURE: &str = r#"<script>
const cut = []; const overlaps = []; let checked = 0;
for (const svg of document.querySelectorAll('svg')) {
  const vb = svg.viewBox.baseVal;
  const box = vb && vb.width ? vb : {x: 0, y: 0, width: svg.width.baseVal.value, height: svg.height.baseVal.value};
  const boxes = [];
  for (const t of svg.querySelectorAll('text')) {
    checked++;
    const b = t.getBBox();
    if (b.x < box.x - 0.5 || b.y < box.y - 0.5 || b.x + b.width > box.x + box.width + 0.5 || b.y + b.height > box.y + box.height + 0.5) {
      cut.push(t.textContent + ' @' + [b.x, b.y, b.width, b.height].map(Math.round).join(','));
    }
    for (const [other, o] of boxes) {
      const w = Math.min(b.x + b.width, o.x + o.width) - Math.max(b.x, o.x);
      const h = Math.min(b.y + b.height, o.y + o.height) - Math.max(b.y, o.y);
      if (w > 1 && h > 1) overlaps.push(t.textContent + ' on ' + other);
    }
    boxes.push([t.textContent, b]);
  }
}
say('cut', 'checked ' + checked + ': ' + JSON.stringify(cut));
say('overlaps', JSON.stringify(overlaps));
say('width', document.documentElement.scrollWidth + '/' + window.innerWidth);
// Every chart label's size as rendered (its font size times the drawing's scale); the
// screenshot overlay is a picture of the phone's screen, its boxes also listed in words.
const small = [];
for (const svg of document.querySelectorAll('svg')) {
  if (svg.closest('figure.screen')) continue;
  const vb = svg.viewBox.baseVal;
  const scale = svg.getBoundingClientRect().width / (vb && vb.width ? vb.width : svg.width.baseVal.value);
  for (const t of svg.querySelectorAll('text')) {
    const px = parseFloat(getComputedStyle(t).fontSize) * scale;
    if (px < 9) small.push(t.textContent + ' ' + px.toFixed(1) + ' px');
  }
}
say('small', JSON.stringify(small));
</script>"#;

/// Tells the wrapper page one finding.
const SAY: &str = r#"<script>
const say = (id, text) => parent.postMessage({id, text}, '*');
</script>"#;

/// The wrapper page writes each finding its frame tells it as `<pre id="…">`.
const LISTEN: &str = r#"<script>
addEventListener('message', e => { const pre = document.createElement('pre'); pre.id = e.data.id; pre.textContent = e.data.text; document.body.appendChild(pre); });
</script>"#;

/// Runs axe-core on the page as it was written (the measuring notes excluded) and writes its
/// serious and critical violations, each with where, in `<pre id="axe">`.
const RUN_AXE: &str = r#"<script>
axe.run().then(r => {
  const bad = r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => v.id + ': ' + v.help + ' @ ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '));
  say('axe', JSON.stringify(bad));
}).catch(e => say('axe', 'axe failed: ' + e));
</script>"#;

/// Removes a folder when the test ends, unless it is to be kept.
struct Cleanup(Option<std::path::PathBuf>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Some(dir) = &self.0 {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
