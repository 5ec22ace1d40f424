//! The layers: every module in one, no import running up them, and no two modules inside a
//! folder importing each other (grouped `use` trees expanded, re-exported names followed to
//! the module defining them).

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

/// Every path a `use` tree names, its groups expanded (`super::{a::X, b::{c, d}}` is
/// `super::a::X`, `super::b::c`, `super::b::d`).
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let (mut depth, mut part, mut parts) = (0, String::new(), Vec::new());
        for ch in tree.chars() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(std::mem::take(&mut part));
                    continue;
                }
                _ => {}
            }
            part.push(ch);
        }
        parts.push(part);
        for part in parts.iter().filter(|p| !p.is_empty()) {
            let part = part.split(" as ").next().unwrap_or_default();
            if let Some(open) = part.find('{') {
                let head: Vec<String> = part[..open]
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect();
                let inner = &part[open + 1..part.len() - 1];
                expand(&[prefix, &head].concat(), inner, out);
            } else {
                let path = part
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned);
                out.push(prefix.iter().cloned().chain(path).collect());
            }
        }
    }
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let tree = tree
        .replace(" ::", "::")
        .replace(":: ", "::")
        .replace("{ ", "{")
        .replace(" }", "}")
        .replace(", ", ",");
    let mut out = Vec::new();
    expand(&[], &tree, &mut out);
    out
}

/// The library's modules, and where each name a folder re-exports (`pub use sub::Name` in its
/// `mod.rs`) is defined: `["audit", "Figures"]` → `["audit", "figures"]`.
struct Modules {
    known: BTreeSet<ModPath>,
    reexported: BTreeMap<ModPath, ModPath>,
}

impl Modules {
    fn of(sources: &[(ModPath, String)]) -> Modules {
        let known: BTreeSet<ModPath> = sources.iter().map(|(m, _)| m.clone()).collect();
        let public = Regex::new(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);").unwrap();
        let mut reexported = BTreeMap::new();
        for (module, code) in sources {
            for found in public.captures_iter(code) {
                for path in use_paths(&found[1]) {
                    let path: Vec<String> = path.into_iter().skip_while(|p| p == "self").collect();
                    let (Some(first), Some(last)) = (path.first(), path.last()) else {
                        continue;
                    };
                    let sub: ModPath = module.iter().chain([first]).cloned().collect();
                    if path.len() >= 2 && known.contains(&sub) {
                        let name: ModPath = module.iter().chain([last]).cloned().collect();
                        reexported.insert(name, sub);
                    }
                }
            }
        }
        Modules { known, reexported }
    }

    /// The module a path names from `module` (`crate::`, `super::`, `self::`): the deepest
    /// module on it, a re-exported name followed to the module defining it.
    fn resolve(&self, module: &[String], path: &[String]) -> Option<ModPath> {
        let (mut base, mut rest): (Vec<String>, &[String]) = match path.first()?.as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" => (module.to_vec(), &path[1..]),
            "super" => (module.to_vec(), path),
            _ => return None,
        };
        while rest.first().is_some_and(|p| p == "super") {
            base.pop();
            rest = &rest[1..];
        }
        let full: ModPath = base.into_iter().chain(rest.iter().cloned()).collect();
        let mut best = None;
        for end in 1..=full.len() {
            let prefix = full[..end].to_vec();
            if self.known.contains(&prefix) {
                best = Some(prefix);
            } else if let Some(defined) = self.reexported.get(&prefix) {
                return Some(defined.clone());
            } else {
                break;
            }
        }
        best
    }
}

/// Every module a file's code names: its `use` trees (groups expanded) and the paths written
/// inline (`crate::a::b`, `super::c`, `self::d`), re-exports followed.
fn references(modules: &Modules, module: &[String], code: &str) -> BTreeSet<ModPath> {
    let uses = Regex::new(r"\buse\s+([^;]+);").unwrap();
    let inline = Regex::new(r"\b(?:crate|super|self)(?:::\w+)+").unwrap();
    let paths = uses
        .captures_iter(code)
        .flat_map(|u| use_paths(&u[1]))
        .chain(
            inline
                .find_iter(code)
                .map(|p| p.as_str().split("::").map(str::to_owned).collect()),
        );
    paths
        .filter_map(|path| modules.resolve(module, &path))
        .filter(|target| target.as_slice() != module)
        .collect()
}

#[test]
fn every_module_imports_only_from_its_own_layer_or_those_above() {
    let layers = layers();
    let sources = sources();
    let modules = Modules::of(&sources);
    let mut upward = Vec::new();
    for (module, code) in &sources {
        let Some(&own) = layers.get(&module[0]) else {
            panic!(
                "src/{} is in no layer of ARCHITECTURE.md: add it to the table",
                module[0]
            );
        };
        for reference in references(&modules, module, code) {
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
    let sources = sources();
    let modules = Modules::of(&sources);
    for (module, code) in &sources {
        for reference in references(&modules, module, code) {
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
