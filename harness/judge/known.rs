//! `KnownIssues`: the upstream issues the harness demonstrates, read from
//! `known-issues.json` at the repository root.
//!
//! In: that file. Out: for a case, the issue it shows and the `Symptom` that
//! says, of one projection, whether the issue is there. A symptom is read off
//! both sides of a result: the model predicts the issue where it is known to
//! be, so a symptom the model predicts but Mastra no longer shows is an
//! upstream fix (`known-issue-fixed`), and one Mastra still shows, as
//! modelled, is `known-issue`. Known bugs are asserted, never skipped.
//!
//! The file, by example:
//!
//! ```json
//! { "issues": [ {
//!     "id": "toolchoice-not-rewritten",
//!     "title": "a named toolChoice is not rewritten like the tools",
//!     "wrong": "what is wrong, in a sentence or two",
//!     "fixed": "what the fixed behaviour would be",
//!     "fixedShows": { "toolChoiceSent": true },
//!     "upstream": "https://github.com/mastra-ai/mastra/issues/N or null",
//!     "seen": ">=1.0.4 <=1.71.0",
//!     "cases": [ { "case": "cases/report/x.json", "shows": { "toolChoiceNotSent": true } } ]
//! } ] }
//! ```
//!
//! A case entry may name a `route`: it then holds on that route only, and
//! takes precedence there over an entry for the same file without one
//! (which holds on every other route).
//!
//! A case the ledger does not list (a user's own, a fuzz find) is
//! recognised by its symptom (`KnownIssues::recognise`): an issue that says
//! how (`recognise`, below) is the case's when the case is of that kind and
//! one of the issue's symptoms shows on its projection. A symptom alone is
//! not enough: `AGENT_TOOL_NAME_COLLISION` is both `cut-at-63` and Mastra's
//! intended check, `toolChoiceNotSent` both toolChoice issues and a user's
//! typo, `toolNotSent` true of nearly every case. An issue without
//! `recognise` is known on its listed cases only. The conditions, all of
//! which must hold:
//!
//! | `recognise` | holds when |
//! |---|---|
//! | `{"choiceNeedsRewrite": true}` | a request's named tool choice names no function of its `tools`, and the choice rewritten as `formatTools` rewrites keys is one of them |
//! | `{"choiceNamed": true}` | the case's call names a tool in `toolChoice` |
//! | `{"registers": KEY}` | the case registers a tool under KEY (in `tools`, a toolset or `clientTools`) |
//! | `{"route": ROUTE}` | the case is on ROUTE |
//!
//! Case paths are relative to the file's folder; `seen` is a version set in
//! `--versions` syntax (a comma-separated list: an issue may be seen on a
//! stretch of 0.x and again on 1.x). `fixedShows` (optional) is the fixed behaviour as a
//! symptom: `verify` calls a version fixed only when it shows it (a symptom
//! gone some other way is a third behaviour, not the fix), `diff` files a
//! difference under the issue whose fixed behaviour it shows, and `repro`
//! prints it as what is expected. The symptoms:
//!
//! | `shows` | the issue is there when |
//! |---|---|
//! | `{"toolChoiceNotSent": true}` | a request's named tool choice (in any route's shape) names no function of its `tools` |
//! | `{"emptyTools": true}` | a request was sent, and the first one's `tools` is `[]` |
//! | `{"toolChoiceSent": true}` | a request has a named `tool_choice`, and every named one names a function of its `tools` |
//! | `{"toolSent": NAME}` | a request's `tools` has NAME |
//! | `{"toolNotSent": NAME}` | a request was sent, and the first one's `tools` lacks NAME |
//! | `{"noTools": true}` | a request was sent, and the first one has no `tools` |
//! | `{"errorCause": CODE}` | the call ended with an error whose `causeCode` is CODE |
//! | `{"errorMessage": TEXT}` | the call ended with an error whose message contains TEXT |
//! | `{"approvalAsked": NAME}` | the case's approval policy was asked with NAME (`seen.approval.asked`) |
//! | `{"policyNotAsked": true}` | a call waited for approval and the policy was never asked |
//! | `{"approvalsHeld": N}` | exactly N calls waited for approval (`seen.approval.pending`) |
//! | `{"streamNamed": NAME}` | a stream chunk's `toolName` is NAME (`seen.stream`) |
//! | `{"executed": ID}` | the tool with id ID ran (the projection's `executed`) |
//! | `{"notExecuted": ID}` | the tool with id ID never ran |
//! | `{"executedTwice": ID}` | the tool with id ID ran twice or more (one call: it ran before its answer and again on it) |

use crate::case::{Case, CaseError, Tool, ToolChoice as CaseChoice, Validator};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::model::rewrite::wire_name;
use crate::model::Prediction;
use crate::observation::Observed;
use crate::projection::{Projection, RequestView};
use crate::route::body::{at, path_json, Step};
use crate::route::Route;
use crate::version::spec::VersionSpec;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What says, of one projection, that the issue is there.
#[derive(Debug, Clone, PartialEq)]
pub enum Symptom {
    ToolChoiceNotSent,
    EmptyTools,
    ToolChoiceSent,
    ToolSent(JsString),
    ToolNotSent(JsString),
    NoTools,
    ErrorCause(JsString),
    ErrorMessage(JsString),
    /// The approval policy was asked with NAME.
    ApprovalAsked(JsString),
    /// A call waited for approval and the policy was never asked.
    PolicyNotAsked,
    /// Exactly N calls waited for approval: fewer than a case's approved
    /// calls means a later one ran unheld.
    ApprovalsHeld(u32),
    /// A stream chunk named a tool NAME.
    StreamNamed(JsString),
    /// The tool with id ID ran: of a declined call, the decline was lost.
    Executed(JsString),
    /// The tool with id ID never ran.
    NotExecuted(JsString),
    /// The tool with id ID ran twice or more: of one held call, it ran
    /// before its answer and again on it.
    ExecutedTwice(JsString),
}

impl Symptom {
    pub fn shows(&self, p: &Projection) -> bool {
        self.check().holds(p)
    }

    /// What the symptom tests, as data: the one definition of each
    /// symptom, evaluated here and, from its JSON, by the repro script.
    pub fn check(&self) -> SymptomCheck {
        use RequestTest as T;
        use SymptomCheck as C;
        match self {
            Symptom::ToolChoiceNotSent => C::Some(T::ChoiceNamesUnsentTool),
            Symptom::EmptyTools => C::First(T::EmptyTools),
            Symptom::ToolChoiceSent => C::All(vec![
                C::Some(T::ChoiceNamed),
                C::Every(T::Not(Box::new(T::ChoiceNamesUnsentTool))),
            ]),
            Symptom::ToolSent(name) => C::Some(T::HasTool(name.clone())),
            Symptom::ToolNotSent(name) => C::First(T::Not(Box::new(T::HasTool(name.clone())))),
            Symptom::NoTools => C::First(T::NoTools),
            Symptom::ErrorCause(code) => C::ErrorCause(code.clone()),
            Symptom::ErrorMessage(text) => C::ErrorMessageHas(text.clone()),
            Symptom::ApprovalAsked(name) => C::SeenAsked(name.clone()),
            Symptom::PolicyNotAsked => C::SeenUnasked,
            Symptom::ApprovalsHeld(n) => C::SeenHeld(*n),
            Symptom::StreamNamed(name) => C::SeenStreamNamed(name.clone()),
            Symptom::Executed(id) => C::Executed(id.clone()),
            Symptom::NotExecuted(id) => C::NotExecuted(id.clone()),
            Symptom::ExecutedTwice(id) => C::ExecutedTwice(id.clone()),
        }
    }

    /// The symptom as the ledger writes it.
    pub fn to_json(&self) -> Json {
        let (k, v) = match self {
            Symptom::ToolChoiceNotSent => ("toolChoiceNotSent", Json::Bool(true)),
            Symptom::EmptyTools => ("emptyTools", Json::Bool(true)),
            Symptom::ToolChoiceSent => ("toolChoiceSent", Json::Bool(true)),
            Symptom::ToolSent(n) => ("toolSent", Json::String(n.clone())),
            Symptom::ToolNotSent(n) => ("toolNotSent", Json::String(n.clone())),
            Symptom::NoTools => ("noTools", Json::Bool(true)),
            Symptom::ErrorCause(c) => ("errorCause", Json::String(c.clone())),
            Symptom::ErrorMessage(t) => ("errorMessage", Json::String(t.clone())),
            Symptom::ApprovalAsked(n) => ("approvalAsked", Json::String(n.clone())),
            Symptom::PolicyNotAsked => ("policyNotAsked", Json::Bool(true)),
            Symptom::ApprovalsHeld(n) => ("approvalsHeld", Json::int(i64::from(*n))),
            Symptom::StreamNamed(n) => ("streamNamed", Json::String(n.clone())),
            Symptom::Executed(id) => ("executed", Json::String(id.clone())),
            Symptom::NotExecuted(id) => ("notExecuted", Json::String(id.clone())),
            Symptom::ExecutedTwice(id) => ("executedTwice", Json::String(id.clone())),
        };
        Json::object([(k, v)])
    }
}

impl std::fmt::Display for Symptom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_json().to_compact())
    }
}

/// A symptom's test of one projection. Its JSON (`to_json`) is what
/// `node-probe/reading.mjs` evaluates in the repro script.
#[derive(Debug, Clone, PartialEq)]
pub enum SymptomCheck {
    /// `{"some": TEST}`: some request passes.
    Some(RequestTest),
    /// `{"every": TEST}`: every request passes (none sent counts).
    Every(RequestTest),
    /// `{"first": TEST}`: a request was sent, and the first passes.
    First(RequestTest),
    /// `{"all": [CHECK, ...]}`: every check holds.
    All(Vec<SymptomCheck>),
    /// `{"errorCause": CODE}`: the call ended with an error of that `causeCode`.
    ErrorCause(JsString),
    /// `{"errorMessageHas": TEXT}`: the call ended with an error whose
    /// message contains TEXT (as UTF-16 code units).
    ErrorMessageHas(JsString),
    /// `{"seenAsked": NAME}`: the approval policy was asked with NAME
    /// (`seen.approval.asked`).
    SeenAsked(JsString),
    /// `{"seenUnasked": true}`: a call waited for approval
    /// (`seen.approval.pending`) and the policy was never asked.
    SeenUnasked,
    /// `{"seenHeld": N}`: exactly N calls waited for approval
    /// (`seen.approval.pending`).
    SeenHeld(u32),
    /// `{"seenStreamNamed": NAME}`: a stream chunk's `toolName` is NAME.
    SeenStreamNamed(JsString),
    /// `{"executed": ID}`: the tool with id ID ran (`executed`).
    Executed(JsString),
    /// `{"notExecuted": ID}`: the tool with id ID never ran.
    NotExecuted(JsString),
    /// `{"executedTwice": ID}`: the tool with id ID ran twice or more.
    ExecutedTwice(JsString),
}

/// A test of one request of a projection.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestTest {
    /// `{"choiceNamed": true}`: its tool choice names a function
    /// (`named_choice`).
    ChoiceNamed,
    /// `{"choiceNamesUnsentTool": true}`: its tool choice names a function
    /// its `tools` lack.
    ChoiceNamesUnsentTool,
    /// `{"hasTool": NAME}`: its `tools` has NAME.
    HasTool(JsString),
    /// `{"noTools": true}`: it has no `tools`.
    NoTools,
    /// `{"emptyTools": true}`: its `tools` is `[]`.
    EmptyTools,
    /// `{"not": TEST}`.
    Not(Box<RequestTest>),
}

impl SymptomCheck {
    pub fn holds(&self, p: &Projection) -> bool {
        match self {
            SymptomCheck::Some(t) => p.requests.iter().any(|r| t.passes(r)),
            SymptomCheck::Every(t) => p.requests.iter().all(|r| t.passes(r)),
            SymptomCheck::First(t) => p.requests.first().is_some_and(|r| t.passes(r)),
            SymptomCheck::All(checks) => checks.iter().all(|c| c.holds(p)),
            SymptomCheck::ErrorCause(code) => p
                .error
                .as_ref()
                .is_some_and(|e| e.cause_code.as_ref() == Some(code)),
            SymptomCheck::ErrorMessageHas(text) => {
                p.error.as_ref().is_some_and(|e| contains(&e.message, text))
            }
            SymptomCheck::SeenAsked(name) => p.seen.as_ref().is_some_and(|s| {
                s.asked
                    .iter()
                    .any(|a| a.as_str().is_some_and(|a| a == name))
            }),
            SymptomCheck::SeenUnasked => p
                .seen
                .as_ref()
                .is_some_and(|s| s.asked.is_empty() && !s.pending.is_empty()),
            SymptomCheck::SeenHeld(n) => p
                .seen
                .as_ref()
                .is_some_and(|s| s.pending.len() == *n as usize),
            SymptomCheck::SeenStreamNamed(name) => p.seen.as_ref().is_some_and(|s| {
                s.stream
                    .iter()
                    .any(|(_, n)| n.as_str().is_some_and(|n| n == name))
            }),
            SymptomCheck::Executed(id) => p.executed.iter().any(|e| &e.id == id),
            SymptomCheck::NotExecuted(id) => p.executed.iter().all(|e| &e.id != id),
            SymptomCheck::ExecutedTwice(id) => {
                p.executed.iter().filter(|e| &e.id == id).count() >= 2
            }
        }
    }

    pub fn to_json(&self) -> Json {
        let (form, arg) = match self {
            SymptomCheck::Some(t) => ("some", t.to_json()),
            SymptomCheck::Every(t) => ("every", t.to_json()),
            SymptomCheck::First(t) => ("first", t.to_json()),
            SymptomCheck::All(checks) => (
                "all",
                Json::Array(checks.iter().map(SymptomCheck::to_json).collect()),
            ),
            SymptomCheck::ErrorCause(code) => ("errorCause", Json::String(code.clone())),
            SymptomCheck::ErrorMessageHas(text) => ("errorMessageHas", Json::String(text.clone())),
            SymptomCheck::SeenAsked(name) => ("seenAsked", Json::String(name.clone())),
            SymptomCheck::SeenUnasked => ("seenUnasked", Json::Bool(true)),
            SymptomCheck::SeenHeld(n) => ("seenHeld", Json::int(i64::from(*n))),
            SymptomCheck::SeenStreamNamed(name) => ("seenStreamNamed", Json::String(name.clone())),
            SymptomCheck::Executed(id) => ("executed", Json::String(id.clone())),
            SymptomCheck::NotExecuted(id) => ("notExecuted", Json::String(id.clone())),
            SymptomCheck::ExecutedTwice(id) => ("executedTwice", Json::String(id.clone())),
        };
        Json::object([(form, arg)])
    }
}

impl RequestTest {
    pub fn passes(&self, r: &RequestView) -> bool {
        let sent = |name: &JsString| r.tools.iter().flatten().any(|t| t == name);
        let named = || r.tool_choice.as_ref().and_then(named_choice);
        match self {
            RequestTest::ChoiceNamed => named().is_some(),
            RequestTest::ChoiceNamesUnsentTool => named().is_some_and(|n| !sent(&n)),
            RequestTest::HasTool(name) => sent(name),
            RequestTest::NoTools => r.tools.is_none(),
            RequestTest::EmptyTools => r.tools.as_deref() == Some(&[]),
            RequestTest::Not(t) => !t.passes(r),
        }
    }

    pub fn to_json(&self) -> Json {
        let yes = Json::Bool(true);
        let (form, arg) = match self {
            RequestTest::ChoiceNamed => ("choiceNamed", yes),
            RequestTest::ChoiceNamesUnsentTool => ("choiceNamesUnsentTool", yes),
            RequestTest::HasTool(name) => ("hasTool", Json::String(name.clone())),
            RequestTest::NoTools => ("noTools", yes),
            RequestTest::EmptyTools => ("emptyTools", yes),
            RequestTest::Not(t) => ("not", t.to_json()),
        };
        Json::object([(form, arg)])
    }
}

/// One shape of a tool choice that forces a function, and where its name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChoiceShape {
    /// The shape is the choice's when its `type` is one of these; `None`:
    /// when it has a value at `name`.
    pub when_type: Option<&'static [&'static str]>,
    pub name: &'static [Step],
    /// A name that is not a string reads as `""` (names nothing sent),
    /// else as no named function at all.
    pub or_empty: bool,
}

/// The shapes of a choice that forces a function, tried in order: Chat
/// Completions `{"type":"function","function":{"name":N}}`, Responses
/// `{"type":"function","name":N}` and Anthropic `{"type":"tool","name":N}`,
/// Gemini `{"functionCallingConfig":{"allowedFunctionNames":[N]}}`. A forced
/// function without a string name (the openai route can lose it,
/// `model/route.rs`) names nothing that was sent: `""`.
pub const NAMED_CHOICE: [ChoiceShape; 3] = [
    ChoiceShape {
        when_type: None,
        name: &[Step::Member("function"), Step::Member("name")],
        or_empty: false,
    },
    ChoiceShape {
        when_type: Some(&["function", "tool"]),
        name: &[Step::Member("name")],
        or_empty: true,
    },
    ChoiceShape {
        when_type: None,
        name: &[
            Step::Member("functionCallingConfig"),
            Step::Member("allowedFunctionNames"),
            Step::Index(0),
        ],
        or_empty: false,
    },
];

/// The function a tool choice forces, in any route's shape (`NAMED_CHOICE`).
pub fn named_choice(choice: &Json) -> Option<JsString> {
    for shape in &NAMED_CHOICE {
        let name = at(choice, shape.name);
        let applies = match shape.when_type {
            None => name.is_some(),
            Some(types) => choice
                .get("type")
                .and_then(Json::as_str)
                .is_some_and(|t| types.iter().any(|k| *t == JsString::from(*k))),
        };
        if applies {
            return match name.and_then(Json::as_str) {
                Some(n) => Some(n.clone()),
                None => shape.or_empty.then(JsString::new),
            };
        }
    }
    None
}

/// `NAMED_CHOICE` as the repro script reads it.
pub fn named_choice_json() -> Json {
    Json::Array(
        NAMED_CHOICE
            .iter()
            .map(|s| {
                Json::object([
                    (
                        "whenType",
                        s.when_type.map_or(Json::Null, |types| {
                            Json::Array(types.iter().map(|t| Json::str(t)).collect())
                        }),
                    ),
                    ("name", path_json(s.name)),
                    ("orEmpty", Json::Bool(s.or_empty)),
                ])
            })
            .collect(),
    )
}

fn contains(haystack: &JsString, needle: &JsString) -> bool {
    let (h, n) = (haystack.units(), needle.units());
    n.is_empty() || h.windows(n.len()).any(|w| w == n)
}

/// One case that shows an issue, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct IssueCase {
    /// As written in the file.
    pub case: String,
    /// Resolved against the file's folder, canonical.
    pub path: PathBuf,
    /// The one route the entry holds on; `None`: every route no other entry
    /// of the file names.
    pub route: Option<Route>,
    pub shows: Symptom,
}

#[derive(Debug, Clone, PartialEq)]
pub struct KnownIssue {
    pub id: String,
    pub title: String,
    /// How bad it is for a user (`severity`); a `security` issue's upstream
    /// report is drafted as a private security advisory.
    pub severity: Severity,
    pub wrong: String,
    pub fixed: String,
    /// The fixed behaviour, as a symptom that shows once it is there.
    pub fixed_shows: Option<Symptom>,
    pub upstream: Option<String>,
    /// Where it was seen, in `--versions` syntax.
    pub seen: String,
    pub cases: Vec<IssueCase>,
    /// What a case the ledger does not list must be for one of this
    /// issue's symptoms on it to be this issue; empty: listed cases only.
    pub recognise: Vec<Condition>,
    /// Where in Mastra's source the fix goes (`fixAt`), for an upstream
    /// report.
    pub fix_at: Option<FixAt>,
    /// A `security` issue's advisory text (`advisory`): required there,
    /// since what a user risks and how to stay safe differ per issue.
    pub advisory: Option<Advisory>,
}

/// What a security advisory says beyond the issue's `wrong` and `fixed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advisory {
    /// What an application that relies on the control risks.
    pub impact: String,
    /// What a user can do on an affected release.
    pub workaround: String,
}

/// `severity`: what an issue costs a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// A control the user wrote does not hold (a policy that fails open).
    Security,
    /// A request fails or does the wrong thing.
    Error,
    /// Surprising, documented otherwise, or breaks only the user's own code.
    Warning,
}

impl Severity {
    pub const ALL: [Severity; 3] = [Severity::Security, Severity::Error, Severity::Warning];

    pub fn name(self) -> &'static str {
        match self {
            Severity::Security => "security",
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }

    pub fn parse(name: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// Where a fix goes: a file of Mastra's repository and the function in it,
/// as the dist's source map names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixAt {
    pub file: String,
    pub function: String,
    /// What to change there, in a sentence.
    pub change: String,
}

/// One condition of an issue's `recognise` (the table in the module doc).
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    ChoiceNeedsRewrite,
    ChoiceNamed,
    Registers(JsString),
    Route(Route),
}

impl Condition {
    /// Whether it holds of `case`, whose projection is `p`.
    pub fn holds(&self, case: &Case, p: &Projection) -> bool {
        match self {
            Condition::ChoiceNeedsRewrite => p.requests.iter().any(|r| {
                let Some(named) = r.tool_choice.as_ref().and_then(named_choice) else {
                    return false;
                };
                let sent = |n: &JsString| r.tools.iter().flatten().any(|t| t == n);
                !sent(&named) && wire_name(&named).is_some_and(|w| w != named && sent(&w))
            }),
            Condition::ChoiceNamed => {
                matches!(case.call.tool_choice, Some(CaseChoice::Tool(_)))
            }
            Condition::Registers(key) => {
                let keys = case
                    .tools
                    .iter()
                    .chain(case.toolsets.iter().flatten().flat_map(|(_, ts)| ts))
                    .chain(case.client_tools.iter().flatten());
                keys.map(Tool::key).any(|k| k == key)
            }
            Condition::Route(route) => case.route == *route,
        }
    }

    fn parse(key: &str, value: &Json) -> Result<Condition, String> {
        let yes = |c: Condition| match value {
            Json::Bool(true) => Ok(c),
            other => Err(format!("{key}: expected true, got {}", other.kind())),
        };
        match key {
            "choiceNeedsRewrite" => yes(Condition::ChoiceNeedsRewrite),
            "choiceNamed" => yes(Condition::ChoiceNamed),
            "registers" => value
                .as_str()
                .cloned()
                .map(Condition::Registers)
                .ok_or(format!("registers: expected a key, got {}", value.kind())),
            "route" => value
                .as_str()
                .and_then(|r| Route::parse(&r.to_lossy()))
                .map(Condition::Route)
                .ok_or(format!(
                    "route: {}: expected one of {}",
                    value.to_compact(),
                    Route::ALL.map(Route::name).join(", ")
                )),
            other => Err(format!(
                "unknown condition {other:?} (known: choiceNeedsRewrite, choiceNamed, registers, route)"
            )),
        }
    }
}

/// What one result says about its case's issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IssueState {
    /// Mastra shows the symptom.
    Present,
    /// The model predicts the symptom and Mastra does not show it.
    Fixed,
    /// Neither shows it: the issue is not on this version, as modelled.
    Absent,
}

impl IssueState {
    pub fn name(self) -> &'static str {
        match self {
            IssueState::Present => "present",
            IssueState::Fixed => "fixed",
            IssueState::Absent => "absent",
        }
    }

    /// The state of `symptom` in one result; `None` when nothing ran.
    pub fn of(
        symptom: &Symptom,
        predicted: &Prediction,
        observed: &Observed,
    ) -> Option<IssueState> {
        let observed = observed.projection().filter(|p| p.applicable)?;
        let predicted = match predicted {
            Prediction::Projection(p) => symptom.shows(p),
            Prediction::Races(ps) => ps.iter().all(|p| symptom.shows(p)),
            Prediction::Dropping(p) => symptom.shows(p),
            Prediction::Unmodelled(_) => false,
        };
        Some(match (symptom.shows(observed), predicted) {
            (true, _) => IssueState::Present,
            (false, true) => IssueState::Fixed,
            (false, false) => IssueState::Absent,
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct KnownIssues {
    pub file: PathBuf,
    pub issues: Vec<KnownIssue>,
    /// How case paths are made comparable (`Paths`).
    pub paths: Paths,
}

/// How the ledger's case paths and a case's own path are made comparable:
/// a function from a path to the file it names (its canonical path), or
/// `None` when there is no such file. The layer that reads files gives it
/// (`run::config::known_issues`), so the judge asks the file system nothing
/// itself; the default takes every path as it is written.
#[derive(Clone, Default)]
pub struct Paths(Option<Arc<PathResolver>>);

type PathResolver = dyn Fn(&Path) -> Option<PathBuf> + Send + Sync;

impl Paths {
    pub fn new(resolve: impl Fn(&Path) -> Option<PathBuf> + Send + Sync + 'static) -> Paths {
        Paths(Some(Arc::new(resolve)))
    }

    /// The file `p` names, or `None` when there is none.
    fn file(&self, p: &Path) -> Option<PathBuf> {
        match &self.0 {
            Some(resolve) => resolve(p),
            None => Some(p.to_path_buf()),
        }
    }

    /// `p` in the form the ledger's paths are kept in: the file it names, else
    /// as given (a generated case that was never written has no file).
    fn canonical(&self, p: &Path) -> PathBuf {
        self.file(p).unwrap_or_else(|| p.to_path_buf())
    }
}

impl std::fmt::Debug for Paths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Paths")
    }
}

/// Two ledgers are equal by what they hold, however their paths resolve.
impl PartialEq for Paths {
    fn eq(&self, _: &Paths) -> bool {
        true
    }
}

/// A problem with the known issues file, naming the field.
#[derive(Debug, thiserror::Error)]
#[error("{}: {field}: {problem}", file.display())]
pub struct KnownError {
    pub file: PathBuf,
    pub field: String,
    pub problem: String,
}

/// The ledger is input the project keeps: a malformed one is bad input
/// (exit 2), never an infrastructure failure.
impl From<KnownError> for crate::outcome::Failure {
    fn from(e: KnownError) -> Self {
        crate::outcome::Failure::bad(e.to_string())
    }
}

impl KnownIssues {
    /// The ledger in `text`, the file `file`'s (named in every error); its
    /// case paths are resolved against the file's folder by `paths`.
    pub fn parse(file: &Path, text: &str, paths: Paths) -> Result<KnownIssues, KnownError> {
        let doc = Json::parse_document(text).map_err(|e| KnownError {
            file: file.to_path_buf(),
            field: "(file)".into(),
            problem: format!("not valid JSON: {e}"),
        })?;
        let base = file.parent().unwrap_or(Path::new("."));
        let issues = decode(&Validator::new(file), &doc, base, &paths)?;
        Ok(KnownIssues {
            file: file.to_path_buf(),
            issues,
            paths,
        })
    }

    /// The file as `parse` reads it: every issue with every field it has.
    /// Loading what this writes gives the same ledger.
    pub fn to_file_json(&self, about: &str) -> Json {
        Json::object([
            ("about", Json::str(about)),
            (
                "issues",
                Json::Array(self.issues.iter().map(KnownIssue::to_file_json).collect()),
            ),
        ])
    }

    pub fn get(&self, id: &str) -> Option<&KnownIssue> {
        self.issues.iter().find(|i| i.id == id)
    }

    /// The issue a case file shows on `route`, and its symptom there: the
    /// entry for that route, else the file's entry for every route.
    pub fn for_case(&self, case: &Path, route: Route) -> Option<(&KnownIssue, &Symptom)> {
        let case = self.paths.canonical(case);
        let find = |want: Option<Route>| {
            self.issues.iter().find_map(|i| {
                i.cases
                    .iter()
                    .find(|c| c.path == case && c.route == want)
                    .map(|c| (i, &c.shows))
            })
        };
        find(Some(route)).or_else(|| find(None))
    }

    /// The issue `case` shows, and its symptom: the ledger's entry when it
    /// lists the case (`for_case`), else the first issue, in the ledger's
    /// order, whose `recognise` holds of the case and one of whose symptoms
    /// shows on one of `projections` (the model's, Mastra's: a fix takes the
    /// symptom off one of them only). An issue bound to the case's route by
    /// its conditions is tried before the rest, as a route's own entry is.
    pub fn recognise<'a>(
        &'a self,
        case: &Case,
        projections: &[&Projection],
    ) -> Option<(&'a KnownIssue, &'a Symptom)> {
        if let Some(found) = self.for_case(&case.path, case.route) {
            return Some(found);
        }
        let bound = |i: &KnownIssue| i.recognise.iter().any(|c| matches!(c, Condition::Route(_)));
        let (by_route, rest): (Vec<&KnownIssue>, Vec<&KnownIssue>) =
            self.issues.iter().partition(|i| bound(i));
        by_route.into_iter().chain(rest).find_map(|issue| {
            if issue.recognise.is_empty() {
                return None;
            }
            projections.iter().find_map(|p| {
                issue
                    .recognise
                    .iter()
                    .all(|c| c.holds(case, p))
                    .then(|| issue.cases.iter().map(|c| &c.shows).find(|s| s.shows(p)))
                    .flatten()
                    .map(|s| (issue, s))
            })
        })
    }

    pub fn ids(&self) -> Vec<&str> {
        self.issues.iter().map(|i| i.id.as_str()).collect()
    }
}

impl KnownIssue {
    pub fn to_json(&self) -> Json {
        Json::object([
            ("id", Json::str(&self.id)),
            ("title", Json::str(&self.title)),
            ("severity", Json::str(self.severity.name())),
            (
                "upstream",
                self.upstream.as_deref().map_or(Json::Null, Json::str),
            ),
            (
                "cases",
                Json::Array(
                    self.cases
                        .iter()
                        .map(|c| {
                            Json::object([
                                ("case", Json::str(&c.case)),
                                ("shows", c.shows.to_json()),
                            ])
                        })
                        .collect(),
                ),
            ),
        ])
    }
}

/// The fields of one issue in the file.
const ISSUE_FIELDS: &[&str] = &[
    "id",
    "title",
    "severity",
    "wrong",
    "fixed",
    "fixedShows",
    "upstream",
    "seen",
    "cases",
    "recognise",
    "fixAt",
    "advisory",
];

impl From<CaseError> for KnownError {
    fn from(e: CaseError) -> KnownError {
        KnownError {
            file: e.file,
            field: e.field,
            problem: e.problem,
        }
    }
}

/// The ledger's issues, read with the case reader's `Validator`: unknown
/// and repeated fields are errors, and every error names the file, the
/// field and the value.
fn decode(
    v: &Validator,
    doc: &Json,
    base: &Path,
    paths: &Paths,
) -> Result<Vec<KnownIssue>, CaseError> {
    let top = v.object(doc, "", &["about", "issues"])?;
    v.text(top.get("about"), "about")?;
    let list = top
        .get("issues")
        .ok_or_else(|| v.err("issues", "is required"))?;
    let items = list
        .as_array()
        .ok_or_else(|| v.wrong("issues", "an array of issues", list))?;
    let mut issues: Vec<KnownIssue> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let issue = decode_issue(v, i, item, base, paths, &issues)?;
        issues.push(issue);
    }
    Ok(issues)
}

/// Entry `i` of `issues`; `earlier` are the entries before it, whose ids
/// and cases it may not take again.
fn decode_issue(
    v: &Validator,
    i: usize,
    item: &Json,
    base: &Path,
    paths: &Paths,
    earlier: &[KnownIssue],
) -> Result<KnownIssue, CaseError> {
    let at = |f: &str| format!("issues[{i}].{f}");
    let item = v.object(item, &format!("issues[{i}]"), ISSUE_FIELDS)?;
    let text = |f: &str| -> Result<String, CaseError> {
        v.text(item.get(f), &at(f))?
            .ok_or_else(|| v.err(&at(f), "is required"))
    };
    let id = text("id")?;
    if id.is_empty()
        || !id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err(v.err(
            &at("id"),
            format!("{id:?}: use lowercase letters, digits and hyphens"),
        ));
    }
    if earlier.iter().any(|o| o.id == id) {
        return Err(v.err(&at("id"), format!("{id:?} is used twice")));
    }
    let severity = text("severity")?;
    let severity = Severity::parse(&severity).ok_or_else(|| {
        v.err(
            &at("severity"),
            format!("{severity:?}: expected security, error or warning"),
        )
    })?;
    let seen = text("seen")?;
    VersionSpec::parse_list(&seen).map_err(|e| v.err(&at("seen"), e.to_string()))?;
    let upstream = match item.get("upstream") {
        None | Some(Json::Null) => None,
        Some(u) => v.text(Some(u), &at("upstream"))?,
    };
    let cases = decode_cases(v, &at("cases"), item.get("cases"), base, paths, earlier)?;
    let fixed_shows = match item.get("fixedShows") {
        None | Some(Json::Null) => None,
        Some(f) => Some(symptom(f).map_err(|p| v.err(&at("fixedShows"), p))?),
    };
    let recognise = match item.get("recognise") {
        None | Some(Json::Null) => Vec::new(),
        Some(r) => {
            let members = r
                .members()
                .filter(|m| !m.is_empty())
                .ok_or_else(|| v.err(&at("recognise"), "expected an object of conditions"))?;
            members
                .iter()
                .map(|(k, c)| Condition::parse(&k.to_lossy(), c))
                .collect::<Result<_, _>>()
                .map_err(|p| v.err(&at("recognise"), p))?
        }
    };
    let fix_at = match item.get("fixAt") {
        None | Some(Json::Null) => None,
        Some(f) => Some(decode_fix_at(v, &at("fixAt"), f)?),
    };
    let advisory = match item.get("advisory") {
        None | Some(Json::Null) if severity == Severity::Security => {
            return Err(v.err(
                &at("advisory"),
                "is required for a security issue: {\"impact\": TEXT, \"workaround\": TEXT}",
            ))
        }
        None | Some(Json::Null) => None,
        Some(a) => Some(decode_advisory(v, &at("advisory"), a)?),
    };
    Ok(KnownIssue {
        advisory,
        severity,
        recognise,
        fix_at,
        fixed_shows,
        id,
        title: text("title")?,
        wrong: text("wrong")?,
        fixed: text("fixed")?,
        upstream,
        seen,
        cases,
    })
}

/// An entry's `cases` (at `field`): at least one, each a case file that
/// exists and that no earlier entry (nor this one) holds on the same route.
fn decode_cases(
    v: &Validator,
    field: &str,
    listed: Option<&Json>,
    base: &Path,
    paths: &Paths,
    earlier: &[KnownIssue],
) -> Result<Vec<IssueCase>, CaseError> {
    let mut cases: Vec<IssueCase> = Vec::new();
    let listed = match listed {
        None => &[][..],
        Some(c) => c
            .as_array()
            .ok_or_else(|| v.wrong(field, "an array of cases", c))?,
    };
    for (j, c) in listed.iter().enumerate() {
        let field = format!("{field}[{j}]");
        let c = v.object(c, &field, &["case", "shows", "route"])?;
        let case = v
            .text(c.get("case"), &format!("{field}.case"))?
            .ok_or_else(|| v.err(&field, "`case`: expected a path"))?;
        let Some(path) = paths.file(&base.join(&case)) else {
            return Err(v.err(&field, format!("{case}: no such case file")));
        };
        let shows = c
            .get("shows")
            .ok_or_else(|| v.err(&field, "`shows`: missing"))?;
        let shows = symptom(shows).map_err(|p| v.err(&format!("{field}.shows"), p))?;
        let route = match c.get("route") {
            None => None,
            Some(r) => Some(decode_route(v, &format!("{field}.route"), r)?),
        };
        let taken = earlier
            .iter()
            .flat_map(|o| o.cases.iter())
            .chain(cases.iter())
            .any(|x| x.path == path && x.route == route);
        if taken {
            return Err(v.err(&field, format!("{case} already belongs to an issue")));
        }
        cases.push(IssueCase {
            case,
            path,
            route,
            shows,
        });
    }
    if cases.is_empty() {
        return Err(v.err(field, "an issue needs at least one case that shows it"));
    }
    Ok(cases)
}

fn decode_route(v: &Validator, field: &str, r: &Json) -> Result<Route, CaseError> {
    r.as_str()
        .and_then(|r| Route::parse(&r.to_lossy()))
        .ok_or_else(|| {
            v.err(
                field,
                format!(
                    "{}: expected one of {}",
                    r.to_compact(),
                    Route::ALL.map(Route::name).join(", ")
                ),
            )
        })
}

fn decode_advisory(v: &Validator, field: &str, a: &Json) -> Result<Advisory, CaseError> {
    let a = v.object(a, field, &["impact", "workaround"])?;
    let text = |f: &str| -> Result<String, CaseError> {
        let at = format!("{field}.{f}");
        v.text(a.get(f), &at)?
            .ok_or_else(|| v.err(&at, "is required"))
    };
    Ok(Advisory {
        impact: text("impact")?,
        workaround: text("workaround")?,
    })
}

fn decode_fix_at(v: &Validator, field: &str, f: &Json) -> Result<FixAt, CaseError> {
    let f = v.object(f, field, &["file", "function", "change"])?;
    let part = |k: &str| -> Result<String, CaseError> {
        let field = format!("{field}.{k}");
        v.text(f.get(k), &field)?
            .ok_or_else(|| v.err(&field, "expected a string"))
    };
    Ok(FixAt {
        file: part("file")?,
        function: part("function")?,
        change: part("change")?,
    })
}

impl KnownIssue {
    /// The issue as the ledger file writes it.
    fn to_file_json(&self) -> Json {
        let mut members = vec![
            ("id", Json::str(&self.id)),
            ("title", Json::str(&self.title)),
            ("severity", Json::str(self.severity.name())),
            ("wrong", Json::str(&self.wrong)),
            ("fixed", Json::str(&self.fixed)),
        ];
        if let Some(f) = &self.fixed_shows {
            members.push(("fixedShows", f.to_json()));
        }
        members.push((
            "upstream",
            self.upstream.as_deref().map_or(Json::Null, Json::str),
        ));
        members.push(("seen", Json::str(&self.seen)));
        let cases = self
            .cases
            .iter()
            .map(|c| {
                let mut m = vec![("case", Json::str(&c.case)), ("shows", c.shows.to_json())];
                if let Some(r) = c.route {
                    m.push(("route", Json::str(r.name())));
                }
                Json::object(m)
            })
            .collect();
        members.push(("cases", Json::Array(cases)));
        if !self.recognise.is_empty() {
            members.push((
                "recognise",
                Json::object(self.recognise.iter().map(Condition::to_json_member)),
            ));
        }
        if let Some(f) = &self.fix_at {
            members.push((
                "fixAt",
                Json::object([
                    ("file", Json::str(&f.file)),
                    ("function", Json::str(&f.function)),
                    ("change", Json::str(&f.change)),
                ]),
            ));
        }
        if let Some(a) = &self.advisory {
            members.push((
                "advisory",
                Json::object([
                    ("impact", Json::str(&a.impact)),
                    ("workaround", Json::str(&a.workaround)),
                ]),
            ));
        }
        Json::object(members)
    }
}

impl Condition {
    /// The condition as a member of `recognise`.
    fn to_json_member(&self) -> (&'static str, Json) {
        match self {
            Condition::ChoiceNeedsRewrite => ("choiceNeedsRewrite", Json::Bool(true)),
            Condition::ChoiceNamed => ("choiceNamed", Json::Bool(true)),
            Condition::Registers(key) => ("registers", Json::String(key.clone())),
            Condition::Route(r) => ("route", Json::str(r.name())),
        }
    }
}

fn symptom(v: &Json) -> Result<Symptom, String> {
    let members = v.members().ok_or("expected an object with one symptom")?;
    let [(k, value)] = members.as_slice() else {
        return Err(format!(
            "expected exactly one symptom, got {}",
            members.len()
        ));
    };
    let flag = |s: Symptom| match value {
        Json::Bool(true) => Ok(s),
        other => Err(format!("expected true, got {}", other.kind())),
    };
    let text = |f: fn(JsString) -> Symptom| {
        value
            .as_str()
            .cloned()
            .map(f)
            .ok_or(format!("expected a string, got {}", value.kind()))
    };
    match k.to_lossy().as_str() {
        "emptyTools" => flag(Symptom::EmptyTools),
        "toolChoiceNotSent" => flag(Symptom::ToolChoiceNotSent),
        "toolChoiceSent" => flag(Symptom::ToolChoiceSent),
        "noTools" => flag(Symptom::NoTools),
        "toolSent" => text(Symptom::ToolSent),
        "toolNotSent" => text(Symptom::ToolNotSent),
        "errorCause" => text(Symptom::ErrorCause),
        "errorMessage" => text(Symptom::ErrorMessage),
        "approvalAsked" => text(Symptom::ApprovalAsked),
        "policyNotAsked" => flag(Symptom::PolicyNotAsked),
        "approvalsHeld" => match value {
            Json::Number(text) => text
                .parse::<u32>()
                .map(Symptom::ApprovalsHeld)
                .map_err(|_| format!("expected a whole number of calls, got {text}")),
            other => Err(format!("expected a whole number of calls, got {}", other.kind())),
        },
        "streamNamed" => text(Symptom::StreamNamed),
        "executed" => text(Symptom::Executed),
        "notExecuted" => text(Symptom::NotExecuted),
        "executedTwice" => text(Symptom::ExecutedTwice),
        other => Err(format!(
            "unknown symptom {other:?} (known: toolChoiceNotSent, toolChoiceSent, toolSent, toolNotSent, noTools, errorCause, errorMessage, approvalAsked, policyNotAsked, approvalsHeld, streamNamed, executed, notExecuted, executedTwice)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::{ErrorView, RequestView};

    fn request(tools: Option<&[&str]>, choice: Option<&str>) -> RequestView {
        RequestView {
            tools: tools.map(|t| t.iter().map(|s| JsString::from(*s)).collect()),
            tool_choice: choice.map(|c| Json::parse(c).unwrap()),
            history: Vec::new(),
        }
    }

    fn projection(requests: Vec<RequestView>) -> Projection {
        Projection {
            requests,
            ..Projection::empty()
        }
    }

    fn held(ids: &[&str]) -> Projection {
        let mut p = Projection::empty();
        p.seen = Some(Box::new(crate::projection::Seen {
            pending: ids
                .iter()
                .map(|id| (Json::str(id), Json::str("search_web")))
                .collect(),
            ..Default::default()
        }));
        p
    }

    #[test]
    fn approvals_held_counts_the_calls_that_waited() {
        let one = Symptom::ApprovalsHeld(1);
        assert!(one.shows(&held(&["call_1"])));
        assert!(!one.shows(&held(&["call_1", "call_2", "call_3"])));
        assert!(!one.shows(&held(&[])));
        assert!(!one.shows(&Projection::empty()), "no approval seen at all");
        assert!(Symptom::ApprovalsHeld(3).shows(&held(&["a", "b", "c"])));
        let v = Json::parse(r#"{"approvalsHeld":1}"#).unwrap();
        assert_eq!(symptom(&v).unwrap(), one);
        assert_eq!(one.to_json(), v);
        assert_eq!(
            one.check().to_json(),
            Json::parse(r#"{"seenHeld":1}"#).unwrap()
        );
        for bad in [
            r#"{"approvalsHeld":1.5}"#,
            r#"{"approvalsHeld":-1}"#,
            r#"{"approvalsHeld":"1"}"#,
        ] {
            let e = symptom(&Json::parse(bad).unwrap()).unwrap_err();
            assert!(e.contains("whole number"), "{bad}: {e}");
        }
    }

    #[test]
    fn executed_twice_counts_the_runs_of_one_tool() {
        let ran = |ids: &[&str]| {
            let mut p = Projection::empty();
            p.executed = ids
                .iter()
                .map(|id| crate::projection::Executed {
                    id: JsString::from(*id),
                    input: Json::Null,
                })
                .collect();
            p
        };
        let twice = Symptom::ExecutedTwice("delete-file".into());
        assert!(twice.shows(&ran(&["delete-file", "delete-file"])));
        assert!(!twice.shows(&ran(&["delete-file"])));
        assert!(!twice.shows(&ran(&["delete-file", "wipe"])));
        assert!(!twice.shows(&ran(&[])));
        let v = Json::parse(r#"{"executedTwice":"delete-file"}"#).unwrap();
        assert_eq!(symptom(&v).unwrap(), twice);
        assert_eq!(twice.to_json(), v);
        assert_eq!(twice.check().to_json(), v);
        let e = symptom(&Json::parse(r#"{"executedTwice":2}"#).unwrap()).unwrap_err();
        assert!(e.contains("expected a string"), "{e}");
    }

    #[test]
    fn the_lost_policy_is_known_on_its_cases_from_1_38_0() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("known-issues.json");
        let ledger = crate::run::config::known_issues(&file).unwrap();
        let issue = ledger
            .issues
            .iter()
            .find(|i| i.id == "approval-policy-lost-on-resume")
            .unwrap();
        assert_eq!(issue.severity, Severity::Security);
        assert_eq!(issue.cases.len(), 4);
        assert_eq!(issue.fixed_shows, Some(Symptom::ApprovalsHeld(3)));
    }

    #[test]
    fn the_ledger_is_written_back_as_it_reads() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("known-issues.json");
        let text = std::fs::read_to_string(&file).unwrap();
        let raw = Json::parse(&text).unwrap();
        let about = raw.get("about").and_then(Json::as_str).unwrap().to_lossy();
        let ledger = crate::run::config::known_issues(&file).unwrap();
        assert_eq!(ledger.to_file_json(&about), raw);
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("k.json");
        std::fs::write(&copy, ledger.to_file_json(&about).to_compact()).unwrap();
        let e = crate::run::config::known_issues(&copy).unwrap_err();
        assert!(
            e.problem.contains("no such case file"),
            "paths stay relative to the file: {e}"
        );
    }

    #[test]
    fn every_issue_has_a_severity_and_the_security_ones_are_the_policies() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("known-issues.json");
        let ledger = crate::run::config::known_issues(&file).unwrap();
        let security: Vec<&str> = ledger
            .issues
            .iter()
            .filter(|i| i.severity == Severity::Security)
            .map(|i| i.id.as_str())
            .collect();
        assert_eq!(
            security,
            [
                "approval-policy-fails-open",
                "approval-policy-bypassed-by-id",
                "mcp-server-policy-overrides-agent-policy-by-another-name",
                "tool-search-policy-bypassed-by-raw-id",
                "tool-approval-fn-overrides-agent-policy",
                "mcp-server-policy-ignored",
                "approval-policy-lost-on-resume",
                "approval-decline-runs-the-tool",
                "approval-held-call-runs-on-0x"
            ]
        );
    }

    #[test]
    fn an_unknown_field_of_an_issue_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("k.json");
        std::fs::write(dir.path().join("c.json"), "{}").unwrap();
        std::fs::write(
            &file,
            r#"{"issues":[{"id":"a","severity":"error","seen":"all","title":"t","wrong":"w","fixed":"f","cases":[{"case":"c.json","shows":{"noTools":true}}],"fixd":"typo"}]}"#,
        )
        .unwrap();
        let e = crate::run::config::known_issues(&file).unwrap_err();
        assert_eq!(e.field, "issues[0].fixd", "{e}");
        assert!(e.problem.contains("unknown field"), "{e}");
    }

    #[test]
    fn symptoms_read_projections() {
        let bug = projection(vec![request(
            Some(&["search_web"]),
            Some(r#"{"type":"function","function":{"name":"search.web"}}"#),
        )]);
        let fixed = projection(vec![request(
            Some(&["search_web"]),
            Some(r#"{"type":"function","function":{"name":"search_web"}}"#),
        )]);
        assert!(Symptom::ToolChoiceNotSent.shows(&bug));
        assert!(!Symptom::ToolChoiceNotSent.shows(&fixed));
        assert!(Symptom::ToolSent("search_web".into()).shows(&bug));
        assert!(Symptom::ToolNotSent("search.web".into()).shows(&bug));
        assert!(!Symptom::NoTools.shows(&bug));
        assert!(Symptom::NoTools.shows(&projection(vec![request(None, None)])));
        assert!(
            !Symptom::NoTools.shows(&projection(vec![])),
            "nothing sent is not evidence"
        );
        let mut failed = projection(vec![]);
        failed.error = Some(ErrorView {
            id: None,
            message: "Two or more tools resolve to the same name".into(),
            cause_code: Some("AGENT_TOOL_NAME_COLLISION".into()),
        });
        assert!(Symptom::ErrorCause("AGENT_TOOL_NAME_COLLISION".into()).shows(&failed));
        assert!(Symptom::ErrorMessage("same name".into()).shows(&failed));
        assert!(!Symptom::ErrorMessage("other".into()).shows(&failed));
    }

    #[test]
    fn states_compare_the_model_with_mastra() {
        let bug = projection(vec![request(
            Some(&["a"]),
            Some(r#"{"function":{"name":"b"}}"#),
        )]);
        let ok = projection(vec![request(
            Some(&["a"]),
            Some(r#"{"function":{"name":"a"}}"#),
        )]);
        let ran = |p: &Projection| Observed::Ran {
            projection: p.clone(),
            bodies: Vec::new(),
        };
        let s = Symptom::ToolChoiceNotSent;
        let predicts_bug = Prediction::Projection(bug.clone());
        let predicts_ok = Prediction::Projection(ok.clone());
        assert_eq!(
            IssueState::of(&s, &predicts_bug, &ran(&bug)),
            Some(IssueState::Present)
        );
        assert_eq!(
            IssueState::of(&s, &predicts_bug, &ran(&ok)),
            Some(IssueState::Fixed)
        );
        assert_eq!(
            IssueState::of(&s, &predicts_ok, &ran(&ok)),
            Some(IssueState::Absent)
        );
        assert_eq!(
            IssueState::of(&s, &predicts_ok, &ran(&bug)),
            Some(IssueState::Present)
        );
        assert_eq!(
            IssueState::of(&s, &predicts_bug, &Observed::Crash("x".into())),
            None
        );
    }

    #[test]
    fn the_repositorys_file_loads_and_names_real_cases() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("known-issues.json");
        let known = crate::run::config::known_issues(&file).unwrap();
        assert!(known.get("toolchoice-not-rewritten").is_some());
        assert!(known.get("cut-at-63").is_some());
        let case = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("cases/report/toolchoice-by-key-not-rewritten.json");
        assert_eq!(
            known
                .for_case(&case, Route::OpenAiCompatible)
                .map(|(i, _)| i.id.as_str()),
            Some("toolchoice-not-rewritten")
        );
        // A route's own entry takes precedence over the file's general one.
        let (issue, symptom) = known.for_case(&case, Route::Mistral).unwrap();
        assert_eq!(issue.id, "mistral-named-choice-drops-tools");
        assert_eq!(*symptom, Symptom::EmptyTools);
        assert_eq!(
            known
                .for_case(&case, Route::Google)
                .map(|(i, _)| i.id.as_str()),
            Some("toolchoice-not-rewritten")
        );
    }

    /// Where in 0.x each issue starts is the 0.x switch it needs
    /// (`model::releases::legacy`): the rewrite's issues from `formatTools`,
    /// `activeTools`' wherever a release applies it, on either line.
    #[test]
    fn the_ledgers_0_x_starts_are_the_switches_they_need() {
        use crate::model::releases::Release;
        use crate::version::spec::{Bound, MastraVersion};
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("known-issues.json");
        let known = crate::run::config::known_issues(&file).unwrap();
        let seen_on = |id: &str, v: MastraVersion| {
            let specs = VersionSpec::parse_list(&known.get(id).unwrap().seen).unwrap();
            specs.iter().any(|s| match s {
                VersionSpec::Range(bounds) => bounds.iter().all(|b| match *b {
                    Bound::Ge(x) => v >= x,
                    Bound::Gt(x) => v > x,
                    Bound::Le(x) => v <= x,
                    Bound::Lt(x) => v < x,
                    Bound::Eq(x) => v == x,
                }),
                other => panic!("{id}: seen is a list of ranges, not {other}"),
            })
        };
        let measured = [
            "0.12.1", "0.13.1", "0.13.2", "0.19.1", "0.20.0", "0.20.2", "0.21.0", "0.21.1",
            "0.24.0", "0.24.1", "0.24.9", "1.0.4", "1.1.0", "1.71.0",
        ]
        .map(|v| MastraVersion::parse(v).unwrap());
        for v in measured {
            let rel = Release::of(v);
            let rewrites = rel.formats_tools;
            for id in [
                "toolchoice-not-rewritten",
                "cut-at-63",
                "empty-key-type-error",
                "false-collision-on-prototype-names",
            ] {
                assert_eq!(seen_on(id, v), rewrites, "{id} on {v}");
            }
            assert_eq!(
                seen_on("activetools-by-key-drops-all", v),
                rel.active_tools_applied(),
                "on {v}"
            );
            assert!(seen_on("proto-key-dropped", v), "on {v}");
            assert_eq!(
                seen_on("approval-held-call-runs-on-0x", v),
                rel.on_0x() && rel.approval_read_on_0x && rel.approval_held_call_runs,
                "on {v}"
            );
        }
        let mistral = |v: &str| {
            seen_on(
                "mistral-named-choice-drops-tools",
                MastraVersion::parse(v).unwrap(),
            )
        };
        assert!(mistral("0.13.1") && mistral("0.19.1") && mistral("0.24.1") && mistral("1.0.4"));
        assert!(
            !mistral("0.21.1") && !mistral("0.24.0"),
            "Mastra's own client before 0.24.1"
        );
    }

    /// Cases the ledger does not list, recognised by their symptom on their
    /// projection, and only where the issue says what such a case is.
    #[test]
    fn an_unlisted_case_is_recognised_by_its_symptom_and_its_kind() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("known-issues.json");
        let known = crate::run::config::known_issues(&file).unwrap();
        let case = |json: &str| Case::parse(Path::new("cases/nowhere/new.json"), json).unwrap();
        let sent =
            |tools: &[&str], choice: Option<&str>| projection(vec![request(Some(tools), choice)]);
        let id = |c: &Case, p: &Projection| {
            known
                .recognise(c, &[p])
                .map(|(i, s)| (i.id.clone(), s.clone()))
        };
        let dotted = case(
            r#"{"about":"a","tools":["lookup.order"],"call":{"toolChoice":{"type":"tool","toolName":"lookup.order"}}}"#,
        );
        let bug = sent(
            &["lookup_order"],
            Some(r#"{"type":"function","function":{"name":"lookup.order"}}"#),
        );
        assert_eq!(
            id(&dotted, &bug),
            Some((
                "toolchoice-not-rewritten".into(),
                Symptom::ToolChoiceNotSent
            ))
        );
        let fixed = sent(
            &["lookup_order"],
            Some(r#"{"type":"function","function":{"name":"lookup_order"}}"#),
        );
        assert_eq!(id(&dotted, &fixed), None, "the symptom is gone");
        assert_eq!(
            known
                .recognise(&dotted, &[&fixed, &bug])
                .map(|(i, _)| i.id.as_str()),
            Some("toolchoice-not-rewritten"),
            "the model's projection still shows it"
        );
        // A choice naming no registered tool is the user's typo, not the
        // rewrite: its rewrite is not sent either.
        let typo = case(
            r#"{"about":"a","tools":["a"],"call":{"toolChoice":{"type":"tool","toolName":"b.c"}}}"#,
        );
        let p = sent(
            &["a"],
            Some(r#"{"type":"function","function":{"name":"b.c"}}"#),
        );
        assert_eq!(id(&typo, &p), None);
        // Mastra's intended collision is no known issue, though it shares
        // cut-at-63's error.
        let collide = case(r#"{"about":"a","tools":["a.b","a_b"]}"#);
        let mut threw = projection(vec![]);
        threw.error = Some(ErrorView {
            id: None,
            message: "collision".into(),
            cause_code: Some("AGENT_TOOL_NAME_COLLISION".into()),
        });
        assert_eq!(id(&collide, &threw), None);
        // "__proto__" dropped: the case must register it.
        let proto = case(r#"{"about":"a","tools":["x","__proto__"]}"#);
        let dropped = sent(&["x"], None);
        assert_eq!(
            id(&proto, &dropped).map(|(i, _)| i),
            Some("proto-key-dropped".to_string())
        );
        let plain = case(r#"{"about":"a","tools":["x"]}"#);
        assert_eq!(
            id(&plain, &dropped),
            None,
            "toolNotSent __proto__ alone says nothing"
        );
        // On mistral, the route's own issue first.
        let on_mistral = dotted.on_route(Route::Mistral);
        let empty = projection(vec![request(Some(&[]), Some(r#""any""#))]);
        assert_eq!(
            id(&on_mistral, &empty).map(|(i, _)| i),
            Some("mistral-named-choice-drops-tools".to_string())
        );
        // A listed case keeps its entry.
        let listed = crate::run::corpus::read_case(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("cases/report/toolchoice-by-tool-id-not-rewritten.json"),
        )
        .unwrap();
        assert_eq!(
            known.recognise(&listed, &[]).map(|(i, _)| i.id.as_str()),
            Some("toolchoice-by-id-not-resolved")
        );
        let fix = known
            .get("toolchoice-not-rewritten")
            .unwrap()
            .fix_at
            .clone()
            .unwrap();
        assert_eq!(fix.function, "prepareToolsAndToolChoice");
        assert!(fix.file.starts_with("packages/core/src/"), "{}", fix.file);
    }

    #[test]
    fn bad_files_name_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("k.json");
        std::fs::write(dir.path().join("c.json"), "{}").unwrap();
        let cases = [
            (r#"{"issues":{}}"#, "issues"),
            (r#"{"issues":[{"id":"Bad Id"}]}"#, "issues[0].id"),
            (
                r#"{"issues":[{"id":"a","severity":"error","seen":"1.x","title":"t","wrong":"w","fixed":"f","cases":[]}]}"#,
                "issues[0].seen",
            ),
            (
                r#"{"issues":[{"id":"a","severity":"error","seen":"all","title":"t","wrong":"w","fixed":"f","cases":[{"case":"nope.json","shows":{"noTools":true}}]}]}"#,
                "issues[0].cases[0]",
            ),
            (
                r#"{"issues":[{"id":"a","severity":"error","seen":"all","title":"t","wrong":"w","fixed":"f","cases":[{"case":"c.json","shows":{"sometimes":true}}]}]}"#,
                "issues[0].cases[0].shows",
            ),
            (
                r#"{"issues":[{"id":"a","severity":"error","seen":"all","title":"t","wrong":"w","fixed":"f","cases":[{"case":"c.json","shows":{"noTools":true}}],"recognise":{"route":"nowhere"}}]}"#,
                "issues[0].recognise",
            ),
            (
                r#"{"issues":[{"id":"a","severity":"error","seen":"all","title":"t","wrong":"w","fixed":"f","cases":[{"case":"c.json","shows":{"noTools":true}}],"fixAt":{"file":"x.ts"}}]}"#,
                "issues[0].fixAt.function",
            ),
            (
                r#"{"issues":[{"id":"a","severity":"grave","seen":"all","title":"t","wrong":"w","fixed":"f","cases":[{"case":"c.json","shows":{"noTools":true}}]}]}"#,
                "issues[0].severity",
            ),
            (
                r#"{"issues":[{"id":"a","severity":"security","seen":"all","title":"t","wrong":"w","fixed":"f","cases":[{"case":"c.json","shows":{"noTools":true}}]}]}"#,
                "issues[0].advisory",
            ),
            (
                r#"{"issues":[{"id":"a","severity":"security","seen":"all","title":"t","wrong":"w","fixed":"f","cases":[{"case":"c.json","shows":{"noTools":true}}],"advisory":{"impact":"i"}}]}"#,
                "issues[0].advisory.workaround",
            ),
        ];
        for (text, field) in cases {
            std::fs::write(&file, text).unwrap();
            let e = crate::run::config::known_issues(&file).unwrap_err();
            assert_eq!(e.field, field, "{text}: {e}");
        }
        assert!(
            crate::run::config::known_issues(&dir.path().join("missing.json"))
                .unwrap()
                .issues
                .is_empty()
        );
    }
}
