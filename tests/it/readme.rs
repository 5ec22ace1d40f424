//! The README and the pages it links, line by line: every block marked ```` ```sh offline ````
//! (with `exit=N` when the example is meant to fail) runs in the order written — the README's,
//! then each page of `docs/` in the order the README links it, from the repository's root — in
//! a scratch copy of the repository's tracked files, and must end with its exit code;
//! afterwards the copy's root holds nothing new but `target/`. Every relative link of the
//! README and of `docs/` leads to a file, and every `#anchor` to a heading of it. `.ci/run` runs this with
//! `--features readme`. The scratch copy's `target/debug` is this build's, and `cargo` in a
//! block runs this build's binaries (`cargo build` checks they are there, `cargo run [--bin
//! NAME] -- ARGS` executes one): the copy sits at another path, and real cargo would compile
//! everything again there.
#![cfg(feature = "readme")]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A runnable block: the page and line it starts at, its text, the exit code it must end with.
struct Block {
    page: String,
    line: usize,
    text: String,
    exit: i32,
}

fn blocks(page: &str, readme: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in readme.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => {
                let mut words = info.split_whitespace();
                if words.next() == Some("sh") && words.next() == Some("offline") {
                    let exit = words
                        .find_map(|w| w.strip_prefix("exit="))
                        .map_or(0, |n| n.parse().expect("exit=N is a number"));
                    open = Some(Block {
                        page: page.to_owned(),
                        line: i + 1,
                        text: String::new(),
                        exit,
                    });
                }
            }
            (Some(_), Some("")) => blocks.push(open.take().unwrap()),
            (Some(block), _) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "{page}: an offline block is never closed");
    blocks
}

/// Every link target of a Markdown page (`[text](target)`), outside code blocks.
fn links(text: &str) -> Vec<String> {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut fenced = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            found.extend(link.captures_iter(line).map(|c| c[1].to_owned()));
        }
    }
    found
}

/// The pages whose blocks run after the README's: each `docs/*.md` the README links, in the
/// order it first links them.
fn pages(readme: &str) -> Vec<String> {
    let mut pages: Vec<String> = Vec::new();
    for target in links(readme) {
        let file = target.split('#').next().unwrap_or_default();
        if file.starts_with("docs/") && file.ends_with(".md") && !pages.iter().any(|p| p == file) {
            pages.push(file.to_owned());
        }
    }
    pages
}

/// The anchors GitHub gives a page's headings.
fn anchors(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| {
            l.trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == '-' || *c == ' ' || *c == '_')
                .map(|c| if c == ' ' { '-' } else { c })
                .collect()
        })
        .collect()
}

#[test]
fn every_link_of_the_readme_and_the_docs_leads_somewhere() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut markdown = vec![repo.join("README.md"), repo.join("ARCHITECTURE.md")];
    markdown.extend(
        fs::read_dir(repo.join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md")),
    );
    let mut broken = Vec::new();
    for page in &markdown {
        let text = fs::read_to_string(page).unwrap();
        let folder = page.parent().unwrap();
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = if file.is_empty() {
                page.clone()
            } else {
                folder.join(file)
            };
            if !file.exists() {
                broken.push(format!("{}: {target} (no such file)", page.display()));
            } else if !anchor.is_empty()
                && file.is_file()
                && !anchors(&fs::read_to_string(&file).unwrap())
                    .iter()
                    .any(|a| a == anchor)
            {
                broken.push(format!("{}: {target} (no such heading)", page.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links that lead nowhere:\n{}",
        broken.join("\n")
    );
}

/// The tracked files of the repository, copied into `to`.
fn scratch_copy(repo: &Path, to: &Path) {
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(repo)
        .output()
        .expect("git lists the tracked files");
    assert!(listed.status.success());
    for name in listed.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = std::str::from_utf8(name).unwrap();
        let target = to.join(name);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::copy(repo.join(name), &target).unwrap();
    }
}

/// A `cargo` for the blocks that runs this build's binaries instead of building again.
fn cargo_shim(bin: &Path, debug: &Path) {
    let script = format!(
        r#"#!/bin/sh
# cargo for the README's blocks: this build's binaries, nothing compiled again.
debug='{debug}'
case "$1" in
  build) for b in dwpipe fake-hdc dwpipe-example; do test -x "$debug/$b" || {{ echo "shim: $debug/$b missing" >&2; exit 101; }}; done; exit 0 ;;
  install)
    # The documented installs, and only them: dwpipe (with the example's stand-ins in the
    # quick start), from this checkout, onto PATH.
    case "$*" in
      "install --locked --path . --bin dwpipe") names=dwpipe ;;
      "install --locked --path . --bin dwpipe --bin dwpipe-example") names="dwpipe dwpipe-example" ;;
      *) echo "shim: cargo $* is not the README's install" >&2; exit 101 ;;
    esac
    for b in $names; do ln -sf "$debug/$b" "$(dirname "$0")/$b"; done; exit 0 ;;
  run) shift ;;
  *) echo "shim: cargo $1 is not for the README's offline blocks" >&2; exit 101 ;;
esac
name=dwpipe
while [ $# -gt 0 ]; do
  case "$1" in
    -q) shift ;;
    --bin) name="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "shim: cargo run $1 is not understood" >&2; exit 101 ;;
  esac
done
exec "$debug/$name" "$@"
"#,
        debug = debug.display()
    );
    fs::write(bin.join("cargo"), script).unwrap();
    let mut permissions = fs::metadata(bin.join("cargo")).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    fs::set_permissions(bin.join("cargo"), permissions).unwrap();
}

#[test]
fn every_offline_block_of_the_readme_runs_as_written() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(repo.join("README.md")).unwrap();
    let mut blocks = blocks("README.md", &readme);
    assert!(
        blocks.len() >= 3,
        "the README's runnable examples are marked"
    );
    let pages = pages(&readme);
    for page in &pages {
        blocks.extend(self::blocks(
            page,
            &fs::read_to_string(repo.join(page)).unwrap(),
        ));
    }
    // A page of docs/ with a runnable block the README does not link would never run.
    for entry in fs::read_dir(repo.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        let name = format!("docs/{}", path.file_name().unwrap().to_string_lossy());
        let text = fs::read_to_string(&path).unwrap_or_default();
        assert!(
            pages.contains(&name) || self::blocks(&name, &text).is_empty(),
            "{name} has `sh offline` blocks and the README does not link it"
        );
    }
    // This build's binaries: the test binary sits in <target>/debug/deps.
    let debug: PathBuf = Path::new(env!("CARGO_BIN_EXE_dwpipe"))
        .parent()
        .unwrap()
        .to_owned();
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("dwpipe");
    scratch_copy(repo, &root);
    fs::create_dir_all(root.join("target")).unwrap();
    std::os::unix::fs::symlink(&debug, root.join("target/debug")).unwrap();
    let bin = work.path().join("bin");
    fs::create_dir_all(&bin).unwrap();
    cargo_shim(&bin, &debug);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for block in &blocks {
        let started = Instant::now();
        let output = Command::new("bash")
            .args(["-o", "pipefail", "-c", &block.text])
            .current_dir(&root)
            .env("PATH", &path)
            .env_remove("DWPIPE_HDC")
            .output()
            .unwrap();
        let code = output.status.code().unwrap_or(-1);
        assert_eq!(
            code,
            block.exit,
            "{}:{} ended {code}, not {} ({:.1?}):\n{}\n--- stdout\n{}\n--- stderr\n{}",
            block.page,
            block.line,
            block.exit,
            started.elapsed(),
            block.text,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "{}:{} took {:.0?}",
            block.page,
            block.line,
            started.elapsed()
        );
    }
    // The README's commands leave nothing in the clone's root but what `target/` holds.
    let tracked = Command::new("git")
        .args(["ls-files"])
        .current_dir(repo)
        .output()
        .unwrap();
    let tracked = String::from_utf8(tracked.stdout).unwrap();
    let left: Vec<String> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| {
            name != "target"
                && !tracked
                    .lines()
                    .any(|t| t == name || t.starts_with(&format!("{name}/")))
        })
        .collect();
    assert!(
        left.is_empty(),
        "README commands left {left:?} in the clone's root"
    );
}
