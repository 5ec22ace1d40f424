//! The house rules ARCHITECTURE.md states, held to the sources: every module in a layer, no
//! import running up the layers, and no two modules inside a folder importing each other.
//! A rule only a review checks is a rule that drifts.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use regex::Regex;

/// A module's path below the crate (`["history", "store"]`).
type ModPath = Vec<String>;

/// The layers, in order, from ARCHITECTURE.md's table: each row's backticked module names.
fn layers() -> BTreeMap<String, usize> {
    let text = fs::read_to_string(crate::support::repo().join("ARCHITECTURE.md")).unwrap();
    let section = text
        .split("## Layers")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("ARCHITECTURE.md has a `## Layers` section");
    let name = Regex::new(r"`(\w+)`").unwrap();
    let mut layers = BTreeMap::new();
    let rows = section
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("| Layer") && !l.starts_with("|---"));
    for (layer, row) in rows.enumerate() {
        let modules = row.split('|').nth(2).unwrap_or_default();
        for m in name.captures_iter(modules) {
            layers.insert(m[1].to_owned(), layer);
        }
    }
    assert!(
        layers.len() > 20,
        "the layer table was not read: {layers:?}"
    );
    layers
}

/// Every library source file's module path and its code (comments and test modules left out:
/// a test may reach anywhere, a doc may name anything).
fn sources() -> Vec<(ModPath, String)> {
    let src = crate::support::repo().join("src");
    let mut all = Vec::new();
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path.strip_prefix(&src).unwrap();
        let mut parts: Vec<String> = rel
            .with_extension("")
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let top = parts[0].as_str();
        if matches!(top, "bin" | "main" | "lib" | "test_support")
            || parts.iter().any(|p| p == "tests")
        {
            continue;
        }
        if parts.last().is_some_and(|p| p == "mod") {
            parts.pop();
        }
        all.push((parts, code_of(path)));
    }
    all
}

/// A file's code without comments and without its `#[cfg(test)] mod tests { … }`.
fn code_of(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let text = text
        .split("#[cfg(test)]\nmod tests {")
        .next()
        .unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every module path a file's code names (`crate::a::b`, `super::c`, `self::d`).
fn references(module: &[String], code: &str) -> BTreeSet<ModPath> {
    let path = Regex::new(r"\b(crate|super|self)((?:::\w+)+)").unwrap();
    path.captures_iter(code)
        .map(|c| {
            let rest = c[2].split("::").skip(1).map(str::to_owned);
            let base: &[String] = match &c[1] {
                "crate" => &[],
                "super" => &module[..module.len().saturating_sub(1)],
                _ => module,
            };
            base.iter().cloned().chain(rest).collect()
        })
        .collect()
}

#[test]
fn every_module_imports_only_from_its_own_layer_or_those_above() {
    let layers = layers();
    let mut upward = Vec::new();
    for (module, code) in sources() {
        let Some(&own) = layers.get(&module[0]) else {
            panic!(
                "src/{} is in no layer of ARCHITECTURE.md: add it to the table",
                module[0]
            );
        };
        for reference in references(&module, &code) {
            let Some(&theirs) = reference.first().and_then(|r| layers.get(r)) else {
                continue;
            };
            if theirs > own {
                upward.push(format!("{} → {}", module.join("::"), reference.join("::")));
            }
        }
    }
    upward.sort_unstable();
    upward.dedup();
    assert!(
        upward.is_empty(),
        "imports running up the layers:\n{}",
        upward.join("\n")
    );
}

#[test]
fn no_two_modules_in_a_folder_import_each_other() {
    // folder → sibling → the siblings it imports.
    let mut graph: BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (module, code) in sources() {
        for reference in references(&module, &code) {
            let shared = module
                .iter()
                .zip(&reference)
                .take_while(|(a, b)| a == b)
                .count();
            // Siblings in the folder they share; a folder's own mod.rs only re-exports.
            if shared < module.len() && shared < reference.len() {
                graph
                    .entry(module[..shared].to_vec())
                    .or_default()
                    .entry(module[shared].clone())
                    .or_default()
                    .insert(reference[shared].clone());
            }
        }
    }
    let mut circles = Vec::new();
    for (folder, edges) in &graph {
        for (from, to) in edges {
            for next in to {
                if reaches(edges, next, from, &mut BTreeSet::new()) {
                    circles.push(format!("src/{}: {from} ⇄ {next}", folder.join("/")));
                }
            }
        }
    }
    assert!(
        circles.is_empty(),
        "circles inside folders:\n{}",
        circles.join("\n")
    );
}

/// Whether `to` is reached from `from` along `edges`.
fn reaches(
    edges: &BTreeMap<String, BTreeSet<String>>,
    from: &str,
    to: &str,
    seen: &mut BTreeSet<String>,
) -> bool {
    if from == to {
        return true;
    }
    if !seen.insert(from.to_owned()) {
        return false;
    }
    edges
        .get(from)
        .is_some_and(|next| next.iter().any(|n| reaches(edges, n, to, seen)))
}
