//! `report.html` in a real browser: headless Chromium renders the page of a failing audit;
//! the screenshot must show the page's styling and charts, the DOM must hold the inline SVG
//! and the embedded screenshot (nothing fetched from the network), the charts their axes and
//! threshold lines, and no label of any chart may be cut by the edge of its drawing.
//!
//! Needs Debian's `chromium` (`.ci/run` installs it): `cargo test --features browser`.

#![cfg(feature = "browser")]

use std::path::Path;
use std::process::Command;

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
    assert_eq!(
        crate::support::dwpipe(dir.path(), &["freeze", pack.to_str().unwrap()]).0,
        0
    );
    let (code, _, stderr) = crate::support::dwpipe(
        dir.path(),
        &[
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            capture.to_str().unwrap(),
            "--out",
            "out",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
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
        dom.contains("Flow open-note") && dom.contains("1600 ms fail"),
        "the flow's filmstrip and its time axis"
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

    // Every label inside its drawing, as laid out by the browser: a copy of the page with a
    // script that measures each SVG text against its SVG's box.
    let html = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    let measured = dir.path().join("out/measured.html");
    std::fs::write(
        &measured,
        html.replace("</body>", &format!("{MEASURE}</body>")),
    )
    .unwrap();
    let dom = chromium(
        dir.path(),
        &["--dump-dom", &format!("file://{}", measured.display())],
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    let cut = dom
        .split("<pre id=\"cut\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .expect("the measuring script ran");
    assert!(cut.starts_with("checked "), "{cut}");
    assert!(
        cut.ends_with(": []"),
        "labels cut by their drawing's edge: {cut}"
    );

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

/// Names every `<text>` whose box leaves its `<svg>`'s drawing area (its viewBox, or its
/// width and height), in `<pre id="cut">checked N: [...]</pre>`.
const MEASURE: &str = r#"<script>
const cut = []; let checked = 0;
for (const svg of document.querySelectorAll('svg')) {
  const vb = svg.viewBox.baseVal;
  const box = vb && vb.width ? vb : {x: 0, y: 0, width: svg.width.baseVal.value, height: svg.height.baseVal.value};
  for (const t of svg.querySelectorAll('text')) {
    checked++;
    const b = t.getBBox();
    if (b.x < box.x - 0.5 || b.y < box.y - 0.5 || b.x + b.width > box.x + box.width + 0.5 || b.y + b.height > box.y + box.height + 0.5) {
      cut.push(t.textContent + ' @' + [b.x, b.y, b.width, b.height].map(Math.round).join(','));
    }
  }
}
const pre = document.createElement('pre'); pre.id = 'cut';
pre.textContent = 'checked ' + checked + ': ' + JSON.stringify(cut);
document.body.appendChild(pre);
</script>"#;
