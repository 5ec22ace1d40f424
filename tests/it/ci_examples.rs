//! The example CI pipelines in `docs/ci/` stay working: each parses as YAML, and every
//! `dwpipe …` line of their steps names a command and options this dwpipe has (checked against
//! that command's `--help`).

use std::fs;
use std::path::Path;

use crate::support::dwpipe;
use serde_json::Value;

/// Every string under a `run:` or `script:` key, anywhere in the document.
fn steps<'a>(value: &'a Value, under_step: bool, out: &mut Vec<&'a str>) {
    match value {
        Value::String(text) if under_step => out.push(text),
        Value::Array(items) => items.iter().for_each(|v| steps(v, under_step, out)),
        Value::Object(map) => {
            for (key, v) in map {
                steps(v, under_step || key == "run" || key == "script", out);
            }
        }
        _ => {}
    }
}

/// The `dwpipe` invocations of a step, as words (quotes dropped; `&&` and newlines split them).
fn invocations(step: &str) -> Vec<Vec<String>> {
    step.replace("&&", "\n")
        .lines()
        .filter_map(|line| {
            let words: Vec<String> = line
                .split_whitespace()
                .map(|w| w.trim_matches('"').to_owned())
                .collect();
            (words.first().map(String::as_str) == Some("dwpipe")).then_some(words)
        })
        .collect()
}

#[test]
fn the_example_pipelines_use_commands_and_options_that_exist() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci");
    let mut checked = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = fs::read_to_string(&path).unwrap();
        let doc: Value = serde_saphyr::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not YAML: {e}", path.display()));
        let mut found = Vec::new();
        steps(&doc, false, &mut found);
        let calls: Vec<Vec<String>> = found.iter().flat_map(|s| invocations(s)).collect();
        assert!(!calls.is_empty(), "{}: no dwpipe step", path.display());
        for call in calls {
            // The command path: the words before the first option or argument that is not one.
            let mut command: Vec<&str> = vec![call[1].as_str()];
            if matches!(call[1].as_str(), "report" | "history")
                && let Some(sub) = call.iter().skip(2).find(|w| !w.starts_with('-'))
                && matches!(sub.as_str(), "merge" | "import")
            {
                command.push(sub);
            }
            let mut args = command.clone();
            args.push("--help");
            let (code, help, stderr) = dwpipe(&dir, &args);
            assert_eq!(
                code,
                0,
                "{}: `dwpipe {}` is no command: {stderr}",
                path.display(),
                command.join(" ")
            );
            for option in call.iter().filter(|w| w.starts_with("--")) {
                let option = option.split('=').next().unwrap();
                assert!(
                    help.contains(&format!("{option} ")) || help.contains(&format!("{option}\n")),
                    "{}: `dwpipe {}` has no {option}",
                    path.display(),
                    command.join(" ")
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} invocations checked");
}
