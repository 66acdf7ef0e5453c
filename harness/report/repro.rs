//! `Repro`: a case and the known issue it shows, rendered as a standalone
//! ES-module Node script (`mastra-conform repro`) and as a draft upstream
//! report in Markdown.
//!
//! In: a `Case`, its `KnownIssue` and the symptom the case shows, the
//! version the script was made for. Out: text. Pure: the script is
//! `node-probe/repro.template.mjs` with one JSON value filled in (the whole
//! case file as `Case::to_json` writes it, sources included), so what the
//! script checks is exactly the ledger's symptom, evaluated in JavaScript
//! on the bodies its own capture server received.

use crate::case::Case;
use crate::js::json::Json;
use crate::judge::known::{KnownIssue, Symptom};
use crate::route::Route;

/// The script's text, with `__REPRO_JSON__` where the data goes.
const TEMPLATE: &str = include_str!("../../node-probe/repro.template.mjs");
/// The routes (how a model is named, where its requests go) and the
/// provider wire formats, inlined into the script as the probe uses them.
const ROUTES_MJS: &str = include_str!("../../node-probe/routes.mjs");
const WIRE_MJS: &str = include_str!("../../node-probe/wire.mjs");

/// A module's text as plain statements of the script: its `export`s dropped.
fn inlined(module: &str) -> String {
    module
        .lines()
        .map(|l| l.strip_prefix("export ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
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
            ("case", self.case.to_json()),
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
        ])
    }

    /// The standalone script. The JSON is written as `JSON.stringify` would
    /// write it, which is also a JavaScript expression (lone surrogates as
    /// `\udXXX` escapes), so keys reach Mastra exactly as the case has them.
    pub fn script(&self) -> String {
        TEMPLATE
            .replace(
                "@mastra/core@VERSION",
                &format!("@mastra/core@{}", self.install_spec()),
            )
            .replace("__ROUTES_MJS__", &inlined(ROUTES_MJS))
            .replace("__WIRE_MJS__", &inlined(WIRE_MJS))
            .replace("__REPRO_JSON__", &self.data().to_pretty())
    }

    /// What `npm install` is given for the version: a registry version as
    /// is; a build by its package.json version, with a note to install the
    /// build itself instead.
    fn install_spec(&self) -> String {
        match self.made_on.split_once('+') {
            Some((release, _)) => {
                format!("{release}  # or the build itself: npm install ./your-build.tgz")
            }
            None => self.made_on.clone(),
        }
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
            self.case.to_json().to_pretty()
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
        }
    }

    #[test]
    fn the_script_checks_every_symptom_the_ledger_can_name() {
        let every = [
            Symptom::ToolChoiceNotSent,
            Symptom::EmptyTools,
            Symptom::ToolChoiceSent,
            Symptom::ToolSent("a".into()),
            Symptom::ToolNotSent("a".into()),
            Symptom::NoTools,
            Symptom::ErrorCause("a".into()),
            Symptom::ErrorMessage("a".into()),
        ];
        for s in every {
            // A symptom added to the ledger fails to compile here until it
            // is in the list above (and so checked in the template).
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
            let json = s.to_json();
            let kind = json.members().unwrap()[0].0.to_lossy();
            assert!(
                TEMPLATE.contains(&format!("case '{kind}':")),
                "repro.template.mjs cannot check {kind}"
            );
        }
    }

    /// `case` showing `issue` as an unsent toolChoice, on 1.67.0.
    fn on_1_67<'a>(case: &'a Case, issue: &'a KnownIssue) -> Repro<'a> {
        Repro {
            case,
            issue,
            symptom: &Symptom::ToolChoiceNotSent,
            made_on: "1.67.0".into(),
            route: Route::OpenAiCompatible,
        }
    }

    #[test]
    fn the_script_carries_the_case_exactly() {
        let case = Case::parse(
            Path::new("cases/x.json"),
            r#"{"about":"a lone surrogate","tools":["\ud800x"],"call":{"toolChoice":{"type":"tool","toolName":"\ud800x"}}}"#,
        )
        .unwrap();
        let issue = issue();
        let repro = on_1_67(&case, &issue);
        let script = repro.script();
        assert!(!script.contains("__REPRO_JSON__"));
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
        let repro = on_1_67(&case, &issue);
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
