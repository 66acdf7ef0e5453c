//! `lint`: for Mastra users, what their tool keys become on the wire.
//!
//! In: tool keys (in registration order) and, optionally, the names their
//! `toolChoice`, `activeTools` and prompts use. Out: a `LintReport`, one
//! `KeyFinding` per key and one `NameFinding` per referenced name, each with
//! its severity and a proposed safe key. It runs the model's own rewrite
//! (`model::rewrite`) and record semantics (`model::record`), continuing past
//! a collision, where Mastra stops at the first.
//!
//! `lint --project` builds on it: `load` runs a user's Mastra project in a
//! Node child process and reads its configuration, `project` decodes the
//! document the loader writes, judges every agent with `lint` (a
//! `ProjectLint`) and renders that for the terminal, as JSON and as GitHub
//! annotations, and `sarif` renders it for code scanning. `paint` is the
//! terminal's colour and the plurals every text rendering shares.

pub mod load;
pub mod paint;
pub mod project;
pub mod sarif;

use crate::model::releases::{
    Release, ACTIVE_TOOLS_APPLIED, ACTIVE_TOOLS_ON_0X, FORMAT_TOOLS_SINCE,
};
use crate::version::spec::MastraVersion;
use paint::{count, Paint};

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::model::record::{is_inherited_name, Lookup, Record};
use crate::model::rewrite::{is_valid_name, rewrite, Rewrite, MAX_NAME};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Ok,
    /// Surprising, but the request still works.
    Warning,
    /// Mastra throws, or the provider will reject the request, or a tool the
    /// user meant to offer is not offered.
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyProblem {
    /// Valid: sent as is.
    None,
    /// Rewritten (characters replaced, prefix added); `cut` when it was also
    /// cut to 63.
    Rewritten { cut: bool },
    /// Only cut: a valid-looking key longer than 63.
    Cut,
    /// Two keys resolve to one name: Mastra throws AGENT_TOOL_NAME_COLLISION.
    Collision { with: JsString },
    /// The rewrite lands on a name every JS object inherits: Mastra throws
    /// AGENT_TOOL_NAME_COLLISION with only one tool.
    FalseCollision,
    /// The empty key: Mastra throws a TypeError.
    Crash,
    /// `"__proto__"`: Mastra's own copy drops it silently; never offered.
    Dropped,
    /// Sent as registered, by a release without `formatTools` (0.x before
    /// 0.13.2), though it is no valid function name: the provider's rule
    /// decides whether the request is accepted.
    Unformatted,
}

impl KeyProblem {
    /// The name the JSON renderings write.
    pub fn name(&self) -> &'static str {
        match self {
            KeyProblem::None => "none",
            KeyProblem::Rewritten { .. } => "rewritten",
            KeyProblem::Cut => "cut",
            KeyProblem::Collision { .. } => "collision",
            KeyProblem::FalseCollision => "false-collision",
            KeyProblem::Crash => "crash",
            KeyProblem::Dropped => "dropped",
            KeyProblem::Unformatted => "unformatted",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyFinding {
    pub key: JsString,
    /// The name the model sees (`None` when it sees none).
    pub sent_as: Option<JsString>,
    pub problem: KeyProblem,
    pub severity: Severity,
    /// A key that is sent verbatim and collides with nothing.
    pub suggestion: Option<JsString>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    ToolChoice,
    ActiveTools,
    Prompt,
}

impl Reference {
    pub fn name(self) -> &'static str {
        match self {
            Reference::ToolChoice => "toolChoice",
            Reference::ActiveTools => "activeTools",
            Reference::Prompt => "prompt",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameFinding {
    pub used_in: Reference,
    pub name: JsString,
    /// Whether a tool is sent under exactly this name.
    pub matches: bool,
    /// The sent name of the key it was probably meant for.
    pub meant: Option<JsString>,
    pub severity: Severity,
}

#[derive(Debug, Clone, Default)]
pub struct LintInput {
    pub keys: Vec<JsString>,
    pub tool_choice: Option<JsString>,
    pub active_tools: Vec<JsString>,
    pub prompt_names: Vec<JsString>,
    /// The `@mastra/core` release to judge for (none: the latest behaviour
    /// the model knows). Two things depend on it: `formatTools` (absent
    /// before 0.13.2, where every key is sent as registered) and
    /// `activeTools` (applied on 0.20.0 to 0.24.9 and from 1.1.0, ignored
    /// elsewhere, so its names break nothing there).
    pub version: Option<MastraVersion>,
}

#[derive(Debug, Clone)]
pub struct LintReport {
    pub keys: Vec<KeyFinding>,
    pub names: Vec<NameFinding>,
    /// What was not judged, and why (an option the version ignores).
    pub notes: Vec<String>,
}

impl LintReport {
    pub fn worst(&self) -> Severity {
        self.keys
            .iter()
            .map(|k| k.severity)
            .chain(self.names.iter().map(|n| n.severity))
            .max()
            .unwrap_or(Severity::Ok)
    }
}

/// Lint the keys in the order Mastra processes them (`Object.keys` order of
/// the tools object).
pub fn lint(input: &LintInput) -> LintReport {
    if input.version.is_some_and(|v| !Release::of(v).formats_tools) {
        return lint_unformatted(input);
    }
    let given: Record<usize> =
        Record::from_entries(input.keys.iter().cloned().enumerate().map(|(i, k)| (k, i)));
    // The record Mastra formats: `"__proto__"` never reaches it.
    let mut tools: Record<JsString> = Record::new();
    for k in given.keys() {
        tools.assign(k.clone(), k.clone());
    }
    let mut findings: Vec<KeyFinding> = Vec::new();
    for key in given.keys() {
        let finding = |sent_as, problem, severity| KeyFinding {
            key: key.clone(),
            sent_as,
            problem,
            severity,
            suggestion: None,
        };
        if key == JsString::from("__proto__") {
            findings.push(finding(None, KeyProblem::Dropped, Severity::Warning));
            continue;
        }
        match rewrite(&key) {
            Rewrite::Kept => {
                findings.push(finding(Some(key.clone()), KeyProblem::None, Severity::Ok))
            }
            Rewrite::Crash => findings.push(finding(None, KeyProblem::Crash, Severity::Error)),
            Rewrite::Renamed(name) => match tools.get(&name) {
                Lookup::Own(owner) => findings.push(finding(
                    None,
                    KeyProblem::Collision {
                        with: owner.clone(),
                    },
                    Severity::Error,
                )),
                Lookup::Inherited => {
                    findings.push(finding(None, KeyProblem::FalseCollision, Severity::Error))
                }
                Lookup::Missing => {
                    let only_cut = key.len() > MAX_NAME
                        && key.slice(0, MAX_NAME) == name
                        && is_valid_name(&name);
                    let problem = if only_cut {
                        KeyProblem::Cut
                    } else {
                        KeyProblem::Rewritten {
                            cut: key.len() > MAX_NAME,
                        }
                    };
                    tools.assign(name.clone(), key.clone());
                    tools.delete(&key);
                    findings.push(finding(Some(name), problem, Severity::Warning));
                }
            },
        }
    }
    // Keep findings in the order the user gave the keys.
    findings.sort_by_key(|f| input.keys.iter().position(|k| *k == f.key));
    suggest(&mut findings);
    with_names(input, findings)
}

/// Lint for a release without `formatTools`: every key but `"__proto__"`
/// (which Mastra's copy drops there too) is sent as registered, so nothing
/// collides or crashes in Mastra, and a key that is no valid name is left
/// to the provider.
fn lint_unformatted(input: &LintInput) -> LintReport {
    let given: Record<usize> =
        Record::from_entries(input.keys.iter().cloned().enumerate().map(|(i, k)| (k, i)));
    let mut findings: Vec<KeyFinding> = given
        .keys()
        .into_iter()
        .map(|key| {
            let (sent_as, problem, severity) = if key == JsString::from("__proto__") {
                (None, KeyProblem::Dropped, Severity::Warning)
            } else if is_valid_name(&key) {
                (Some(key.clone()), KeyProblem::None, Severity::Ok)
            } else {
                (
                    Some(key.clone()),
                    KeyProblem::Unformatted,
                    Severity::Warning,
                )
            };
            KeyFinding {
                key,
                sent_as,
                problem,
                severity,
                suggestion: None,
            }
        })
        .collect();
    findings.sort_by_key(|f| input.keys.iter().position(|k| *k == f.key));
    suggest(&mut findings);
    with_names(input, findings)
}

/// Whether `activeTools` filters what `version` sends (none: the newest).
pub fn active_tools_applied(version: Option<MastraVersion>) -> bool {
    version.is_none_or(|v| Release::of(v.release()).active_tools_applied())
}

/// The findings of the names `toolChoice`, `activeTools` and prompts use,
/// against the keys' findings.
fn with_names(input: &LintInput, findings: Vec<KeyFinding>) -> LintReport {
    let sent: Vec<JsString> = findings.iter().filter_map(|f| f.sent_as.clone()).collect();
    let meant_for = |name: &JsString| -> Option<JsString> {
        findings
            .iter()
            .find(|f| f.key == *name)
            .and_then(|f| f.sent_as.clone().or_else(|| f.suggestion.clone()))
    };
    let mut names = Vec::new();
    let mut add = |used_in: Reference, name: &JsString| {
        let matches = sent.contains(name);
        let severity = match (matches, used_in) {
            (true, _) => Severity::Ok,
            (false, Reference::Prompt) => Severity::Warning,
            (false, _) => Severity::Error,
        };
        names.push(NameFinding {
            used_in,
            name: name.clone(),
            matches,
            meant: meant_for(name),
            severity,
        });
    };
    if let Some(tc) = &input.tool_choice {
        add(Reference::ToolChoice, tc);
    }
    let mut notes = Vec::new();
    match input.version {
        Some(v) if !active_tools_applied(Some(v)) && !input.active_tools.is_empty() => {
            let applied = if v.major == 0 {
                let on_0x = ACTIVE_TOOLS_ON_0X;
                let last = on_0x.last.unwrap_or(on_0x.first);
                format!(
                    "applied on {} to {last} and from {}",
                    on_0x.first, ACTIVE_TOOLS_APPLIED.first
                )
            } else {
                format!("applied from {}", ACTIVE_TOOLS_APPLIED.first)
            };
            notes.push(format!(
                "activeTools is ignored by @mastra/core {v} ({applied})"
            ));
        }
        _ => {
            for n in &input.active_tools {
                add(Reference::ActiveTools, n);
            }
        }
    }
    for n in &input.prompt_names {
        add(Reference::Prompt, n);
    }
    LintReport {
        keys: findings,
        names,
        notes,
    }
}

/// Propose, for every key that is not sent verbatim, a key that is: its wire
/// name when that is free, else the wire name with `_2`, `_3`, ... (cut to
/// leave room), never an inherited name, never a name another key holds.
fn suggest(findings: &mut [KeyFinding]) {
    let mut taken: Vec<JsString> = findings
        .iter()
        .filter(|f| f.problem == KeyProblem::None)
        .map(|f| f.key.clone())
        .collect();
    for f in findings
        .iter_mut()
        .filter(|f| f.problem != KeyProblem::None)
    {
        let base = match (&f.problem, &f.sent_as) {
            (KeyProblem::Crash, _) => JsString::from("tool"),
            (KeyProblem::Dropped, _) => JsString::from("proto"),
            // Its own name is no valid one: start from what formatTools
            // would make of it.
            (KeyProblem::Unformatted, _) => {
                crate::model::rewrite::wire_name(&f.key).unwrap_or_else(|| JsString::from("tool"))
            }
            (_, Some(name)) => name.clone(),
            _ => crate::model::rewrite::wire_name(&f.key).unwrap_or_else(|| JsString::from("tool")),
        };
        let mut candidate = base.clone();
        let mut n = 2;
        while taken.contains(&candidate)
            || is_inherited_name(&candidate)
            || !is_valid_name(&candidate)
        {
            let suffix = JsString::from(format!("_{n}"));
            candidate = base.slice(0, MAX_NAME - suffix.len()).concat(&suffix);
            n += 1;
        }
        taken.push(candidate.clone());
        f.suggestion = Some(candidate);
    }
}

/// What is wrong with a key, in one phrase.
pub fn describe(f: &KeyFinding) -> String {
    match &f.problem {
        KeyProblem::None => "ok".into(),
        KeyProblem::Rewritten { cut: false } => "rewritten: characters outside a-zA-Z0-9_- or a bad first character".into(),
        KeyProblem::Rewritten { cut: true } => "rewritten and cut to 63 characters".into(),
        KeyProblem::Cut => "cut to 63 characters (providers allow 64)".into(),
        KeyProblem::Collision { with } => format!("collision: rewrites onto the name {with} already holds; Mastra throws AGENT_TOOL_NAME_COLLISION"),
        KeyProblem::FalseCollision => {
            "false collision: rewrites onto a name every JS object inherits; Mastra throws AGENT_TOOL_NAME_COLLISION".into()
        }
        KeyProblem::Crash => "crash: the empty key makes Mastra throw a TypeError".into(),
        KeyProblem::Dropped => "dropped: Mastra's copy of the tools object loses \"__proto__\"; the model never sees it".into(),
        KeyProblem::Unformatted => format!("sent as registered: @mastra/core before {} has no formatTools, so a name outside a-zA-Z0-9_- (or too long, or with a bad first character) reaches the provider as it is", FORMAT_TOOLS_SINCE.first),
    }
}

pub fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Ok => "ok",
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

impl LintReport {
    /// One line per problem (every key and name with `all`), then a
    /// summary line.
    pub fn to_text(&self, all: bool, paint: Paint) -> String {
        let mut out = String::new();
        for f in self
            .keys
            .iter()
            .filter(|f| all || f.severity != Severity::Ok)
        {
            let sent = f
                .sent_as
                .as_ref()
                .map_or_else(|| "(not sent)".to_string(), |s| s.to_string());
            out.push_str(&format!(
                "{} {} -> {}: {}",
                paint.severity(f.severity),
                f.key,
                sent,
                describe(f)
            ));
            if let Some(s) = &f.suggestion {
                out.push_str(&format!("; use the key {s}"));
            }
            out.push('\n');
        }
        for n in self
            .names
            .iter()
            .filter(|n| all || n.severity != Severity::Ok)
        {
            if n.matches {
                out.push_str(&format!(
                    "{} {} {}: a tool is sent under this name\n",
                    paint.severity(Severity::Ok),
                    n.used_in.name(),
                    n.name
                ));
                continue;
            }
            let why = match n.used_in {
                Reference::ToolChoice => "names no tool that is sent; the provider rejects the request",
                Reference::ActiveTools => "matches no tool that is sent (activeTools compares rewritten names); that tool is not offered",
                Reference::Prompt => "is not a name the model is offered",
            };
            out.push_str(&format!(
                "{} {} {} {why}",
                paint.severity(n.severity),
                n.used_in.name(),
                n.name
            ));
            if let Some(m) = &n.meant {
                out.push_str(&format!("; the model sees {m}"));
            }
            out.push('\n');
        }
        for note in &self.notes {
            out.push_str(&format!("{} {note}\n", paint.note("note   ")));
        }
        out.push_str(&format!(
            "{}, {}: {}, {}, {} ok\n",
            count(self.keys.len(), "key"),
            count(self.names.len(), "name"),
            count(self.count(Severity::Error), "error"),
            count(self.count(Severity::Warning), "warning"),
            self.count(Severity::Ok)
        ));
        out
    }

    /// The keys and names of a severity.
    pub fn count(&self, s: Severity) -> usize {
        self.keys.iter().filter(|k| k.severity == s).count()
            + self.names.iter().filter(|n| n.severity == s).count()
    }

    /// `{ keys, names, notes, worst }`: each key and name as its own
    /// `to_json` writes it.
    pub fn to_json(&self) -> Json {
        Json::object([
            (
                "keys",
                Json::Array(self.keys.iter().map(KeyFinding::to_json).collect()),
            ),
            (
                "names",
                Json::Array(self.names.iter().map(NameFinding::to_json).collect()),
            ),
            (
                "notes",
                Json::Array(self.notes.iter().map(|n| Json::str(n)).collect()),
            ),
            ("worst", Json::str(severity_name(self.worst()))),
        ])
    }
}

fn optional(s: &Option<JsString>) -> Json {
    s.clone().map_or(Json::Null, Json::String)
}

impl KeyFinding {
    pub fn to_json(&self) -> Json {
        Json::Object(self.json_members())
    }

    /// The one JSON writing of a key's finding, as members: `lint --json`
    /// writes them as they are, `lint --project --json` adds where the key
    /// came from.
    pub fn json_members(&self) -> Vec<(JsString, Json)> {
        let with = match &self.problem {
            KeyProblem::Collision { with } => Json::String(with.clone()),
            _ => Json::Null,
        };
        let members: [(&str, Json); 7] = [
            ("key", Json::String(self.key.clone())),
            ("sentAs", optional(&self.sent_as)),
            ("problem", Json::str(self.problem.name())),
            ("collidesWith", with),
            (
                "cut",
                Json::Bool(matches!(
                    self.problem,
                    KeyProblem::Cut | KeyProblem::Rewritten { cut: true }
                )),
            ),
            ("severity", Json::str(severity_name(self.severity))),
            ("suggestion", optional(&self.suggestion)),
        ];
        members.into_iter().map(|(k, v)| (k.into(), v)).collect()
    }
}

impl NameFinding {
    /// The one JSON writing of a name's finding.
    pub fn to_json(&self) -> Json {
        Json::object([
            ("usedIn", Json::str(self.used_in.name())),
            ("name", Json::String(self.name.clone())),
            ("matches", Json::Bool(self.matches)),
            ("modelSees", optional(&self.meant)),
            ("severity", Json::str(severity_name(self.severity))),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(s: &str) -> JsString {
        JsString::from(s)
    }

    fn input(keys: &[&str]) -> LintInput {
        LintInput {
            keys: keys.iter().map(|k| js(k)).collect(),
            ..LintInput::default()
        }
    }

    /// The acceptance example of the lint command.
    #[test]
    fn acceptance_example() {
        let long = "k".repeat(64);
        let r = lint(&input(&["search.web", "search web", "1tool", &long]));
        assert_eq!(r.keys[0].sent_as, Some(js("search_web")));
        assert_eq!(
            r.keys[1].problem,
            KeyProblem::Collision {
                with: js("search.web")
            }
        );
        assert_eq!(r.keys[2].sent_as, Some(js("_1tool")));
        assert_eq!(r.keys[3].problem, KeyProblem::Cut);
        assert_eq!(r.keys[3].sent_as, Some(js(&"k".repeat(63))));
        assert_eq!(r.worst(), Severity::Error);
        // The colliding key gets a suggestion nobody else holds.
        assert_eq!(r.keys[1].suggestion, Some(js("search_web_2")));
    }

    #[test]
    fn crashes_false_collisions_and_dropped_keys() {
        let r = lint(&input(&["", "__proto_.", "__proto__", "ok"]));
        assert_eq!(r.keys[0].problem, KeyProblem::Crash);
        assert_eq!(r.keys[1].problem, KeyProblem::FalseCollision);
        assert_eq!(r.keys[2].problem, KeyProblem::Dropped);
        assert_eq!(r.keys[3].problem, KeyProblem::None);
        for f in &r.keys[..3] {
            let s = f.suggestion.clone().unwrap();
            assert!(is_valid_name(&s) && !is_inherited_name(&s), "{s:?}");
        }
    }

    #[test]
    fn tool_choice_by_key_is_an_error_and_by_sent_name_is_fine() {
        let mut i = input(&["search.web"]);
        i.tool_choice = Some(js("search.web"));
        let r = lint(&i);
        assert_eq!(r.names[0].severity, Severity::Error);
        assert_eq!(r.names[0].meant, Some(js("search_web")));
        i.tool_choice = Some(js("search_web"));
        assert_eq!(
            lint(&i).worst(),
            Severity::Warning,
            "only the rewrite itself remains"
        );
    }

    #[test]
    fn active_tools_before_1_1_0_are_a_note_not_an_error() {
        let mut i = input(&["search.web"]);
        i.active_tools = vec![js("search.web")];
        assert_eq!(lint(&i).worst(), Severity::Error, "the latest: an error");
        i.version = Some(MastraVersion::new(1, 0, 4));
        let r = lint(&i);
        assert_eq!(r.worst(), Severity::Warning, "only the rewrite");
        assert!(r.names.is_empty());
        assert_eq!(
            r.notes,
            ["activeTools is ignored by @mastra/core 1.0.4 (applied from 1.1.0)"]
        );
        i.version = Some(MastraVersion::new(1, 1, 0));
        assert_eq!(lint(&i).worst(), Severity::Error);
    }

    /// 0.12.1 has no formatTools: a key is sent as registered, so nothing
    /// collides or crashes in Mastra, and a name that is no valid one is
    /// left to the provider; 0.13.2 rewrites as 1.x does.
    #[test]
    fn before_format_tools_every_key_is_sent_as_registered() {
        let mut i = input(&["search.web", "search web", "", "__proto__", "ok"]);
        i.tool_choice = Some(js("search.web"));
        i.version = Some(MastraVersion::new(0, 12, 1));
        let r = lint(&i);
        let sent: Vec<Option<JsString>> = r.keys.iter().map(|k| k.sent_as.clone()).collect();
        assert_eq!(
            sent,
            [
                Some(js("search.web")),
                Some(js("search web")),
                Some(js("")),
                None,
                Some(js("ok"))
            ]
        );
        assert!(r.keys[..3]
            .iter()
            .all(|k| k.problem == KeyProblem::Unformatted));
        assert_eq!(r.keys[3].problem, KeyProblem::Dropped);
        assert_eq!(r.keys[4].problem, KeyProblem::None);
        for k in &r.keys[..4] {
            let s = k.suggestion.clone().unwrap();
            assert!(is_valid_name(&s) && !is_inherited_name(&s), "{s:?}");
        }
        assert!(r.names[0].matches, "toolChoice by the key itself");
        i.version = Some(MastraVersion::new(0, 13, 2));
        let r = lint(&i);
        assert_eq!(
            r.keys[1].problem,
            KeyProblem::Collision {
                with: js("search.web")
            }
        );
        assert_eq!(r.keys[2].problem, KeyProblem::Crash);
        assert!(!r.names[0].matches);
    }

    #[test]
    fn active_tools_on_0_x_count_where_the_release_applies_them() {
        let mut i = input(&["search.web"]);
        i.active_tools = vec![js("search.web")];
        for (v, applied) in [
            ((0, 19, 1), false),
            ((0, 21, 0), true),
            ((0, 24, 9), true),
            ((1, 0, 4), false),
        ] {
            i.version = Some(MastraVersion::new(v.0, v.1, v.2));
            assert_eq!(lint(&i).names.len(), usize::from(applied), "{v:?}");
            assert_eq!(lint(&i).notes.is_empty(), applied, "{v:?}");
        }
    }

    #[test]
    fn the_summary_counts_in_words() {
        let text = lint(&input(&["search.web"])).to_text(false, Paint::plain());
        assert!(
            text.ends_with("1 key, 0 names: 0 errors, 1 warning, 0 ok\n"),
            "{text}"
        );
    }

    #[test]
    fn valid_keys_are_clean() {
        let r = lint(&input(&["weather", "weather-EU", "_ok"]));
        assert_eq!(r.worst(), Severity::Ok);
        assert!(r.keys.iter().all(|k| k.suggestion.is_none()));
    }
}
