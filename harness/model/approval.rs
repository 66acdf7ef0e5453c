//! Tool approval and the projection's `seen` for the cases that drive it
//! (`Case::drives_approval`): which calls a `requireToolApproval` policy or
//! a tool's own `requireApproval` holds, what the policy is asked, what the
//! user's code is handed, and how the case's `approvals` resume the run.
//!
//! The loop itself is `steps`' (the requests and executions of the same
//! case with every call let through); this replays its steps and ends,
//! resumes or declines them where approval decides. It covers a script of
//! one call per step, each to a tool of the case's `tools` by the name it
//! was sent under, then text; anything else is unmodelled rather than
//! guessed.

use super::record::Lookup;
use super::releases::{Release, APPROVAL_DECLINED_MESSAGE, SUB_AGENTS_THROW_MESSAGE};
use super::route::{result_on, ResultContent};
use super::{ToolOrigin, ToolValue};
use crate::case::{
    Approval, ApprovalPolicy, Case, Method, Reply, Tool, ToolApproval, ToolCallReply,
};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::model::record::Record;
use crate::projection::{ErrorView, Executed, HistoryItem, Projection, RequestView, Seen};

/// Why the case is outside what this module covers, if it is.
fn outside(case: &Case) -> Option<&'static str> {
    // Beside toolsets, sub-agents, workflows, MCP tools and dynamic tools
    // the loop is `steps`' and a call of one of them is refused below (it
    // reaches none of the case's tools); a stored memory recalls the thread
    // into the resumed run, which was not measured.
    if case.sources.memory.is_some_and(|m| !m.in_memory) {
        return Some("approval beside a stored memory");
    }
    if case.tools.iter().any(|t| matches!(t, Tool::Builtin { .. })) {
        return Some("approval of a builtin tool");
    }
    None
}

/// The case as a resumed run is made, if it differs: a run resumed after an
/// approval answer is the agent's own, without the call's `activeTools`,
/// `maxSteps`, `clientTools` and `toolsets`. Measured on 1.0.4, 1.67.0 and
/// 1.71.0 with a first step held and approved: the resumed request offers
/// every tool of the agent (not the `activeTools` of the first, nor the
/// client tool) and a `maxSteps: 1` call sends it; the toolset's tools are
/// gone from it on 1.40.0, 1.57.0 and 1.70.0, every route
/// (`cases/approval/held-beside-a-toolset-*.json`).
pub(super) fn as_resumed(case: &Case) -> Option<Case> {
    let call = &case.call;
    if call.active_tools.is_none()
        && call.max_steps.is_none()
        && case.client_tools.is_none()
        && case.toolsets.is_none()
    {
        return None;
    }
    let mut plain = case.clone();
    plain.call.active_tools = None;
    plain.call.max_steps = None;
    plain.client_tools = None;
    plain.toolsets = None;
    Some(plain)
}

/// `base` as the run goes when its first step holds a call: the first
/// request as the call made it, the rest as the resumed run makes them
/// (`as_resumed`); where a later step is the first to hold, the resumed run
/// after it is not measured.
fn resumed_base(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    base: Projection,
    resumed: Option<&Projection>,
) -> Result<Projection, String> {
    // Where no call can wait (`APPROVAL_SUSPEND_THROWS`) no run resumes.
    let Some(resumed) = resumed.filter(|_| !rel.approval_suspend_throws) else {
        return Ok(base);
    };
    let holds = |reply: &Reply| match reply {
        Reply::ToolCalls(list) => list.iter().any(|call| {
            tool_called(case, tools, &call.name)
                .is_some_and(|tool| waits(rel, case, tool, &call.name, &mut Vec::new()))
        }),
        _ => false,
    };
    match case.replies.iter().position(holds) {
        None => Ok(base),
        Some(0) if !base.requests.is_empty() && !resumed.requests.is_empty() => {
            let mut spliced = resumed.clone();
            spliced.requests[0] = base.requests[0].clone();
            Ok(spliced)
        }
        Some(_) => Err(
            "a run resumed after its first step beside activeTools, maxSteps, clientTools or toolsets".into(),
        ),
    }
}

/// Whether the call of `tool` under the wire name `name` waits for
/// approval, recording what the policy was asked.
fn waits(rel: &Release, case: &Case, tool: &Tool, name: &JsString, asked: &mut Vec<Json>) -> bool {
    waits_in(rel, case, tool, name, asked, false)
}

/// As `waits`, in a run resumed after an answer (`resumed`): there a
/// `requireToolApproval` function is gone (`APPROVAL_POLICY_LOST_ON_RESUME`),
/// while `true` and a tool's own `requireApproval` still hold, a function
/// of the tool's asked again (`tool-approval-fn-true-holds-every-resumed-call-*`).
fn waits_in(
    rel: &Release,
    case: &Case,
    tool: &Tool,
    name: &JsString,
    asked: &mut Vec<Json>,
    resumed: bool,
) -> bool {
    let policy = match &case.call.require_tool_approval {
        None => false,
        Some(ApprovalPolicy::Names(_)) if resumed && rel.approval_policy_lost_on_resume => false,
        Some(ApprovalPolicy::Flag(b)) => *b,
        // A function: asked from APPROVAL_POLICY_ASKED, only truthy before.
        Some(ApprovalPolicy::Names(names)) => {
            if rel.approval_policy_asked_on_1x {
                asked.push(Json::String(name.clone()));
                names.contains(name)
            } else {
                true
            }
        }
    };
    match own_approval(tool) {
        None => policy,
        Some(ToolApproval::Always) => true,
        // From `TOOL_APPROVAL_FN_ASKED` the tool's function decides alone,
        // asked after the policy, whatever the policy said (a throw reads as
        // `true`); before, it was only tested for truth.
        Some(ToolApproval::Returns(answer)) if rel.tool_approval_fn_asked => *answer,
        Some(ToolApproval::Throws(_)) if rel.tool_approval_fn_asked => true,
        Some(_) => true,
    }
}

/// A case tool's own `requireApproval`, if it has one.
fn own_approval(tool: &Tool) -> Option<&ToolApproval> {
    match tool {
        Tool::Custom {
            require_approval, ..
        } => require_approval.as_ref(),
        _ => None,
    }
}

/// The entry of the formatted record a call by `name` finds: the one
/// under the name it was sent under, else the tool whose id it is
/// (`stepTools[name] || Object.values(stepTools).find(t => t.id === name)`).
fn reached<'t>(tools: &'t Record<ToolValue>, name: &JsString) -> Option<(JsString, &'t ToolValue)> {
    match tools.get(name) {
        Lookup::Own(value) => Some((name.clone(), value)),
        Lookup::Inherited => None,
        Lookup::Missing => tools
            .entries()
            .into_iter()
            .find(|(_, v)| v.id == *name)
            .map(|(k, v)| (k.clone(), v)),
    }
}

/// The case's tool a call by `name` reaches (`reached`); a call by the id
/// runs under approval as elsewhere, measured on 1.0.4, 1.67.0 and 1.71.0:
/// `cases/approval/call-by-id-generate.json`.
fn tool_called<'c>(case: &'c Case, tools: &Record<ToolValue>, name: &JsString) -> Option<&'c Tool> {
    let (_, value) = reached(tools, name)?;
    if value.origin != ToolOrigin::Ours {
        return None;
    }
    // The last tool registered under the key is the one the record holds.
    case.tools.iter().rev().find(|t| *t.key() == value.key)
}

/// The key of the record a call by `name` finds its tool under.
fn record_key(tools: &Record<ToolValue>, name: &JsString) -> Option<JsString> {
    reached(tools, name).map(|(key, _)| key)
}

/// Whether a call by `name` finds no tool of the agent: none under the name
/// or the id, or one `activeTools` hides where a hidden tool is not found
/// (`HIDDEN_IS_NOT_FOUND`).
fn unreached(case: &Case, rel: &Release, tools: &Record<ToolValue>, name: &JsString) -> bool {
    let Some(key) = record_key(tools, name) else {
        return true;
    };
    let hides = rel.hidden_is_not_found && rel.active_tools_applied();
    hides
        && case
            .call
            .active_tools
            .as_ref()
            .is_some_and(|a| !a.contains(&key))
}

/// The projection of a case whose calls all find no tool: approval never
/// holds one, so it is the loop's own (`base`). Measured on 1.0.4, 1.67.0
/// and 1.71.0 for an invented name under `true` and under a policy
/// function (neither asked), and for a tool `activeTools` hides or an
/// inherited name, which a policy function is asked about from
/// `APPROVAL_LATER_CALLS_ASKED` (the step's calls are asked before they are
/// looked up) though the call is still not found.
fn without_a_tool_reached(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    base: &Projection,
) -> Option<Projection> {
    // Each step's calls, in the order of the replies (a reply without
    // calls is an empty step).
    let steps: Vec<&[ToolCallReply]> = case
        .replies
        .iter()
        .map(|r| match r {
            Reply::ToolCalls(list) => list.as_slice(),
            _ => &[],
        })
        .collect();
    if !steps
        .iter()
        .flat_map(|s| s.iter())
        .all(|c| unreached(case, rel, tools, &c.name))
    {
        return None;
    }
    let mut p = base.clone();
    let asks = rel.approval_later_calls_asked
        && rel.approval_policy_asked_on_1x
        && matches!(
            case.call.require_tool_approval,
            Some(ApprovalPolicy::Names(_))
        );
    if asks {
        // The calls whose name the step's record answers (a hidden tool, or
        // a name every object inherits: `toString` is asked on 1.71.0, fuzz
        // seed 1 case 723), of the steps the requests reached.
        let hidden: Vec<Json> = steps
            .iter()
            .take(p.requests.len())
            .flat_map(|s| s.iter())
            .filter(|c| {
                record_key(tools, &c.name).is_some()
                    || matches!(tools.get(&c.name), Lookup::Inherited)
            })
            .map(|c| Json::String(c.name.clone()))
            .collect();
        p.seen
            .get_or_insert_with(Default::default)
            .asked
            .extend(hidden);
    }
    Some(p)
}

/// The replay of an approval case's steps over what `steps` predicts with
/// every call let through (`base`).
struct Replay<'a> {
    case: &'a Case,
    rel: &'a Release,
    base: Projection,
    seen: Seen,
    calls: Vec<Json>,
    results: Vec<Json>,
    executed: std::vec::IntoIter<Executed>,
    kept: Vec<Executed>,
    requests: Vec<RequestView>,
    /// A step before was resumed by an answer: what follows is the resumed
    /// run's.
    resumed: bool,
    /// For each step that went on, whether an answer resumed it.
    answered: Vec<bool>,
}

/// How a step of calls ended.
enum StepEnd {
    GoesOn,
    Suspended,
}

impl<'a> Replay<'a> {
    fn new(case: &'a Case, rel: &'a Release, base: Projection) -> Replay<'a> {
        Replay {
            case,
            rel,
            seen: Seen::default(),
            calls: Vec::new(),
            results: Vec::new(),
            executed: base.executed.clone().into_iter(),
            kept: Vec::new(),
            requests: base.requests.clone(),
            resumed: false,
            answered: Vec::new(),
            base,
        }
    }

    fn stream(&self) -> bool {
        self.case.call.method == Method::Stream
    }

    /// The projection the replay ends in.
    fn projection(mut self, error: Option<ErrorView>) -> Projection {
        if self.rel.resumed_step_merged {
            merge_resumed_steps(&mut self.requests, &self.answered);
        }
        self.seen.tool_calls = Some(self.calls);
        self.seen.tool_results = Some(self.results);
        Projection {
            error,
            executed: self.kept,
            requests: self.requests,
            seen: Some(Box::new(self.seen)),
            ..self.base
        }
    }

    /// One step of calls: each call asked, held or run in order, the run
    /// suspended at the first held call the case does not answer.
    ///
    /// Measured on 1.0.4, 1.67.0 and 1.71.0 (`cases/approval/two-calls-*`):
    /// the calls before the held one run, the held one waits (its
    /// `tool-call-approval` chunk, its `pending` entry), and a suspended
    /// run hands over none of the step's results; an answer resumes the
    /// step at the next call, and the step's results come once every call
    /// of it is done.
    fn step(
        &mut self,
        step: usize,
        list: &[ToolCallReply],
        tools: &Record<ToolValue>,
    ) -> Result<StepEnd, String> {
        let (case, rel) = (self.case, self.rel);
        let mut held = Vec::new();
        for call in list {
            let tool = tool_called(case, tools, &call.name)
                .ok_or("an approval case calling a name that reaches none of its tools")?;
            let valid = call
                .arguments
                .get("city")
                .is_some_and(|c| matches!(c, Json::String(_)))
                && call.arguments.members().is_some_and(|m| m.len() == 1);
            if !valid {
                return Err("an approval case whose call's arguments do not fit the tool".into());
            }
            held.push(tool);
        }
        if self.stream() {
            super::steps::seen::call_chunks(case, rel, list, list, &mut self.seen.stream);
        }
        self.calls
            .extend(list.iter().map(|c| Json::String(c.name.clone())));
        // This step's runs with every call let through, one per call.
        let mut runs: Vec<Executed> = self.executed.by_ref().take(list.len()).collect();
        let mut handed: Vec<(&'static str, Json)> = Vec::new();
        let mut answered = false;
        for (i, (call, tool)) in list.iter().zip(held).enumerate() {
            let name = Json::String(call.name.clone());
            let run = runs
                .iter()
                .position(|e| *e.id.units() == *tool_id(tool).units())
                .map(|at| runs.remove(at));
            let resumed = self.resumed;
            if !waits_in(rel, case, tool, &call.name, &mut self.seen.asked, resumed) {
                self.kept.extend(run);
                handed.push(("tool-result", name));
                continue;
            }
            if rel.approval_suspend_throws {
                // The suspension fails (`APPROVAL_SUSPEND_THROWS`): the call
                // is a tool error, nothing waits, and the step goes on.
                handed.push(("tool-error", name));
                self.answer_with(step, call, JsString::from(SUB_AGENTS_THROW_MESSAGE));
                continue;
            }
            if self.stream() {
                self.seen
                    .stream
                    .push((JsString::from("tool-call-approval"), name.clone()));
            }
            // Without scripted ids (Gemini) no answer can name the call.
            let scripted = case.route.call_ids_scripted();
            let id = if scripted {
                Json::String(call.id.clone())
            } else {
                Json::Null
            };
            self.seen.pending.push((id, name.clone()));
            let answer = case
                .approvals
                .iter()
                .flatten()
                .find(|(id, _)| scripted && *id == call.id)
                .map(|(_, a)| *a);
            let later = &list[i + 1..];
            match answer {
                None => {
                    // From `APPROVAL_LATER_CALLS_ASKED` the policy is asked
                    // for the step's later calls too, which do not run.
                    if rel.approval_later_calls_asked && rel.approval_policy_asked_on_1x {
                        if let Some(ApprovalPolicy::Names(_)) = &case.call.require_tool_approval {
                            self.seen
                                .asked
                                .extend(later.iter().map(|c| Json::String(c.name.clone())));
                        }
                    }
                    self.requests.truncate(step + 1);
                    return Ok(StepEnd::Suspended);
                }
                // Whether a resumed step asks its later calls again is
                // not measured.
                Some(_)
                    if rel.approval_later_calls_asked
                        && !later.is_empty()
                        && matches!(
                            case.call.require_tool_approval,
                            Some(ApprovalPolicy::Names(_))
                        ) =>
                {
                    return Err("an answered call before later calls of its step".into());
                }
                Some(Approval::Approve) => {
                    answered = true;
                    self.kept.extend(run);
                    handed.push(("tool-result", name));
                }
                Some(Approval::Decline) if self.decline_lost() => {
                    answered = true;
                    self.kept.extend(run);
                    handed.push(("tool-result", name));
                }
                Some(Approval::Decline) => {
                    answered = true;
                    if !rel.approval_decline_unlisted_on_1x {
                        handed.push(("tool-result", name));
                    } else if rel.approval_denied_chunk_on_1x {
                        handed.push(("tool-output-denied", name));
                    }
                    self.answer_with(step, call, JsString::from(APPROVAL_DECLINED_MESSAGE));
                }
            }
        }
        self.resumed |= answered;
        self.answered.push(answered);
        for (kind, name) in handed {
            if kind == "tool-result" {
                self.results.push(name.clone());
            }
            if self.stream() {
                self.seen.stream.push((JsString::from(kind), name));
            }
        }
        Ok(StepEnd::GoesOn)
    }

    /// Whether a decline is lost with the policy function that held the call
    /// (`APPROVAL_DECLINE_LOST_ON_RESUME`): the call then runs as approved.
    fn decline_lost(&self) -> bool {
        self.rel.approval_decline_lost_on_resume
            && matches!(
                self.case.call.require_tool_approval,
                Some(ApprovalPolicy::Names(_))
            )
    }

    /// Every later request carries `message` (a declined call's refusal, a
    /// failed call's error) in place of the call's output.
    fn answer_with(&mut self, step: usize, call: &ToolCallReply, message: JsString) {
        let route = self.case.route;
        let ran_as = result_on(
            route,
            &call.id,
            &call.name,
            ResultContent::Output(super::steps::TOOL_RESULT),
        );
        let refused = result_on(route, &call.id, &call.name, ResultContent::Message(message));
        for request in self.requests.iter_mut().skip(step + 1) {
            for item in &mut request.history {
                if *item == ran_as {
                    *item = refused.clone();
                }
            }
        }
    }
}

/// Each request's history as `RESUMED_STEP_MERGED` writes it: the step
/// after one an answer resumed is merged into it (its calls, then its
/// results, join the resumed step's), and so on while each step was
/// resumed. `answered[s]` says whether step `s` was. Step `s`'s items are
/// what request `s + 1`'s history adds to request `s`'s; where a history
/// does not extend the one before, it is left as it is.
fn merge_resumed_steps(requests: &mut [RequestView], answered: &[bool]) {
    let extends = requests
        .windows(2)
        .all(|w| w[1].history.starts_with(&w[0].history));
    if !extends || requests.is_empty() {
        return;
    }
    let before = requests[0].history.len();
    let steps: Vec<Vec<HistoryItem>> = requests
        .windows(2)
        .map(|w| w[1].history[w[0].history.len()..].to_vec())
        .collect();
    for (j, request) in requests.iter_mut().enumerate().skip(1) {
        let mut history = request.history[..before].to_vec();
        let (mut calls, mut results) = (Vec::new(), Vec::new());
        for (s, items) in steps[..j].iter().enumerate() {
            if s > 0 && !answered.get(s - 1).copied().unwrap_or(false) {
                history.append(&mut calls);
                history.append(&mut results);
            }
            for item in items {
                match item {
                    HistoryItem::Result { .. } => results.push(item.clone()),
                    _ => calls.push(item.clone()),
                }
            }
        }
        history.append(&mut calls);
        history.append(&mut results);
        request.history = history;
    }
}

/// The id a case tool runs under (what `executed` lists).
fn tool_id(tool: &Tool) -> JsString {
    match tool {
        Tool::Custom { id, .. } => id.clone(),
        _ => JsString::from(crate::case::STANDARD_ID),
    }
}

/// The projection of an approval case on a 1.x release, from `base`: what
/// `steps` predicts for the same case with every call let through.
pub(super) fn project(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    base: Projection,
    resumed: Option<&Projection>,
) -> Result<Projection, String> {
    if let Some(why) = outside(case) {
        return Err(why.into());
    }
    if let Some(p) = without_a_tool_reached(case, rel, tools, &base) {
        return Ok(p);
    }
    let base = resumed_base(case, rel, tools, base, resumed)?;
    let requests = base.requests.len();
    let error = base.error.clone();
    let mut replay = Replay::new(case, rel, base);
    // Request i is answered by reply i; the script is replayed until a reply
    // ends the run.
    for (step, reply) in case.replies.iter().enumerate() {
        if step >= requests {
            // A run no answer resumed is the base's own, which stopped here
            // (`maxSteps`); a resumed one should have gone on.
            if replay.resumed || error.is_some() {
                return Err("an approval case whose script outlasts its requests".into());
            }
            return Ok(replay.projection(None));
        }
        let list = match reply {
            Reply::Text(_) if error.is_some() => {
                return Err("an approval case that ends in an error".into())
            }
            Reply::Text(_) => return Ok(replay.projection(None)),
            Reply::Error { .. } => return Err("an approval case with an error reply".into()),
            Reply::ToolCalls(list) => list,
        };
        let reused = list
            .iter()
            .enumerate()
            .any(|(i, c)| list[..i].iter().any(|e| e.id == c.id));
        if reused {
            return Err("approval with a call id used twice in one step".into());
        }
        if let StepEnd::Suspended = replay.step(step, list, tools)? {
            return Ok(replay.projection(None));
        }
    }
    Err("an approval case whose script ends in a call".into())
}

/// The reason an approval case does not apply to a release before 1.x.
pub(super) fn not_applicable(version: impl std::fmt::Display) -> String {
    format!("@mastra/core {version}: approval cases are driven on 1.x only")
}

#[cfg(test)]
mod tests {
    use crate::case::Case;
    use crate::model::{predict, Prediction};
    use crate::projection::Projection;
    use crate::version::spec::MastraVersion;
    use std::path::Path;

    fn projected(text: &str, version: MastraVersion) -> Projection {
        let case = Case::parse(Path::new("cases/x.json"), text).unwrap();
        match predict(&case, version) {
            Prediction::Projection(p) => p,
            other => panic!("{other:?}"),
        }
    }

    const BY_KEY: &str = r#"{"about":"a","tools":[{"key":"files.delete","id":"delete-file","description":"d"}],
        "call":{"method":"stream","requireToolApproval":{"names":["files.delete"]}},
        "replies":[{"toolCalls":[{"id":"call_1","name":"files_delete","arguments":{"city":"Paris"}}]},{"text":"done"}]}"#;

    #[test]
    fn a_policy_by_key_is_asked_with_the_wire_name_and_lets_the_call_run() {
        let p = projected(BY_KEY, MastraVersion::new(1, 67, 0));
        let seen = p.seen.unwrap();
        assert_eq!(seen.asked, [crate::js::json::Json::str("files_delete")]);
        assert!(seen.pending.is_empty());
        assert_eq!(p.executed.len(), 1);
        assert_eq!(p.requests.len(), 2);
    }

    #[test]
    fn before_the_policy_is_asked_any_function_holds_every_call() {
        let p = projected(BY_KEY, MastraVersion::new(1, 37, 1));
        let seen = p.seen.unwrap();
        assert!(seen.asked.is_empty());
        assert_eq!(seen.pending.len(), 1);
        assert!(p.executed.is_empty());
        assert_eq!(p.requests.len(), 1, "the run stays suspended");
        let last = seen.stream.last().unwrap();
        assert_eq!(last.0.to_lossy(), "tool-call-approval");
    }

    #[test]
    fn a_declined_call_sends_the_refusal_and_runs_nothing() {
        let text = BY_KEY
            .replace("files.delete\"]", "files_delete\"]")
            .replace(
                "\"replies\"",
                "\"approvals\":{\"call_1\":\"decline\"},\"replies\"",
            );
        let p = projected(&text, MastraVersion::new(1, 71, 0));
        assert!(p.executed.is_empty());
        let history = p.requests[1].to_json().get("history").unwrap().to_compact();
        assert!(history.contains("not approved"), "{history}");
        let seen = p.seen.unwrap();
        assert_eq!(seen.tool_results, Some(Vec::new()));
        assert_eq!(
            seen.stream.last().unwrap().0.to_lossy(),
            "tool-output-denied"
        );
    }

    const TWO: &str = r#"{"about":"a","tools":[{"key":"files.delete","id":"delete-file","description":"d"},{"key":"files.read","id":"read-file","description":"r"}],
        "call":{"method":"stream","requireToolApproval":{"names":["files_delete"]}},"route":"openai",
        "replies":[{"toolCalls":[FIRST,SECOND]},{"text":"done"}]}"#;
    const READ: &str = r#"{"id":"call_1","name":"files_read","arguments":{"city":"Paris"}}"#;
    const DELETE: &str = r#"{"id":"call_2","name":"files_delete","arguments":{"city":"Paris"}}"#;

    #[test]
    fn a_step_runs_up_to_its_held_call_and_hands_over_none_of_its_results() {
        let text = TWO.replace("FIRST", READ).replace("SECOND", DELETE);
        let p = projected(&text, MastraVersion::new(1, 67, 0));
        let seen = p.seen.unwrap();
        assert_eq!(p.executed.len(), 1, "the call let through ran");
        assert_eq!(seen.tool_results, Some(Vec::new()));
        assert_eq!(seen.pending.len(), 1);
        assert_eq!(seen.asked.len(), 2);
        let last = seen.stream.last().unwrap();
        assert_eq!(last.0.to_lossy(), "tool-call-approval");
    }

    #[test]
    fn from_1_69_a_held_first_call_still_has_the_later_ones_asked() {
        let text = TWO.replace("FIRST", DELETE).replace("SECOND", READ);
        let asked = |v| projected(&text, v).seen.unwrap().asked.len();
        assert_eq!(asked(MastraVersion::new(1, 68, 0)), 1);
        assert_eq!(asked(MastraVersion::new(1, 69, 0)), 2);
        assert!(projected(&text, MastraVersion::new(1, 69, 0))
            .executed
            .is_empty());
    }

    #[test]
    fn a_call_by_the_tools_id_is_asked_with_the_id() {
        let text = BY_KEY.replace("\"name\":\"files_delete\"", "\"name\":\"delete-file\"");
        let p = projected(&text, MastraVersion::new(1, 71, 0));
        assert_eq!(
            p.seen.unwrap().asked,
            [crate::js::json::Json::str("delete-file")]
        );
    }

    const TOOL_FN: &str = r#"{"about":"a","tools":[{"key":"files.delete","id":"delete-file","description":"d","requireApproval":FN}],
        "call":{"method":"stream","requireToolApproval":POLICY},
        "replies":[{"toolCalls":[{"id":"call_1","name":"files_delete","arguments":{"city":"Paris"}}]},{"text":"done"}]}"#;

    fn tool_fn(answer: &str, policy: &str, version: MastraVersion) -> Projection {
        projected(
            &TOOL_FN.replace("FN", answer).replace("POLICY", policy),
            version,
        )
    }

    #[test]
    fn from_1_26_a_tools_approval_function_overrides_the_policy() {
        let before = tool_fn(r#"{"returns":false}"#, "true", MastraVersion::new(1, 25, 0));
        assert!(before.executed.is_empty(), "before, any function holds");
        let from = tool_fn(r#"{"returns":false}"#, "true", MastraVersion::new(1, 26, 0));
        assert_eq!(from.executed.len(), 1, "false beside true runs unapproved");
        let held = tool_fn(r#"{"returns":true}"#, "false", MastraVersion::new(1, 71, 0));
        assert_eq!(held.seen.unwrap().pending.len(), 1);
        let threw = tool_fn(r#"{"throws":"x"}"#, "false", MastraVersion::new(1, 71, 0));
        assert!(threw.executed.is_empty(), "a throw holds the call");
    }

    #[test]
    fn a_policy_function_is_still_asked_before_the_tools_function_decides() {
        let names = r#"{"names":["files_delete"]}"#;
        let p = tool_fn(r#"{"returns":false}"#, names, MastraVersion::new(1, 71, 0));
        let seen = p.seen.unwrap();
        assert_eq!(seen.asked, [crate::js::json::Json::str("files_delete")]);
        assert!(seen.pending.is_empty());
        assert_eq!(p.executed.len(), 1);
        let p = tool_fn(r#"{"returns":false}"#, names, MastraVersion::new(1, 37, 1));
        assert!(p.seen.unwrap().asked.is_empty());
        assert_eq!(p.executed.len(), 1);
    }

    #[test]
    fn a_tools_approval_function_still_holds_the_calls_of_a_resumed_run() {
        let text = include_str!(
            "../../cases/approval/tool-approval-fn-true-holds-every-resumed-call-stream.json"
        );
        let p = projected(text, MastraVersion::new(1, 71, 0));
        let seen = p.seen.unwrap();
        assert_eq!(
            seen.pending.len(),
            2,
            "each call waits, the resumed one too"
        );
        assert_eq!(p.executed.len(), 2);
        assert_eq!(p.requests.len(), 3);
    }

    /// Three approved calls under `true`, one per step: on 1.16.0 to 1.55.0
    /// the last request's history has every call ahead of every result
    /// (each step after a resumed one merged into it); on 1.57.0 each step
    /// stands alone; where the policy is lost after the first answer, the
    /// step no answer resumed stands alone on 1.40.0 too.
    #[test]
    fn a_step_after_a_resumed_one_is_merged_into_it_until_1_57_0() {
        let calls = (1..=3)
            .map(|i| {
                format!(
                    r#"{{"toolCalls":[{{"id":"call_{i}","name":"search_web","arguments":{{"city":"C{i}"}}}}]}}"#
                )
            })
            .collect::<Vec<_>>()
            .join(",");
        let case = |policy: &str| {
            format!(
                r#"{{"about":"a","tools":["search.web"],"call":{{"requireToolApproval":{policy}}},
                "replies":[{calls},{{"text":"done"}}],
                "approvals":{{"call_1":"approve","call_2":"approve","call_3":"approve"}}}}"#
            )
        };
        let last = |text: &str, v: MastraVersion| {
            let p = projected(text, v);
            p.requests
                .last()
                .unwrap()
                .history
                .iter()
                .map(|h| match h {
                    crate::projection::HistoryItem::Result { id, .. } => id.to_lossy(),
                    _ => "call".into(),
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let held = case("true");
        assert_eq!(
            last(&held, MastraVersion::new(1, 40, 0)),
            "call call call call_1 call_2 call_3"
        );
        assert_eq!(
            last(&held, MastraVersion::new(1, 57, 0)),
            "call call_1 call call_2 call call_3"
        );
        let lost = case(r#"{"names":["search_web"]}"#);
        assert_eq!(
            last(&lost, MastraVersion::new(1, 40, 0)),
            "call call call_1 call_2 call call_3"
        );
    }
}
