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

use super::builtins::Builtin;
use super::record::Lookup;
use super::releases::{
    Release, APPROVAL_DECLINED_MESSAGE, SUB_AGENTS_THROW_MESSAGE,
    SUSPEND_PAYLOAD_UNRESOLVED_MESSAGE,
};
use super::route::{result_on, ResultContent};
use super::steps::SpanCall;
use super::tool_search::{Load, Meta, SearchState};
use super::validate::Schema;
use super::{ToolOrigin, ToolValue};
use crate::case::{
    Approval, ApprovalPolicy, Case, Method, Reply, Tool, ToolApproval, ToolCallReply,
};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::model::record::Record;
use crate::projection::{ErrorView, Executed, HistoryItem, Projection, RequestView, Seen};

/// The case as a resumed run is made, if it differs: a run resumed after an
/// approval answer is the agent's own, without the call's `activeTools`,
/// `maxSteps`, `stopWhen`, `clientTools` and `toolsets`. Measured on 1.0.4, 1.67.0 and
/// 1.71.0 with a first step held and approved: the resumed request offers
/// every tool of the agent (not the `activeTools` of the first, nor the
/// client tool) and a `maxSteps: 1` call sends it; the toolset's tools are
/// gone from it on 1.40.0, 1.57.0 and 1.70.0, every route
/// (`cases/approval/held-beside-a-toolset-*.json`).
pub(super) fn as_resumed(case: &Case) -> Option<Case> {
    let call = &case.call;
    if call.active_tools.is_none()
        && call.tool_choice.is_none()
        && call.max_steps.is_none()
        && call.stop_when.is_none()
        && case.client_tools.is_none()
        && case.toolsets.is_none()
        && !case.sources.mcp_toolsets()
    {
        return None;
    }
    let mut plain = case.clone();
    plain.call.active_tools = None;
    // Its `toolChoice` too: the resumed request says "auto" (1.0.4 and
    // 1.71.0, fuzz seed 1 case 52: a named tool choice, approved).
    plain.call.tool_choice = None;
    plain.call.max_steps = None;
    plain.call.stop_when = None;
    plain.client_tools = None;
    plain.toolsets = None;
    if plain.sources.mcp_toolsets() {
        // `listToolsets()`'s tools were the call's toolsets: gone too.
        plain.sources.mcp = None;
        plain.sources.mcp_listing = None;
        plain.sources.mcp_approval = None;
    }
    Some(plain)
}

/// The run an approval answer resumes (`steps::Resume`), and the agent's
/// own case and tools, which the resumed run finds its later steps'
/// calls in (`as_resumed`).
#[derive(Clone, Copy)]
pub(super) struct Resumed<'r> {
    /// `None` where no answer resumes the run (`resumed_after`).
    pub(super) projection: Option<&'r Projection>,
    pub(super) case: &'r Case,
    pub(super) tools: &'r Record<ToolValue>,
}

/// The step an approval answer resumes the run after, if one does: the
/// first step that holds a call, where an answer names one of its calls
/// and the suspension does not throw (`APPROVAL_SUSPEND_THROWS`). A step
/// no answer can resume suspends the run there.
pub(super) fn resumed_after(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
) -> Option<usize> {
    if rel.approval_suspend_throws {
        return None;
    }
    let holds = |reply: &Reply| match reply {
        Reply::ToolCalls(list) => holds_a_call(case, rel, tools, list),
        _ => false,
    };
    let answerable = |reply: &Reply| match reply {
        Reply::ToolCalls(list) => {
            case.route.call_ids_scripted()
                && list
                    .iter()
                    .any(|c| case.approvals.iter().flatten().any(|(id, _)| *id == c.id))
        }
        _ => false,
    };
    let k = case.replies.iter().position(holds)?;
    answerable(&case.replies[k]).then_some(k)
}

/// Which calls of a held step `step_found_alike` looks at.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum StepPart {
    /// Those before its first held call.
    Before,
    /// The held call and those after it.
    HeldOn,
    /// Those before it and the held call.
    Through,
}

/// Whether the calls `part` of step `step` each find the same tool in the
/// agent's own tools (`own`, `own_tools`: `as_resumed`) as in the call's.
/// Before `RESUMED_STEP_KEEPS_CALL_TOOLS` the resumed run finds the held
/// call and those after it in the agent's own tools, while those before it
/// ran in the call's.
pub(super) fn step_found_alike(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    (own, own_tools): (&Case, &Record<ToolValue>),
    (step, part): (usize, StepPart),
) -> bool {
    let Some(Reply::ToolCalls(list)) = case.replies.get(step) else {
        return true;
    };
    let held = list
        .iter()
        .position(|c| holds_a_call(case, rel, tools, std::slice::from_ref(c)))
        .unwrap_or(list.len());
    let part = match part {
        StepPart::Before => &list[..held],
        StepPart::HeldOn => &list[held..],
        StepPart::Through => &list[..(held + 1).min(list.len())],
    };
    let find = |c: &Case, t: &Record<ToolValue>, name: &JsString| {
        let found = reached(t, name).map(|(k, v)| (k, v.id.clone(), v.origin.clone()));
        found.filter(|_| !unreached(c, rel, t, name))
    };
    part.iter()
        .all(|c| find(case, tools, &c.name) == find(own, own_tools, &c.name))
}

/// `base` as the run goes where an answer resumes it (`resumed_after`),
/// from `resumed`, the run as the resumed run makes it (`as_resumed`).
/// After a first step, `resumed` is the agent's own run with the first
/// request as the call made it. After a later step, `resumed` is the
/// call's run up to and through the held step and the agent's own from
/// there (`steps::Resume`), as measured on 1.0.4, 1.12.0, 1.40.0, 1.57.0,
/// 1.67.0 and 1.71.0, every route: the steps before went alike in the
/// call's run and in the agent's own
/// (`cases/approval/held-in-a-later-step-beside-*`), a tool `activeTools`
/// hides was called before (`held-in-a-later-step-after-a-hidden-call-*`),
/// a toolset's tool beside the held call runs in the resumed step while
/// later requests offer none (fuzz seed 1 case 2182).
fn resumed_base(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    base: Projection,
    resumed: Option<Resumed>,
) -> Result<Projection, String> {
    let resumed = resumed.and_then(|r| r.projection);
    let (Some(k), Some(resumed)) = (resumed_after(case, rel, tools), resumed) else {
        return Ok(base);
    };
    if k > 0 {
        return Ok(resumed.clone());
    }
    if base.requests.is_empty() || resumed.requests.is_empty() {
        return Ok(base);
    }
    let mut spliced = resumed.clone();
    spliced.requests[0] = base.requests[0].clone();
    keep_first_run_not_found(case, rel, tools, &base, &mut spliced);
    Ok(spliced)
}

/// The results of the first step's calls before its held one that found no
/// tool, as the call's run wrote them: they were written before the
/// suspension, with the call's tools for "Available tools", so the agent's
/// own run that stands for the resumed one does not rewrite them (1.42.0
/// to 1.45.0, where the message reaches the resumed run's requests and the
/// held step is found in the agent's own tools:
/// `cases/approval/declined-toolset-call-after-an-invented-name-*`).
fn keep_first_run_not_found(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    base: &Projection,
    spliced: &mut Projection,
) {
    let Some(Reply::ToolCalls(list)) = case.replies.first() else {
        return;
    };
    let held = list
        .iter()
        .position(|c| holds_a_call(case, rel, tools, std::slice::from_ref(c)))
        .unwrap_or(list.len());
    let unique = |id: &JsString| list.iter().filter(|c| c.id == *id).count() == 1;
    let ids: Vec<&JsString> = list[..held]
        .iter()
        .filter(|c| unreached(case, rel, tools, &c.name) && unique(&c.id))
        .map(|c| &c.id)
        .collect();
    let Some(written) = base.requests.get(1) else {
        return;
    };
    let as_written = |id: &JsString| {
        written.history.iter().find_map(|item| match item {
            HistoryItem::Result { id: of, content } if of == id => Some(content.clone()),
            _ => None,
        })
    };
    for id in ids {
        let Some(content) = as_written(id) else {
            continue;
        };
        rewrite_result(&mut spliced.requests, 1, id, &content);
    }
}

/// The result of the call `id` as every request from `from` on carries it:
/// `content`.
fn rewrite_result(requests: &mut [RequestView], from: usize, id: &JsString, content: &Json) {
    for request in requests.get_mut(from..).unwrap_or_default() {
        for item in &mut request.history {
            if let HistoryItem::Result { id: of, content: c } = item {
                if of == id {
                    *c = content.clone();
                }
            }
        }
    }
}

/// Whether the call of `tool` under the wire name `name` waits for
/// approval, recording what the policy was asked.
fn waits(
    rel: &Release,
    case: &Case,
    own: Option<&ToolApproval>,
    name: &JsString,
    asked: &mut Vec<Json>,
) -> bool {
    waits_in(rel, case, own, name, asked, false)
}

/// As `waits`, in a run resumed after an answer (`resumed`): there a
/// `requireToolApproval` function is gone (`APPROVAL_POLICY_LOST_ON_RESUME`),
/// while `true` and a tool's own `requireApproval` still hold, a function
/// of the tool's asked again (`tool-approval-fn-true-holds-every-resumed-call-*`).
fn waits_in(
    rel: &Release,
    case: &Case,
    own: Option<&ToolApproval>,
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
    match own {
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

/// What a tool's own `requireApproval` function is asked for `call`, where
/// the release asks it (`TOOL_APPROVAL_FN_ASKED`): `{ "id", "args",
/// "context" }`, the call's arguments as the step parsed them and the keys
/// of the context it is given, never a tool name (`args` among them from
/// `TOOL_APPROVAL_FN_GIVEN_ARGS`).
fn tool_fn_asked(case: &Case, rel: &Release, tool: &Tool, call: &ToolCallReply) -> Option<Json> {
    let is_fn = matches!(
        own_approval(tool),
        Some(ToolApproval::Returns(_) | ToolApproval::Throws(_))
    );
    if !is_fn || !rel.tool_approval_fn_asked {
        return None;
    }
    let on_google = case.route.wire() == crate::route::Wire::GenerateContent;
    let args = if call.arguments == Json::Null && on_google && rel.google_null_arguments_empty {
        Json::Object(Vec::new())
    } else {
        call.arguments.clone()
    };
    let given_args = rel.tool_approval_fn_given_args.then_some("args");
    let context = given_args
        .into_iter()
        .chain(["requestContext", "workspace"])
        .map(Json::str)
        .collect();
    Some(Json::object([
        ("id", Json::String(tool_id(tool))),
        ("args", args),
        ("context", Json::Array(context)),
    ]))
}

/// A case tool's own `requireApproval`, if it has one.
pub(super) fn own_approval(tool: &Tool) -> Option<&ToolApproval> {
    match tool {
        Tool::Custom {
            require_approval, ..
        } => require_approval.as_ref(),
        _ => None,
    }
}

/// What holds a call of an MCP server's tool where its server has a
/// policy (`mcpApproval`), from `MCP_SERVER_APPROVAL`: `@mastra/mcp` makes
/// the tool's own `requireApproval` of it, `true` for `true`, and for a
/// function `true` with a `needsApprovalFn` that asks the server's
/// function with the tool's MCP name (1.71.0 `@mastra/mcp` 2.0.0
/// `dist/index.js:23882`). So it holds as a tool's own approval does, a
/// function asked from `MCP_SERVER_APPROVAL_FN_ASKED` and its answer
/// winning over the agent's policy. The approval, and for a function the
/// `serverAsked` entry it is asked with.
fn server_gate(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    name: &JsString,
) -> Option<(ToolApproval, Option<Json>)> {
    if !rel.mcp_server_approval {
        return None;
    }
    let (_, value) = reached(tools, name)?;
    let ToolOrigin::Mcp(server) = &value.origin else {
        return None;
    };
    let raw = super::sources::mcp_raw_name(server, &value.id);
    match case.sources.server_approval(server)? {
        ApprovalPolicy::Flag(false) => None,
        ApprovalPolicy::Flag(true) => Some((ToolApproval::Always, None)),
        // Before `MCP_SERVER_APPROVAL_FN_ASKED` the `requireApproval: true`
        // beside the function holds every call, the function never asked.
        ApprovalPolicy::Names(_) if !rel.mcp_server_approval_fn_asked => {
            Some((ToolApproval::Always, None))
        }
        ApprovalPolicy::Names(names) => {
            let asked = Json::object([
                ("server", Json::String(server.clone())),
                ("toolName", Json::String(raw.clone())),
            ]);
            Some((ToolApproval::Returns(names.contains(&raw)), Some(asked)))
        }
    }
}

/// The own approval of what a call by `name` reaches: the case tool's
/// `requireApproval`, or its MCP server's policy (`server_gate`).
fn own_of(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    tool: Option<&Tool>,
    name: &JsString,
) -> Option<ToolApproval> {
    tool.and_then(own_approval)
        .cloned()
        .or_else(|| server_gate(case, rel, tools, name).map(|(a, _)| a))
}

/// The entry of the formatted record a call by `name` finds: the one
/// under the name it was sent under, else the tool whose id it is
/// (`stepTools[name] || Object.values(stepTools).find(t => t.id === name)`).
pub(super) fn reached<'t>(
    tools: &'t Record<ToolValue>,
    name: &JsString,
) -> Option<(JsString, &'t ToolValue)> {
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
pub(super) fn tool_called<'c>(
    case: &'c Case,
    tools: &Record<ToolValue>,
    name: &JsString,
) -> Option<&'c Tool> {
    let (_, value) = reached(tools, name)?;
    if value.origin != ToolOrigin::Ours {
        return None;
    }
    // The last tool registered under the key is the one the record holds,
    // unless a toolset's tool of that key took its place (its id tells):
    // then that tool's own `requireApproval` is the one that counts
    // (`cases/approval/toolset-tool-replacing-a-case-tool-under-true-*`).
    let sets = case.toolsets.iter().flatten().flat_map(|(_, t)| t.iter());
    let same = |t: &&Tool| *t.key() == value.key && tool_id(t) == value.id;
    // A tool `toolSearch` loaded is keyed by the name it was loaded by, its
    // key or its id behind the processor (`SearchState::step_tools`).
    let behind = case.tool_search.iter().flat_map(|s| s.tools.iter());
    let loaded =
        |t: &&Tool| tool_id(t) == value.id && (*t.key() == value.key || t.id() == value.key);
    case.tools
        .iter()
        .rev()
        .find(|t| *t.key() == value.key)
        .filter(same)
        .or_else(|| sets.collect::<Vec<_>>().into_iter().rev().find(same))
        .or_else(|| behind.collect::<Vec<_>>().into_iter().rev().find(loaded))
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
    if rel.approval_later_calls_asked {
        // A hidden tool's own approval function is asked too, before the
        // lookup fails (fuzz seed 1 case 22 on 1.71.0: a toolset's tool
        // `activeTools: []` hides).
        let asked: Vec<Json> = steps
            .iter()
            .take(p.requests.len())
            .flat_map(|s| s.iter())
            .filter_map(|c| tool_fn_asked(case, rel, tool_called(case, tools, &c.name)?, c))
            .collect();
        if !asked.is_empty() {
            let seen = p.seen.get_or_insert_with(Default::default);
            seen.tool_asked.get_or_insert_with(Vec::new).extend(asked);
        }
        // So is a hidden MCP tool's server function, with its MCP name
        // (fuzz seed 1 cases 2025 and 2397, `activeTools: []`, on 1.69.0
        // and 1.71.0; `cases/approval/hidden-mcp-tool-server-approval-fn-asked-from-1.69.json`).
        let server: Vec<Json> = steps
            .iter()
            .take(p.requests.len())
            .flat_map(|s| s.iter())
            .filter_map(|c| server_gate(case, rel, tools, &c.name)?.1)
            .collect();
        if !server.is_empty() {
            let seen = p.seen.get_or_insert_with(Default::default);
            seen.server_asked
                .get_or_insert_with(Vec::new)
                .extend(server);
        }
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
    /// `toolCalls` and `toolResults` of the last result that was suspended
    /// at a held call an answer resumed.
    suspended_lists: Option<(Vec<Json>, Vec<Json>)>,
    /// The tool span of each call that ran (let through, approved, or a
    /// decline lost), in the order they ended.
    spans: Vec<SpanCall>,
    /// The agent's own case and tools, which a resumed run's later steps
    /// find their calls in (`Resumed`), where they differ from the call's.
    own: Option<(&'a Case, &'a Record<ToolValue>)>,
    /// The case's `toolSearch` processor: what each step's calls find is
    /// its record (`SearchState::step_tools`), which grows by what the
    /// `load_tool` calls that ran loaded.
    search: Option<SearchState>,
    /// What the step's `load_tool` calls that ran loaded, in order.
    loads: Vec<JsString>,
    /// Beside `toolSearch`, an answer to a held call is not modelled: a
    /// reply calls `load_tool` (the let-through run's record grows by
    /// loads an answer may not make), the resumed run is made otherwise
    /// than the call (`as_resumed`: its `maxSteps`, `activeTools`, ...,
    /// not measured beside the processor), or the release is before
    /// `RESUMED_STEP_KEEPS_CALL_TOOLS`, where the resumed run looks the
    /// held step's calls up in the agent's own tools, which the
    /// processor's `search_tools` is not among ("Tool \"search_tools\" not
    /// found", measured on 1.13.2, 1.38.0 and 1.45.0). Otherwise the
    /// record is the first step's throughout and the answered run is as a
    /// case tool's (`cases/toolsearch/search-held-*`: as modelled on
    /// 1.46.0, 1.67.0 and 1.71.0, every route).
    search_answers_unmodelled: bool,
    /// An answer resumed the step being replayed: its later calls are the
    /// resumed run's (`Replay::resumed_step_later`).
    in_resumed_step: bool,
}

/// A later call of a resumed step held at once with others
/// (`Replay::held_at_once`): the call, its fit, what it runs once
/// approved, its span, what its functions were asked (`Replay::asks`),
/// and whether it waits.
struct HeldAtOnce<'c>(
    &'c ToolCallReply,
    Fit,
    Option<Executed>,
    SpanCall,
    [Option<Json>; 2],
    bool,
);

/// A resumed step holding two or more of its later calls, where another
/// of them is let through or names no tool: not measured.
const AT_ONCE_BESIDE: &str =
    "a resumed step holding two or more of its later calls, beside one it does not hold";

/// How a step of calls ended.
enum StepEnd {
    GoesOn,
    Suspended,
    /// A call naming no tool threw "Tool X not found" (before
    /// `NOT_FOUND_IS_A_RESULT`).
    Thrown,
    /// The run is the loop's own: nothing was held or asked.
    Own,
    /// A resumed `generate()` threw once a call its step held at once with
    /// another was answered (`Replay::held_at_once`).
    Unresolved,
    /// The resumed run ended at once, with no error
    /// (`RESUME_AFTER_NOT_FOUND_ENDS`).
    Silent,
}

impl<'a> Replay<'a> {
    fn new(case: &'a Case, rel: &'a Release, base: Projection) -> Replay<'a> {
        Replay {
            case,
            rel,
            seen: Seen {
                tool_asked: case.has_approval_function().then(Vec::new),
                server_asked: case.sources.has_server_approval_function().then(Vec::new),
                ..Seen::default()
            },
            calls: Vec::new(),
            results: Vec::new(),
            executed: base.executed.clone().into_iter(),
            kept: Vec::new(),
            requests: base.requests.clone(),
            resumed: false,
            answered: Vec::new(),
            suspended_lists: None,
            spans: Vec::new(),
            own: None,
            search: None,
            loads: Vec::new(),
            search_answers_unmodelled: false,
            in_resumed_step: false,
            base,
        }
    }

    /// Record what the own approval function of `tool` is asked for `call`,
    /// if it is asked; the entry, for `asked_again`.
    fn tool_fn_asked(&mut self, tool: Option<&Tool>, call: &ToolCallReply) -> Option<Json> {
        let entry = tool.and_then(|t| tool_fn_asked(self.case, self.rel, t, call))?;
        if let Some(list) = self.seen.tool_asked.as_mut() {
            list.push(entry.clone());
        }
        Some(entry)
    }

    /// Record what the server-level policy function of the MCP tool a call
    /// reaches is asked, if it is asked (`server_gate`); the entry, for
    /// `server_asked_again`.
    fn server_fn_asked(&mut self, tools: &Record<ToolValue>, call: &ToolCallReply) -> Option<Json> {
        let (_, entry) = server_gate(self.case, self.rel, tools, &call.name)?;
        let entry = entry?;
        if let Some(list) = self.seen.server_asked.as_mut() {
            list.push(entry.clone());
        }
        Some(entry)
    }

    /// Whether `call` (of `tool`, if a case tool) waits, every approval
    /// function it reaches asked: the policy, the tool's own and its MCP
    /// server's. The entries of the last two, for `asked_again`.
    fn asks(
        &mut self,
        tool: Option<&Tool>,
        tools: &Record<ToolValue>,
        call: &ToolCallReply,
    ) -> (bool, [Option<Json>; 2]) {
        let (case, rel, resumed) = (self.case, self.rel, self.resumed);
        if self.in_resumed_step && self.policy_fn_lost() {
            // Unasked; `resumed_step_later` left no own approval to ask.
            return (rel.resumed_step_holds_later_calls, [None, None]);
        }
        let fn_asked = self.tool_fn_asked(tool, call);
        let server_asked = self.server_fn_asked(tools, call);
        let own = own_of(case, rel, tools, tool, &call.name);
        let asked = &mut self.seen.asked;
        let waits = waits_in(rel, case, own.as_ref(), &call.name, asked, resumed);
        (waits, [fn_asked, server_asked])
    }

    /// A held call that an answer resumes: the resumed step runs the call's
    /// approval check again before it reads the answer, so the tool's
    /// function is asked twice (1.26.0, 1.38.0, 1.67.0, 1.71.0, every
    /// route: `tool-approval-fn-true-holds-every-resumed-call-*`,
    /// `cases/names/tool-approval-fn-asked-again-*`).
    /// A server's function is the tool's own `needsApprovalFn`: asked
    /// again likewise.
    fn asked_again(&mut self, entries: [Option<Json>; 2], answered: bool) {
        let [tool, server] = entries;
        if let (Some(list), Some(entry), true) = (self.seen.tool_asked.as_mut(), tool, answered) {
            list.push(entry);
        }
        if let (Some(list), Some(entry), true) = (self.seen.server_asked.as_mut(), server, answered)
        {
            list.push(entry);
        }
    }

    fn stream(&self) -> bool {
        self.case.call.method == Method::Stream
    }

    /// Whether approval has left the run as the loop makes it so far, and
    /// asks nothing of this release: no call held, no policy function or
    /// tool's own function asked (`APPROVAL_POLICY_ASKED`,
    /// `TOOL_APPROVAL_FN_ASKED`).
    fn untouched(&self) -> bool {
        let (case, rel) = (self.case, self.rel);
        let asks_policy = rel.approval_policy_asked_on_1x
            && matches!(
                case.call.require_tool_approval,
                Some(ApprovalPolicy::Names(_))
            );
        let asks_tool_fn = rel.tool_approval_fn_asked && case.has_approval_function();
        let touched = self.resumed || asks_policy || asks_tool_fn;
        !touched && self.seen.pending.is_empty()
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

    /// The run ended by an API error reply to request `step` (the script's
    /// own, or the default once it ran out), its retries all errors too.
    ///
    /// Measured on 1.0.4, 1.67.0 and 1.71.0, every route
    /// (`cases/approval/error-reply-*.json`, `script-ends-in-*.json`):
    /// where no answer resumed the run it ends as with every call let
    /// through (`base`): the stream's lists stand as its steps left them
    /// (on 1.12.0, `APPROVAL_SUSPEND_THROWS`, without the failed call's
    /// result), `generate()` throws and hands over none. In a resumed run
    /// the error ends the resumed stream likewise, while a resumed
    /// `generate()` throws, and the lists are the suspended result's.
    fn ends_in_error(mut self, step: usize, api_error: bool) -> Result<Projection, String> {
        let requests = self.base.requests.len();
        let reply = |i: usize| {
            self.case
                .replies
                .get(i)
                .cloned()
                .unwrap_or_else(Reply::default_reply)
        };
        // A retried error whose retry gets a reply that goes on is a run
        // that goes on: its steps are no longer one per reply.
        let retried_on = (step..requests).any(|i| !matches!(reply(i), Reply::Error { .. }));
        if !api_error || retried_on {
            return Err(
                "an approval case with an error reply retried into one that goes on".into(),
            );
        }
        let error = self.base.error.clone();
        if self.stream() {
            return Ok(self.projection(error));
        }
        if !self.resumed {
            // `generate()` threw: no result, the lists as with every call
            // let through.
            let lists = self
                .base
                .seen
                .as_ref()
                .map(|s| (s.tool_calls.clone(), s.tool_results.clone()));
            let mut p = self.projection(error);
            if let (Some(seen), Some((calls, results))) = (p.seen.as_mut(), lists) {
                seen.tool_calls = calls;
                seen.tool_results = results;
            }
            return Ok(p);
        }
        let lists = self.suspended_lists.take();
        let mut p = self.projection(error);
        if let (Some(seen), Some((calls, results))) = (p.seen.as_mut(), lists) {
            seen.tool_calls = Some(calls);
            seen.tool_results = Some(results);
        }
        Ok(p)
    }

    /// The run ended by a call naming no tool, before `NOT_FOUND_IS_A_RESULT`:
    /// the calls before it went as ever (a held one waited, and ran once
    /// approved), then it threw "Tool X not found", the error with every
    /// call let through (`base`). Measured on 1.0.4, every route
    /// (`cases/approval/invented-name-*.json`): a stream hands over no
    /// lists (an error of Mastra's own), `generate()` throws, and its lists
    /// are the suspended result's where an answer had resumed the run, none
    /// where none had.
    /// The resumed run ended at once (`RESUME_AFTER_NOT_FOUND_ENDS`): no
    /// error, and on both methods the suspended result's lists.
    fn silent(mut self) -> Projection {
        let lists = self.suspended_lists.take();
        let mut p = self.projection(None);
        if let (Some(seen), Some((calls, results))) = (p.seen.as_mut(), lists) {
            seen.tool_calls = Some(calls);
            seen.tool_results = Some(results);
        }
        p
    }

    fn thrown(mut self) -> Projection {
        let error = self.base.error.clone();
        let lists = if self.stream() || !self.resumed {
            None
        } else {
            self.suspended_lists.take()
        };
        let mut p = self.projection(error);
        if let Some(seen) = p.seen.as_mut() {
            seen.tool_calls = lists.as_ref().map(|l| l.0.clone());
            seen.tool_results = lists.map(|l| l.1);
        }
        p
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
        let held = list
            .iter()
            .map(|call| target(case, rel, tools, self.search.as_ref(), call))
            .collect::<Result<Vec<_>, _>>()?;
        let mut runs = self.step_runs(list, &held);
        let mut handed: Vec<(&'static str, Json)> = Vec::new();
        let mut answered = false;
        let spans_from = self.spans.len();
        // Where the step's first answer put its held call's run in `kept`,
        // and the runs after it that started eagerly (`Replay::eager`).
        let (mut resumed_at, mut eager) = (None::<usize>, Vec::new());
        // The calls naming no tool that failed before the step's next wait.
        let mut not_found: Vec<&ToolCallReply> = Vec::new();
        let stops = held.iter().any(|t| matches!(t, Target::Stops));
        let per_id = one_verdict_per_id(case, rel, list, &held)?;
        let tool_after = tool_after(&held);
        self.in_resumed_step = false;
        // The later calls a resumed step holds at once: how many, those held.
        let mut at_once: Option<(usize, Vec<HeldAtOnce>)> = None;
        for (i, (call, target)) in list.iter().zip(held).enumerate() {
            let name = Json::String(call.name.clone());
            if let Target::Stops = target {
                self.asked_before_lookup(call, tools);
                continue;
            }
            // A call naming no tool fails, unasked, and the step goes on
            // (`NOT_FOUND_IS_A_RESULT`).
            let Target::Tool(tool, fit, span) = target else {
                if !rel.not_found_is_a_result {
                    let unheld = !holds_a_call(case, rel, tools, list);
                    return self.not_found_throws(step, unheld, tool_after[i], answered);
                }
                if let Target::NotFound(hidden) = target {
                    if record_key(tools, &call.name).is_some() {
                        self.policy_asked_before_lookup(call);
                    }
                    self.tool_fn_asked(hidden, call);
                }
                handed.push(("tool-error", name));
                not_found.push(call);
                continue;
            };
            let fit = self.refit(tools, call, fit)?;
            // What the call hands over once it runs: a result (its
            // validation report too), or a tool error where its `null`
            // arguments are refused (`NULL_ARGUMENTS_REFUSED`).
            let ran = fit.handed();
            let run = take_run(case, &mut runs, tool, &fit);
            let (mut waits, fns_asked) = self.asks(tool, tools, call);
            waits = self.per_id_waits(per_id.get(i), waits, (tool, tools), call);
            if let Some((_, list)) = at_once.as_mut() {
                list.push(HeldAtOnce(call, fit, run, span, fns_asked, waits));
                continue;
            }
            if !waits {
                if resumed_at.is_some() && run.is_some() && self.eager(tools, tool, call) {
                    eager.push(self.kept.len());
                }
                self.kept.extend(run);
                self.ran(&fit, span)?;
                handed.push((ran, name));
                continue;
            }
            if rel.approval_suspend_throws {
                // The suspension fails (`APPROVAL_SUSPEND_THROWS`): the call
                // is a tool error, nothing waits, and the step goes on.
                handed.push(("tool-error", name));
                self.answer_with(step, call, &fit, JsString::from(SUB_AGENTS_THROW_MESSAGE));
                continue;
            }
            let answer = self.hold(call, &name, &fit)?;
            self.asked_again(fns_asked, answer.is_some());
            if stops && answer.is_some() {
                // How the resumed run goes on after a call that stopped the
                // loop differs by release, and is not modelled: measured in
                // docs/figures.md ("A toolset's tool and working memory
                // under approval").
                return Err("an answered call beside a call that stops the loop".into());
            }
            let later = &list[i + 1..];
            if let (Some(a), false) = (answer, not_found.is_empty()) {
                if rel.resume_after_not_found_ends && !answered && later.is_empty() {
                    let runs = matches!(a, Approval::Approve) || self.decline_lost();
                    return self.resume_ends(step, (call, &name), &not_found, runs.then_some(run));
                }
            }
            if answer.is_some() {
                self.answered_after_not_found(step, &mut not_found)?;
            }
            if answer.is_some() && !answered && self.resumed_step_later(later, tools)? {
                at_once = Some((later.len(), Vec::new()));
            }
            if answer.is_some() {
                // What the suspended result hands over: the calls so far,
                // the results before this step's.
                self.suspended_lists = Some((self.calls.clone(), self.results.clone()));
                resumed_at.get_or_insert(self.kept.len());
            }
            match answer {
                None if !eager.is_empty() => {
                    return Err("a resumed step's eager runs before a call it holds again".into())
                }
                None => return Ok(self.suspend(step, later, tools)),
                Some(_) if self.lost_on_resume(call) => {
                    if !rel.not_found_is_a_result {
                        self.resumed = true;
                        self.requests.truncate(step + 1);
                        return Ok(StepEnd::Thrown);
                    }
                    answered = true;
                    handed.push(("tool-error", name));
                }
                Some(a) if matches!(a, Approval::Approve) || self.decline_lost() => {
                    answered = true;
                    self.kept.extend(run);
                    self.ran(&fit, span)?;
                    handed.push((ran, name));
                }
                Some(_) => {
                    answered = true;
                    let after_not_found = !not_found.is_empty();
                    let kind = self.declined(step, (i, call), &fit, after_not_found);
                    handed.extend(kind.map(|k| (k, name)));
                }
            }
        }
        if let Some((count, list)) = at_once {
            return self.held_at_once(step, count, list);
        }
        if !self.sequential(list, tools) {
            // Calls run at once: a refused call ends its span first, as
            // outside approval (`steps::note_spans`).
            self.spans[spans_from..].sort_by_key(SpanCall::ends_at);
        }
        self.eager_first(resumed_at, &eager);
        Ok(self.step_over(step, handed, answered, stops))
    }

    /// The names of the step's calls noted, and this step's runs with every
    /// call let through taken: one per call whose arguments pass.
    fn step_runs(&mut self, list: &[ToolCallReply], held: &[Target]) -> Vec<Executed> {
        self.calls
            .extend(list.iter().map(|c| Json::String(c.name.clone())));
        let passing = held
            .iter()
            .filter(|t| matches!(t, Target::Tool(Some(_), Fit::Runs(_), _)))
            .count();
        self.executed.by_ref().take(passing).collect()
    }

    /// Whether a call of a reused id waits (`one_verdict_per_id`): the
    /// id's first call as its last, a later one asked again.
    fn per_id_waits(
        &mut self,
        per_id: Option<&PerId>,
        waits: bool,
        (tool, tools): (Option<&Tool>, &Record<ToolValue>),
        call: &ToolCallReply,
    ) -> bool {
        let (case, rel) = (self.case, self.rel);
        match per_id {
            Some(PerId::Later(Some(last), name)) => {
                let own = own_of(case, rel, tools, Some(*last), name);
                waits_in(rel, case, own.as_ref(), name, &mut Vec::new(), self.resumed)
            }
            Some(PerId::Again) => self.asks(tool, tools, call).0,
            _ => waits,
        }
    }

    /// A call naming no tool before `NOT_FOUND_IS_A_RESULT`: the run throws
    /// as it reaches it. Where no call of the step waits (`unheld`), its
    /// calls run at once: a later tool's call (`tool_after`) may run before
    /// the throw (not measured), and where approval touched nothing the run
    /// is the loop's own.
    fn not_found_throws(
        &mut self,
        step: usize,
        unheld: bool,
        tool_after: bool,
        answered: bool,
    ) -> Result<StepEnd, String> {
        if unheld && self.untouched() {
            return Ok(StepEnd::Own);
        }
        if unheld && tool_after {
            return Err("an approval case calling a name that reaches none of its tools, in a step nothing holds, before 1.4.0".into());
        }
        self.resumed |= answered;
        self.requests.truncate(step + 1);
        Ok(StepEnd::Thrown)
    }

    /// A `load_tool` call's fit against the store as the step's loads so
    /// far left it, as outside approval (`steps::resolve_in_order`): the
    /// second load of one name in a step is answered "already loaded".
    fn refit(
        &self,
        tools: &Record<ToolValue>,
        call: &ToolCallReply,
        fit: Fit,
    ) -> Result<Fit, String> {
        let Some(search) = self.search.as_ref() else {
            return Ok(fit);
        };
        if self.loads.is_empty() || !matches!(fit, Fit::Loads(..)) {
            return Ok(fit);
        }
        let value = match tools.get(&call.name) {
            Lookup::Own(v) => Some(v),
            _ => tools.values().into_iter().find(|v| v.id == call.name),
        };
        if !value.is_some_and(|v| v.origin == ToolOrigin::Search(Meta::Load)) {
            return Ok(fit);
        }
        let mut scratch = search.clone();
        for name in &self.loads {
            scratch.note_loaded(name.clone());
        }
        search_fit(self.case, self.rel, Some(&scratch), Meta::Load, call)
    }

    /// The end of request `step`'s step: what it hands over, and whether
    /// the loop goes on. A call that stops the loop (`Target::Stops`) ends
    /// it after the step, for the client, as outside approval
    /// (`cases/approval/client-tool-call-*`,
    /// `inherited-name-beside-a-call-let-through-*`).
    fn step_over(
        &mut self,
        step: usize,
        mut handed: Vec<(&'static str, Json)>,
        answered: bool,
        stops: bool,
    ) -> StepEnd {
        if stops && !self.rel.stop_step_lists_results {
            // A step a stopping call ends lists and streams no run's result
            // before `STOP_STEP_LISTS_RESULTS`, only what failed at once, as
            // outside approval (`steps::seen`; under a policy function on
            // 1.40.0 and 1.57.0, `inherited-name-beside-a-call-let-through-*`).
            handed.retain(|(kind, _)| *kind == "tool-error");
        }
        self.hand_over(handed, answered);
        if stops {
            self.requests.truncate(step + 1);
            return StepEnd::Suspended;
        }
        StepEnd::GoesOn
    }

    /// A workflow's run streams its own chunks as it runs, `tool-output`
    /// chunks named by its key as registered, as outside approval
    /// (`steps::seen::nested_chunks`); a held call's once approved, in the
    /// resumed stream (1.0.4, 1.40.0 and 1.71.0, every route:
    /// `cases/approval/workflow-approved-streams-its-chunks-stream.json`).
    /// Its tool span is kept, for the spans of the calls that ran.
    fn ran(&mut self, fit: &Fit, span: SpanCall) -> Result<(), String> {
        if matches!(fit, Fit::Runs(SUB_AGENT_RUN)) {
            return Err("a sub-agent's call under approval that runs beside a held call".into());
        }
        if let Fit::Loads(_, Some(name)) = fit {
            self.loads.push(name.clone());
        }
        let workflow = matches!(fit, Fit::Runs(out) if *out == super::sources::WORKFLOW_RESULT);
        if self.stream() && workflow {
            let chunk = (
                JsString::from("tool-output"),
                Json::String(span.key.clone()),
            );
            let chunks = std::iter::repeat_n(chunk, super::steps::seen::WORKFLOW_CHUNKS);
            self.seen.stream.extend(chunks);
        }
        self.spans.push(span);
        Ok(())
    }

    /// The runs of `kept` at `eager` moved ahead of the answered call's at
    /// `at`, in their order (`Replay::eager`).
    fn eager_first(&mut self, at: Option<usize>, eager: &[usize]) {
        let Some(at) = at else {
            return;
        };
        let runs: Vec<Executed> = eager.iter().rev().map(|&i| self.kept.remove(i)).collect();
        for run in runs {
            self.kept.insert(at, run);
        }
    }

    /// Whether `call`, let through after an answer in its step, starts as
    /// its chunk completes in the resumed stream (`EAGER_STREAM_TOOLS`), so
    /// that it runs before the answered call: where no approval could hold
    /// it (`isEagerlyExecutableToolCall`, 1.71.0
    /// `dist/agent-BOxKOk3n.js:24911`: no `requireToolApproval` `true` or
    /// function, no `requireApproval` of its tool or server). Measured on
    /// 1.67.0, 1.70.0 and 1.71.0, every route
    /// (`cases/approval/held-first-approved-then-a-call-let-through-*`);
    /// unanswered, the held call stops the stream before the later call
    /// starts (`held-first-unanswered-then-a-call-let-through-stream`).
    fn eager(&self, tools: &Record<ToolValue>, tool: Option<&Tool>, call: &ToolCallReply) -> bool {
        let (case, rel) = (self.case, self.rel);
        // So does a later call of the resumed step under a policy function
        // the resumed run lost (`RESUMED_STEP_RUNS_LATER_CALLS_FIRST`), on
        // both methods.
        if self.in_resumed_step && self.policy_fn_lost() && rel.resumed_step_runs_later_calls_first
        {
            return true;
        }
        let policy = matches!(
            case.call.require_tool_approval,
            None | Some(ApprovalPolicy::Flag(false))
        );
        let own = own_of(case, rel, tools, tool, &call.name);
        let active = (case.call.active_tools.as_deref()).filter(|_| rel.active_tools_applied());
        rel.eager_stream_tools
            && self.stream()
            && policy
            && own.is_none()
            && super::steps::starts_eagerly_in(tools, active, call)
    }

    /// A call that finds no tool to hold is asked of a policy function from
    /// `APPROVAL_LATER_CALLS_ASKED`, which asks every call of the step
    /// before looking it up (`toString` on 1.71.0, fuzz seed 1 case 723; a
    /// client tool's call, `client-tool-call-beside-a-held-call-unanswered-*`).
    fn asked_before_lookup(&mut self, call: &ToolCallReply, tools: &Record<ToolValue>) {
        let rel = self.rel;
        // A client tool's own approval function is asked too, though the
        // call stops the loop unheld (fuzz seed 1 case 1863: 1.69.0 and
        // 1.71.0, every route; 1.68.0 asks nothing).
        let client = reached(tools, &call.name)
            .filter(|(_, v)| v.origin == ToolOrigin::Client)
            .and_then(|(_, v)| {
                let mut list = self.case.client_tools.iter().flatten();
                list.rfind(|t| *t.key() == v.key)
            });
        if rel.approval_later_calls_asked {
            self.tool_fn_asked(client, call);
        }
        self.policy_asked_before_lookup(call);
    }

    /// A policy function is asked, from `APPROVAL_LATER_CALLS_ASKED`, for
    /// every call of the step whose name the step's tools answer, found or
    /// not: `resolveEmittedToolCallConcurrency` (1.71.0
    /// `dist/agent-BOxKOk3n.js:26982`) asks them all before the tool-call
    /// step looks a call up, and a call of a tool `activeTools` hides is
    /// refused there after it was asked, never held (fuzz seed 1 cases
    /// 1301 and 2264 on 1.69.0 and 1.71.0, every route:
    /// `cases/approval/hidden-call-beside-others-asked-of-a-policy-function-*`).
    fn policy_asked_before_lookup(&mut self, call: &ToolCallReply) {
        let rel = self.rel;
        let lost = self.resumed && rel.approval_policy_lost_on_resume;
        let policy_fn = matches!(
            self.case.call.require_tool_approval,
            Some(ApprovalPolicy::Names(_))
        );
        if rel.approval_later_calls_asked && rel.approval_policy_asked_on_1x && policy_fn && !lost {
            self.seen.asked.push(Json::String(call.name.clone()));
        }
    }

    /// Whether the case's `requireToolApproval` is a function a resumed
    /// run has lost (`APPROVAL_POLICY_LOST_ON_RESUME`).
    fn policy_fn_lost(&self) -> bool {
        self.rel.approval_policy_lost_on_resume
            && matches!(
                self.case.call.require_tool_approval,
                Some(ApprovalPolicy::Names(_))
            )
    }

    /// The first answer of a step resumes it: its `later` calls are the
    /// resumed run's. Under a policy function the resumed run has lost,
    /// they are not asked, and run (before `RESUMED_STEP_HOLDS_LATER_CALLS`,
    /// from `RESUMED_STEP_RUNS_LATER_CALLS_FIRST` ahead of the answered
    /// call's run: `Replay::eager`) or wait (from it); from `APPROVAL_LATER_CALLS_ASKED` the first run
    /// asked them before it suspended, as where no answer resumes it
    /// (`suspend`). Measured on 1.0.4, 1.12.0, 1.40.0, 1.57.0, 1.67.0,
    /// 1.69.0 and 1.71.0, every route
    /// (`cases/approval/later-call-of-a-resumed-step-under-a-policy-function-*`).
    /// Whether two or more later calls wait: the resumed step then holds
    /// them at once (`held_at_once`).
    fn resumed_step_later(
        &mut self,
        later: &[ToolCallReply],
        tools: &Record<ToolValue>,
    ) -> Result<bool, String> {
        let (case, rel) = (self.case, self.rel);
        let lost = self.policy_fn_lost();
        let own = |c: &ToolCallReply| {
            own_of(case, rel, tools, tool_called(case, tools, &c.name), &c.name).is_some()
        };
        if lost && later.iter().any(own) {
            return Err(
                "a later call of a resumed step with its own approval, under a policy function"
                    .into(),
            );
        }
        let found = |c: &&ToolCallReply| !unreached(case, rel, tools, &c.name);
        let waiting = if lost {
            let holds = rel.resumed_step_holds_later_calls;
            later.iter().filter(found).filter(|_| holds).count()
        } else {
            later
                .iter()
                .filter(|c| holds_a_call(case, rel, tools, std::slice::from_ref(*c)))
                .count()
        };
        if lost && rel.approval_later_calls_asked {
            self.ask_later(later, tools);
        }
        self.in_resumed_step = true;
        Ok(waiting > 1)
    }

    /// The later calls of a resumed step that wait at once (`held`, two or
    /// more, every later call of the step), each asked as it came: none
    /// runs unanswered, and one answer at most goes through. A stream
    /// shows each one's `tool-call-approval`, and the first of them the
    /// case answers runs alone (or, declined, nothing), the stream ending
    /// with nothing more; `generate()` hands over only the last of them as
    /// its pending call, and an answer to it runs it (declined, nothing)
    /// and throws `SUSPEND_PAYLOAD_UNRESOLVED_MESSAGE`. Either way no later
    /// request is sent and the step hands over no result. Measured on
    /// 1.0.4, 1.67.0 and 1.71.0, every route, both methods, three calls of
    /// one tool, the first approved, under `true` and a policy function
    /// (the resumed run's from `RESUMED_STEP_HOLDS_LATER_CALLS`; before
    /// `APPROVAL_POLICY_ASKED` one that holds every call), the later ones
    /// answered in every way (`cases/approval/resumed-step-holding-two-later-calls-*`,
    /// fuzz seed 1 case 851).
    fn held_at_once(
        &mut self,
        step: usize,
        count: usize,
        mut held: Vec<HeldAtOnce>,
    ) -> Result<StepEnd, String> {
        // A later call let through, naming no tool or stopping the loop.
        if held.len() != count || held.iter().any(|h| !h.5) {
            return Err(AT_ONCE_BESIDE.into());
        }
        let stream = self.stream();
        let last = held.len() - 1;
        for (k, h) in held.iter().enumerate() {
            let name = Json::String(h.0.name.clone());
            if stream {
                let chunk = (JsString::from("tool-call-approval"), name.clone());
                self.seen.stream.push(chunk);
            }
            if stream || k == last {
                let id = Json::String(h.0.id.clone());
                self.seen.pending.push((id, name));
            }
        }
        let case = self.case;
        let answer_of = |h: &HeldAtOnce| {
            let mut answers = case.approvals.iter().flatten();
            answers.find(|(id, _)| *id == h.0.id).map(|(_, a)| *a)
        };
        let at = if stream {
            held.iter().position(|h| answer_of(h).is_some())
        } else {
            answer_of(&held[last]).map(|_| last)
        };
        self.requests.truncate(step + 1);
        let Some(at) = at else {
            return Ok(StepEnd::Suspended);
        };
        let h = held.swap_remove(at);
        if matches!(h.1, Fit::Runs(SUB_AGENT_RUN)) {
            return Err("a sub-agent's call under approval, answered".into());
        }
        if self.search_answers_unmodelled {
            return Err("toolSearch beside approval: answers to a held call".into());
        }
        let approved = matches!(answer_of(&h), Some(Approval::Approve));
        let HeldAtOnce(_, fit, run, span, fns, _) = h;
        self.asked_again(fns, true);
        if approved {
            self.kept.extend(run);
            self.ran(&fit, span)?;
        }
        Ok(if stream {
            StepEnd::Suspended
        } else {
            StepEnd::Unresolved
        })
    }

    /// A held call that waits unanswered suspends the run at request
    /// `step`. From `APPROVAL_LATER_CALLS_ASKED` the policy is asked for the
    /// step's `later` calls too, which do not run.
    fn suspend(
        &mut self,
        step: usize,
        later: &[ToolCallReply],
        tools: &Record<ToolValue>,
    ) -> StepEnd {
        self.ask_later(later, tools);
        self.requests.truncate(step + 1);
        StepEnd::Suspended
    }

    /// From `APPROVAL_LATER_CALLS_ASKED` the calls of a step after its
    /// first held call are asked before the run suspends there.
    fn ask_later(&mut self, later: &[ToolCallReply], tools: &Record<ToolValue>) {
        let rel = self.rel;
        if rel.approval_later_calls_asked && rel.approval_policy_asked_on_1x {
            if let Some(ApprovalPolicy::Names(_)) = &self.case.call.require_tool_approval {
                // Only the names the tools record answers, as where every
                // call finds no tool (`without_a_tool_reached`): an invented
                // name is not asked (1.71.0, fuzz seed 1 case 826).
                // Nor a call whose tool's own `requireApproval` is `true`,
                // which holds it without the policy (1.71.0, fuzz seed 1
                // case 554: two calls of such a tool, the policy asked once).
                let always = |c: &ToolCallReply| {
                    tool_called(self.case, tools, &c.name)
                        .and_then(own_approval)
                        .is_some_and(|a| matches!(a, ToolApproval::Always))
                };
                let answered = |c: &&ToolCallReply| {
                    let looked_up = record_key(tools, &c.name).is_some()
                        || matches!(tools.get(&c.name), Lookup::Inherited);
                    looked_up && !always(c)
                };
                self.seen.asked.extend(
                    later
                        .iter()
                        .filter(answered)
                        .map(|c| Json::String(c.name.clone())),
                );
            }
        }
        if rel.approval_later_calls_asked {
            // Their tools' own approval functions are asked too (fuzz seed
            // 1 case 1933: a second call of a tool whose function throws,
            // asked on 1.69.0 and 1.71.0, every route, not on 1.68.0), and
            // an MCP server's function, policy or not:
            // `bisect cases/mcp-names/server-policy-asked-for-each-call-of-a-held-step-*`
            // (fuzz seed 1 case 212) from 1.67.0 to 1.71.0 gives 1.69.0
            // (1.68.0 asks the held call's alone; 2 steps), every route.
            for call in later {
                self.tool_fn_asked(tool_called(self.case, tools, &call.name), call);
                self.server_fn_asked(tools, call);
            }
        }
    }

    /// An answer to the held call `call`, the last of its step, after calls
    /// of the step that named no tool (`not_found`), on the release whose
    /// resumed run then ends at once (`RESUME_AFTER_NOT_FOUND_ENDS`): what
    /// the approved call runs (`ran`: `Some`) is kept, a resumed stream
    /// hands over the not-found calls' tool errors and that of a call the
    /// resumed run does not find, and the lists stay the suspended
    /// result's. Not beside tracing, turns or memory (not measured).
    fn resume_ends(
        &mut self,
        step: usize,
        (call, name): (&ToolCallReply, &Json),
        not_found: &[&ToolCallReply],
        ran: Option<Option<Executed>>,
    ) -> Result<StepEnd, String> {
        let case = self.case;
        if case.tracing || case.turns.is_some() || case.sources.memory.is_some() {
            return Err("an answered call after a call naming no tool in its step, on 1.4, beside tracing, turns or memory".into());
        }
        self.suspended_lists = Some((self.calls.clone(), self.results.clone()));
        let lost = self.lost_on_resume(call);
        self.resumed = true;
        self.requests.truncate(step + 1);
        if self.stream() {
            let errors = not_found.iter().map(|c| Json::String(c.name.clone()));
            let own = lost.then(|| name.clone());
            self.seen
                .stream
                .extend(errors.chain(own).map(|n| (JsString::from("tool-error"), n)));
        }
        if !lost {
            self.kept.extend(ran.flatten());
        }
        Ok(StepEnd::Silent)
    }

    /// An answer to a held call of request `step` after calls of its step
    /// that named no tool (`not_found`): the resumed run carries their
    /// results as `NOT_FOUND_NAME_ONLY_ON_RESUME` writes them.
    fn answered_after_not_found(
        &mut self,
        step: usize,
        not_found: &mut Vec<&ToolCallReply>,
    ) -> Result<(), String> {
        if not_found.is_empty() {
            return Ok(());
        }
        if self.rel.version < crate::version::spec::MastraVersion::new(1, 5, 0) {
            return Err("an answered call after a call naming no tool in its step, on 1.4".into());
        }
        if self.rel.not_found_name_only_on_resume {
            for failed in not_found.drain(..) {
                self.stored_as_name_only(step, &failed.id);
            }
        }
        Ok(())
    }

    /// Whether the step's calls run one at a time, so that each ends its
    /// span in call order (else a refused call ends its own first). Under
    /// any truthy `requireToolApproval` or beside a tool with its own
    /// `requireApproval` (`resolveToolCallConcurrency`, 1.67.0
    /// `dist/agent-Dk0N0Nlg.js:24781`); from `APPROVAL_LATER_CALLS_ASKED`,
    /// which asks every call of the step before it runs any
    /// (`resolveEmittedToolCallConcurrency`, 1.71.0
    /// `dist/agent-BOxKOk3n.js:26974`), a function, the policy's or a
    /// tool's, counts only where it holds one of the step's calls. A call
    /// naming no tool makes them one at a time, as outside approval
    /// (`steps::runs_concurrently`).
    fn sequential(&self, list: &[ToolCallReply], tools: &Record<ToolValue>) -> bool {
        let (case, rel, resumed) = (self.case, self.rel, self.resumed);
        if list.iter().any(|c| record_key(tools, &c.name).is_none()) {
            return true;
        }
        let lost = resumed && rel.approval_policy_lost_on_resume;
        // A server's policy makes its tools' own `requireApproval`
        // (`server_gate`).
        let servers = case.sources.mcp_approval.iter().flatten();
        let server_own = servers.filter_map(|(_, p)| match p {
            ApprovalPolicy::Flag(true) => Some(ToolApproval::Always),
            ApprovalPolicy::Names(_) => Some(ToolApproval::Returns(true)),
            ApprovalPolicy::Flag(false) => None,
        });
        let own: Vec<ToolApproval> = case
            .all_tools()
            .filter_map(own_approval)
            .cloned()
            .chain(server_own.filter(|_| rel.mcp_server_approval))
            .collect();
        if !rel.approval_later_calls_asked {
            let policy = match &case.call.require_tool_approval {
                Some(ApprovalPolicy::Flag(b)) => *b,
                Some(ApprovalPolicy::Names(_)) => !lost,
                None => false,
            };
            return policy || !own.is_empty();
        }
        let always = |a: &ToolApproval| matches!(a, ToolApproval::Always);
        if matches!(
            case.call.require_tool_approval,
            Some(ApprovalPolicy::Flag(true))
        ) || own.iter().any(always)
        {
            return true;
        }
        list.iter().any(|c| {
            let own = own_of(case, rel, tools, tool_called(case, tools, &c.name), &c.name);
            waits_in(rel, case, own.as_ref(), &c.name, &mut Vec::new(), resumed)
        })
    }

    /// A held call waits: its `tool-call-approval` chunk and its `pending`
    /// entry; the case's answer to it, if any.
    fn hold(
        &mut self,
        call: &ToolCallReply,
        name: &Json,
        fit: &Fit,
    ) -> Result<Option<Approval>, String> {
        if self.stream() {
            self.seen
                .stream
                .push((JsString::from("tool-call-approval"), name.clone()));
        }
        // Without scripted ids (Gemini) no answer can name the call.
        let scripted = self.case.route.call_ids_scripted();
        let id = if scripted {
            Json::String(call.id.clone())
        } else {
            Json::Null
        };
        self.seen.pending.push((id, name.clone()));
        let answer = self
            .case
            .approvals
            .iter()
            .flatten()
            .find(|(id, _)| scripted && *id == call.id)
            .map(|(_, a)| *a);
        if answer.is_some() && matches!(fit, Fit::Runs(SUB_AGENT_RUN)) {
            return Err("a sub-agent's call under approval, answered".into());
        }
        if answer.is_some() && self.search_answers_unmodelled {
            return Err("toolSearch beside approval: answers to a held call".into());
        }
        Ok(answer)
    }

    /// The end of a step that went on: what its calls handed over, a refused
    /// call ahead of the step's results, as outside approval (`steps::seen`).
    fn hand_over(&mut self, mut handed: Vec<(&'static str, Json)>, answered: bool) {
        self.resumed |= answered;
        self.answered.push(answered);
        handed.sort_by_key(|(kind, _)| *kind != "tool-error");
        for (kind, name) in handed {
            if kind == "tool-result" {
                self.results.push(name.clone());
            }
            if self.stream() {
                self.seen.stream.push((JsString::from(kind), name));
            }
        }
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

    /// Every later request carries the not-found result of the call `id` as
    /// `NOT_FOUND_NAME_ONLY_ON_RESUME` writes it.
    fn stored_as_name_only(&mut self, step: usize, id: &JsString) {
        let stored = Json::str("{\"name\":\"ToolNotFoundError\"}");
        rewrite_result(&mut self.requests, step + 1, id, &stored);
    }

    /// Whether an answer resumes `call` in the agent's own run, which does
    /// not find it: an answer to the first step's held call before
    /// `RESUMED_STEP_KEEPS_CALL_TOOLS`, of a tool the agent's own tools
    /// lack (a toolset's, a `listToolsets()` one's). Approved or declined,
    /// the call is then not found (its not-found result, already the
    /// resumed run's), a tool error listed in no `toolResults`; before
    /// `NOT_FOUND_IS_A_RESULT` the resumed run throws "Tool X not found"
    /// (1.0.4). `bisect cases/approval/declined-toolset-call-alone-generate.json
    /// --good 1.40.0 --bad 1.57.0 --route openai-compatible`: 1.46.0, as
    /// the line's own; a `listToolsets()` tool approved or declined the
    /// same (`listtoolsets-tool-held-under-true-*`), each measured on 1.0.4,
    /// 1.12.0, 1.40.0, 1.57.0, 1.67.0, 1.69.0 and 1.71.0, every route.
    fn lost_on_resume(&self, call: &ToolCallReply) -> bool {
        !self.rel.resumed_step_keeps_call_tools
            && !self.resumed
            && self
                .own
                .is_some_and(|(_, own)| reached(own, &call.name).is_none())
    }

    /// A declined call, the `index`th of request `step`'s step: what it
    /// hands over, and every later request with its refusal for a result.
    /// From `APPROVAL_DECLINE_UNLISTED` a declined call after a call of its
    /// step that named no tool (`after_not_found`) leaves no trace: the
    /// later requests carry neither it nor its refusal, and a stream no
    /// `tool-output-denied` for it. `bisect
    /// cases/approval/declined-call-after-an-invented-name-generate.json
    /// --good 1.42.0 --bad 1.57.0 --route openai-compatible`: 1.49.0 (last
    /// the same 1.48.0, 4 steps); measured on 1.0.4, 1.12.0, 1.40.0,
    /// 1.57.0, 1.67.0, 1.69.0 and 1.71.0, every route, a toolset's tool too
    /// (fuzz seed 1 case 2037).
    fn declined(
        &mut self,
        step: usize,
        (index, call): (usize, &ToolCallReply),
        fit: &Fit,
        after_not_found: bool,
    ) -> Option<&'static str> {
        let rel = self.rel;
        if rel.approval_decline_unlisted_on_1x && after_not_found {
            self.declined_unseen(step, index, call, fit);
            return None;
        }
        self.answer_with(step, call, fit, JsString::from(APPROVAL_DECLINED_MESSAGE));
        if !rel.approval_decline_unlisted_on_1x {
            Some("tool-result")
        } else if rel.approval_denied_chunk_on_1x {
            Some("tool-output-denied")
        } else {
            None
        }
    }

    /// Every later request without the declined call `call`, the `index`th
    /// of request `step`'s step, and its result.
    fn declined_unseen(&mut self, step: usize, index: usize, call: &ToolCallReply, fit: &Fit) {
        let (route, rel) = (self.case.route, self.rel);
        let name = super::steps::history_name(rel, &call.name);
        let called = super::route::call_on(route, rel, index, name);
        let ran_as = result_on(route, &call.id, &call.name, fit.content());
        for request in self.requests.get_mut(step + 1..).unwrap_or_default() {
            if let Some(at) = request.history.iter().position(|item| *item == ran_as) {
                request.history.remove(at);
            }
            if let Some(at) = request.history.iter().rposition(|item| *item == called) {
                request.history.remove(at);
            }
        }
    }

    /// Every later request carries `message` (a declined call's refusal, a
    /// failed call's error) in place of what the call gave once run (`fit`).
    fn answer_with(&mut self, step: usize, call: &ToolCallReply, fit: &Fit, message: JsString) {
        let route = self.case.route;
        let ran_as = result_on(route, &call.id, &call.name, fit.content());
        let refused = result_on(route, &call.id, &call.name, ResultContent::Message(message));
        for request in self.requests.get_mut(step + 1..).unwrap_or_default() {
            for item in &mut request.history {
                if *item == ran_as {
                    *item = refused.clone();
                }
            }
        }
    }
}

/// The run of `runs` (a step's, with every call let through) that a call
/// of `tool` going as `fit` is, if it runs.
fn take_run(
    case: &Case,
    runs: &mut Vec<Executed>,
    tool: Option<&Tool>,
    fit: &Fit,
) -> Option<Executed> {
    let at = tool.and_then(|tool| {
        let at = |id: JsString| runs.iter().position(|e| *e.id.units() == *id.units());
        // A toolset's tool under a case tool's key, approved: the resumed
        // run, without toolsets (`as_resumed`), runs the case tool (1.0.4,
        // every route: `toolset-tool-replacing-a-case-tool-under-true-*`).
        at(tool_id(tool)).or_else(|| {
            let own = case.tools.iter().rev().find(|t| t.key() == tool.key())?;
            at(tool_id(own))
        })
    });
    at.filter(|_| matches!(fit, Fit::Runs(_)))
        .map(|at| runs.remove(at))
}

/// What a sub-agent's call is taken to run, in the replay: where it runs
/// (let through, approved, or its decline lost) or is answered, the run
/// beside it is not modelled (on 1.67.0 an approved one never ends: the
/// probe times out, docs/modelled.md); held and unanswered, it suspends the
/// run as any held call (`cases/approval/sub-agent-call-held-*.json`).
const SUB_AGENT_RUN: &str = "<a sub-agent's run>";

/// How a call of a case tool goes once it runs (let through or approved):
/// validation and the `null` check come after the wait, inside the run
/// (measured on 1.0.4, 1.67.0 and 1.71.0, every route:
/// `cases/approval/bad-arguments-*.json`, `null-arguments-*.json`).
enum Fit {
    /// The tool runs (a case tool's `execute`, listed in `executed`), with
    /// this output.
    Runs(&'static str),
    /// A builtin's `execute` returns this object (not listed in
    /// `executed`, which is the case tools' own).
    Built(Json),
    /// `toolSearch`'s `load_tool` answers this object, and loads the name
    /// given, if any, for the steps after it (`SearchState::load`).
    Loads(Json, Option<JsString>),
    /// Validation fails: the report is the call's result.
    Fails(Json),
    /// `null` arguments, refused before validation (`NULL_ARGUMENTS_REFUSED`):
    /// a tool error with this message.
    Refused(JsString),
}

impl Fit {
    /// The chunk (and `toolResults` entry, for a result) the call hands over.
    fn handed(&self) -> &'static str {
        match self {
            Fit::Refused(_) => "tool-error",
            _ => "tool-result",
        }
    }

    /// What the next request carries as the call's result.
    fn content(&self) -> ResultContent {
        match self {
            Fit::Runs(output) => ResultContent::Output(output),
            Fit::Built(output) | Fit::Loads(output, _) => ResultContent::Object(output.clone()),
            Fit::Fails(report) => ResultContent::Object(report.clone()),
            Fit::Refused(message) => ResultContent::Message(message.clone()),
        }
    }
}

/// For each call of a step, whether a call after it reaches a tool that
/// could run: where none does, an unfound name in a step nothing holds
/// throws before 1.4.0 as a held step's does (measured on 1.0.4 and 1.3.0:
/// fuzz seed 1 cases 388, 2011, 2747;
/// `cases/approval/invented-name-in-a-later-step-nothing-holds-*`).
fn tool_after(held: &[Target]) -> Vec<bool> {
    (0..held.len())
        .map(|i| held[i + 1..].iter().any(|t| matches!(t, Target::Tool(..))))
        .collect()
}

/// Whether a call of the step `list` waits for approval: a call of a
/// tool `activeTools` hides is not found (`HIDDEN_IS_NOT_FOUND`), and
/// never waits.
fn holds_a_call(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    list: &[ToolCallReply],
) -> bool {
    // An MCP server's tool, a workflow and `updateWorkingMemory` wait as a
    // case tool does, by the policy alone (fuzz seed 1 case 797, 1.0.4: an
    // approved `updateWorkingMemory` call resumes a run without toolsets).
    list.iter().any(|c| {
        let holdable = reached(tools, &c.name).is_some_and(|(_, v)| match &v.origin {
            ToolOrigin::Ours => tool_called(case, tools, &c.name).is_some(),
            ToolOrigin::Mcp(_)
            | ToolOrigin::Workflow
            | ToolOrigin::WorkingMemory
            | ToolOrigin::SubAgent(_)
            | ToolOrigin::Builtin(_)
            | ToolOrigin::Search(_) => true,
            _ => false,
        });
        holdable
            && !unreached(case, rel, tools, &c.name)
            && waits(
                rel,
                case,
                own_of(case, rel, tools, tool_called(case, tools, &c.name), &c.name).as_ref(),
                &c.name,
                &mut Vec::new(),
            )
    })
}

/// What a call of an approval case reaches.
enum Target<'c> {
    /// A tool approval applies to, and how its call goes once it runs: a
    /// case tool (`Some`, whose own `requireApproval` counts), an MCP
    /// server's tool or a workflow (`None`), with the tool span its run
    /// ends (`steps::SpanCall`).
    Tool(Option<&'c Tool>, Fit, SpanCall),
    /// No tool: the call fails as a tool result. A case tool `activeTools`
    /// hides (`Some`) still has its own approval function asked from
    /// `APPROVAL_LATER_CALLS_ASKED`, before the lookup fails.
    NotFound(Option<&'c Tool>),
    /// A client tool's call or one by a name every object inherits
    /// (`toString`): never held, it stops the loop after its step, as
    /// outside approval (`steps`' `Resolved::Stop`).
    Stops,
}

/// What `call` reaches. An MCP server's tool and a workflow are held and
/// asked as a case tool is (measured on 1.0.4, 1.67.0 and 1.71.0, every
/// route: `cases/approval/mcp-tool-held-*.json`, `workflow-held-*.json`);
/// a call naming nothing fails unasked and the step goes on from
/// `NOT_FOUND_IS_A_RESULT` (`invented-name-*.json`; before, it throws
/// "Tool X not found" once the step's held calls are answered).
fn target<'c>(
    case: &'c Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    search: Option<&SearchState>,
    call: &ToolCallReply,
) -> Result<Target<'c>, String> {
    let unreached = || "an approval case calling a name that reaches none of its tools".to_string();
    let Some((_, value)) = reached(tools, &call.name) else {
        if matches!(tools.get(&call.name), Lookup::Missing) {
            return Ok(Target::NotFound(None));
        }
        return Ok(Target::Stops);
    };
    // A tool `activeTools` hides is not found (`HIDDEN_IS_NOT_FOUND`),
    // held by nothing, and asked, from `APPROVAL_LATER_CALLS_ASKED`, of a
    // policy function and its own approval function alone
    // (`policy_asked_before_lookup`; fuzz seed 1 case 465: a hidden tool
    // with its own approval function).
    if self::unreached(case, rel, tools, &call.name) {
        let hidden = tool_called(case, tools, &call.name);
        return Ok(Target::NotFound(
            hidden.filter(|_| rel.approval_later_calls_asked),
        ));
    }
    // A client tool's call stops the loop, unless `activeTools` hides the
    // client tool: then it is not found, as above (fuzz seed 1 case 2264
    // on 1.67.0 and 1.71.0).
    if value.origin == ToolOrigin::Client {
        return Ok(Target::Stops);
    }
    let span = |fit: &Fit| SpanCall {
        key: value.key.clone(),
        id: value.id.clone(),
        refused: !matches!(fit, Fit::Runs(_) | Fit::Built(_) | Fit::Loads(..)),
        mcp_server: match &value.origin {
            ToolOrigin::Mcp(server) => Some(server.clone()),
            _ => None,
        },
    };
    let (schema, output) = match value.origin {
        ToolOrigin::Ours => {
            let tool = tool_called(case, tools, &call.name).ok_or_else(unreached)?;
            let fit = fit(
                case,
                rel,
                &value.key,
                call,
                Schema::City,
                super::steps::TOOL_RESULT,
            )?;
            let span = span(&fit);
            return Ok(Target::Tool(Some(tool), fit, span));
        }
        ToolOrigin::Mcp(_) => (Schema::City, super::sources::MCP_RESULT),
        ToolOrigin::Workflow => (Schema::Workflow, super::sources::WORKFLOW_RESULT),
        // Memory's `updateWorkingMemory` is held, asked and resumed as a
        // case tool is (`cases/approval/working-memory-call-under-true-*`).
        ToolOrigin::WorkingMemory => (Schema::WorkingMemory, super::sources::WORKING_MEMORY_RESULT),
        // A builtin is held, asked and resumed as a case tool is, and runs
        // as `steps` runs it (`cases/approval/builtin-call-*`); one that
        // suspends the run itself is not measured under approval.
        ToolOrigin::Builtin(ref b) => {
            let memory = case.sources.memory.is_some();
            let arguments = sent_arguments(case, rel, call);
            let fit = if rel.null_arguments_refused && arguments == Json::Null {
                Fit::Refused(super::steps::refused_message(&call.name))
            } else {
                match super::builtins::call(rel, b, &arguments, memory)? {
                    Builtin::Output(output) => Fit::Built(output),
                    Builtin::Rejected => {
                        Fit::Fails(super::validate::report(&value.key, &arguments))
                    }
                    Builtin::Suspends => {
                        return Err("approval of a builtin tool's call that suspends the run".into())
                    }
                }
            };
            let span = span(&fit);
            return Ok(Target::Tool(None, fit, span));
        }
        // A sub-agent's call is held and asked as a case tool's; one that
        // waits unanswered never runs (`SUB_AGENT_RUN`).
        // Where the suspension throws (`APPROVAL_SUSPEND_THROWS`) the step
        // goes on past the held call, and its sub-agent's requests with it.
        ToolOrigin::SubAgent(_) if rel.approval_suspend_throws => {
            return Err(
                "a sub-agent's call under approval on a release whose suspension throws".into(),
            )
        }
        ToolOrigin::SubAgent(_) => {
            let fit = Fit::Runs(SUB_AGENT_RUN);
            let span = span(&fit);
            return Ok(Target::Tool(None, fit, span));
        }
        // `toolSearch`'s own two tools are held, asked and run as a case
        // tool is (`cases/toolsearch/policy-true-holds-load-tool-*`).
        ToolOrigin::Search(meta) => {
            let fit = search_fit(case, rel, search, meta, call)?;
            let span = span(&fit);
            return Ok(Target::Tool(None, fit, span));
        }
        _ => return Err(unreached()),
    };
    let fit = fit(case, rel, &value.key, call, schema, output)?;
    let span = span(&fit);
    Ok(Target::Tool(None, fit, span))
}

/// How a call of `toolSearch`'s `search_tools` or `load_tool` goes once it
/// runs, as `steps` resolves it: each answers as `SearchState` says, or
/// fails its input validation.
fn search_fit(
    case: &Case,
    rel: &Release,
    search: Option<&SearchState>,
    meta: Meta,
    call: &ToolCallReply,
) -> Result<Fit, String> {
    let arguments = sent_arguments(case, rel, call);
    if rel.null_arguments_refused && arguments == Json::Null {
        return Ok(Fit::Refused(super::steps::refused_message(&call.name)));
    }
    let search = search.ok_or("search_tools or load_tool outside a processor")?;
    let run = match meta {
        Meta::Search => search.search(rel, &arguments)?,
        Meta::Load => search.load(rel, &arguments)?,
    };
    Ok(match run {
        Load::Answer(answer, loads) => Fit::Loads(answer, loads),
        Load::Refused => {
            let mut report = super::validate::report(&call.name, &arguments);
            crate::projection::normalise_validation(&mut report);
            Fit::Fails(report)
        }
    })
}

/// How the call `call` of the tool registered under `key` goes once it
/// runs, as `steps` resolves it.
fn fit(
    case: &Case,
    rel: &Release,
    key: &JsString,
    call: &ToolCallReply,
    schema: Schema,
    output: &'static str,
) -> Result<Fit, String> {
    let arguments = sent_arguments(case, rel, call);
    if rel.null_arguments_refused && arguments == Json::Null {
        return Ok(Fit::Refused(super::steps::refused_message(&call.name)));
    }
    Ok(
        match super::validate::validate(rel, schema, key, &arguments)? {
            Ok(_) => Fit::Runs(output),
            Err(mut report) => {
                crate::projection::normalise_validation(&mut report);
                Fit::Fails(report)
            }
        },
    )
}

/// The arguments `call`'s tool is handed: on google `null` ones reach it
/// as `{}` (`GOOGLE_NULL_ARGUMENTS_EMPTY`).
fn sent_arguments(case: &Case, rel: &Release, call: &ToolCallReply) -> Json {
    let on_google = case.route.wire() == crate::route::Wire::GenerateContent;
    if call.arguments == Json::Null && on_google && rel.google_null_arguments_empty {
        Json::Object(Vec::new())
    } else {
        call.arguments.clone()
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
/// `steps` predicts for the same case with every call let through, whose
/// runs ended `base_spans`; with the tool spans of the calls that ran.
///
/// A call ends its tool span only once it runs: one held and unanswered,
/// declined, or failed as its suspension threw (`APPROVAL_SUSPEND_THROWS`)
/// ends none, an approved one ends its own once it runs, and a decline lost
/// with its policy (`APPROVAL_DECLINE_LOST_ON_RESUME`) runs and ends one.
/// Measured on 1.0.4, 1.12.0, 1.40.0, 1.57.0, 1.67.0 and 1.71.0, every
/// route (`cases/tracing/*-approved-*`, `*-declined-*`, `*-held-*`).
pub(super) fn project(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    base: (Projection, Vec<SpanCall>),
    resumed: Option<Resumed>,
    (api_error, taken): (bool, usize),
    search: Option<SearchState>,
) -> Result<Replayed, String> {
    let (base, base_spans) = base;
    if let Some(retried) = Retried::of(case, rel, taken) {
        return retried.project(
            case,
            rel,
            tools,
            (base, base_spans),
            resumed,
            api_error,
            search,
        );
    }
    let own = |projection, spans| Replayed {
        projection,
        spans,
        loaded: None,
    };
    if nothing_waits(case) {
        return Ok(own(base, base_spans));
    }
    // With `toolSearch`, what the first step's calls find: where every
    // call of the case finds nothing there, no `load_tool` ran, and so it
    // is what every step's find (`without_a_tool_reached`).
    let first = search.as_ref().map(SearchState::step_tools).transpose()?;
    let tools = first.as_ref().unwrap_or(tools);
    // Where no `load_tool` is called the record stays the first step's.
    let loads = |r: &Reply| match r {
        Reply::ToolCalls(list) => list.iter().any(|c| {
            reached(tools, &c.name).is_some_and(|(_, v)| v.origin == ToolOrigin::Search(Meta::Load))
        }),
        _ => false,
    };
    if search.is_none() || !case.replies.iter().any(loads) {
        if let Some(p) = sub_agents_let_through(case, rel, tools, &base, taken) {
            return Ok(own(p, base_spans));
        }
    }
    if let Some(p) = without_a_tool_reached(case, rel, tools, &base) {
        return Ok(own(p, base_spans));
    }
    let untouched = own(base.clone(), base_spans);
    let base = resumed_base(case, rel, tools, base, resumed)?;
    let mut replay = Replay::new(case, rel, base);
    replay.own = resumed.map(|r| (r.case, r.tools));
    replay.search_answers_unmodelled = search.is_some()
        && (!rel.resumed_step_keeps_call_tools
            || case.replies.iter().any(loads)
            || as_resumed(case).is_some());
    replay.search = search;
    let ending = replay_steps(&mut replay, tools)?;
    let spans = std::mem::take(&mut replay.spans);
    let loaded = replay.search.as_ref().map(|s| s.loaded().to_vec());
    let mut projection = match ending {
        // Before `NOT_FOUND_IS_A_RESULT`, a call naming no tool in a step
        // nothing holds throws as in the loop's own run, where approval
        // held and asked nothing before (`cases/approval/invented-name-in-a-step-nothing-holds-*`).
        Ending::Own => return Ok(untouched),
        Ending::Plain => replay.projection(None),
        Ending::Thrown => replay.thrown(),
        Ending::Silent => replay.silent(),
        Ending::Error(step) => replay.ends_in_error(step, api_error)?,
        Ending::Unresolved => replay.projection(Some(ErrorView {
            id: None,
            message: JsString::from(SUSPEND_PAYLOAD_UNRESOLVED_MESSAGE),
            cause_code: None,
        })),
    };
    if let (Some(exclude), Some(k)) = (&case.tool_call_filter, resumed_after(case, rel, tools)) {
        let called: Vec<(JsString, JsString)> = case
            .replies
            .iter()
            .flat_map(|r| match r {
                Reply::ToolCalls(list) => list
                    .iter()
                    .map(|c| (c.id.clone(), c.name.clone()))
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        super::tool_call_filter::resumed(rel, &mut projection, k + 1, exclude, &called)?;
    }
    Ok(Replayed {
        projection,
        spans,
        loaded,
    })
}

/// An approval case whose script has API errors that are retried and
/// whose retry gets a reply that goes on (calls or text), before
/// `NO_RETRIES` (1.11.0): each retried attempt is a request like the one
/// after it, so the run is the one of the script without the failed
/// attempts, each step's request sent once more for each of them.
/// Measured on 1.0.4, every route (fuzz seed 1 cases 612 and 899: a 500
/// retried into calls that a policy holds, or that throw a name no tool
/// has; `cases/approval/error-reply-retried-into-*`, held, and approved
/// with a later 503 and 500 retried into text), and as modelled on 1.67.0
/// and 1.71.0, which retry nothing.
struct Retried {
    /// For each step of the script without them, how many failed attempts
    /// came before its own.
    attempts: Vec<usize>,
    /// The script without them.
    replies: Vec<Reply>,
    /// How many of them the parent's requests took.
    taken: usize,
}

impl Retried {
    /// Where the parent's requests took `taken` of the case's replies.
    fn of(case: &Case, rel: &Release, taken: usize) -> Option<Retried> {
        let retries = rel.retries() as usize;
        let failed = |r: &Reply| matches!(r, Reply::Error { status, .. } if super::releases::legacy::retryable(rel, *status));
        let (mut attempts, mut replies) = (Vec::new(), Vec::new());
        let taken = taken.min(case.replies.len());
        let mut i = 0;
        while i < taken {
            let mut r = 0;
            while r < retries && i + r < taken && failed(&case.replies[i + r]) {
                r += 1;
            }
            let reply = &case.replies[(i + r).min(taken - 1)];
            let goes_on = i + r < taken && !matches!(reply, Reply::Error { .. });
            if r > 0 && !goes_on {
                // Retried into an error: the run ends there, as without
                // retries (`ends_in_error`).
                break;
            }
            attempts.push(r);
            replies.push(reply.clone());
            i += r + 1;
            if matches!(reply, Reply::Text(_) | Reply::Error { .. }) {
                break;
            }
        }
        if attempts.iter().all(|&r| r == 0) {
            return None;
        }
        replies.extend(case.replies[i..].iter().cloned());
        let dropped = attempts.iter().sum::<usize>();
        Some(Retried {
            attempts,
            replies,
            taken: taken - dropped,
        })
    }

    /// `project` of the script without the failed attempts, their requests
    /// then put back before the step's own. Where an answer resumes the
    /// run, beside `toolSearch` or a sub-agent (whose requests come
    /// between the parent's), not modelled.
    #[allow(clippy::too_many_arguments)]
    fn project(
        self,
        case: &Case,
        rel: &Release,
        tools: &Record<ToolValue>,
        (mut base, spans): (Projection, Vec<SpanCall>),
        resumed: Option<Resumed>,
        api_error: bool,
        search: Option<SearchState>,
    ) -> Result<Replayed, String> {
        let sub_agent = case.replies.iter().any(|r| match r {
            Reply::ToolCalls(list) => list.iter().any(|c| {
                reached(tools, &c.name)
                    .is_some_and(|(_, v)| matches!(v.origin, ToolOrigin::SubAgent(_)))
            }),
            _ => false,
        });
        if resumed.is_some_and(|r| r.projection.is_some()) || search.is_some() || sub_agent {
            return Err(
                "an approval case with an error reply retried into one that goes on".into(),
            );
        }
        // The failed attempts' requests, by their place in `base`.
        let mut at = 0;
        let mut drop = Vec::new();
        for &r in &self.attempts {
            drop.extend(at..at + r);
            at += r + 1;
        }
        if drop.last().is_some_and(|&d| d >= base.requests.len()) {
            return Err(
                "an approval case with an error reply retried into one that goes on".into(),
            );
        }
        for &d in drop.iter().rev() {
            base.requests.remove(d);
        }
        let mut collapsed = case.clone();
        collapsed.replies = self.replies;
        let taken = (api_error, self.taken);
        let mut out = project(&collapsed, rel, tools, (base, spans), None, taken, None)?;
        let requests = &mut out.projection.requests;
        for (k, &r) in self.attempts.iter().enumerate().rev() {
            if let Some(request) = requests.get(k).cloned() {
                for _ in 0..r {
                    requests.insert(k, request.clone());
                }
            }
        }
        Ok(out)
    }
}

/// What `project` gives: the projection, the tool spans of the calls that
/// ran, and what the case's `toolSearch` processor loaded where the replay
/// decided it (`None`: as in the loop's own run).
pub(super) struct Replayed {
    pub(super) projection: Projection,
    pub(super) spans: Vec<SpanCall>,
    pub(super) loaded: Option<Vec<JsString>>,
}

/// The projection of a case whose parent reaches a sub-agent where no call
/// of its steps is held: the loop's own (`base`), and what a policy
/// function was asked, each call that reaches a tool by the name it was
/// sent under (from `APPROVAL_LATER_CALLS_ASKED` a hidden tool's and an
/// inherited name's too), step by step. Measured on 1.40.0, 1.57.0,
/// 1.67.0 and 1.71.0, every route, a policy function naming none of the
/// calls (`cases/approval/sub-agent-call-let-through-by-a-policy-function-*.json`).
/// Where the calls then run one at a time (a policy function before
/// 1.69.0), the tool spans' order is the replay's, not modelled beside a
/// sub-agent: `tracing` stays with the replay where a step has two or more
/// calls (one call a step ends its span where the loop's own does: fuzz
/// seed 1 case 902), as do a tool's or an MCP server's own approval
/// functions where a call reaches one (one no call reaches is never asked:
/// case 1966, its tool replaced by a plain one of its key; a server's
/// `true` or `false` holds as `holds_a_call` says: case 1061) and
/// sub-agents sharing `replies` (whose requests take the parent's
/// replies); `taken` is how many of `replies` the parent's requests took.
fn sub_agents_let_through(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    base: &Projection,
    taken: usize,
) -> Option<Projection> {
    let steps: Vec<Vec<ToolCallReply>> = case.replies[..taken.min(case.replies.len())]
        .iter()
        .filter_map(|r| match r {
            Reply::ToolCalls(list) => {
                let mut list = list.clone();
                super::steps::arriving(case, rel, &mut list).then_some(list)
            }
            _ => None,
        })
        .collect();
    let sub_agent = |c: &ToolCallReply| {
        reached(tools, &c.name).is_some_and(|(_, v)| matches!(v.origin, ToolOrigin::SubAgent(_)))
    };
    // Each sub-agent called has its own script (one never called takes
    // nothing from `replies`: fuzz seed 1 case 2687, on 1.0.4, 1.67.0 and
    // 1.71.0, every route; nor does one whose every call fails its
    // validation, which never starts it: case 1966).
    let called = |a: &JsString| {
        steps.iter().flatten().any(|c| {
            reached(tools, &c.name).is_some_and(|(_, v)| {
                matches!(&v.origin, ToolOrigin::SubAgent(k) if k == a)
                    && sub_agent_starts(case, rel, v, c)
            })
        })
    };
    let own_scripts = case
        .sources
        .agents
        .iter()
        .flatten()
        .filter(|a| called(a))
        .all(|a| case.sub_agent_replies.iter().flatten().any(|(k, _)| k == a));
    let own_fn = |c: &ToolCallReply| {
        let tool_fn = tool_called(case, tools, &c.name).and_then(own_approval);
        let tool_fn = matches!(
            tool_fn,
            Some(ToolApproval::Returns(_) | ToolApproval::Throws(_))
        );
        tool_fn || server_gate(case, rel, tools, &c.name).is_some_and(|(_, e)| e.is_some())
    };
    let spans_in_order = !case.tracing || steps.iter().all(|l| l.len() <= 1);
    let plain = spans_in_order && !steps.iter().flatten().any(own_fn) && own_scripts;
    let reaches = steps.iter().flatten().any(sub_agent);
    if !plain || !reaches || steps.iter().any(|l| holds_a_call(case, rel, tools, l)) {
        return None;
    }
    let mut p = base.clone();
    let policy_fn = matches!(
        case.call.require_tool_approval,
        Some(ApprovalPolicy::Names(_))
    );
    if policy_fn && rel.approval_policy_asked_on_1x {
        let asked = steps.iter().flatten().filter(|c| {
            // A client tool's call is not asked before `APPROVAL_LATER_CALLS_ASKED`
            // (fuzz seed 1 case 1198 on 1.67.0, mistral).
            let client =
                reached(tools, &c.name).is_some_and(|(_, v)| v.origin == ToolOrigin::Client);
            let found = !unreached(case, rel, tools, &c.name) && !client;
            let looked_up = record_key(tools, &c.name).is_some()
                || matches!(tools.get(&c.name), Lookup::Inherited);
            found || (rel.approval_later_calls_asked && looked_up)
        });
        let seen = p.seen.get_or_insert_with(Default::default);
        seen.asked = asked.map(|c| Json::String(c.name.clone())).collect();
    }
    Some(p)
}

/// Whether a call of the sub-agent `value` passes its validation, so that
/// the sub-agent makes requests of its own (as `steps` runs it).
fn sub_agent_starts(case: &Case, rel: &Release, value: &ToolValue, call: &ToolCallReply) -> bool {
    let arguments = sent_arguments(case, rel, call);
    if rel.null_arguments_refused && arguments == Json::Null {
        return false;
    }
    let memory = case.sources.memory.as_ref();
    let input = super::sources::sub_agent_input(rel, &arguments, memory);
    super::sources::sub_agent_schema_rejects(rel, &value.id, &input).is_none()
        && matches!(
            super::validate::validate(rel, Schema::SubAgent, &value.key, &input),
            Ok(Ok(_))
        )
}

/// Whether no call of the case can wait: no `requireToolApproval` but
/// `false`, no tool with its own `requireApproval`, and no builtin whose
/// suspension an answer in `approvals` would resume. The run is then the
/// loop's own, `approvals` naming no call that waits; so it is for a
/// client tool's, a builtin's, a sub-agent's, working memory's or an
/// inherited name's call (`cases/approval/answers-without-a-policy-*.json`,
/// as modelled on 1.0.4, 1.12.0, 1.40.0, 1.57.0, 1.67.0 and 1.71.0, every
/// route).
pub(super) fn nothing_waits(case: &Case) -> bool {
    let policy = matches!(
        case.call.require_tool_approval,
        None | Some(ApprovalPolicy::Flag(false))
    );
    let suspends = |t: &Tool| matches!(t, Tool::Builtin { name, .. } if super::builtins::has_suspend_schema(name));
    let resumable = case.approvals.is_some() && case.all_tools().any(suspends);
    policy
        && case.sources.mcp_approval.is_none()
        && case.all_tools().all(|t| own_approval(t).is_none())
        && !resumable
}

/// How the replay of an approval case's steps ended.
enum Ending {
    /// With the projection as the steps left it: an answer, a suspension,
    /// the base's last step.
    Plain,
    /// A call naming no tool threw (`Replay::thrown`).
    Thrown,
    /// The loop's own run, which approval did not touch.
    Own,
    /// An API error reply to this request (`Replay::ends_in_error`).
    Error(usize),
    /// `generate()` threw `SUSPEND_PAYLOAD_UNRESOLVED_MESSAGE`
    /// (`Replay::held_at_once`).
    Unresolved,
    /// The resumed run ended at once (`Replay::resume_ends`).
    Silent,
}

/// The steps of `replay`'s case, replayed until a reply ends the run.
fn replay_steps<'a>(
    replay: &mut Replay<'a>,
    mut tools: &'a Record<ToolValue>,
) -> Result<Ending, String> {
    let (case, rel) = (replay.case, replay.rel);
    let requests = replay.base.requests.len();
    let error = replay.base.error.is_some();
    // A resumed run counts its steps from the held one (`steps::Resume`).
    let budget =
        resumed_after(case, rel, tools).map(|k| k + super::steps::DEFAULT_MAX_STEPS as usize);
    // Request i is answered by reply i (once the script runs out, by the
    // listener's default error); the script is replayed until a reply ends
    // the run.
    for step in 0.. {
        let reply = case
            .replies
            .get(step)
            .cloned()
            .unwrap_or_else(Reply::default_reply);
        if step >= requests {
            // A run no answer resumed is the base's own, which stopped here
            // (`maxSteps`); a resumed one should have gone on.
            let ran_out = replay.resumed && budget == Some(requests);
            if (replay.resumed && !ran_out) || error {
                return Err("an approval case whose script outlasts its requests".into());
            }
            return Ok(Ending::Plain);
        }
        let mut list = match reply {
            Reply::Text(_) if error => return Err("an approval case that ends in an error".into()),
            Reply::Text(_) => return Ok(Ending::Plain),
            Reply::Error { .. } => return Ok(Ending::Error(step)),
            Reply::ToolCalls(list) => list,
        };
        if !super::steps::arriving(case, rel, &mut list) {
            return Ok(Ending::Plain);
        }
        // The steps after an answer are the resumed run's, which finds
        // their calls in the agent's own tools; so is a later held step
        // before `RESUMED_STEP_KEEPS_CALL_TOOLS` where the held call or one
        // after it finds otherwise there (`steps::Resume::held_step_own`).
        let held_step_own = |(own, own_tools): (&Case, &Record<ToolValue>)| {
            step > 0
                && !rel.resumed_step_keeps_call_tools
                && resumed_after(case, rel, tools) == Some(step)
                && !step_found_alike(case, rel, tools, (own, own_tools), (step, StepPart::HeldOn))
        };
        if let Some((own, own_tools)) = replay.own.filter(|o| replay.resumed || held_step_own(*o)) {
            (replay.case, tools) = (own, own_tools);
        }
        let reused = list
            .iter()
            .enumerate()
            .any(|(i, c)| list[..i].iter().any(|e| e.id == c.id));
        let sent = list.clone();
        if reused {
            list = reused_in_step(replay, &list, tools)?;
        }
        if replay.stream() {
            let chunks = &mut replay.seen.stream;
            super::steps::seen::call_chunks(case, rel, &sent, &list, chunks);
        }
        // With `toolSearch` the step's calls find what its processor hands
        // the step.
        let handed = replay.search.as_ref().map(SearchState::step_tools);
        let handed = handed.transpose()?;
        let spans_from = replay.spans.len();
        let end = replay.step(step, &list, handed.as_ref().unwrap_or(tools))?;
        if let (Some(search), Some(handed)) = (replay.search.as_mut(), &handed) {
            // Before `TOOL_SEARCH_TOOL_SPANS` only the agent's own tools
            // end a span, as outside approval (`steps::note_spans`).
            if !rel.tool_search_tool_spans {
                let spans = replay.spans.split_off(spans_from);
                let kept = spans
                    .into_iter()
                    .filter(|s| search.passes_through(handed, &s.key));
                replay.spans.extend(kept);
            }
            for name in std::mem::take(&mut replay.loads) {
                search.note_loaded(name);
            }
        }
        match end {
            StepEnd::Suspended => return Ok(Ending::Plain),
            StepEnd::Thrown => return Ok(Ending::Thrown),
            StepEnd::Own => return Ok(Ending::Own),
            StepEnd::Unresolved => return Ok(Ending::Unresolved),
            StepEnd::Silent => return Ok(Ending::Silent),
            StepEnd::GoesOn => {}
        }
    }
    unreachable!("the default reply ends every script")
}

/// How a call of a step that uses one call id twice is asked, from
/// `APPROVAL_LATER_CALLS_ASKED`: the step's calls are all asked first, and
/// the run keeps the verdicts by id, so the last call of an id gives the
/// verdict its first call takes; each later call of the id, its verdict
/// taken, is asked again as it comes to run. Measured on 1.71.0, openai,
/// a policy naming `a`, `b`, both or neither over the calls `a` and `b` of
/// one id: asked `a, b, b` where neither is held, `a, b` where the first
/// is, held by `b`'s verdict (1.68.0: as any other step's calls;
/// `cases/approval/reused-call-id-under-a-policy-*`).
#[derive(Debug, Clone, PartialEq)]
enum PerId<'c> {
    /// Asked as itself.
    Own,
    /// The first call of an id: held or let through as the id's last call
    /// (its tool and name).
    Later(Option<&'c Tool>, JsString),
    /// A later call of an id: asked again.
    Again,
}

/// Each call's `PerId` where a step uses a call id twice under a policy
/// function from `APPROVAL_LATER_CALLS_ASKED`, empty elsewhere. The policy
/// asks the calls that find something (a tool, a client tool, an inherited
/// name), so an id is asked twice only where two of its calls find one:
/// an id with one such call keeps that call's own verdict, its other calls
/// failing unasked (fuzz seed 1 cases 407, 1440 and 2840 on 1.69.0 and
/// 1.71.0). Where no function asks the id's calls (no policy function,
/// the calls case tools without their own function), each is its own
/// (cases 11 and 1359: an MCP server's policy beside them). Modelled where
/// the order of asking is the model's own, call by call: under the
/// policy's function alone for the id's calls, where every call of an id
/// asked twice reaches a tool, and no call asked once comes after one
/// asked again (whose second asking comes after the whole step's first).
fn one_verdict_per_id<'c>(
    case: &Case,
    rel: &Release,
    list: &'c [ToolCallReply],
    held: &[Target<'c>],
) -> Result<Vec<PerId<'c>>, String> {
    let used_twice = |i: usize| list.iter().filter(|e| e.id == list[i].id).count() > 1;
    let asked = |t: &Target| matches!(t, Target::Tool(..) | Target::Stops);
    let reused = |i: usize| {
        let of_id = list.iter().zip(held).filter(|(e, _)| e.id == list[i].id);
        of_id.filter(|(_, t)| asked(t)).count() > 1
    };
    let policy_fn = matches!(
        case.call.require_tool_approval,
        Some(ApprovalPolicy::Names(_))
    );
    let functions =
        policy_fn || case.has_approval_function() || case.sources.mcp_approval.is_some();
    // Gemini's calls carry no id: the AI SDK draws each its own.
    let ids = case.route.call_ids_scripted();
    if !ids || !rel.approval_later_calls_asked || !functions || !(0..list.len()).any(used_twice) {
        return Ok(Vec::new());
    }
    let unmodelled = || Err("approval with a call id used twice in one step".to_string());
    // A case tool without a function of its own, a workflow or an MCP tool
    // of no server policy, a call that stops the loop, or no tool at all:
    // what only the policy's function asks.
    let plain = |t: &Target| match t {
        Target::Tool(Some(tool), ..) => !matches!(
            own_approval(tool),
            Some(ToolApproval::Returns(_) | ToolApproval::Throws(_))
        ),
        Target::Tool(None, ..) => case.sources.mcp_approval.is_none(),
        Target::NotFound(None) => true,
        // A client tool's or an inherited name's call, never held.
        Target::Stops => !case.has_approval_function(),
        _ => false,
    };
    let own_only = (0..list.len())
        .filter(|&i| used_twice(i))
        .all(|i| plain(&held[i]));
    if !own_only {
        return unmodelled();
    }
    if !policy_fn || !(0..list.len()).any(reused) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (i, call) in list.iter().enumerate() {
        if !reused(i) {
            out.push(PerId::Own);
            continue;
        }
        let Target::Tool(..) = &held[i] else {
            return unmodelled();
        };
        let first = list.iter().position(|e| e.id == call.id) == Some(i);
        if !first {
            out.push(PerId::Again);
            continue;
        }
        let last = list.iter().rposition(|e| e.id == call.id).unwrap_or(i);
        let Target::Tool(tool, ..) = &held[last] else {
            return unmodelled();
        };
        out.push(PerId::Later(*tool, list[last].name.clone()));
    }
    let again = out.iter().position(|p| *p == PerId::Again);
    if again.is_some_and(|a| out[a..].iter().any(|p| *p != PerId::Again)) {
        return unmodelled();
    }
    Ok(out)
}

/// The calls of a step that uses one call id twice, as the replay steps
/// through them: as the loop runs them (`steps::calls_as_run`: on
/// openai-compatible and groq a stream's calls of one id are one call, the
/// later call's name), each asked and held in turn as any other (from
/// `APPROVAL_LATER_CALLS_ASKED` under a function, one verdict per id:
/// `one_verdict_per_id`). Measured on 1.0.4, 1.12.0, 1.40.0, 1.57.0,
/// 1.67.0 and 1.68.0, every route, with `true`
/// (`cases/approval/reused-call-id-*.json`) and with a policy function
/// holding the id's later call or none, where no answer names a call of
/// the step. Answered, the answer goes by id: an approved id's other call
/// is held again, and answered again (two pending entries of one id);
/// where two or more calls after the answered one wait, the resumed step
/// holds them at once (`Replay::held_at_once`: `generate()` hands over
/// the last, of whichever id). Measured on 1.0.4, 1.67.0 and 1.71.0, every
/// route, both methods, `true` and a policy function naming both calls'
/// tools or the first's (`cases/approval/reused-call-id-answered-*`).
/// Not modelled: an answer in such a step before a call naming no tool,
/// before `NOT_FOUND_IS_A_RESULT` (1.0.4 holds the step's later call
/// before it throws, fuzz seed 1 case 1440).
fn reused_in_step(
    replay: &Replay,
    list: &[ToolCallReply],
    tools: &Record<ToolValue>,
) -> Result<Vec<ToolCallReply>, String> {
    let (case, rel) = (replay.case, replay.rel);
    let answered = list
        .iter()
        .position(|c| case.approvals.iter().flatten().any(|(id, _)| *id == c.id));
    // The calls the answer resumes the step at, or all of a resumed run's.
    let after = if replay.resumed {
        Some(0)
    } else {
        answered.map(|k| k + 1)
    };
    let unfound = |c: &ToolCallReply| unreached(case, rel, tools, &c.name);
    let after = after.map_or(&[][..], |k| &list[k..]);
    if !rel.not_found_is_a_result && after.iter().any(unfound) {
        return Err(
            "approval with a call id used twice in one step, answered beside a name reaching no tool, before 1.4.0".into(),
        );
    }
    Ok(super::steps::calls_as_run(case, rel, list))
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

    const REUSED: &str = r#"{"about":"a","tools":["a","b"],
        "call":{"method":"stream","requireToolApproval":true},
        "replies":[{"toolCalls":[{"id":"call_1","name":"a","arguments":{"city":"Paris"}},
            {"id":"call_2","name":"b","arguments":{"city":"Rome"}},
            {"id":"call_1","name":"b","arguments":{"city":"Lyon"}}]},{"text":"done"}]}"#;

    #[test]
    fn a_reused_id_is_held_call_by_call_and_one_call_where_the_stream_merges_it() {
        let names = |p: &Projection| p.seen.as_ref().unwrap().tool_calls.clone().unwrap();
        let s = |n: &str| crate::js::json::Json::str(n);
        let p = projected(REUSED, MastraVersion::new(1, 57, 0));
        assert_eq!(names(&p), [s("b"), s("b")]);
        assert_eq!(p.seen.as_ref().unwrap().pending[0].1, s("b"));
        let anthropic = REUSED.replace(r#""replies""#, r#""route":"anthropic","replies""#);
        let p = projected(&anthropic, MastraVersion::new(1, 57, 0));
        assert_eq!(names(&p), [s("a"), s("b"), s("b")]);
        assert_eq!(p.seen.as_ref().unwrap().pending[0].1, s("a"));
        // Answered, the answer goes by id: the id's later `b` is held
        // again beside `call_2`'s, both at once, and runs alone.
        let answered = anthropic.replace(
            r#""replies""#,
            r#""approvals":{"call_1":"approve"},"replies""#,
        );
        let p = projected(&answered, MastraVersion::new(1, 67, 0));
        let seen = p.seen.as_ref().unwrap();
        let ids: Vec<_> = seen.pending.iter().map(|e| e.0.clone()).collect();
        assert_eq!(ids, [s("call_1"), s("call_2"), s("call_1")]);
        let cities: Vec<_> = p.executed.iter().map(|e| e.input.clone()).collect();
        let city = |c: &str| crate::js::json::Json::parse(&format!(r#"{{"city":"{c}"}}"#));
        assert_eq!(cities, [city("Paris").unwrap(), city("Lyon").unwrap()]);
        assert_eq!(p.requests.len(), 1);
    }

    /// From 1.69.0 the policy asks only the calls that find something: an
    /// id whose other call names no tool is asked once and keeps its own
    /// verdict (`cases/approval/reused-call-id-under-a-policy-one-call-*`).
    #[test]
    fn a_reused_id_asked_once_keeps_its_own_verdict() {
        let case = r#"{"about":"a","tools":["a","b"],
            "call":{"method":"generate","requireToolApproval":{"names":["b"]}},
            "replies":[{"toolCalls":[{"id":"call_1","name":"a","arguments":{"city":"Paris"}},
                {"id":"call_1","name":"nope","arguments":{"city":"Rome"}},
                {"id":"call_2","name":"b","arguments":{"city":"Lyon"}}]},{"text":"done"}]}"#;
        let s = |n: &str| crate::js::json::Json::str(n);
        for v in [(1, 68, 0), (1, 69, 0), (1, 71, 0)] {
            let p = projected(case, MastraVersion::new(v.0, v.1, v.2));
            let seen = p.seen.unwrap();
            assert_eq!(seen.asked, [s("a"), s("b")], "{v:?}");
            assert_eq!(seen.pending.len(), 1, "{v:?}");
            assert_eq!(seen.pending[0].1, s("b"), "{v:?}");
            assert_eq!(p.executed.len(), 1, "{v:?}");
        }
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

    /// Three calls of `a` under `true`, the first and the last approved.
    const THREE_HELD: &str = r#"{"about":"a","tools":["a"],
        "call":{"method":"METHOD","requireToolApproval":true},
        "replies":[{"toolCalls":[{"id":"call_1","name":"a","arguments":{"city":"Paris"}},
            {"id":"call_2","name":"a","arguments":{"city":"Rome"}},
            {"id":"call_3","name":"a","arguments":{"city":"Oslo"}}]},{"text":"done"}],
        "approvals":{"call_1":"approve","call_3":"approve"}}"#;

    #[test]
    fn a_resumed_step_holding_two_later_calls_lets_one_answer_through() {
        for v in [MastraVersion::new(1, 0, 4), MastraVersion::new(1, 71, 0)] {
            let p = projected(&THREE_HELD.replace("METHOD", "generate"), v);
            let message = p.error.as_ref().map(|e| e.message.to_lossy());
            let unresolved = super::SUSPEND_PAYLOAD_UNRESOLVED_MESSAGE;
            assert_eq!(message.as_deref(), Some(unresolved), "{v}");
            let seen = p.seen.as_ref().unwrap();
            let pending: Vec<_> = seen.pending.iter().map(|e| e.0.clone()).collect();
            assert_eq!(
                pending,
                ["call_1", "call_3"].map(crate::js::json::Json::str),
                "{v}"
            );
            assert_eq!((p.executed.len(), p.requests.len()), (2, 1), "{v}");
            let p = projected(&THREE_HELD.replace("METHOD", "stream"), v);
            assert!(p.error.is_none(), "{v}");
            assert_eq!(p.seen.as_ref().unwrap().pending.len(), 3, "{v}");
            assert_eq!((p.executed.len(), p.requests.len()), (2, 1), "{v}");
        }
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

    #[test]
    fn a_held_call_with_bad_arguments_waits_and_once_approved_sends_its_report() {
        let text =
            include_str!("../../cases/approval/bad-arguments-held-then-approved-stream.json");
        let p = projected(text, MastraVersion::new(1, 71, 0));
        assert!(p.executed.is_empty(), "validation fails after the wait");
        let seen = p.seen.unwrap();
        assert_eq!(seen.pending.len(), 1);
        assert_eq!(seen.stream.last().unwrap().0.to_lossy(), "tool-result");
        let history = p.requests[1].to_json().get("history").unwrap().to_compact();
        assert!(history.contains("validation failed"), "{history}");
    }

    #[test]
    fn null_arguments_approved_are_a_tool_error_from_1_6_0() {
        let text =
            include_str!("../../cases/approval/null-arguments-held-then-approved-stream.json");
        let last = |v| {
            let seen = projected(text, v).seen.unwrap();
            seen.stream.last().unwrap().0.to_lossy()
        };
        assert_eq!(last(MastraVersion::new(1, 5, 0)), "tool-result");
        assert_eq!(last(MastraVersion::new(1, 6, 0)), "tool-error");
    }

    #[test]
    fn an_error_ending_a_resumed_generate_leaves_the_suspended_results_lists() {
        let text =
            include_str!("../../cases/approval/error-reply-after-an-approved-call-generate.json");
        let p = projected(text, MastraVersion::new(1, 71, 0));
        assert_eq!(p.executed.len(), 1, "the approved call ran");
        assert_eq!(p.requests.len(), 2);
        let seen = p.seen.unwrap();
        assert_eq!(seen.tool_calls.map(|c| c.len()), Some(1));
        assert_eq!(seen.tool_results, Some(Vec::new()));
        let streamed = text
            .replace("(generate)", "(stream)")
            .replace("\"generate\"", "\"stream\"");
        let seen = projected(&streamed, MastraVersion::new(1, 71, 0))
            .seen
            .unwrap();
        assert_eq!(
            seen.tool_results.map(|r| r.len()),
            Some(1),
            "the resumed stream's"
        );
    }

    /// Three approved calls under `true`, one per step: on 1.16.0 to 1.55.0
    /// the last request's history has every call ahead of every result
    /// (each step after a resumed one merged into it); on 1.57.0 each step
    /// stands alone; where the policy is lost after the first answer, the
    /// step no answer resumed stands alone on 1.40.0 too.
    /// Before 1.46.0 a later held step, once answered, finds its calls in
    /// the agent's own tools: a toolset's call after the held one is not
    /// found, a throw before 1.4.0 and a tool error after; from 1.46.0 it
    /// runs.
    #[test]
    fn a_resumed_later_step_finds_its_calls_in_the_agents_tools_until_1_46_0() {
        let text = std::fs::read_to_string(
            "cases/approval/held-in-a-later-step-before-a-toolset-call-approved-generate.json",
        )
        .unwrap();
        let p = projected(&text, MastraVersion::new(1, 0, 4));
        assert_eq!(p.requests.len(), 2);
        let message = p.error.as_ref().map(|e| e.message.to_lossy());
        assert_eq!(message.as_deref(), Some("Tool ts_x not found"));
        let p = projected(&text, MastraVersion::new(1, 40, 0));
        assert_eq!((p.requests.len(), p.executed.len()), (4, 2));
        assert!(p.error.is_none());
        let p = projected(&text, MastraVersion::new(1, 46, 0));
        assert_eq!((p.requests.len(), p.executed.len()), (4, 3));
    }

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

    fn span_names(text: &str, version: MastraVersion) -> Vec<String> {
        let seen = projected(text, version).seen.unwrap();
        let spans = seen.spans.unwrap();
        spans.iter().map(|s| s.name.to_compact()).collect()
    }

    #[test]
    fn a_held_call_ends_its_span_only_once_it_runs() {
        let v = MastraVersion::new(1, 71, 0);
        let approved = include_str!("../../cases/tracing/span-of-an-approved-call-stream.json");
        assert_eq!(span_names(approved, v), ["\"tool: 'files.delete'\""]);
        let declined = include_str!("../../cases/tracing/no-span-of-a-declined-call-stream.json");
        assert!(span_names(declined, v).is_empty());
        let held =
            include_str!("../../cases/tracing/no-span-of-a-held-call-unanswered-stream.json");
        assert!(span_names(held, v).is_empty());
        // Where the decline is lost with the policy, the call runs.
        assert_eq!(span_names(declined, MastraVersion::new(1, 40, 0)).len(), 1);
        // Where the suspension throws, nothing runs.
        assert!(span_names(approved, MastraVersion::new(1, 12, 0)).is_empty());
    }

    #[test]
    fn from_1_69_a_step_no_policy_function_holds_ends_a_refused_calls_span_first() {
        let text = include_str!(
            "../../cases/tracing/refused-call-under-a-policy-ends-its-span-first-from-1.69-generate.json"
        );
        let read = "\"tool: 'files.read'\"";
        let delete = "\"tool: 'files.delete'\"";
        assert_eq!(
            span_names(text, MastraVersion::new(1, 68, 0)),
            [read, delete]
        );
        assert_eq!(
            span_names(text, MastraVersion::new(1, 69, 0)),
            [delete, read]
        );
    }

    #[test]
    fn a_traced_generate_under_approval_may_lose_its_tool_calls_before_1_6_0() {
        let text = include_str!("../../cases/tracing/span-of-an-approved-call-generate.json");
        let case = Case::parse(Path::new("cases/x.json"), text).unwrap();
        let at = |v| predict(&case, v);
        assert!(matches!(
            at(MastraVersion::new(1, 5, 0)),
            Prediction::Dropping(_)
        ));
        assert!(matches!(
            at(MastraVersion::new(1, 6, 0)),
            Prediction::Projection(_)
        ));
    }

    #[test]
    fn approval_beside_a_stored_memory_is_as_without_it() {
        let text = include_str!(
            "../../cases/memory/approved-call-resumed-beside-a-stored-memory-generate.json"
        );
        let p = projected(text, MastraVersion::new(1, 71, 0));
        assert_eq!(p.executed.len(), 1);
        assert_eq!(p.requests.len(), 2);
        assert_eq!(p.seen.unwrap().pending.len(), 1);
    }

    #[test]
    fn where_nothing_can_wait_the_run_is_the_loops_own() {
        let text = include_str!(
            "../../cases/approval/answers-without-a-policy-client-tool-call-stream.json"
        );
        let p = projected(text, MastraVersion::new(1, 71, 0));
        assert_eq!(
            p.executed.len(),
            1,
            "the case tool ran, the client's call stops"
        );
        assert_eq!(p.requests.len(), 1);
        assert!(p.seen.unwrap().pending.is_empty());
    }

    /// Fuzz seed 1, cases 1150 and 2410: an answer nothing waits for
    /// resumes nothing, so the run without the call's `maxSteps`, whose
    /// second request would show which of one sub-agent's two runs took its
    /// one reply, is never made: one projection, the loop's own.
    #[test]
    fn a_run_no_answer_resumes_is_not_made_though_its_requests_would_race() {
        let text = include_str!(
            "../../cases/approval/answer-nothing-waits-for-beside-one-sub-agent-called-twice-generate.json"
        );
        let p = projected(text, MastraVersion::new(1, 67, 0));
        let parent = p.requests.iter().filter(|r| r.tools.is_some()).count();
        assert_eq!(parent, 1, "maxSteps 1: the parent's one request");
        assert_eq!(p.requests.len(), 3, "and the sub-agent's two");
    }

    /// Fuzz seed 1, case 163: the first turn is left suspended at a held
    /// call, so the second takes the next reply and runs its call.
    #[test]
    fn a_turn_left_suspended_leaves_the_next_turn_the_next_reply() {
        let text = r#"{"about":"a","tools":["G"],
            "turns":[{"requireToolApproval":{"names":["G"]}},{}],
            "replies":[{"toolCalls":[{"id":"call_1","name":"G","arguments":{"city":"Paris"}}]},
                       {"toolCalls":[{"id":"call_2","name":"G","arguments":{"city":"Paris"}}]}]}"#;
        let turns = projected(text, MastraVersion::new(1, 71, 0)).turns.unwrap();
        assert_eq!(turns[0].requests.len(), 1);
        assert_eq!(turns[1].executed.len(), 1);
        assert_eq!(turns[1].requests.len(), 2);
    }
}
