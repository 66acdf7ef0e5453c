//! `Repro`: a case and the known issue it shows, rendered as a standalone
//! ES-module Node script (`mastra-conform repro`) and as a draft upstream
//! report in Markdown.
//!
//! In: a `Case`, its `KnownIssue` and the symptom the case shows, the
//! version the script was made for. Out: text. Pure: the script is
//! `node-probe/repro.template.mjs` with one JSON value filled in, so what
//! the script checks is exactly the ledger's symptom, evaluated in
//! JavaScript on the bodies its own capture server received.

use crate::case::Case;
use crate::judge::known::{KnownIssue, Symptom};
use crate::js::json::Json;

/// The script's text, with `__REPRO_JSON__` where the data goes.
const TEMPLATE: &str = include_str!("../../node-probe/repro.template.mjs");

/// One known issue, shown by one case.
#[derive(Debug, Clone)]
pub struct Repro<'a> {
    pub case: &'a Case,
    pub issue: &'a KnownIssue,
    /// How the case shows the issue (`shows` in the ledger).
    pub symptom: &'a Symptom,
    /// The version (or build) the script is made for: the install line names it.
    pub made_on: String,
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
            ("case", self.case.raw.clone()),
            ("casePath", Json::str(&self.case.name())),
            ("madeOn", Json::str(&self.made_on)),
            ("symptom", self.symptom.to_json()),
            (
                "fixedSymptom",
                self.issue.fixed_shows.as_ref().map_or(Json::Null, Symptom::to_json),
            ),
        ])
    }

    /// The standalone script. The JSON is written as `JSON.stringify` would
    /// write it, which is also a JavaScript expression (lone surrogates as
    /// `\udXXX` escapes), so keys reach Mastra exactly as the case has them.
    pub fn script(&self) -> String {
        TEMPLATE
            .replace("@mastra/core@VERSION", &format!("@mastra/core@{}", self.install_spec()))
            .replace("__REPRO_JSON__", &self.data().to_pretty())
    }

    /// What `npm install` is given for the version: a registry version as
    /// is; a build by its package.json version, with a note to install the
    /// build itself instead.
    fn install_spec(&self) -> String {
        match self.made_on.split_once('+') {
            Some((release, _)) => format!("{release}  # or the build itself: npm install ./your-build.tgz"),
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
            self.case.raw.to_pretty()
        ));
        md.push_str(&format!(
            "## What is sent (on {}, to an OpenAI-compatible model)\n\n```json\n{}\n```\n\n\
             The issue shows as `{}`.\n\n",
            self.made_on,
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
