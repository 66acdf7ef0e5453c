//! The tree draws the pipeline, and two rules keep it honest (issue 10):
//! no module imports another in a cycle, and the pure stages (the model and
//! the judges, and the data types they read) import nothing that starts a
//! process, listens or installs. Checked on the source itself, so a change
//! that breaks a rule fails `make test` with the import that broke it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules that do I/O: processes, the listener, installs, the run loop, the
/// loops, the reports (files), the command line.
const IMPURE: &[&str] = &[
    "observe",
    "versions::registry",
    "versions::build",
    "versions::layout",
    "versions::lock",
    "versions::manager",
    "versions::store",
    "versions::install",
    "versions::node",
    "versions::cache",
    "run",
    "loops",
    "report",
    "cli",
    "lint::load",
];

/// Modules that must stay pure.
const PURE: &[&str] = &[
    "model",
    "judge",
    "case",
    "projection",
    "observation",
    "results",
    "versions::spec",
    "versions::extras",
    "versions::digest",
    "js",
    "outcome",
];

fn harness() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("harness")
}

/// Every module of the library (`a::b`) and its source, test modules cut off.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap();
            if rel.starts_with("tests") {
                continue;
            }
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let mut parts: Vec<String> = rel
                    .with_extension("")
                    .iter()
                    .map(|c| c.to_string_lossy().into_owned())
                    .collect();
                if parts.last().is_some_and(|l| l == "mod") {
                    parts.pop();
                }
                if parts == ["lib"] || parts == ["main"] {
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                let body = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
                out.insert(parts.join("::"), body);
            }
        }
    }
    let mut out = BTreeMap::new();
    let root = harness();
    walk(&root, &root, &mut out);
    out
}

/// The modules each module names through `crate::` (the longest known
/// prefix of each path).
fn imports(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, text) in mods {
        let mut rest = text.as_str();
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let path: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
            let target = (1..=parts.len())
                .rev()
                .map(|i| parts[..i].join("::"))
                .find(|c| mods.contains_key(c));
            if let Some(t) = target {
                if &t != m && !t.starts_with(&format!("{m}::")) && !m.starts_with(&format!("{t}::"))
                {
                    edges.entry(m.clone()).or_default().insert(t);
                }
            }
        }
    }
    edges
}

fn under(module: &str, prefix: &str) -> bool {
    module == prefix || module.starts_with(&format!("{prefix}::"))
}

#[test]
fn no_module_imports_another_in_a_cycle() {
    let edges = imports(&modules());
    // Depth-first search for a back edge; report the cycle it closes.
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            let mut cycle = path[i..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for m in edges.keys() {
        if let Some(cycle) = visit(m, &edges, &mut Vec::new(), &mut done) {
            panic!("an import cycle: {}", cycle.join(" -> "));
        }
    }
    assert!(edges.len() > 20, "the check saw too few modules: {edges:?}");
}

#[test]
fn the_model_and_the_judges_import_nothing_that_does_io() {
    let edges = imports(&modules());
    let mut bad = Vec::new();
    for (m, targets) in &edges {
        if !PURE.iter().any(|p| under(m, p)) {
            continue;
        }
        for t in targets {
            if IMPURE.iter().any(|i| under(t, i)) {
                bad.push(format!("{m} imports {t}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "pure modules importing I/O:\n{}",
        bad.join("\n")
    );
}

#[test]
fn nothing_imports_the_command_layer() {
    let edges = imports(&modules());
    let bad: Vec<String> = edges
        .iter()
        .filter(|(m, _)| !under(m, "cli"))
        .flat_map(|(m, ts)| {
            ts.iter()
                .filter(|t| under(t, "cli"))
                .map(move |t| format!("{m} imports {t}"))
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn printing_happens_only_in_the_command_layer() {
    let mods = modules();
    let bad: Vec<&String> = mods
        .iter()
        .filter(|(m, text)| {
            !under(m, "cli") && (text.contains("println!(") || text.contains(" print!("))
        })
        .map(|(m, _)| m)
        .collect();
    assert!(
        bad.is_empty(),
        "stdout is written outside cli/ (unsafe under `| head`): {bad:?}"
    );
}
