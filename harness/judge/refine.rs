//! `Findings`, and the one match that turns `compare`'s verdict and the
//! findings about a result into the verdict reports show.
//!
//! `compare` says whether Mastra did what the model predicts. Three more
//! things are known about a result that ran, and each can refine that:
//! - the known upstream issue its case shows, if any (`known`: listed in the
//!   ledger, or recognised by its symptom): still there, or fixed upstream;
//! - whether its bodies still match their snapshot (`snapshots/`);
//! - whether a provider would reject a body (`provider`).
//!
//! Priority, and why: a changed snapshot is a divergence and must never be
//! hidden behind a calmer verdict; a known issue that is still present is
//! already explained, even when (as for toolChoice) its symptom is a body a
//! provider rejects; a rejection nobody has explained comes next. A
//! divergence on a known issue's case whose symptom is gone is the unexpected
//! pass `known-issue-fixed`; any other divergence stays `diverged`.

use crate::case::Case;
use crate::js::json::Json;
use crate::judge::compare::Verdict;
use crate::judge::known::{IssueState, KnownIssues};
use crate::judge::provider::{self, Rejection};
use crate::judge::snapshot;
use crate::model::Prediction;
use crate::observation::Observed;
use crate::version::spec::MastraVersion;

/// What is known about one result beyond `compare`'s verdict.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Findings {
    /// The known issue its case shows, and what this result says about it.
    pub known_issue: Option<(String, IssueState)>,
    /// `Some(true)`: the bodies match their snapshot; `Some(false)`: they
    /// changed; `None`: no snapshot.
    pub snapshot: Option<bool>,
    pub provider: Vec<Rejection>,
    /// The known issue's title and upstream link, as the ledger has them,
    /// so a report read without the ledger still says what the issue is.
    pub issue_about: Option<(String, Option<String>)>,
    /// What the case gives the agent, as its file writes it (`input`):
    /// the tools' keys, and the call's toolChoice and activeTools when it
    /// has them, as pretty JSON text. Text, not a value: a key may be no
    /// well-formed UTF-16 (a lone surrogate, which the case format allows),
    /// and as text its `\ud800` escape reaches every JSON reader (serde
    /// refuses a lone surrogate) as the file writes it. Reports show it
    /// beside each verdict; it rides with the findings because every result
    /// is judged here with its case at hand.
    pub input: Option<String>,
    /// The verdict of each try of a result observed again (`--recheck N`),
    /// the first try's first; empty when it was not.
    pub recheck: Vec<Verdict>,
}

/// A case's `input` (see `Findings::input`).
pub fn input_json(case: &Case) -> Json {
    let file = case.to_json();
    let mut members = vec![(
        "tools",
        Json::Array(
            case.tools
                .iter()
                .map(|t| Json::String(t.key().clone()))
                .collect(),
        ),
    )];
    for field in ["toolChoice", "activeTools"] {
        if let Some(v) = file.get("call").and_then(|c| c.get(field)) {
            members.push((field, v.clone()));
        }
    }
    Json::object(members)
}

/// The findings as members of a result in the JSON report; nothing when
/// there is nothing to say.
pub fn findings_json(f: &Findings) -> Vec<(&'static str, Json)> {
    let mut out = Vec::new();
    if let Some((id, state)) = &f.known_issue {
        let mut issue = vec![("id", Json::str(id)), ("state", Json::str(state.name()))];
        if let Some((title, link)) = &f.issue_about {
            issue.push(("title", Json::str(title)));
            issue.push(("upstream", link.as_deref().map_or(Json::Null, Json::str)));
        }
        out.push(("knownIssue", Json::object(issue)));
    }
    if let Some(matches) = f.snapshot {
        out.push((
            "snapshot",
            Json::str(if matches { "matches" } else { "changed" }),
        ));
    }
    if !f.provider.is_empty() {
        let reasons = f
            .provider
            .iter()
            .map(|r| Json::str(&r.to_string()))
            .collect();
        out.push(("providerRejects", Json::Array(reasons)));
    }
    if !f.recheck.is_empty() {
        let tries = f.recheck.iter().map(|v| Json::str(v.name())).collect();
        out.push(("recheck", Json::object([("tries", Json::Array(tries))])));
    }
    if let Some(input) = &f.input {
        out.push(("input", Json::str(input)));
    }
    out
}

/// The verdict reports show.
pub fn decide(base: Verdict, f: &Findings) -> Verdict {
    let issue = f.known_issue.as_ref().map(|(_, s)| *s);
    match (base, issue, f.snapshot, f.provider.is_empty()) {
        (Verdict::AsModelled, _, Some(false), _) => Verdict::SnapshotChanged,
        (Verdict::AsModelled, Some(IssueState::Present), _, _) => Verdict::KnownIssue,
        (Verdict::AsModelled, _, _, false) => Verdict::ProviderRejects,
        (Verdict::Diverged, Some(IssueState::Fixed), _, _) => Verdict::KnownIssueFixed,
        (v, _, _, _) => v,
    }
}

/// What refines results: the known issues and the stored snapshots (read
/// by the caller: `run::config::refiner`).
#[derive(Debug, Clone, Default)]
pub struct Refiner {
    pub known: KnownIssues,
    pub snapshots: snapshot::Shelf,
}

impl Refiner {
    /// The findings about one result, and its final verdict. `parsed`:
    /// the observed bodies as the projection parsed them, when it did.
    pub fn refine(
        &self,
        case: &Case,
        version: MastraVersion,
        (predicted, observed): (&Prediction, &Observed),
        parsed: Option<&[crate::observation::ParsedBody]>,
        base: Verdict,
    ) -> (Verdict, Findings) {
        let mut f = Findings {
            input: Some(input_json(case).to_pretty()),
            ..Findings::default()
        };
        if let Observed::Ran {
            bodies,
            projection: seen,
        } = observed
        {
            // The issue is the ledger's for a case it lists, else the one
            // recognised by its symptom on the model's projection or
            // Mastra's (`KnownIssues::recognise`).
            let modelled: Vec<&crate::projection::Projection> = match predicted {
                Prediction::Projection(p) => vec![p],
                // Each order the model follows is a projection the case may show.
                Prediction::Races(ps) => ps.iter().collect(),
                Prediction::Dropping(p) => vec![p],
                Prediction::Unmodelled(_) => Vec::new(),
            };
            let projections: Vec<&crate::projection::Projection> =
                modelled.into_iter().chain([seen]).collect();
            if let Some((issue, state)) =
                self.known
                    .recognise(case, &projections)
                    .and_then(|(issue, symptom)| {
                        IssueState::of(symptom, predicted, observed).map(|s| (issue, s))
                    })
            {
                f.known_issue = Some((issue.id.clone(), state));
                f.issue_about = Some((issue.title.clone(), issue.upstream.clone()));
            }
            let name = case.name();
            (f.snapshot, f.provider) = match parsed {
                // No snapshot holds a body whose order races.
                _ if snapshot::races(version, bodies) => {
                    (None, provider::check(case.route, bodies))
                }
                Some(parsed) if parsed.len() == bodies.len() => (
                    snapshot::check_parsed(&self.snapshots, &name, version, parsed),
                    provider::check_parsed(case.route, parsed),
                ),
                _ => (
                    snapshot::check(&self.snapshots, &name, version, bodies),
                    provider::check(case.route, bodies),
                ),
            };
        }
        (decide(base, &f), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::provider::Rule;

    fn findings(issue: Option<IssueState>, snapshot: Option<bool>, rejects: bool) -> Findings {
        Findings {
            known_issue: issue.map(|s| ("x".to_string(), s)),
            snapshot,
            provider: if rejects {
                vec![Rejection {
                    request: 1,
                    route: crate::route::Route::OpenAiCompatible,
                    rule: Rule::ChoiceWithoutTools,
                }]
            } else {
                vec![]
            },
            ..Findings::default()
        }
    }

    #[test]
    fn the_table_of_refinements() {
        use IssueState::*;
        use Verdict::*;
        let table = [
            (AsModelled, None, None, false, AsModelled),
            (AsModelled, None, Some(true), false, AsModelled),
            (AsModelled, None, Some(false), false, SnapshotChanged),
            (
                AsModelled,
                Some(Present),
                Some(false),
                true,
                SnapshotChanged,
            ),
            (AsModelled, Some(Present), None, true, KnownIssue),
            (AsModelled, Some(Present), Some(true), false, KnownIssue),
            (AsModelled, Some(Absent), None, false, AsModelled),
            (AsModelled, Some(Absent), None, true, ProviderRejects),
            (AsModelled, None, None, true, ProviderRejects),
            (Diverged, Some(Fixed), None, false, KnownIssueFixed),
            (Diverged, Some(Present), None, true, Diverged),
            (Diverged, Some(Absent), None, false, Diverged),
            (Diverged, None, Some(false), true, Diverged),
            (NotApplicable, None, None, false, NotApplicable),
            (Unmodelled, Some(Present), None, true, Unmodelled),
            (Timeout, None, None, false, Timeout),
        ];
        for (base, issue, snapshot, rejects, want) in table {
            assert_eq!(
                decide(base, &findings(issue, snapshot, rejects)),
                want,
                "{base:?} {issue:?} {snapshot:?} {rejects}"
            );
        }
    }

    /// A key with a lone surrogate (the case format allows one) reaches the
    /// report as the escape its file writes, in a document serde reads.
    #[test]
    fn the_input_keeps_a_lone_surrogate_as_its_escape() {
        use crate::case::{Tool, ToolChoice};
        use crate::js::string::JsString;
        let key = JsString::from_units(vec![0xD800, u16::from(b'x')]);
        let mut case = Case::new("cases/x.json", "a lone surrogate");
        case.tools = vec![Tool::Standard(key.clone()), Tool::Standard("ok".into())];
        case.call.tool_choice = Some(ToolChoice::Tool(key));
        let f = Findings {
            input: Some(input_json(&case).to_pretty()),
            ..Findings::default()
        };
        let doc = Json::object(findings_json(&f)).to_compact();
        let read: serde_json::Value = serde_json::from_str(&doc).expect("serde reads it");
        let input = read["input"].as_str().unwrap();
        assert!(
            input.contains(
                r#""tools": [
    "\ud800x",
    "ok"
  ]"#
            ) && input.contains(r#""toolName": "\ud800x""#),
            "{input}"
        );
    }

    #[test]
    fn refinement_never_moves_a_result_across_the_infrastructure_line() {
        for base in Verdict::ALL {
            for issue in [
                None,
                Some(IssueState::Present),
                Some(IssueState::Fixed),
                Some(IssueState::Absent),
            ] {
                for snapshot in [None, Some(true), Some(false)] {
                    for rejects in [false, true] {
                        let v = decide(base, &findings(issue, snapshot, rejects));
                        assert_eq!(
                            v.is_infrastructure(),
                            base.is_infrastructure(),
                            "{base:?} -> {v:?}"
                        );
                    }
                }
            }
        }
    }
}
