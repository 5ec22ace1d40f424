//! The bundled example's scripted stand-ins, the same on Linux, macOS and Windows (no shell):
//!
//! - `dwpipe-example agent WORKSPACE BRIEF` stands in for DevEco Code: it makes the real edit
//!   the brief asks for (the note list's items 12vp apart), then claims PASS the way Goal mode
//!   does, on one JSON line.
//! - `dwpipe-example verify FILE TEXT` stands in for a build: it passes (exit 0) when FILE, in
//!   the folder it runs in, holds TEXT, and fails (exit 1) saying so when it does not.
//!
//! `examples/notes/dwpipe.yaml` runs both by argv. The README's quick start installs it next to
//! dwpipe.

use std::path::Path;
use std::process::ExitCode;

/// The page the brief asks to change.
const PAGE: &str = "entry/src/main/ets/pages/Index.ets";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["agent", workspace, _brief] => agent(Path::new(workspace)),
        ["verify", file, text] => verify(Path::new(file), text),
        _ => {
            eprintln!(
                "usage: dwpipe-example agent WORKSPACE BRIEF | dwpipe-example verify FILE TEXT"
            );
            ExitCode::from(2)
        }
    }
}

/// Sets the list spacing to 12vp, then claims PASS.
fn agent(workspace: &Path) -> ExitCode {
    let page = workspace.join(PAGE);
    let edited = std::fs::read_to_string(&page)
        .map(|text| text.replace("List({ space: 8 })", "List({ space: 12 })"))
        .and_then(|text| std::fs::write(&page, text));
    if let Err(e) = edited {
        eprintln!("dwpipe-example agent: {}: {e}", page.display());
        return ExitCode::FAILURE;
    }
    println!(
        r#"{{"type":"text","part":{{"type":"text","text":"Changed the list spacing to 12vp. Result: PASS"}}}}"#
    );
    ExitCode::SUCCESS
}

/// Whether `file` holds `text`.
fn verify(file: &Path, text: &str) -> ExitCode {
    match std::fs::read_to_string(file) {
        Ok(held) if held.contains(text) => ExitCode::SUCCESS,
        Ok(_) => {
            eprintln!("{}: `{text}` not found", file.display());
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            ExitCode::FAILURE
        }
    }
}
