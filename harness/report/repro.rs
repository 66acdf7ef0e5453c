//! `Repro`: a case and the known issue it shows, rendered as a standalone
//! ES-module Node script (`mastra-conform repro`) and as a draft upstream
//! report in Markdown.
//!
//! In: a `Case`, its `KnownIssue` and the symptom the case shows, the
//! version the script was made for. Out: text. Pure.
//!
//! The script is `node-probe/repro.template.mjs` with the probe's own
//! modules it imports inlined (the agent and call, the case's sources, the
//! guard, the provider formats, the reading of a body and of a symptom), so
//! it runs the case as the probe does and cannot drift from it; and with one
//! JSON value filled in: the case, the issue, the symptom's check
//! (`SymptomCheck`) and the tables of where each route's body holds its
//! tools and choice (`route::body`, `known::NAMED_CHOICE`), so it judges
//! its own capture server's bodies exactly as the harness judges the
//! listener's.

use crate::case::Case;
use crate::js::json::Json;
use crate::judge::known::{named_choice_json, KnownIssue, Symptom};
use crate::route::body::layouts_json;
use crate::route::Route;
use crate::versions::extras::extras;
use crate::versions::spec::MastraVersion;
use std::collections::BTreeMap;

/// The script: a module of `node-probe/` that imports from its neighbours.
const TEMPLATE: &str = include_str!("../../node-probe/repro.template.mjs");
/// Where the template has the data.
const DATA: &str = "/* REPRO_JSON */ null";
/// The install line's spec, which `install_line` replaces.
const INSTALL: &str = "@mastra/core@VERSION zod@3.25.76";

/// The `node-probe/` modules a script may import, by file name.
const MODULES: &[(&str, &str)] = &[
    ("agent.mjs", include_str!("../../node-probe/agent.mjs")),
    ("guard.mjs", include_str!("../../node-probe/guard.mjs")),
    (
        "mcp-tools.mjs",
        include_str!("../../node-probe/mcp-tools.mjs"),
    ),
    ("reading.mjs", include_str!("../../node-probe/reading.mjs")),
    ("routes.mjs", include_str!("../../node-probe/routes.mjs")),
    ("sources.mjs", include_str!("../../node-probe/sources.mjs")),
    ("wire.mjs", include_str!("../../node-probe/wire.mjs")),
];

/// One `import` statement of a module.
#[derive(Debug, PartialEq)]
enum Import {
    /// `from './NAME'`: a module of `node-probe/`, inlined.
    Local(String),
    /// A Node builtin: its default (or `* as`) binding and its named ones.
    Builtin {
        from: String,
        default: Option<String>,
        named: Vec<String>,
    },
}

/// A module's imports, and its text without them and without `export `.
struct Parsed {
    head: String,
    imports: Vec<Import>,
    body: String,
}

/// Split a module into its leading comment, its imports and the rest. An
/// import is a statement at the start of a line, up to its `;`; an
/// `export ` at the start of a line is dropped (the script has one scope).
fn parse_module(name: &str, text: &str) -> Parsed {
    let mut head = String::new();
    let mut imports = Vec::new();
    let mut body = String::new();
    let mut statement: Option<String> = None;
    let mut in_head = true;
    for line in text.lines() {
        if let Some(s) = statement.as_mut() {
            s.push(' ');
            s.push_str(line.trim());
        } else if line.starts_with("import ") {
            statement = Some(line.to_string());
        } else {
            if in_head && !line.starts_with("//") {
                in_head = false;
            }
            let out = if in_head { &mut head } else { &mut body };
            out.push_str(line.strip_prefix("export ").unwrap_or(line));
            out.push('\n');
            continue;
        }
        if statement.as_deref().is_some_and(|s| s.ends_with(';')) {
            imports.push(parse_import(name, &statement.take().unwrap_or_default()));
        }
    }
    Parsed {
        head,
        imports,
        body: body.trim().to_string(),
    }
}

/// `import D from 'S';`, `import * as N from 'S';`, `import { a, b } from 'S';`,
/// `import D, { a } from 'S';`. Anything else is a module this file cannot
/// inline, which the tests catch.
fn parse_import(module: &str, statement: &str) -> Import {
    let (clause, from) = statement
        .strip_prefix("import ")
        .and_then(|s| s.strip_suffix(';'))
        .and_then(|s| s.rsplit_once(" from "))
        .filter(|(_, from)| from.contains("'./") || from.contains("'node:"))
        .unwrap_or_else(|| panic!("{module}: an import repro.rs cannot inline: {statement}"));
    let from = from.trim().trim_matches('\'').to_string();
    if let Some(local) = from.strip_prefix("./") {
        return Import::Local(local.to_string());
    }
    let (default, named) = match clause.split_once('{') {
        Some((before, names)) => (
            before.trim().trim_end_matches(',').trim(),
            names.trim().trim_end_matches('}'),
        ),
        None => (clause.trim(), ""),
    };
    Import::Builtin {
        from,
        default: (!default.is_empty()).then(|| default.to_string()),
        named: named
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(String::from)
            .collect(),
    }
}

/// The script's text: the template's leading comment, every builtin import
/// of every module it reaches (merged), the modules it imports from
/// `node-probe/` (each after the ones it imports, once), then its own code.
fn assemble(template: &str) -> String {
    let template = parse_module("repro.template.mjs", template);
    let mut builtins: BTreeMap<String, (Option<String>, Vec<String>)> = BTreeMap::new();
    let mut inlined: Vec<&str> = Vec::new();
    let mut bodies = String::new();
    inline_all(&template.imports, &mut builtins, &mut inlined, &mut bodies);
    let mut script = template.head;
    script.push('\n');
    for (from, (default, named)) in &builtins {
        let mut clause = default.clone().unwrap_or_default();
        if !named.is_empty() {
            if !clause.is_empty() {
                clause.push_str(", ");
            }
            clause.push_str(&format!("{{ {} }}", named.join(", ")));
        }
        script.push_str(&format!("import {clause} from '{from}';\n"));
    }
    script.push('\n');
    script.push_str(&bodies);
    script.push_str("// --- the reproduction ---\n\n");
    script.push_str(&template.body);
    script.push('\n');
    script
}

fn inline_all(
    imports: &[Import],
    builtins: &mut BTreeMap<String, (Option<String>, Vec<String>)>,
    inlined: &mut Vec<&'static str>,
    bodies: &mut String,
) {
    for import in imports {
        match import {
            Import::Builtin {
                from,
                default,
                named,
            } => {
                let (d, n) = builtins.entry(from.clone()).or_default();
                if default.is_some() && d.is_some() && d != default {
                    panic!("two modules import {from} under two names: {d:?}, {default:?}");
                }
                if default.is_some() {
                    d.clone_from(default);
                }
                for name in named {
                    if !n.contains(name) {
                        n.push(name.clone());
                    }
                }
                n.sort();
            }
            Import::Local(file) => {
                let Some(&(name, text)) = MODULES.iter().find(|(n, _)| n == file) else {
                    panic!("repro.template.mjs reaches ./{file}: add it to MODULES in repro.rs");
                };
                if inlined.contains(&name) {
                    continue;
                }
                inlined.push(name);
                let module = parse_module(name, text);
                inline_all(&module.imports, builtins, inlined, bodies);
                bodies.push_str(&format!("// --- node-probe/{name} ---\n\n"));
                bodies.push_str(&module.body);
                bodies.push_str("\n\n");
            }
        }
    }
}

/// The tables the script reads bodies and symptoms by
/// (`node-probe/reading.mjs`): where each route's body holds its tools and
/// choice, and the shapes of a choice that names a function.
pub fn reading_tables() -> Json {
    Json::object([
        ("bodies", layouts_json()),
        ("namedChoice", named_choice_json()),
    ])
}

/// One known issue, shown by one case.
#[derive(Debug, Clone)]
pub struct Repro<'a> {
    pub case: &'a Case,
    pub issue: &'a KnownIssue,
    /// How the case shows the issue (`shows` in the ledger).
    pub symptom: &'a Symptom,
    /// The version (or build) the script is made for: the install line names it.
    pub made_on: String,
    /// The wire route the script's agent takes.
    pub route: Route,
}

impl Repro<'_> {
    fn data(&self) -> Json {
        Json::object([
            (
                "issue",
                Json::object([
                    ("id", Json::str(&self.issue.id)),
                    ("title", Json::str(&self.issue.title)),
                    ("fixed", Json::str(&self.issue.fixed)),
                    (
                        "upstream",
                        self.issue.upstream.as_deref().map_or(Json::Null, Json::str),
                    ),
                ]),
            ),
            ("case", self.case_json()),
            ("casePath", Json::str(&self.case.name())),
            ("route", Json::str(self.route.name())),
            ("madeOn", Json::str(&self.made_on)),
            ("symptom", self.symptom.to_json()),
            (
                "fixedSymptom",
                self.issue
                    .fixed_shows
                    .as_ref()
                    .map_or(Json::Null, Symptom::to_json),
            ),
            ("shows", self.symptom.check().to_json()),
            (
                "fixedShows",
                self.issue
                    .fixed_shows
                    .as_ref()
                    .map_or(Json::Null, |s| s.check().to_json()),
            ),
            ("reading", reading_tables()),
        ])
    }

    /// The case as the probe receives it.
    fn case_json(&self) -> Json {
        self.case.to_json()
    }

    /// The standalone script. The JSON is written as `JSON.stringify` would
    /// write it, which is also a JavaScript expression (lone surrogates as
    /// `\udXXX` escapes), so keys reach Mastra exactly as the case has them.
    pub fn script(&self) -> String {
        assemble(TEMPLATE)
            .replace(INSTALL, &self.install_line())
            .replace(DATA, &self.data().to_pretty())
    }

    /// What `npm install` is given: the version (a build by its
    /// package.json version, with a note to install the build itself
    /// instead), zod, and the packages the case's sources need, at the
    /// versions the harness installs beside that core.
    fn install_line(&self) -> String {
        let (release, build) = match self.made_on.split_once('+') {
            Some((release, _)) => (release, true),
            None => (self.made_on.as_str(), false),
        };
        let case = self.case_json();
        let needed = |package: &str| match package {
            "@mastra/mcp" | "@modelcontextprotocol/sdk" => case.get("mcp").is_some(),
            _ => case.get("memory").is_some(),
        };
        let mut line = format!("@mastra/core@{release} zod@3.25.76");
        if let Some(core) = MastraVersion::parse(release) {
            for (package, version) in extras(core) {
                if needed(package) {
                    line.push_str(&format!(" {package}@{version}"));
                }
            }
        }
        if build {
            line.push_str("  # or the build itself: npm install ./your-build.tgz");
        }
        line
    }

    /// A draft upstream report: what is wrong, where, the wire body, the
    /// repro, the fixed behaviour. `body` is the request body the case sent
    /// on `made_on` (normalised JSON), `affected` the versions it was seen on.
    pub fn upstream_report(&self, body: &str, affected: &str) -> String {
        let i = self.issue;
        let mut md = String::new();
        md.push_str(&format!("# {}\n\n", i.title));
        md.push_str(&format!(
            "**Package:** `@mastra/core`, seen on `{affected}` (measured with mastra-conform, \
             case `{}`)\n\n",
            self.case.name()
        ));
        md.push_str(&format!("## What happens\n\n{}\n\n", i.wrong));
        md.push_str(&format!(
            "## The smallest case\n\n{}\n\n```json\n{}\n```\n\n",
            self.case.about,
            self.case_json().to_pretty()
        ));
        md.push_str(&format!(
            "## What is sent (on {}, on the `{}` route: {})\n\nEach request body, keys \
             sorted, volatile ids redacted:\n\n```\n{}\n```\n\n\
             The issue shows as `{}`.\n\n",
            self.made_on,
            self.route.name(),
            self.route.provider(),
            body.trim_end(),
            self.symptom
        ));
        md.push_str(&format!("## Expected\n\n{}\n\n", i.fixed));
        if let Some(f) = &i.fixed_shows {
            md.push_str(&format!("Checked as `{f}`.\n\n"));
        }
        md.push_str(
            "## Reproduce\n\nSave this as `repro.mjs` beside an installed `@mastra/core` and run \
             `node repro.mjs` (Node >= 22.13). It starts its own capture server on 127.0.0.1, \
             so no API key is needed and nothing leaves the machine; it prints what was sent \
             and exits 1 while the issue shows, 0 once it is fixed, so it can serve as a \
             regression test.\n\n```js\n",
        );
        md.push_str(&self.script());
        md.push_str("```\n");
        md
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn issue() -> KnownIssue {
        KnownIssue {
            id: "toolchoice-not-rewritten".into(),
            title: "A named toolChoice does not follow the tool-name rewrite".into(),
            wrong: "wrong".into(),
            fixed: "tool_choice names the rewritten name".into(),
            fixed_shows: Some(Symptom::ToolChoiceSent),
            upstream: None,
            seen: ">=1.0.4 <=1.71.0".into(),
            cases: Vec::new(),
            recognise: Vec::new(),
            fix_at: None,
        }
    }

    /// The script of `case` showing `symptom`, made on 1.67.0.
    fn repro<'a>(case: &'a Case, issue: &'a KnownIssue, symptom: &'a Symptom) -> Repro<'a> {
        Repro {
            case,
            issue,
            symptom,
            made_on: "1.67.0".into(),
            route: Route::OpenAiCompatible,
        }
    }

    fn every_symptom() -> Vec<Symptom> {
        let every = vec![
            Symptom::ToolChoiceNotSent,
            Symptom::EmptyTools,
            Symptom::ToolChoiceSent,
            Symptom::ToolSent("a".into()),
            Symptom::ToolNotSent("a".into()),
            Symptom::NoTools,
            Symptom::ErrorCause("a".into()),
            Symptom::ErrorMessage("a".into()),
        ];
        for s in &every {
            // A symptom added to the ledger fails to compile here until it
            // is in the list above.
            match s {
                Symptom::ToolChoiceNotSent
                | Symptom::EmptyTools
                | Symptom::ToolChoiceSent
                | Symptom::ToolSent(_)
                | Symptom::ToolNotSent(_)
                | Symptom::NoTools
                | Symptom::ErrorCause(_)
                | Symptom::ErrorMessage(_) => {}
            }
        }
        every
    }

    /// Every form name in a check's JSON: the keys of its objects.
    fn forms(v: &Json, out: &mut Vec<String>) {
        match v {
            Json::Object(members) => {
                for (k, v) in members {
                    out.push(k.to_lossy());
                    forms(v, out);
                }
            }
            Json::Array(items) => items.iter().for_each(|v| forms(v, out)),
            _ => {}
        }
    }

    #[test]
    fn the_script_reads_every_form_a_symptom_check_uses() {
        let reading = MODULES.iter().find(|(n, _)| *n == "reading.mjs").unwrap().1;
        for s in every_symptom() {
            let mut used = Vec::new();
            forms(&s.check().to_json(), &mut used);
            for form in used {
                assert!(
                    reading.contains(&format!("case '{form}':")),
                    "node-probe/reading.mjs cannot evaluate {form} (of {s})"
                );
            }
        }
    }

    #[test]
    fn the_script_inlines_each_module_once_in_one_scope() {
        let script = assemble(TEMPLATE);
        assert!(!script.contains("from './"), "a local import is left");
        assert!(script.contains(DATA));
        let mut names: Vec<&str> = Vec::new();
        let mut sources: Vec<&str> = Vec::new();
        for line in script.lines() {
            assert!(!line.starts_with("export "), "{line}");
            if let Some(rest) = line.strip_prefix("import ") {
                let from = rest.rsplit_once(" from ").unwrap().1;
                assert!(!sources.contains(&from), "imported twice: {line}");
                sources.push(from);
            }
            let declared = ["async function ", "function ", "const ", "let ", "class "]
                .iter()
                .find_map(|k| line.strip_prefix(k));
            if let Some(rest) = declared {
                let name = rest
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .next()
                    .unwrap();
                assert!(
                    !names.contains(&name),
                    "{name} is declared twice in the script"
                );
                names.push(name);
            }
        }
        for (name, _) in MODULES {
            let marker = format!("// --- node-probe/{name} ---");
            assert_eq!(script.matches(&marker).count(), 1, "{name}");
        }
        // Builtins merged: one import of node:fs, with every name any module uses.
        let fs = script
            .lines()
            .find(|l| l.ends_with("from 'node:fs';"))
            .unwrap();
        for name in ["mkdtempSync", "readFileSync", "writeFileSync"] {
            assert!(fs.contains(name), "{fs}");
        }
    }

    #[test]
    fn imports_are_read_in_each_form_the_modules_write() {
        assert_eq!(
            parse_import("m", "import http from 'node:http';"),
            Import::Builtin {
                from: "node:http".into(),
                default: Some("http".into()),
                named: Vec::new()
            }
        );
        assert_eq!(
            parse_import("m", "import { a, b as c } from 'node:fs';"),
            Import::Builtin {
                from: "node:fs".into(),
                default: None,
                named: vec!["a".into(), "b as c".into()]
            }
        );
        assert_eq!(
            parse_import("m", "import { x } from './y.mjs';"),
            Import::Local("y.mjs".into())
        );
        let multi = parse_module(
            "m",
            "// head\nimport {\n  a,\n  b,\n} from 'node:fs';\nexport const x = 1;\n",
        );
        assert_eq!(multi.head, "// head\n");
        assert_eq!(multi.body, "const x = 1;");
        assert_eq!(
            multi.imports,
            vec![Import::Builtin {
                from: "node:fs".into(),
                default: None,
                named: vec!["a".into(), "b".into()]
            }]
        );
    }

    #[test]
    fn a_case_with_sources_installs_the_packages_they_need() {
        let case = Case::parse(
            Path::new("cases/x.json"),
            r#"{"about":"sources","tools":["a"],"mcp":{"s":["t"]},"memory":{"workingMemory":true}}"#,
        )
        .unwrap();
        let issue = issue();
        let repro = repro(&case, &issue, &Symptom::NoTools);
        let script = repro.script();
        let line = script
            .lines()
            .find(|l| l.contains("npm install @mastra/core@1.67.0"))
            .unwrap();
        for (package, version) in extras(MastraVersion::new(1, 67, 0)) {
            assert!(line.contains(&format!("{package}@{version}")), "{line}");
        }
        let plain = Case::parse(
            Path::new("cases/y.json"),
            r#"{"about":"plain","tools":["a"]}"#,
        )
        .unwrap();
        let repro = Repro {
            case: &plain,
            made_on: "1.67.0+abc".into(),
            ..repro
        };
        assert!(repro
            .script()
            .contains("npm install @mastra/core@1.67.0 zod@3.25.76  # or the build itself"));
    }

    #[test]
    fn the_script_carries_the_case_exactly() {
        let case = Case::parse(
            Path::new("cases/x.json"),
            r#"{"about":"a lone surrogate","tools":["\ud800x"],"call":{"toolChoice":{"type":"tool","toolName":"\ud800x"}}}"#,
        )
        .unwrap();
        let issue = issue();
        let repro = repro(&case, &issue, &Symptom::ToolChoiceNotSent);
        let script = repro.script();
        assert!(!script.contains(DATA));
        assert!(script.contains("npm install @mastra/core@1.67.0 zod@3.25.76"));
        assert!(script.contains(r#""\ud800x""#), "the key as a JS escape");
        assert!(script.contains(r#""fixedSymptom": {"#), "{script}");
        let md = repro.upstream_report("--- request 1 ---\n{}\n", &issue.seen);
        assert!(md.contains(&case.to_json().to_pretty()), "the case file");
        for part in [
            "# A named toolChoice",
            "## Expected",
            "## Reproduce",
            "```js\n",
            ">=1.0.4 <=1.71.0",
        ] {
            assert!(md.contains(part), "{part} in:\n{md}");
        }
    }

    /// The script is given the whole case, its sources too: the template
    /// reads what it needs from the same file the probe is sent.
    #[test]
    fn the_script_carries_the_sources_of_the_case() {
        let case = Case::parse(
            Path::new("cases/x.json"),
            r#"{"about":"sources","tools":["a"],"agents":["helper"],"mcp":{"srv":["t.x"]},
                "memory":{"workingMemory":true},"dynamicTools":true}"#,
        )
        .unwrap();
        let issue = issue();
        let repro = repro(&case, &issue, &Symptom::ToolChoiceNotSent);
        assert_eq!(repro.data().get("case"), Some(&case.to_json()));
        let script = repro.script();
        for part in [
            r#""agents": ["#,
            r#""mcp": {"#,
            r#""workingMemory": true"#,
            r#""dynamicTools": true"#,
        ] {
            assert!(script.contains(part), "{part} in the script");
        }
    }
}
