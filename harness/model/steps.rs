//! The agent loop: the scripted replies played through Mastra's steps, for
//! the case's agent and for each sub-agent it calls.
//!
//! In: a case whose tools were formatted, its release's switches, and what
//! every request offers (`tools`, `tool_choice`). Out: every `Projection`
//! the steps can produce (one, unless concurrent requests race for the same
//! replies), or why the model cannot say.
//!
//! One step of an agent, in the order Mastra takes it: the request with the
//! history so far (`Agent::request`), the attempts a retryable error allows
//! (`Agent::send`), what each scripted call finds and whether its arguments
//! pass (`resolve`, `validate`), whether the step ends the call
//! (`ended_by`), the case tools that run and in which order (`execute`),
//! the sub-agents that run (`schedule`), and the calls and results the next
//! request carries back (`Agent::append_step`). A loop ends at a reply that
//! is not tool calls, after `maxSteps`, or at a call that waits for the
//! client; then `end` applies what the release does with a failed call
//! once the loop is over.
//!
//! Replies go to whoever makes the request (`case::script`): the parent's
//! requests and those of sub-agents without a script of their own share
//! `replies`; a sub-agent with its own takes from it. The requests of the
//! sub-agents a step calls are made concurrently; where two of them take
//! from the same list, which gets which reply is a race, and every order is
//! followed (`schedule`), each giving its projection. Requests are listed
//! in `Script::canonical_order`, the order observed projections use.

use super::builtins::{self, Builtin};
use super::record::{Lookup, Record};
use super::releases::{self, Release};
use super::route::{self, ResultContent};
use super::tool_search::{Load, Meta, SearchState};
use super::validate::{self, validate, Schema};
use super::{error_view, sources, ToolOrigin, ToolValue};
use crate::case::script::{Requester, Script};
use crate::case::{Case, Method, Reply, ToolCallReply, ToolChoice, ToolKey};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{ErrorView, Executed, HistoryItem, Projection, RequestView};
use crate::route::{Route, Wire};

pub(super) mod legacy_loop;
pub(super) mod seen;

/// The default `maxSteps` of the agent loop.
pub const DEFAULT_MAX_STEPS: u32 = 5;

/// The one execute result of the case tools, as the tool message carries it.
pub(super) const TOOL_RESULT: &str = "{\"tempC\":20}";

/// The most outcomes (and partial states) the model follows before it calls
/// a case's races too many to enumerate.
const MAX_OUTCOMES: usize = 64;
const MAX_STATES: usize = 4096;

/// How one call of a scripted reply resolves.
#[derive(Debug, Clone)]
pub(super) enum Resolved {
    Run {
        /// The tool's id (what `executed` lists).
        id: JsString,
        /// Its key in the record before `formatTools` (what a tool span
        /// names it by).
        key: JsString,
        /// Found under its own name (`stepTools[name]`), not by its id:
        /// such a call can start while a stream is still arriving, and a
        /// sub-agent's output goes through `toModelOutput`.
        by_name: bool,
        runs: Runs,
    },
    /// A tool without `execute` (a client tool, or a property of
    /// `Object.prototype`), or one that suspends the run for a person: the
    /// loop stops after the step.
    Stop,
    NotFound {
        available: Vec<JsString>,
    },
}

/// What a found call runs.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Runs {
    /// A case tool's `execute` with this input: listed in `executed`,
    /// answers `TOOL_RESULT`.
    Ours(Json),
    /// A run whose result is fixed text (an MCP server's tool, a workflow,
    /// working memory); not a case tool, so not listed in `executed`.
    Fixed(&'static str),
    /// A builtin's own `execute`, with the object it returned.
    Output(Json),
    /// A sub-agent: its own agent loop, given `input` (what validation
    /// passed on, which an error quotes).
    SubAgent { key: JsString, input: Json },
    /// A run that fails validation before it starts; its tool result is
    /// this report (a sub-agent's goes through `toModelOutput`).
    Fails { report: Json, sub_agent: bool },
    /// Arguments that are `null`, refused before any validation
    /// (`NULL_ARGUMENTS_REFUSED`); the tool result is this message.
    Refused(JsString),
    /// Code Mode's program: the case tool it ran, if any (listed in
    /// `executed`), and the object it answers.
    CodeMode { ran: Option<Executed>, output: Json },
}

/// A call whose tool failed (`output-error` in Mastra's message list): the
/// step it was made in, the call, and the error text its result carries.
#[derive(Debug, Clone)]
struct FailedCall {
    step: usize,
    call: ToolCallReply,
    error: JsString,
}

/// One call and its result, as history carries them back.
#[derive(Debug, Clone)]
struct Invocation {
    step: usize,
    id: JsString,
    /// The name its first call was sent under (`RECALL_HIDES_WORKING_MEMORY_CALLS`).
    name: JsString,
    call: HistoryItem,
    result: Option<HistoryItem>,
    /// The call found its tool (its result is not "not found").
    found: bool,
    /// The step of the latest call written into it: a call of its id in
    /// that step is a second call within one step, even where the
    /// invocation stands in an earlier step.
    last: usize,
    /// Its result is written after the step's others (`legacy_loop::settles_late`).
    late: bool,
    /// Left out of the history, call and result (`HISTORY_DROPS_EMPTY_CALL_IDS`).
    /// Not on Gemini's wire, whose ids the AI SDK makes itself.
    unlisted: bool,
    /// A sub-agent's call, run or refused: its result stays against a
    /// later call of its id as a memory's does (`MEMORY_KEEPS_FIRST_RESULT`).
    sub_agent: bool,
}

/// What every agent of a case shares: the replies being handed out, the
/// requests in the order they arrived, the case tools' runs.
#[derive(Debug, Clone)]
pub(super) struct World {
    pub(super) script: Script,
    pub(super) arrived: Vec<(Requester, RequestView)>,
    executed: Vec<Executed>,
}

/// How an agent's loop ended.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ending {
    /// A text reply (or the steps ran out): the answer.
    Answer(JsString),
    /// An error reply (the API-call error, which the parent's projection
    /// writes as no error).
    ApiError(u16),
    /// An error the call ends in.
    Error(ErrorView),
    /// A call that waits for the client, or suspends the run.
    Stopped,
    /// A stream that ended with no answer and no error (0.x's first v5
    /// releases, `steps::legacy_loop`).
    Unanswered,
}

/// One agent's loop: the case's agent, or one run of a sub-agent.
#[derive(Debug, Clone)]
pub(super) struct Agent {
    pub(super) who: Requester,
    pub(super) tools: Record<ToolValue>,
    /// What each of its requests carries in `tools` and `tool_choice`.
    offered: (Option<Vec<JsString>>, Option<Json>),
    /// `activeTools`, as the release applies it (the parent's only).
    active: Option<Vec<JsString>>,
    /// History before its own steps: the parent's, for a sub-agent on the
    /// releases that hand it over.
    before: Vec<HistoryItem>,
    invocations: Vec<Invocation>,
    failed: Vec<FailedCall>,
    /// Its calls of working memory, which decide a 0.x title request.
    working_memory: legacy_loop::WorkingMemoryCalls,
    /// On 0.x's v4 stream, the error part of the first call refused in a
    /// step that went on (`legacy_loop::step_fails`).
    first_error_part: Option<ErrorView>,
    step: usize,
    max_steps: usize,
    /// Each call that found a case tool, in order: the tool span it ends
    /// (`Outcome::spans`).
    spans: Vec<SpanCall>,
    /// The case's `toolSearch` processor, the parent's only: what it has
    /// loaded decides `tools` and `offered` from one step to the next.
    search: Option<SearchState>,
    /// A sub-agent's: how many chunks its `fullStream` has given so far,
    /// each of which reaches the parent's stream as a `tool-output` chunk
    /// (`seen::nested_chunks`); `None` where an ending is not measured.
    nested: Option<usize>,
    /// The parent's, where an approval answer resumes the run after a
    /// later step than the first (`Resume`).
    resume: Option<Box<Resume>>,
    /// Whether its `stopWhen` is gone: a run resumed after an approval
    /// answer drops the call's `stopWhen` from the held step on (`Resume`).
    stop_dropped: bool,
    /// A sub-agent's: each call of its own that ran, as its output lists
    /// them (`subAgentToolResults`): the name called, the id, the result
    /// and the arguments.
    ran: Vec<Json>,
}

/// A run an approval answer resumes after step `after`: the steps up to
/// it, the held one included, are the call's, and from the next one on the
/// resumed run is the agent's own, with its tools, its offer and no
/// `activeTools` or `maxSteps` of the call (`approval::as_resumed`). The
/// resumed run counts its own steps from the held one: five of them, so a
/// call held in the second step of a `maxSteps: 2` call and approved sends
/// six requests in all (1.0.4, 1.40.0, 1.57.0, 1.67.0 and 1.71.0, every
/// route: `cases/approval/held-in-a-later-step-beside-max-steps-counts-steps-on-*`).
/// It drops the call's `stopWhen` too, from the held step on: a condition
/// naming the held call, or a later one, stops nothing, and the resumed
/// run goes on to its five steps (1.0.4, 1.40.0, 1.67.0 and 1.71.0, every
/// route: `cases/stop-when/beside-an-answered-approval-*`).
#[derive(Debug, Clone)]
pub(super) struct Resume {
    pub(super) after: usize,
    pub(super) tools: Record<ToolValue>,
    pub(super) offered: (Option<Vec<JsString>>, Option<Json>),
    /// Whether the held step's calls, its request sent as the call's, are
    /// found in the agent's own tools (before
    /// `RESUMED_STEP_KEEPS_CALL_TOOLS`).
    pub(super) held_step_own: bool,
}

/// A call that found one of the case's own tools, as a tool span of it
/// would name it: the tool's key and id.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SpanCall {
    pub(super) key: JsString,
    pub(super) id: JsString,
    /// Its arguments were refused (`Runs::Fails`, `Runs::Refused`) before
    /// `execute`: whether it ends a span is `BAD_ARGUMENTS_END_A_SPAN`.
    pub(super) refused: bool,
    /// The server of an MCP server's tool (`MCP_TOOL_SPANS`).
    pub(super) mcp_server: Option<JsString>,
}

/// A call of `toolSearch`'s `search_tools` or `load_tool` run: its answer,
/// or its input schema's refusal (`SearchState::search`, `::load`).
fn search_run(
    agent: &Agent,
    rel: &Release,
    meta: Meta,
    named: &JsString,
    arguments: &Json,
) -> Result<Runs, String> {
    let search = agent
        .search
        .as_ref()
        .ok_or("search_tools or load_tool outside a processor")?;
    let run = match meta {
        Meta::Search => search.search(rel, arguments)?,
        Meta::Load => search.load(rel, arguments)?,
    };
    Ok(match run {
        Load::Answer(answer, _) => Runs::Output(answer),
        Load::Refused => Runs::Fails {
            report: validate::report(named, arguments),
            sub_agent: false,
        },
    })
}

/// The name of working memory's tool, which a memory hides from what it
/// recalls (`RECALL_HIDES_WORKING_MEMORY_CALLS`).
const WORKING_MEMORY_TOOL: &str = "updateWorkingMemory";

/// The tool span each call of the parent's step that ran ends, in call
/// order: a step that stops on a client tool's call or a suspending
/// builtin has run its other calls, and they have ended theirs (1.0.4 and
/// 1.71.0, `cases/tracing/span-of-a-client-tool-call-*.json`). In a step
/// whose calls run concurrently, a call whose arguments were refused ends
/// its span at once, before the calls that run (fuzz seed 1, case 1147 on
/// 1.67.0 and 1.71.0).
fn note_spans(agent: &mut Agent, taken: &Taken, concurrent: bool, rel: &Release) {
    if agent.who != Requester::Parent {
        return;
    }
    // Before `TOOL_SEARCH_TOOL_SPANS` the tools a `toolSearch` processor
    // hands the step end no span: its own two and what it loaded.
    let traced: Vec<bool> = taken
        .calls
        .iter()
        .map(|c| {
            rel.tool_search_tool_spans
                || agent
                    .search
                    .as_ref()
                    .is_none_or(|s| s.passes_through(&agent.tools, &c.name))
        })
        .collect();
    let order: Vec<&Resolved> = taken
        .resolved
        .iter()
        .zip(&traced)
        .filter(|(_, traced)| **traced)
        .map(|(r, _)| r)
        .collect();
    let mut spans = Vec::new();
    for r in order {
        if let Resolved::Run { id, key, runs, .. } = r {
            let mcp_server = agent
                .tools
                .entries()
                .into_iter()
                .find_map(|(_, v)| match &v.origin {
                    ToolOrigin::Mcp(server) if v.key == *key => Some(server.clone()),
                    _ => None,
                });
            spans.push(SpanCall {
                key: key.clone(),
                id: id.clone(),
                refused: matches!(runs, Runs::Fails { .. } | Runs::Refused(_)),
                mcp_server,
            });
        }
    }
    if concurrent {
        spans.sort_by_key(SpanCall::ends_at);
    }
    agent.spans.extend(spans);
}

impl SpanCall {
    /// Where the call ends its span among a step's calls that run at once:
    /// a call whose arguments were refused at once, then the calls run in
    /// process, then an MCP server's, whose answer crosses to its server
    /// and back. Measured on 1.0.4, 1.67.0 and 1.71.0, every route, twice
    /// over `--fresh`: an MCP tool's call before a workflow's or a case
    /// tool's ends its span after theirs, and after it, after them too
    /// (fuzz seed 1 case 212;
    /// `cases/tracing/span-of-an-mcp-call-before-a-workflow-call-ends-last.json`).
    pub(super) fn ends_at(&self) -> u8 {
        match (self.refused, self.mcp_server.is_some()) {
            (true, _) => 0,
            (false, false) => 1,
            (false, true) => 2,
        }
    }
}

/// What one way a case's loop can go gives: its projection, what the
/// parent's next request would carry back (what a memory stores of the
/// call), and the tool spans it ended.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Outcome {
    pub(super) projection: Projection,
    pub(super) stored: Vec<HistoryItem>,
    pub(super) spans: Vec<SpanCall>,
    /// What its `toolSearch` processor has loaded, earlier calls' too:
    /// what a later turn's starts with.
    pub(super) loaded: Vec<JsString>,
    /// The parent's loop ended on a text reply: its answer is a message of
    /// the call too.
    pub(super) answered: bool,
    /// The parent's loop ended on an API error reply (`FAILED_CALL_NOT_STORED`).
    pub(super) api_error: bool,
    /// The call's error is the one a failed call brings on
    /// `TOOL_ERROR_ENDS_MEMORY_CALLS`, raised once the thread is written
    /// (unlike an error the loop throws, which leaves it unwritten).
    pub(super) error_after_writing: bool,
    /// The replies each list has left (`Script::left`).
    pub(super) left: Left,
}

/// The replies of `replies`, and of each sub-agent's own list, not taken.
pub(super) type Left = (Vec<Reply>, Vec<(ToolKey, Vec<Reply>)>);

/// A sub-agent run inside a parent's step.
#[derive(Debug, Clone)]
struct SubRun {
    /// The parent's call that started it.
    call: usize,
    agent: Agent,
    ending: Option<Ending>,
}

/// The whole case at a point between two parent steps.
#[derive(Debug, Clone)]
pub(super) struct State {
    pub(super) world: World,
    parent: Agent,
    pub(super) error: Option<ErrorView>,
    /// How the parent's loop ended; `None` while it goes on, and when its
    /// steps ran out.
    pub(super) ended: Option<Ending>,
    /// The parent's steps that made calls, as the user's code is handed
    /// them (`seen`).
    pub(super) log: Vec<seen::StepSeen>,
}

/// What a case's loop gives, started from the history `before` (what a
/// memory recalls of earlier turns): each way its races allow, distinct, in
/// the order found.
pub(super) fn run_loop_from(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    offered: (Option<Vec<JsString>>, Option<Json>),
    before: Vec<HistoryItem>,
    loaded: &[JsString],
) -> Result<Vec<Outcome>, String> {
    run_loop_resumed(case, rel, tools, offered, before, loaded, None)
}

/// As `run_loop_from`, the run resumed as `resume` says, if it is.
pub(super) fn run_loop_resumed(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    offered: (Option<Vec<JsString>>, Option<Json>),
    before: Vec<HistoryItem>,
    loaded: &[JsString],
    resume: Option<Resume>,
) -> Result<Vec<Outcome>, String> {
    let active = case
        .call
        .active_tools
        .clone()
        .filter(|_| rel.active_tools_applied());
    let search = case
        .tool_search
        .as_ref()
        .map(|ts| SearchState::new(tools.clone(), &ts.tools, loaded));
    let start = State {
        world: World {
            script: Script::of(case),
            arrived: Vec::new(),
            executed: Vec::new(),
        },
        parent: Agent {
            who: Requester::Parent,
            tools: tools.clone(),
            offered,
            active,
            before,
            invocations: Vec::new(),
            failed: Vec::new(),
            working_memory: legacy_loop::WorkingMemoryCalls::default(),
            first_error_part: None,
            step: 0,
            max_steps: step_limit(case, rel),
            spans: Vec::new(),
            search,
            nested: None,
            resume: resume.map(Box::new),
            stop_dropped: false,
            ran: Vec::new(),
        },
        error: None,
        ended: None,
        log: Vec::new(),
    };
    let cx = Cx { case, rel };
    let mut start = start;
    cx.refresh_search(&mut start.parent)?;
    let mut pending = vec![start];
    let mut seen_states = 0;
    let mut out: Vec<Outcome> = Vec::new();
    while let Some(state) = pending.pop() {
        seen_states += 1;
        if seen_states > MAX_STATES {
            return Err(too_many());
        }
        match cx.parent_step(state)? {
            Next::Go(states) => pending.extend(states.into_iter().rev()),
            Next::Done(state) => {
                let ended_in_error = matches!(state.ended, Some(Ending::ApiError(_)));
                let stored = state.parent.stored(rel, ended_in_error);
                let spans = state.parent.spans.clone();
                let loaded = state
                    .parent
                    .search
                    .as_ref()
                    .map(|s| s.loaded().to_vec())
                    .unwrap_or_default();
                let answered = matches!(state.ended, Some(Ending::Answer(_)));
                let api_error = matches!(state.ended, Some(Ending::ApiError(_)));
                let left = state.world.script.left();
                let (projection, error_after_writing) = cx.end(*state)?;
                let o = Outcome {
                    projection,
                    stored,
                    spans,
                    loaded,
                    answered,
                    api_error,
                    error_after_writing,
                    left,
                };
                if !out.contains(&o) {
                    out.push(o);
                }
                if out.len() > MAX_OUTCOMES {
                    return Err(too_many());
                }
            }
        }
    }
    Ok(out)
}

/// How many steps the call's loop may take: `maxSteps`, else 5; with a
/// `stopWhen` and no `maxSteps`, no limit, since the condition replaces
/// the default `stepCountIs(5)` (`stopWhen ?? stepCountIs(5)`, 1.71.0
/// `dist/agent-BOxKOk3n.js:31225`; a default parameter on 1.0.4,
/// `dist/chunk-FKO2M32N.js:13095`): the loop then goes on until a reply
/// is not tool calls.
fn step_limit(case: &Case, rel: &Release) -> usize {
    match (case.call.max_steps, &case.call.stop_when) {
        (Some(n), _) => n as usize,
        (None, Some(_)) if !rel.on_0x() => usize::MAX,
        (None, _) => DEFAULT_MAX_STEPS as usize,
    }
}

/// Whether a call by `name` reaches a builtin that suspends the run for a
/// person (under its name, else by its id, as `resolve` finds tools).
fn suspends(tools: &Record<ToolValue>, name: &JsString) -> bool {
    let found = match tools.get(name) {
        Lookup::Own(v) => Some(v),
        Lookup::Inherited => None,
        Lookup::Missing => tools.values().into_iter().find(|v| v.id == *name),
    };
    found.is_some_and(
        |v| matches!(&v.origin, ToolOrigin::Builtin(b) if builtins::has_suspend_schema(b)),
    )
}

/// Whether `isEagerlyExecutableToolCall` (1.71.0
/// `dist/agent-BOxKOk3n.js:24911`) admits `call` among `tools` as far as
/// the call and its tool go (`Cx::starts_eagerly`); approval is the
/// caller's to ask.
pub(super) fn starts_eagerly_in(
    tools: &Record<ToolValue>,
    active: Option<&[JsString]>,
    call: &ToolCallReply,
) -> bool {
    let object = match &call.arguments {
        Json::Object(_) => call.arguments.get("_background").is_none(),
        Json::Array(_) => true,
        _ => false,
    };
    object && eager_name_in(tools, active, &call.name)
}

/// What `starts_eagerly_in` asks of the name alone.
fn eager_name_in(tools: &Record<ToolValue>, active: Option<&[JsString]>, name: &JsString) -> bool {
    let starts = |p: &str| name.units().starts_with(JsString::from(p).units());
    let prefixed = starts("agent-") || starts("workflow-");
    let active = active.is_none_or(|a| a.contains(name));
    let executes = match tools.get(name) {
        Lookup::Own(v) => match &v.origin {
            ToolOrigin::Client => false,
            ToolOrigin::Builtin(b) => !builtins::has_suspend_schema(b),
            _ => true,
        },
        _ => false,
    };
    !prefixed && active && executes
}

fn too_many() -> String {
    format!("concurrent requests racing in more than {MAX_OUTCOMES} ways")
}

/// What one parent step leads to.
enum Next {
    /// The states after it (several when sub-agents raced).
    Go(Vec<State>),
    /// The loop is over.
    Done(Box<State>),
}

/// The case and its release: what every step reads.
struct Cx<'a> {
    case: &'a Case,
    rel: &'a Release,
}

/// What one agent's step did before its sub-agents ran.
#[derive(Clone)]
pub(super) struct Taken {
    pub(super) calls: Vec<ToolCallReply>,
    pub(super) resolved: Vec<Resolved>,
    /// The calls as the reply sent them, before a reused id merged them
    /// (`runs_once`): each is streamed to the user's code.
    pub(super) sent: Vec<ToolCallReply>,
    /// The name each call's result is handed back under: its own, or where
    /// an eager run of its id answered it, the name of the call that run
    /// started from (`Cx::run_order`).
    pub(super) result_names: Vec<JsString>,
}

/// What an agent's request led to.
enum Sent {
    Calls(Vec<ToolCallReply>),
    Ended(Ending),
}

impl Cx<'_> {
    fn memory(&self) -> bool {
        self.case.sources.memory.is_some()
    }

    /// One step of the case's agent, through every order its sub-agents
    /// can race in.
    fn parent_step(&self, mut s: State) -> Result<Next, String> {
        let (step, going) = (s.parent.step, s.ended.is_none());
        if s.parent.resume.as_ref().is_some_and(|r| r.after == step) {
            s.parent.stop_dropped = true;
        }
        if let Some(r) = s.parent.resume.take_if(|r| step == r.after + 1 && going) {
            let parent = &mut s.parent;
            (parent.tools, parent.offered) = (r.tools, r.offered);
            parent.active = None;
            parent.max_steps = r.after + DEFAULT_MAX_STEPS as usize;
        }
        if s.parent.step >= s.parent.max_steps {
            return Ok(Next::Done(Box::new(s)));
        }
        let taken = match self.take(&mut s.parent, &mut s.world)? {
            Ok(taken) => taken,
            Err(ending) => {
                s.ended = Some(ending.clone());
                if let Ending::Error(e) = ending {
                    s.error = Some(e);
                }
                return Ok(Next::Done(Box::new(s)));
            }
        };
        let runs = self.sub_runs(&s.parent, &taken)?;
        let mut next = Vec::new();
        for (world, runs) in self.schedule(s.world.clone(), runs)? {
            let mut branch = State { world, ..s.clone() };
            let end = self.finish_step(&mut branch.parent, &taken, &runs)?;
            let subs = runs
                .iter()
                .map(|r| (r.call, r.ending.clone(), r.agent.nested))
                .collect();
            let suspends = taken
                .calls
                .iter()
                .map(|c| suspends(&s.parent.tools, &c.name))
                .collect();
            branch.log.push(seen::StepSeen::of(&taken, subs, suspends));
            match end {
                None => {
                    if !branch.parent.stop_dropped && self.stops_on(&taken) {
                        // `stopWhen` ends the loop after the step, its
                        // calls run, as a step limit does.
                        branch.parent.max_steps = branch.parent.step;
                    }
                    next.push(branch)
                }
                Some(ending) => {
                    branch.ended = Some(ending.clone());
                    if let Ending::Error(e) = ending {
                        branch.error = Some(e);
                    }
                    // A stopped loop makes no further request.
                    branch.parent.max_steps = 0;
                    next.push(branch);
                }
            }
        }
        Ok(Next::Go(next))
    }

    /// Whether the call's `stopWhen` holds after a step that went on: the
    /// AI SDK's `hasToolCall(NAME)` asks whether a call of the step as the
    /// model sent it is named NAME, whichever tool it found (key and id
    /// match nothing: `cases/stop-when/`). Ignored beside `maxSteps`
    /// before `STOP_WHEN_BESIDE_MAX_STEPS`.
    fn stops_on(&self, taken: &Taken) -> bool {
        let call = &self.case.call;
        let Some(stop) = &call.stop_when else {
            return false;
        };
        if call.max_steps.is_some() && !self.rel.stop_when_beside_max_steps {
            return false;
        }
        taken.sent.iter().any(|c| &c.name == stop.name())
    }

    /// The request of `agent`'s next step and its reply; with tool calls,
    /// what each resolves to and the case tools' runs. `Err` when the step
    /// ends the agent's loop first.
    fn take(&self, agent: &mut Agent, world: &mut World) -> Result<Result<Taken, Ending>, String> {
        let mut calls = match agent.send(self, world) {
            Sent::Calls(calls) => calls,
            Sent::Ended(ending) => return Ok(Err(ending)),
        };
        let held_step = |r: &Resume| r.held_step_own && r.after == agent.step;
        if let Some(tools) = agent
            .resume
            .as_deref()
            .filter(|r| held_step(r))
            .map(|r| r.tools.clone())
        {
            agent.tools = tools;
            agent.active = None;
        }
        if !arriving(self.case, self.rel, &mut calls) {
            return Ok(Err(Ending::Answer(JsString::new())));
        }
        let sent = calls.clone();
        let reused_in_step = self.merges_call_ids()
            && calls
                .iter()
                .enumerate()
                .any(|(i, c)| calls[..i].iter().any(|e| e.id == c.id));
        let mut running = self.arguments_run_with(&calls);
        if reused_in_step && self.runs_once() {
            // `isEagerlyExecutableToolCall` admits no call under
            // `requireToolApproval: true` or a function: the calls merge
            // as without eager execution (1.71.0, groq and
            // openai-compatible: `cases/approval/reused-call-id-under-a-policy-*`).
            let policy = matches!(
                self.case.call.require_tool_approval,
                Some(
                    crate::case::ApprovalPolicy::Flag(true) | crate::case::ApprovalPolicy::Names(_)
                )
            );
            let eager = self.rel.eager_stream_tools && !policy;
            running = merged_by_id(&calls, &running, |name| {
                eager && self.eager_name(agent, name)
            });
            calls = running.clone();
        }
        let resolved = self.resolve_in_order(agent, &running)?;
        let (order, answered, result_names) = self.run_order(agent, &calls, &running, &resolved)?;
        if !legacy_loop::throws_before_running(self.case, self.rel, &resolved) {
            execute(world, &order);
        }
        Ok(Ok(Taken {
            calls,
            resolved: answered,
            sent,
            result_names,
        }))
    }

    /// The order the step's calls start in, and what answers each call.
    ///
    /// Eager execution (`EAGER_STREAM_TOOLS`): the first call of each id
    /// that `isEagerlyExecutableToolCall` admits starts as its chunk
    /// completes. The step's foreach then takes, for each call in order,
    /// the eager run of its id if one is left (`take(toolCallId)`, 1.71.0
    /// `dist/agent-BOxKOk3n.js:24628`): the id's first call is answered by
    /// that run whatever it names itself (a name nothing has, an inherited
    /// property that would stop the loop), and the id's later calls run
    /// again. The calls that took no eager run start in the foreach, a
    /// later call of an id used before in the step last where the foreach
    /// runs concurrently (`REUSED_ID_RUNS_LAST`). A call an eager run
    /// answered hands its result back under the name of the call that run
    /// started from: `tool-result` chunks and `toolResults` name the run's
    /// tool (1.71.0, every route where the id's calls stay apart:
    /// `cases/calls/reused-call-id-eager-run-answers-its-first-call.json`).
    #[allow(clippy::type_complexity)]
    fn run_order(
        &self,
        agent: &Agent,
        sent: &[ToolCallReply],
        running: &[ToolCallReply],
        resolved: &[Resolved],
    ) -> Result<(Vec<Resolved>, Vec<Resolved>, Vec<JsString>), String> {
        let merges = self.merges_call_ids();
        let same_id = |i: usize, j: usize| i == j || (merges && sent[i].id == sent[j].id);
        let eager = self.rel.eager_stream_tools && self.case.call.method == Method::Stream;
        // An eager run has its chunk's own arguments: a first call with
        // `{}` fails validation there even where the foreach would run it
        // with a later call's (`EMPTY_ARGUMENTS_TAKE_LATER`; seed 3 case 83
        // on 1.71.0).
        let mut started: Vec<(usize, Resolved)> = Vec::new();
        if eager {
            for (i, call) in sent.iter().enumerate() {
                if self.starts_eagerly(agent, call) && !started.iter().any(|(e, _)| same_id(*e, i))
                {
                    let run = if call.arguments == running[i].arguments {
                        resolved[i].clone()
                    } else {
                        self.resolve(agent, call)?
                    };
                    started.push((i, run));
                }
            }
        }
        let mut answered = resolved.to_vec();
        let mut names: Vec<JsString> = running.iter().map(|c| c.name.clone()).collect();
        let mut left = started.clone();
        let mut foreach = Vec::new();
        for (i, answer) in answered.iter_mut().enumerate() {
            match left.iter().position(|(e, _)| same_id(*e, i)) {
                Some(at) => {
                    let (e, run) = left.remove(at);
                    *answer = run;
                    if let (Some(name), Some(from)) = (names.get_mut(i), sent.get(e)) {
                        *name = from.name.clone();
                    }
                }
                None => foreach.push(i),
            }
        }
        if self.rel.reused_id_runs_last && merges && self.runs_concurrently(agent, resolved) {
            // A call with an empty id has no verdict kept either (`if
            // (toolCall.toolCallId) approvalVerdicts.set(...)`, 1.71.0
            // `dist/agent-BOxKOk3n.js:26995`): it too starts last
            // (`cases/calls/empty-call-id-*` on 1.68.0 against 1.69.0).
            let reused = |i: usize| sent[i].id.is_empty() || (0..i).any(|j| same_id(j, i));
            let (first, later): (Vec<usize>, Vec<usize>) =
                foreach.into_iter().partition(|&i| !reused(i));
            foreach = first.into_iter().chain(later).collect();
        }
        let order = started
            .into_iter()
            .map(|(_, run)| run)
            .chain(foreach.into_iter().map(|i| resolved[i].clone()))
            .collect();
        Ok((order, answered, names))
    }

    /// `isEagerlyExecutableToolCall` (1.71.0 `dist/agent-BOxKOk3n.js:24911`)
    /// on what the probe's agent can hold: a tool found under the call's own
    /// name with an `execute`, object arguments without `_background`, an
    /// active name, not a sub-agent's or a workflow's (`agent-`,
    /// `workflow-`), and no suspend schema.
    fn starts_eagerly(&self, agent: &Agent, call: &ToolCallReply) -> bool {
        starts_eagerly_in(&agent.tools, agent.active.as_deref(), call)
    }

    /// What `starts_eagerly` asks of the name alone.
    fn eager_name(&self, agent: &Agent, name: &JsString) -> bool {
        eager_name_in(&agent.tools, agent.active.as_deref(), name)
    }

    /// Whether the step's foreach runs its calls concurrently
    /// (`resolveEmittedToolCallConcurrency`, 1.71.0
    /// `dist/agent-BOxKOk3n.js:26974`): every call finds a tool (under its
    /// name, an inherited one included, or by id) and no tool the agent
    /// offers can suspend.
    fn runs_concurrently(&self, agent: &Agent, resolved: &[Resolved]) -> bool {
        let suspends = |v: &ToolValue| matches!(&v.origin, ToolOrigin::Builtin(b) if builtins::has_suspend_schema(b));
        let offered = agent
            .tools
            .entries()
            .into_iter()
            .any(|(k, v)| agent.active.as_ref().is_none_or(|a| a.contains(k)) && suspends(v));
        !offered
            && resolved
                .iter()
                .all(|r| !matches!(r, Resolved::NotFound { .. }))
    }

    /// The calls as the step's tools run them (`EMPTY_ARGUMENTS_TAKE_LATER`):
    /// the step's first call of an id, when its arguments have no keys,
    /// takes each later call's of the step with that id while they are
    /// truthy and its own still have no keys. History keeps what was sent.
    fn arguments_run_with(&self, calls: &[ToolCallReply]) -> Vec<ToolCallReply> {
        let mut running = calls.to_vec();
        if !self.rel.empty_arguments_take_later || !self.merges_call_ids() {
            return running;
        }
        for (i, call) in calls.iter().enumerate() {
            if calls.iter().position(|c| c.id == call.id) != Some(i) {
                continue;
            }
            for later in &calls[i + 1..] {
                if later.id == call.id
                    && js_truthy(&later.arguments)
                    && !has_keys(&running[i].arguments)
                {
                    running[i].arguments = later.arguments.clone();
                }
            }
        }
        running
    }

    /// The sub-agent runs `taken` starts, each at its first request.
    fn sub_runs(&self, parent: &Agent, taken: &Taken) -> Result<Vec<SubRun>, String> {
        let mut runs = Vec::new();
        for (i, r) in taken.resolved.iter().enumerate() {
            let Resolved::Run {
                runs: Runs::SubAgent { key, .. },
                ..
            } = r
            else {
                continue;
            };
            // On the releases that hand it the parent's messages, those are
            // the steps before this one, as this step's request carried them
            // (merged or per step, names sanitised or not): calls of this
            // same step are not among them (measured on 1.8.0 and 1.9.0).
            let before = if self.rel.sub_agent_parent_history {
                parent.history(self.rel)
            } else if self.rel.sub_agent_stripped_history {
                // What the stripping leaves: a recalled answer by reference.
                let answer = |h: &HistoryItem| matches!(h, HistoryItem::Ref(id) if id.units().starts_with(JsString::from("msg_").units()));
                parent
                    .history(self.rel)
                    .into_iter()
                    .filter(answer)
                    .collect()
            } else {
                Vec::new()
            };
            runs.push(SubRun {
                call: i,
                agent: self.sub_agent(key, before),
                ending: None,
            });
        }
        Ok(runs)
    }

    /// A sub-agent's own loop. It borrows the parent's memory
    /// (`__setMemory`) and is called with its thread and resource, so
    /// working memory's tool is its one tool (found by the fuzzer, seed 1
    /// case 986). Its requests are on the parent's route, so the tool and
    /// the (default) choice are written as that route writes them
    /// (`{"type":"auto"}` on anthropic: seed 1 case 3392 on 1.0.4).
    fn sub_agent(&self, key: &JsString, before: Vec<HistoryItem>) -> Agent {
        let working_memory = self.case.sources.memory.is_some_and(|m| m.working_memory);
        let mut tools = Record::new();
        if working_memory {
            tools = sources::memory_tools(self.case.sources.memory);
        }
        let offered = if working_memory {
            route::offer_on(
                self.case.route,
                self.rel,
                vec![JsString::from(sources::WORKING_MEMORY_KEY)],
                &None,
            )
        } else {
            (None, None)
        };
        Agent {
            who: Requester::SubAgent(key.clone()),
            tools,
            offered,
            active: None,
            before,
            invocations: Vec::new(),
            failed: Vec::new(),
            working_memory: legacy_loop::WorkingMemoryCalls::default(),
            first_error_part: None,
            step: 0,
            max_steps: DEFAULT_MAX_STEPS as usize,
            spans: Vec::new(),
            search: None,
            // Its stream's `start`.
            nested: Some(1),
            resume: None,
            stop_dropped: false,
            ran: Vec::new(),
        }
    }

    /// With `toolSearch`, the tools the processor hands the agent's next
    /// step, and what its request offers of them: every name as it stands
    /// in the record, none rewritten.
    fn refresh_search(&self, agent: &mut Agent) -> Result<(), String> {
        let Some(search) = &agent.search else {
            return Ok(());
        };
        agent.tools = search.step_tools()?;
        // `toolChoice: "none"` drops the processor's record as it drops the
        // agent's (NONE_DROPS_TOOLS; observed on 1.38.0, 1.67.0 and 1.71.0,
        // `cases/toolsearch/tool-choice-none-*`).
        if self.rel.none_drops_tools && self.case.call.tool_choice == Some(ToolChoice::None) {
            agent.offered = (None, None);
            return Ok(());
        }
        // `activeTools` filters what the request offers of the processor's
        // record as of the agent's; a call is still looked up in the whole
        // record (observed on 1.2.0 to 1.71.0, `cases/toolsearch/active-tools-*`).
        let mut names = agent.tools.keys();
        if self.rel.active_tools_applied() {
            if let Some(active) = &self.case.call.active_tools {
                names.retain(|n| active.contains(n));
            }
        }
        agent.offered = if names.is_empty() {
            (None, None)
        } else {
            route::offer_on(
                self.case.route,
                self.rel,
                names,
                &self.case.call.tool_choice,
            )
        };
        Ok(())
    }

    /// Each of the step's calls resolved in call order, a `load_tool` call
    /// against the store as the step's earlier loads left it. Two loads in
    /// one step take turns on one store: the second of one name answers
    /// "already loaded", and the next request offers what both loaded, in
    /// call order (observed on 1.2.0, 1.13.2, 1.30.0, 1.31.0, 1.67.0 and
    /// 1.71.0, every route, both methods:
    /// `cases/toolsearch/two-loads-in-one-step-*`).
    fn resolve_in_order(
        &self,
        agent: &mut Agent,
        calls: &[ToolCallReply],
    ) -> Result<Vec<Resolved>, String> {
        let before = agent.search.clone();
        let mut resolve_all = || {
            let mut out = Vec::with_capacity(calls.len());
            for call in calls {
                let r = self.resolve(agent, call)?;
                if let Some(name) = self.loaded_by(agent, call, &r)? {
                    if let Some(search) = agent.search.as_mut() {
                        search.note_loaded(name);
                    }
                }
                out.push(r);
            }
            Ok(out)
        };
        let out = resolve_all();
        agent.search = before;
        out
    }

    /// The name a call that ran loads, where it is a `load_tool` call
    /// answered with a load.
    fn loaded_by(
        &self,
        agent: &Agent,
        call: &ToolCallReply,
        r: &Resolved,
    ) -> Result<Option<JsString>, String> {
        let Some(search) = &agent.search else {
            return Ok(None);
        };
        if !matches!(r, Resolved::Run { .. }) {
            return Ok(None);
        }
        let found = match agent.tools.get(&call.name) {
            Lookup::Own(v) => Some(v),
            _ => agent.tools.values().into_iter().find(|v| v.id == call.name),
        };
        if !found.is_some_and(|v| v.origin == ToolOrigin::Search(Meta::Load)) {
            return Ok(None);
        }
        Ok(match search.load(self.rel, &call.arguments)? {
            Load::Answer(_, name) => name,
            Load::Refused => None,
        })
    }

    /// Note what the step's `load_tool` calls loaded, in call order, each
    /// against the store as the loads before it left it
    /// (`resolve_in_order`), then hand the next step its tools.
    fn note_loads(&self, agent: &mut Agent, taken: &Taken) -> Result<(), String> {
        for (call, r) in taken.calls.iter().zip(&taken.resolved) {
            if let Some(name) = self.loaded_by(agent, call, r)? {
                if let Some(search) = agent.search.as_mut() {
                    search.note_loaded(name);
                }
            }
        }
        self.refresh_search(agent)
    }

    /// Every way the sub-agent runs of one step can go: each run advanced
    /// one request at a time, in every order where two runs take from the
    /// same list of replies (elsewhere the order makes no difference, and
    /// one is followed).
    fn schedule(
        &self,
        world: World,
        runs: Vec<SubRun>,
    ) -> Result<Vec<(World, Vec<SubRun>)>, String> {
        let mut done = Vec::new();
        let mut pending = vec![(world, runs)];
        let mut states = 0;
        while let Some((world, runs)) = pending.pop() {
            states += 1;
            if states > MAX_STATES {
                return Err(too_many());
            }
            let going: Vec<usize> = (0..runs.len())
                .filter(|&i| runs[i].ending.is_none())
                .collect();
            if going.is_empty() {
                done.push((world, runs));
                if done.len() > MAX_OUTCOMES {
                    return Err(too_many());
                }
                continue;
            }
            let list = |i: usize| {
                let who = &runs[i].agent.who;
                world.script.has_own(who).then(|| who.clone())
            };
            let alone = going
                .iter()
                .copied()
                .find(|&i| going.iter().all(|&j| j == i || list(j) != list(i)));
            let choices = match alone {
                Some(i) => vec![i],
                None => going,
            };
            for i in choices.into_iter().rev() {
                let (mut world, mut runs) = (world.clone(), runs.clone());
                let ending = self.advance(&mut runs[i].agent, &mut world)?;
                if let Some(ended) = &ending {
                    legacy_loop::title(self.case, self.rel, &runs[i].agent, ended, &mut world);
                }
                runs[i].ending = ending;
                pending.push((world, runs));
            }
        }
        Ok(done)
    }

    /// One step of a sub-agent's loop: `Some` when its loop is over.
    fn advance(&self, agent: &mut Agent, world: &mut World) -> Result<Option<Ending>, String> {
        if agent.step >= agent.max_steps {
            // The steps ran out on tool calls: no text was answered. What
            // its stream gives then is not measured.
            agent.nested = None;
            return Ok(Some(Ending::Answer(JsString::new())));
        }
        let taken = match self.take(agent, world)? {
            Ok(taken) => taken,
            Err(ending) => {
                seen::count_nested(agent, None, Some(&ending));
                return Ok(Some(ending));
            }
        };
        if taken.resolved.iter().any(|r| {
            matches!(
                r,
                Resolved::Run {
                    runs: Runs::SubAgent { .. },
                    ..
                }
            )
        }) {
            return Err("a sub-agent calling a sub-agent".into());
        }
        let end = self.finish_step(agent, &taken, &[])?;
        seen::count_nested(agent, Some(&taken), end.as_ref());
        Ok(end)
    }

    /// The rest of a step once its sub-agents have run: the error or stop
    /// it ends in, else its calls and results written back. `None`: the
    /// loop goes on.
    fn finish_step(
        &self,
        agent: &mut Agent,
        taken: &Taken,
        runs: &[SubRun],
    ) -> Result<Option<Ending>, String> {
        if let Some(ending) = legacy_loop::step_fails(self.case, self.rel, agent, taken)? {
            return Ok(Some(ending));
        }
        let ran = legacy_loop::calls_that_ran(self.case, self.rel, taken);
        let taken = ran.as_ref().unwrap_or(taken);
        let concurrent = self.runs_concurrently(agent, &taken.resolved);
        note_spans(agent, taken, concurrent, self.rel);
        if let Some(ending) = self.ended_by(taken) {
            if ending == Ending::Stopped && !self.rel.on_0x() {
                self.append_stopped_step(agent, taken, runs)?;
            }
            return Ok(Some(ending));
        }
        self.append_step(agent, taken, runs)?;
        agent.step += 1;
        Ok(None)
    }

    /// Whether the step ends the loop once its runs are over (after
    /// `legacy_loop::step_fails`, on the calls that ran): before 1.4.0
    /// a call naming no tool is the call's error ("Tool X not found", the
    /// first such call); a call that waits for the client or suspends stops
    /// it. The other calls of the step have run either way (measured on
    /// 1.0.4 with the missing or the client call first and last).
    fn ended_by(&self, taken: &Taken) -> Option<Ending> {
        if !self.rel.not_found_is_a_result {
            if let Some(i) = taken
                .resolved
                .iter()
                .position(|r| matches!(r, Resolved::NotFound { .. }))
            {
                let mut message = JsString::from("Tool ");
                message = message.concat(&taken.calls[i].name);
                message.push_str(" not found");
                return Some(Ending::Error(error_view(None, message, None)));
            }
        }
        let stops = if self.rel.on_0x() {
            legacy_loop::step_stops(&taken.resolved)
        } else {
            taken.resolved.iter().any(|r| matches!(r, Resolved::Stop))
        };
        if stops {
            return Some(Ending::Stopped);
        }
        None
    }

    /// What the call `call` of `agent` finds and, for a tool that runs,
    /// whether its arguments pass.
    fn resolve(&self, agent: &Agent, call: &ToolCallReply) -> Result<Resolved, String> {
        let rel = self.rel;
        let tools = &agent.tools;
        let name = &call.name;
        // `stepTools?.[name] || Object.values(stepTools).find(t => t.id === name)`
        let (key, found) = match tools.get(name) {
            Lookup::Own(v) => (Some(name.clone()), Some(v.clone())),
            Lookup::Inherited => (Some(name.clone()), None),
            Lookup::Missing if !super::releases::legacy::finds_by_id(rel) => (None, None),
            Lookup::Missing => match tools.entries().into_iter().find(|(_, v)| v.id == *name) {
                Some((k, v)) => (Some(k.clone()), Some(v.clone())),
                None => (None, None),
            },
        };
        let active = agent.active.as_ref();
        let hidden = rel.hidden_is_not_found
            && key
                .as_ref()
                .is_some_and(|k| active.is_some_and(|a| !a.contains(k)));
        if key.is_none() || hidden {
            // From 1.11.0 the list offered back is activeTools as given (even
            // `[]`); before, every formatted name, activeTools or not.
            let available = match active {
                Some(a) if rel.hidden_is_not_found => a.clone(),
                _ => tools.keys(),
            };
            return Ok(Resolved::NotFound { available });
        }
        let by_name = matches!(tools.get(name), Lookup::Own(_));
        let Some(value) = found else {
            return Ok(legacy_loop::inherited(rel).unwrap_or(Resolved::Stop));
        };
        let memory = self.memory();
        let named = &value.key;
        let checked = |schema: Schema, input: &Json| validate(rel, schema, named, input);
        let fails = |report| Runs::Fails {
            report,
            sub_agent: false,
        };
        // On google a call whose args are `null` reaches the tool as `{}`
        // (`GOOGLE_NULL_ARGUMENTS_EMPTY`).
        let on_google = self.case.route.wire() == Wire::GenerateContent;
        let google_empty;
        let call = if call.arguments == Json::Null && on_google && rel.google_null_arguments_empty {
            google_empty = ToolCallReply {
                arguments: Json::Object(Vec::new()),
                ..call.clone()
            };
            &google_empty
        } else {
            call
        };
        let refused = rel.null_arguments_refused
            && call.arguments == Json::Null
            && !matches!(value.origin, ToolOrigin::Client);
        if refused {
            if rel.tool_error_ends_memory_calls && memory {
                return Err(format!(
                    "a failed tool call with memory {}: null arguments",
                    releases::TOOL_ERROR_ENDS_MEMORY_CALLS.range()
                ));
            }
            return Ok(Resolved::Run {
                id: value.id.clone(),
                key: value.key.clone(),
                by_name: matches!(tools.get(name), Lookup::Own(_)),
                runs: Runs::Refused(refused_message(name)),
            });
        }
        let runs = match &value.origin {
            // 0.x: what a client tool's call and a workflow's run do there.
            ToolOrigin::Client | ToolOrigin::Workflow if rel.on_0x() => {
                legacy_loop::client_or_workflow_run(rel, &value.origin, named, &call.arguments)?
            }
            ToolOrigin::Client => return Ok(Resolved::Stop),
            // Arguments their input schemas refuse get a tool's report (on
            // 1.11.0 every call's, `TOOL_SEARCH_LOAD_REFUSED`), and nothing
            // is loaded.
            ToolOrigin::Search(meta) => search_run(agent, rel, *meta, named, &call.arguments)?,
            ToolOrigin::Ours => match checked(Schema::City, &call.arguments)? {
                Ok(input) => Runs::Ours(input),
                Err(report) => fails(report),
            },
            ToolOrigin::Mcp(_) => match checked(Schema::City, &call.arguments)? {
                Ok(_) => Runs::Fixed(sources::MCP_RESULT),
                Err(report) => fails(report),
            },
            ToolOrigin::Workflow => match checked(Schema::Workflow, &call.arguments)? {
                Ok(_) => Runs::Fixed(sources::WORKFLOW_RESULT),
                Err(report) => fails(report),
            },
            ToolOrigin::WorkingMemory => match checked(Schema::WorkingMemory, &call.arguments)? {
                Ok(_) => Runs::Fixed(sources::WORKING_MEMORY_RESULT),
                Err(report) => fails(report),
            },
            // The call fails before its prompt is read or validated: its
            // result is the error, and the sub-agent makes no request
            // (`SUB_AGENT_PROMPTLESS_THROWS`).
            ToolOrigin::SubAgent(_)
                if rel.sub_agent_promptless_throws
                    && !matches!(call.arguments.get("prompt"), Some(Json::String(_))) =>
            {
                Runs::Refused(JsString::from(releases::SUB_AGENT_PROMPTLESS_MESSAGE))
            }
            ToolOrigin::SubAgent(sub) => self.sub_agent_runs(&value, sub, call)?,
            ToolOrigin::Workspace => workspace_read(rel, self.case.route, named, &call.arguments)?,
            ToolOrigin::CodeMode => {
                let super::code_mode::Ran { ran, output } =
                    super::code_mode::run(self.case, &call.arguments)?;
                Runs::CodeMode { ran, output }
            }
            ToolOrigin::Builtin(b) => match builtins::call(rel, b, &call.arguments, memory)? {
                Builtin::Output(output) => Runs::Output(output),
                Builtin::Rejected => fails(validate::report(named, &call.arguments)),
                Builtin::Suspends => return Ok(Resolved::Stop),
            },
        };
        Ok(Resolved::Run {
            id: value.id.clone(),
            key: value.key.clone(),
            by_name,
            runs,
        })
    }

    /// What a call of the sub-agent `sub` (the tool `value`) runs, or the
    /// report its arguments fail with.
    fn sub_agent_runs(
        &self,
        value: &ToolValue,
        sub: &JsString,
        call: &ToolCallReply,
    ) -> Result<Runs, String> {
        let rel = self.rel;
        let named = &value.key;
        let checked = |schema: Schema, input: &Json| validate(rel, schema, named, input);
        let input =
            sources::sub_agent_input(rel, &call.arguments, self.case.sources.memory.as_ref());
        // A call whose prompt fails is reported with its arguments
        // as sent, without the parent's thread and resource (observed
        // on 1.8.0, 1.10.0, 1.11.0, 1.18.0, 1.57.0, 1.67.0 and 1.71.0:
        // `cases/calls/sub-agent-rejected-with-memory-options.json`);
        // one that passes goes on with them.
        let prompt_fails = checked(Schema::SubAgent, &input)?.is_err();
        let quoted = if prompt_fails {
            &call.arguments
        } else {
            &input
        };
        Ok(
            match sources::sub_agent_schema_rejects(rel, &value.id, quoted) {
                Some(report) => Runs::Fails {
                    report,
                    sub_agent: true,
                },
                None => match checked(Schema::SubAgent, &input)? {
                    Ok(passed) => Runs::SubAgent {
                        key: sub.clone(),
                        // 0.x runs the tool with the arguments as given
                        // once they pass, unknown keys and all
                        // (`releases::legacy::passes_arguments_as_given`).
                        input: if crate::model::releases::legacy::passes_arguments_as_given(rel) {
                            input.clone()
                        } else {
                            passed
                        },
                    },
                    Err(report) => Runs::Fails {
                        report: checked(Schema::SubAgent, &call.arguments)?
                            .err()
                            .unwrap_or(report),
                        sub_agent: true,
                    },
                },
            },
        )
    }

    /// Whether Mastra keeps one invocation per call id on this case's route
    /// and release: on every wire but Gemini's (whose ids the AI SDK makes
    /// itself), and not on the 0.x v4 loop.
    fn merges_call_ids(&self) -> bool {
        self.case.route.wire() != Wire::GenerateContent
            && super::releases::legacy::merges_call_ids(self.rel)
    }

    /// Whether the calls of an id called more than once in a step are one
    /// call (`STREAM_REUSED_ID_RUNS_ONCE`, `merged_by_id`): on `stream()`,
    /// on the two Chat Completions routes whose deltas name calls by index.
    fn runs_once(&self) -> bool {
        let rel = self.rel;
        self.case.call.method == Method::Stream
            && match self.case.route {
                Route::OpenAiCompatible => rel.stream_reused_id_runs_once,
                Route::Groq => rel.groq_stream_reused_id_runs_once,
                _ => false,
            }
    }

    /// Write the step back as the next request carries it: each call by the
    /// name history gives it, and its result; a call that found no tool is
    /// answered "not found" and counted as failed.
    fn append_step(&self, agent: &mut Agent, taken: &Taken, runs: &[SubRun]) -> Result<(), String> {
        self.write_step(agent, taken, runs)?;
        self.note_loads(agent, taken)
    }

    /// The step's invocations written into the agent's message list.
    fn write_step(&self, agent: &mut Agent, taken: &Taken, runs: &[SubRun]) -> Result<(), String> {
        let route = self.case.route;
        let mut step = Vec::new();
        for (i, (call, r)) in taken.calls.iter().zip(&taken.resolved).enumerate() {
            let name = history_name(self.rel, &call.name);
            let content = match r {
                Resolved::Run {
                    runs: what,
                    by_name,
                    ..
                } => {
                    let run = runs.iter().find(|s| s.call == i);
                    self.run_result(what, *by_name, run)?
                }
                Resolved::NotFound { available } => {
                    let message = not_found_message(&call.name, available);
                    agent.failed.push(FailedCall {
                        step: agent.step,
                        call: call.clone(),
                        error: message.clone(),
                    });
                    ResultContent::Message(message)
                }
                // A stopping call has no result to write
                // (`append_stopped_step`).
                Resolved::Stop => continue,
            };
            agent.working_memory.note(&call.name, r);
            if let (Requester::SubAgent(_), ResultContent::Output(text)) = (&agent.who, &content) {
                agent.ran.push(ran_entry(call, text));
            }
            let content = legacy_loop::own_client_output(self.rel, content);
            let invocation = Invocation {
                step: agent.step,
                id: call.id.clone(),
                name: call.name.clone(),
                call: route::call_on(route, self.rel, i, name.clone()),
                result: Some(route::result_on(route, &call.id, &name, content)),
                found: !matches!(r, Resolved::NotFound { .. }),
                last: agent.step,
                late: legacy_loop::settles_late(self.case, self.rel, r),
                unlisted: self.rel.history_drops_empty_call_ids
                    && call.id.is_empty()
                    && route.wire() != Wire::GenerateContent,
                sub_agent: matches!(
                    r,
                    Resolved::Run {
                        runs: Runs::SubAgent { .. }
                            | Runs::Fails {
                                sub_agent: true,
                                ..
                            },
                        ..
                    }
                ),
            };
            step.push(invocation);
        }
        agent.record_step(self, step);
        Ok(())
    }

    /// What the message list keeps of a step a call stopped (a client
    /// tool's, an inherited name's): what a memory stores of it, and where
    /// a failed call is found on `TOOL_ERROR_ENDS_MEMORY_CALLS`. The calls
    /// that failed at once (a name no tool has, refused `null` arguments),
    /// and from `STOP_STEP_LISTS_RESULTS` every call with a result; never
    /// the stopping call, which has none. Measured with two turns on
    /// 1.12.0, 1.40.0, 1.57.0, 1.67.0, 1.69.0 and 1.71.0, every route
    /// (`cases/memory/recall-of-a-step-*-stops-*`; fuzz seed 1, cases 375
    /// and 1848): the later turn recalls the failed call alone before
    /// 1.60.0, the tool's run and the failed call from it, and on 1.57.0
    /// `generate()` ends in the failed call's "ToolInvocation must have a
    /// result".
    fn append_stopped_step(
        &self,
        agent: &mut Agent,
        taken: &Taken,
        runs: &[SubRun],
    ) -> Result<(), String> {
        let kept = |r: &Resolved| match r {
            Resolved::Stop => false,
            Resolved::NotFound { .. }
            | Resolved::Run {
                runs: Runs::Refused(_),
                ..
            } => true,
            Resolved::Run { .. } => self.rel.stop_step_lists_results,
        };
        // Each call keeps its index in the step (a run is found by it):
        // those left out are written as the stopping call is, not at all.
        let mut stored = taken.clone();
        for r in &mut stored.resolved {
            if !kept(r) {
                *r = Resolved::Stop;
            }
        }
        // What the processor loaded in such a step is not measured: the
        // loads stay as the loop left them.
        self.write_step(agent, &stored, runs)
    }

    /// The result a run gives back to the model.
    fn run_result(
        &self,
        runs: &Runs,
        by_name: bool,
        sub: Option<&SubRun>,
    ) -> Result<ResultContent, String> {
        let memory = self.memory();
        Ok(match runs {
            Runs::Ours(_) => ResultContent::Output(TOOL_RESULT),
            Runs::Fixed(text) => ResultContent::Output(text),
            Runs::Output(output) | Runs::CodeMode { output, .. } => {
                ResultContent::Object(output.clone())
            }
            // A sub-agent's tool output goes through `toModelOutput`, which
            // from `SUB_AGENT_TEXT_ONLY` sends its `text` alone for a call
            // found under its own name: a report has none, and the model is
            // sent the empty text (observed on 1.67.0 and 1.71.0,
            // `cases/calls/sub-agent-without-prompt.json`).
            Runs::Fails {
                sub_agent: true, ..
            } if self.rel.sub_agent_text_only && by_name => ResultContent::Message(JsString::new()),
            Runs::Fails { report, .. } => {
                let mut report = report.clone();
                crate::projection::normalise_validation(&mut report);
                ResultContent::Object(report)
            }
            Runs::Refused(message) => ResultContent::Message(message.clone()),
            Runs::SubAgent { key, input } => {
                let ending = sub
                    .and_then(|s| s.ending.clone())
                    .ok_or("a sub-agent run that did not end")?;
                let ran = sub.map(|s| s.agent.ran.as_slice()).unwrap_or_default();
                let listed = self.rel.sub_agent_tool_results
                    && !(self.rel.sub_agent_text_only && by_name)
                    && !ran.is_empty();
                if listed && self.case.route.wire() == Wire::GenerateContent {
                    // Gemini's calls carry no id: the AI SDK makes a random
                    // one, which the output quotes.
                    return Err(
                        "a sub-agent's own calls listed in its output on google, under the AI SDK's random ids"
                            .into(),
                    );
                }
                match ending {
                    Ending::Answer(text) => sources::sub_agent_result(
                        self.rel,
                        by_name,
                        key,
                        &text,
                        sources::SubAgentIds::of(self.rel, input, self.case.on_mastra()),
                        ran,
                    ),
                    // A sub-agent's loop stopped by a call of a name without
                    // `execute` (an inherited one: a sub-agent has no client
                    // tools) gives its ordinary output with empty text
                    // (observed on 1.0.4, 1.67.0 and 1.71.0, generate and
                    // stream: `cases/calls/sub-agent-calls-an-inherited-name.json`;
                    // on 0.x's v5 loop too, observed on 0.21.0 to 0.24.9).
                    Ending::Stopped => sources::sub_agent_result(
                        self.rel,
                        by_name,
                        key,
                        &JsString::new(),
                        sources::SubAgentIds::of(self.rel, input, self.case.on_mastra()),
                        ran,
                    ),
                    // On `stream()` before `SUB_AGENT_STREAM_ERROR_THROWN`
                    // the sub-agent's stream ends without text instead
                    // (observed from 1.0.4; a loop that ends in an error of
                    // its own, "Tool X not found" before
                    // `NOT_FOUND_IS_A_RESULT`, ends it so too).
                    Ending::ApiError(_) | Ending::Error(_)
                        if self.rel.on_1x()
                            && !self.rel.sub_agent_stream_error_thrown
                            && self.case.call.method == Method::Stream
                            && !(self.rel.tool_error_ends_memory_calls && memory) =>
                    {
                        sources::sub_agent_result(
                            self.rel,
                            by_name,
                            key,
                            &JsString::new(),
                            sources::SubAgentIds::of(self.rel, input, self.case.on_mastra()),
                            ran,
                        )
                    }
                    // From `SUB_AGENT_ERROR_AS_TEXT` the parent is sent the
                    // error's message; before, the whole error object.
                    Ending::ApiError(_)
                        if self.rel.sub_agent_error_as_text
                            && !(self.rel.tool_error_ends_memory_calls && memory) =>
                    {
                        let mut text =
                            JsString::from("[Agent:probe] - Failed agent tool execution for ");
                        text = text.concat(key);
                        ResultContent::Message(text)
                    }
                    // Before it, the whole error object, caused by the API
                    // error or by the loop's own error (a plain `Error`,
                    // serialised as its message and name).
                    Ending::ApiError(_) | Ending::Error(_)
                        if !self.rel.sub_agent_error_as_text && self.rel.on_1x() =>
                    {
                        let cause = match &ending {
                            Ending::ApiError(status) => crate::projection::api_error(*status),
                            Ending::Error(e) => Json::object([
                                ("message", Json::String(e.message.clone())),
                                ("name", Json::str("Error")),
                            ]),
                            _ => unreachable!("matched an error ending"),
                        };
                        let mut error = sources::sub_agent_error(
                            self.rel,
                            self.case.route,
                            key,
                            input,
                            cause,
                            memory,
                        );
                        crate::projection::normalise_api_errors(&mut error);
                        ResultContent::Object(error)
                    }
                    Ending::ApiError(_) | Ending::Error(_) | Ending::Unanswered
                        if self.rel.on_0x() =>
                    {
                        legacy_loop::sub_agent_failed(self.case, self.rel, by_name, key, input)
                    }
                    Ending::ApiError(_) | Ending::Error(_) => {
                        return Err("a sub-agent whose own loop ends in an error".into())
                    }
                    Ending::Unanswered => {
                        return Err("a sub-agent whose stream ended with no answer".into())
                    }
                }
            }
        })
    }

    /// The projection, once the loop is over: the requests in canonical
    /// order, and on the releases where a failed tool call ends a call with
    /// memory options in an error, that error; and whether that is the
    /// projection's error (`Outcome::error_after_writing`).
    fn end(&self, mut s: State) -> Result<(Projection, bool), String> {
        legacy_loop::after_loop(self.case, self.rel, &mut s);
        let threw = s.error.is_some();
        let mut p = Projection::empty();
        let who: Vec<Requester> = s.world.arrived.iter().map(|(w, _)| w.clone()).collect();
        let order = s.world.script.canonical_order(&who);
        p.requests = order
            .into_iter()
            .map(|i| s.world.arrived[i].1.clone())
            .collect();
        p.executed = s.world.executed;
        p.error = s.error;
        // A stream that an API error ends (the replies ran out) ends without
        // that error; `generate()` ends in it all the same (measured on
        // 1.57.0, a call naming no tool then no reply left, or another such
        // call first, with `memory: true` and with memory options). On a
        // stream the error leaves the promised `toolCalls` and `toolResults`
        // resolved, every step's calls and no result (measured on 1.57.0, a
        // call naming no tool then a text answer); `generate()` hands over
        // none. Found by the nightly: fuzz seed 20261206 case 25 on 1.57.0.
        let streamed = self.case.call.method == Method::Stream;
        let api_error_ends_stream = streamed && matches!(s.ended, Some(Ending::ApiError(_)));
        let invocation = match s.parent.failed.first() {
            Some(first)
                if self.rel.tool_error_ends_memory_calls
                    && self.memory()
                    && !api_error_ends_stream =>
            {
                Some(tool_invocation_error(self.case, self.rel, first)?)
            }
            _ => None,
        };
        if !streamed {
            if let Some(e) = &invocation {
                p.error = Some(e.clone());
            }
        }
        if self.rel.on_1x() {
            let seen = seen::predict(self.case, self.rel, &s.log, s.ended.as_ref(), &p)?;
            p.seen = Some(Box::new(seen));
        }
        let after_writing = invocation.is_some() && !threw;
        if let Some(e) = invocation {
            p.error = Some(e);
        }
        Ok((p, after_writing))
    }
}

impl Agent {
    /// The history its next request carries: what it was handed, then its
    /// steps written back, each step's calls then its results
    /// (`history_per_step`) or every call ahead of every result.
    fn history(&self, rel: &Release) -> Vec<HistoryItem> {
        self.history_of(rel, self.invocations.iter())
    }

    /// What a memory stores of the call and recalls in the next: its
    /// history, without a call of working memory's tool and its result
    /// from `RECALL_HIDES_WORKING_MEMORY_CALLS`.
    ///
    /// Before that, where an API error ended the call (`ended_in_error`),
    /// such a call is hidden too, alone in its step, run or refused:
    /// measured on 1.0.4, 1.3.0, 1.4.0, 1.12.0 and 1.13.2, every route
    /// (fuzz seed 1 case 27,
    /// `cases/memory/nothing-recalled-after-an-error-ends-a-call-of-working-memory.json`),
    /// while a call of another tool before the error is recalled.
    fn stored(&self, rel: &Release, ended_in_error: bool) -> Vec<HistoryItem> {
        let hidden = JsString::from(WORKING_MEMORY_TOOL);
        let beside_others = |i: &Invocation| {
            rel.recall_hides_working_memory_beside_others
                && self
                    .invocations
                    .iter()
                    .any(|o| o.step == i.step && o.name != hidden)
        };
        let kept = self.invocations.iter().filter(|i| {
            let hides = rel.recall_hides_working_memory_calls || ended_in_error;
            !(i.name == hidden && (hides || beside_others(i)))
        });
        self.history_of(rel, kept)
    }

    /// The history before this agent's steps, then `invocations` as each
    /// release writes them back.
    fn history_of<'a>(
        &self,
        rel: &Release,
        invocations: impl Iterator<Item = &'a Invocation> + Clone,
    ) -> Vec<HistoryItem> {
        let mut out = self.before.clone();
        // An unlisted call never reaches the history, whatever the layout.
        let listed = || invocations.clone().filter(|i| !i.unlisted);
        if super::releases::legacy::history_per_call(rel) {
            for i in listed() {
                out.push(i.call.clone());
                out.extend(i.result.clone());
            }
        } else if rel.history_per_step() {
            let last = listed().map(|i| i.step).max();
            for step in 0..=last.unwrap_or(0) {
                let of = || listed().filter(move |i| i.step == step);
                out.extend(of().map(|i| i.call.clone()));
                out.extend(of().filter(|i| !i.late).filter_map(|i| i.result.clone()));
                out.extend(of().filter(|i| i.late).filter_map(|i| i.result.clone()));
            }
        } else {
            out.extend(listed().map(|i| i.call.clone()));
            out.extend(listed().filter_map(|i| i.result.clone()));
        }
        out
    }

    /// This step's request: what every request offers and the history so
    /// far.
    fn request(&self, rel: &Release) -> RequestView {
        let history = self.history(rel);
        RequestView {
            tools: self.offered.0.clone(),
            tool_choice: self.offered.1.clone(),
            history,
        }
    }

    /// Send this step's request: the first attempt, then the retries a
    /// retryable error allows; every attempt is a request and takes the
    /// next reply meant for this agent.
    fn send(&mut self, cx: &Cx, world: &mut World) -> Sent {
        let request = self.request(cx.rel);
        for attempt in 0..=cx.rel.retries() {
            world.arrived.push((self.who.clone(), request.clone()));
            match world.script.next(&self.who) {
                Reply::Error { status, .. }
                    if super::releases::legacy::retryable(cx.rel, status)
                        && attempt < cx.rel.retries() =>
                {
                    continue
                }
                Reply::ToolCalls(calls) => return Sent::Calls(calls),
                Reply::Text(text) => return Sent::Ended(Ending::Answer(text)),
                Reply::Error { status, body } => {
                    return Sent::Ended(
                        match super::releases::legacy::api_error(
                            cx.rel,
                            cx.case.route,
                            status,
                            body.as_ref(),
                        ) {
                            Some(e) => Ending::Error(e),
                            None => Ending::ApiError(status),
                        },
                    )
                }
            }
        }
        Sent::Ended(Ending::ApiError(0))
    }

    /// Keep a step's invocations in the message list, in call order. From
    /// `REUSED_ID_MERGES_STEPS`, a step reusing an id of an earlier step is
    /// first kept as a message of its own, then merged into the earlier
    /// steps as `MessageMerger` places its parts (the note beside the
    /// switch).
    fn record_step(&mut self, cx: &Cx, step: Vec<Invocation>) {
        let joins = cx.rel.reused_id_merges_steps()
            && cx.merges_call_ids()
            && step
                .iter()
                .any(|n| self.invocations.iter().any(|e| e.id == n.id));
        if !joins {
            for invocation in step {
                self.record(cx, invocation);
            }
            return;
        }
        let earlier = std::mem::take(&mut self.invocations);
        for invocation in step.clone() {
            self.record(cx, invocation);
        }
        let kept = std::mem::replace(&mut self.invocations, earlier);
        self.merge_step(cx, step, kept);
    }

    /// `MessageMerger.merge` of a step's message (its `step-start`, then
    /// one part per call of `step`) into the message of the earlier steps.
    /// Each call of an id is an anchor where that id stands (a call placed
    /// between two calls of one reused id passes the second, and is
    /// dropped: measured on every route but google of 1.0.4 to 1.13.2,
    /// 1.26.0 and 1.67.0); what the id's invocation becomes, and what a new
    /// id adds at its first call, is the step's own invocation in `kept`.
    fn merge_step(&mut self, cx: &Cx, step: Vec<Invocation>, kept: Vec<Invocation>) {
        enum Part {
            Start(usize),
            Call(Invocation),
        }
        let mut parts = Vec::new();
        for invocation in std::mem::take(&mut self.invocations) {
            let starts = match parts.last() {
                Some(Part::Call(last)) => last.step != invocation.step,
                _ => true,
            };
            if starts {
                parts.push(Part::Start(invocation.step));
            }
            parts.push(Part::Call(invocation));
        }
        let rel = cx.rel;
        // (index in the step's message, index in the earlier message)
        let mut anchors: Vec<(usize, usize)> = Vec::new();
        let mut added: Vec<(usize, Invocation)> = Vec::new();
        let mut replaced: Vec<JsString> = Vec::new();
        // Before `REUSED_ID_TAKES_LATER_CALL`, a later call of an id that
        // names no tool, where the step's earlier call of the id found its
        // tool, has no part in the step's message: it is no anchor, and the
        // calls after it count their places without it (measured on every
        // route but google of 1.4.0 and 1.13.2; from 1.26.0 it is an anchor,
        // and a call between the two is dropped:
        // `cases/calls/reused-call-id-around-a-call-naming-no-tool.json`).
        let mut found: Vec<JsString> = Vec::new();
        let step: Vec<Invocation> = step
            .into_iter()
            .filter(|call| {
                let partless =
                    !rel.reused_id_takes_later_call && !call.found && found.contains(&call.id);
                if call.found {
                    found.push(call.id.clone());
                }
                !partless
            })
            .collect();
        for (k, call) in step.into_iter().enumerate() {
            // The step's message starts with its `step-start`.
            let i = k + 1;
            let invocation = kept
                .iter()
                .find(|e| e.id == call.id)
                .cloned()
                .unwrap_or(call);
            let at = parts
                .iter()
                .rposition(|p| matches!(p, Part::Call(e) if e.id == invocation.id));
            match at {
                Some(at) => {
                    anchors.push((i, at));
                    if replaced.contains(&invocation.id) {
                        continue;
                    }
                    replaced.push(invocation.id.clone());
                    let Part::Call(e) = &mut parts[at] else {
                        unreachable!("rposition found a call")
                    };
                    let first_result = keeps_first_result(cx, e, &invocation);
                    replace_across(rel, first_result, e, invocation);
                }
                None if added.iter().any(|(_, e)| e.id == invocation.id) => {}
                None => added.push((i, invocation)),
            }
        }
        // The step's `step-start` is not added: the earlier message has one
        // (`pushNewPart` adds a part only while the message has fewer of its
        // kind than the incoming one).
        for (i, mut invocation) in added {
            let left = anchors
                .iter()
                .filter(|(a, _)| *a < i)
                .max_by_key(|(a, _)| *a);
            let right = anchors
                .iter()
                .filter(|(a, _)| *a > i)
                .min_by_key(|(a, _)| *a);
            let at = match left {
                Some(&(a, p)) => p + (i - a),
                None => i,
            };
            let bound = right.map_or(parts.len(), |&(_, p)| p);
            if at > bound {
                continue;
            }
            invocation.step = match &parts[at - 1] {
                Part::Start(step) => *step,
                Part::Call(e) => e.step,
            };
            parts.insert(at, Part::Call(invocation));
            for (_, p) in anchors.iter_mut() {
                if *p >= at {
                    *p += 1;
                }
            }
        }
        self.invocations = parts
            .into_iter()
            .filter_map(|p| match p {
                Part::Call(e) => Some(e),
                Part::Start(_) => None,
            })
            .collect();
    }

    /// Keep `invocation` in the message list. Mastra keeps one tool
    /// invocation per call id: a call whose id an earlier call of the run
    /// (or of this step) had replaces it where it stood, the earlier call's
    /// name kept with the later result before 1.14.0, the later call and
    /// result from it (`REUSED_ID_TAKES_LATER_CALL`). Not on google, whose
    /// calls carry the AI SDK's own ids.
    ///
    /// Within one step (`MEMORY_KEEPS_FIRST_RESULT` and the note beside
    /// it): before 1.14.0 the invocation moves to the end, with the later
    /// name, and the later result unless the later call found no tool where
    /// the earlier did; from 1.14.0 it stays in place, and a later call that
    /// found no tool where the earlier did is dropped. From 1.57.0 a call
    /// with memory options keeps the earlier result of two calls that found
    /// their tools, in one step or across steps. On the Responses route an earlier item is referred to by the
    /// first output item of its id.
    fn record(&mut self, cx: &Cx, invocation: Invocation) {
        let merges = cx.merges_call_ids();
        let earlier = self
            .invocations
            .iter()
            .position(|i| merges && i.id == invocation.id);
        let Some(at) = earlier else {
            self.invocations.push(invocation);
            return;
        };
        let rel = cx.rel;
        // Between two calls that found their tools only: a result "not
        // found" neither stays nor is kept (measured both ways round, in
        // one step and across steps, on 1.58.0 and 1.67.0).
        let first_result = keeps_first_result(cx, &self.invocations[at], &invocation);
        let replaces = invocation.found || !self.invocations[at].found;
        // A reference names an output item of a call that found its tool
        // (the last such outside `RESPONSES_REUSED_ID_FIRST_ITEM`, measured
        // on 1.10.0 with the call naming no tool first and last).
        let take_call = |e: &mut Invocation, call: HistoryItem| {
            let reference = matches!(e.call, HistoryItem::Ref(_));
            let first_item = rel.responses_reused_id_first_item
                || (rel.stream_reused_id_first_item && cx.case.call.method == Method::Stream);
            if !reference || (replaces && !first_item) {
                e.call = call;
            }
        };
        if self.invocations[at].last != invocation.step {
            replace_across(rel, first_result, &mut self.invocations[at], invocation);
            return;
        }
        if !rel.reused_id_takes_later_call {
            let mut e = self.invocations.remove(at);
            take_call(&mut e, invocation.call);
            if replaces {
                e.result = invocation.result;
                e.found = invocation.found;
                e.sub_agent = invocation.sub_agent;
            }
            self.invocations.push(e);
            return;
        }
        if !replaces {
            return;
        }
        let e = &mut self.invocations[at];
        take_call(e, invocation.call);
        if !first_result {
            e.result = invocation.result;
            e.found = invocation.found;
            e.sub_agent = invocation.sub_agent;
        }
    }
}

/// Whether `earlier` keeps its result against `later`, a later call of its
/// id (`MEMORY_KEEPS_FIRST_RESULT`): between two calls that found their
/// tools, where the call has memory options or `earlier` was a sub-agent's.
fn keeps_first_result(cx: &Cx, earlier: &Invocation, later: &Invocation) -> bool {
    cx.rel.memory_keeps_first_result
        && (cx.memory() || earlier.sub_agent)
        && later.found
        && earlier.found
}

/// An invocation of an earlier step taken over by a later call of its id,
/// where it stands: the later name from `REUSED_ID_TAKES_LATER_CALL` (the
/// earlier before), and the later result unless the first is kept.
fn replace_across(rel: &Release, first_result: bool, e: &mut Invocation, later: Invocation) {
    // A reference to an output item is the later one's either way
    // (measured on the `openai` route of 1.8.0 and 1.13.2), but for a
    // merged step before `MERGED_STEP_TAKES_LATER_ITEM`.
    let reference = matches!(e.call, HistoryItem::Ref(_));
    let keeps_item = reference && rel.merged_step_keeps_earlier_item();
    if (rel.reused_id_takes_later_call || reference) && !keeps_item {
        e.call = later.call;
    }
    e.last = later.last;
    if !first_result {
        e.result = later.result;
        e.found = later.found;
        e.sub_agent = later.sub_agent;
    }
}

/// The calls of a step as its tools run them, for the approval replay:
/// each with the arguments it runs with (`EMPTY_ARGUMENTS_TAKE_LATER`) and,
/// where an id's calls in the step are one (`STREAM_REUSED_ID_RUNS_ONCE`),
/// merged as `merged_by_id` merges them (eager execution aside, which the
/// replay leaves unmodelled beside a reused id).
pub(super) fn calls_as_run(
    case: &Case,
    rel: &Release,
    calls: &[ToolCallReply],
) -> Vec<ToolCallReply> {
    let cx = Cx { case, rel };
    let running = cx.arguments_run_with(calls);
    let reused = cx.merges_call_ids()
        && calls
            .iter()
            .enumerate()
            .any(|(i, c)| calls[..i].iter().any(|e| e.id == c.id));
    if reused && cx.runs_once() {
        merged_by_id(calls, &running, |_| false)
    } else {
        running
    }
}

/// A step's calls as Mastra runs them on the Chat Completions routes that
/// run a reused id once (`Cx::runs_once`): an id called more than once in
/// the step is one call where the id was first used, under its last call's
/// name, with the first call's arguments as it runs them (`running`, after
/// `EMPTY_ARGUMENTS_TAKE_LATER`), so that it runs once, as that name does
/// (observed on openai-compatible and groq from `STREAM_REUSED_ID_RUNS_ONCE`
/// with the names of two tools, a tool and no tool, no tool and a tool, and
/// two missing names: `cases/calls/reused-call-id-on-stream-two-tools.json`).
/// With eager execution (`EAGER_STREAM_TOOLS`), where the last call's name
/// is one that starts eagerly (`empties`: found under its own name, not a
/// sub-agent's or a workflow's), the one call has no arguments (`{}`), so
/// that none of the id's calls runs and the id is answered as that name is
/// for `{}` (observed on 1.71.0, where 1.70.0 runs the first call's
/// arguments: `cases/calls/reused-call-id-on-stream-eager.json`, and on
/// openai-compatible with a first call naming no tool:
/// `cases/calls/reused-call-id-on-stream-two-tools.json`); a last name
/// found by a tool's id keeps the first call's arguments (seed 1 case 4396
/// on groq, `cases/calls/reused-call-id-on-stream-last-call-by-id.json`).
fn merged_by_id(
    calls: &[ToolCallReply],
    running: &[ToolCallReply],
    empties: impl Fn(&JsString) -> bool,
) -> Vec<ToolCallReply> {
    let mut out: Vec<ToolCallReply> = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        if out.iter().any(|c| c.id == call.id) {
            continue;
        }
        let last = calls.iter().rposition(|c| c.id == call.id).unwrap_or(i);
        if last == i {
            out.push(running[i].clone());
            continue;
        }
        out.push(ToolCallReply {
            id: call.id.clone(),
            name: calls[last].name.clone(),
            arguments: if empties(&calls[last].name) {
                Json::Object(Vec::new())
            } else {
                running[i].arguments.clone()
            },
        });
    }
    out
}

/// `Object.keys(value || {}).length > 0` for a parsed JSON value.
fn has_keys(value: &Json) -> bool {
    match value {
        Json::Object(members) => !members.is_empty(),
        Json::Array(items) => !items.is_empty(),
        Json::String(s) => !s.is_empty(),
        Json::Null | Json::Bool(_) | Json::Number(_) => false,
    }
}

/// JavaScript truthiness of a parsed JSON value.
fn js_truthy(value: &Json) -> bool {
    match value {
        Json::Null => false,
        Json::Bool(b) => *b,
        Json::Number(n) => n.parse::<f64>().is_ok_and(|x| x != 0.0),
        Json::String(s) => !s.is_empty(),
        Json::Array(_) | Json::Object(_) => true,
    }
}

fn not_found_message(name: &JsString, available: &[JsString]) -> JsString {
    let mut m = JsString::from("Tool \"");
    m = m.concat(name);
    m.push_str("\" not found.");
    if !available.is_empty() {
        m.push_str(" Available tools: ");
        for (i, n) in available.iter().enumerate() {
            if i > 0 {
                m.push_str(", ");
            }
            m = m.concat(n);
        }
    }
    m.push_str(
        ". Call tools by their exact name only — never add prefixes, namespaces, or colons.",
    );
    m
}

/// The tool error a call with `null` arguments gets (`NULL_ARGUMENTS_REFUSED`),
/// `name` as called.
pub(super) fn refused_message(name: &JsString) -> JsString {
    let mut message = JsString::from("Tool \"");
    message = message.concat(name);
    message.push_str(
        "\" received invalid arguments \u{2014} the provided JSON could not be parsed. Please provide valid JSON arguments.",
    );
    message
}

/// A reply's calls as they reach Mastra on the case's route: the provider
/// drops a call with `null` args before Mastra sees it
/// (`GOOGLE_NULL_ARGUMENTS_LOST`), and a streamed string becomes `{}`
/// (`GOOGLE_STREAM_STRING_ARGUMENTS_EMPTY`). False where every call of a
/// step of calls was dropped: the step has none, and ends the loop as a
/// reply without text does.
///
/// Mastra's own OpenAI-compatible client (`Release::own_client`) emits a
/// streamed call only once it has an id and a name (`if (buffer2.id &&
/// buffer2.name)`, 0.20.0 `dist/chunk-AND6J5LG.js:1736`, and again at the
/// stream's end): a call with an empty id or name never reaches the loop.
/// Found by the nightly's fuzz cases on 0.20.0 (seed 20261206 case 165, an
/// empty name with memory: an answer, then the title's request;
/// `cases/zero/own-client-drops-a-call-without-a-name.json`).
pub(super) fn arriving(case: &Case, rel: &Release, calls: &mut Vec<ToolCallReply>) -> bool {
    if rel.own_client() {
        calls.retain(|c| !c.id.is_empty() && !c.name.is_empty());
        if calls.is_empty() {
            return false;
        }
    }
    if case.route.wire() != Wire::GenerateContent {
        return true;
    }
    if rel.google_null_arguments_lost {
        calls.retain(|c| c.arguments != Json::Null);
        if calls.is_empty() {
            return false;
        }
    }
    if rel.google_stream_string_arguments_empty && case.call.method == Method::Stream {
        for c in calls.iter_mut() {
            if matches!(c.arguments, Json::String(_)) {
                c.arguments = Json::Object(Vec::new());
            }
        }
    }
    true
}

/// The name a history entry carries (`sanitizeToolName` in the prompt
/// builder, from 1.9.0).
pub(super) fn history_name(rel: &Release, name: &JsString) -> JsString {
    let ok = !name.is_empty()
        && name.all_units(|u| matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x5F | 0x2D));
    if rel.history_names_sanitised && !ok {
        JsString::from("unknown_tool")
    } else {
        name.clone()
    }
}

/// The error a call with memory options ends in on the releases where a
/// failed tool call breaks the AI SDK v4 view of the message list
/// (`TOOL_ERROR_ENDS_MEMORY_CALLS`): the first failed call, in step and
/// call order, as `convertToCoreMessages` finds it without a result.
fn tool_invocation_error(
    case: &Case,
    rel: &Release,
    first: &FailedCall,
) -> Result<ErrorView, String> {
    if case.route.wire() == Wire::GenerateContent {
        // The invocation names its call id, which on google is the AI SDK's
        // own, random (measured on 1.57.0: "7jsCLftK4XJpsghT").
        return Err(format!(
            "a failed tool call with memory on google {}: the error names the AI SDK's random call id",
            releases::TOOL_ERROR_ENDS_MEMORY_CALLS.range()
        ));
    }
    let reused = case
        .all_replies()
        .filter_map(|r| match r {
            Reply::ToolCalls(calls) => Some(calls),
            _ => None,
        })
        .flatten()
        .filter(|c| c.id == first.call.id)
        .count()
        > 1;
    if reused {
        return Err(format!(
            "a failed tool call with memory {} whose call id is used again",
            releases::TOOL_ERROR_ENDS_MEMORY_CALLS.range()
        ));
    }
    // `{ step, ...toolInvocation }`: one `step-start` part precedes each
    // step after the first in the response's one assistant message, and
    // the count starts at -1, so the first step has no `step`.
    let mut members = Vec::new();
    if first.step > 0 {
        members.push(("step", Json::int(first.step as i64 - 1)));
    }
    members.extend([
        ("state", Json::str("output-error")),
        ("toolCallId", Json::String(first.call.id.clone())),
        (
            "toolName",
            Json::String(history_name(rel, &first.call.name)),
        ),
        ("args", first.call.arguments.clone()),
        ("errorText", Json::String(first.error.clone())),
    ]);
    let mut message = JsString::from("ToolInvocation must have a result: ");
    message.push_str(&Json::object(members).to_compact());
    Ok(error_view(None, message, None))
}

/// List the case tools' runs in `executed`, in the order they start
/// (`Cx::run_order`).
fn execute(world: &mut World, order: &[Resolved]) {
    for run in order {
        match run {
            Resolved::Run {
                id,
                runs: Runs::Ours(input),
                ..
            } => world.executed.push(Executed {
                id: id.clone(),
                input: input.clone(),
            }),
            Resolved::Run {
                runs: Runs::CodeMode { ran: Some(ran), .. },
                ..
            } => world.executed.push(ran.clone()),
            _ => {}
        }
    }
}

/// What a call of the `workspace`'s read tool (`named` in Mastra's record)
/// with `input` runs: on 1.11.0 the report of any arguments
/// (`WORKSPACE_READ_REFUSED`); else the report of arguments without a
/// string `path`, the file's text as each release answers it, or for a
/// file the folder does not hold, from 1.5.0, a tool error with its
/// message (`WORKSPACE_READ_TEXT`). A path other than a plain file name
/// (a folder, `..`, an absolute path) and the tool's optional fields are
/// not modelled.
fn workspace_read(
    rel: &Release,
    route: crate::route::Route,
    named: &JsString,
    input: &Json,
) -> Result<Runs, String> {
    if rel.workspace_read_refused {
        return Ok(Runs::Fails {
            report: validate::report(named, input),
            sub_agent: false,
        });
    }
    let optional = ["offset", "limit", "showLineNumbers", "encoding"];
    if optional.iter().any(|f| input.get(f).is_some()) {
        return Err("a workspace read with the read tool's optional fields".into());
    }
    let path = match validate::validate(rel, validate::Schema::Path, named, input)? {
        Err(report) => {
            return Ok(Runs::Fails {
                report,
                sub_agent: false,
            })
        }
        Ok(picked) => match picked.get("path") {
            Some(Json::String(path)) => path.clone(),
            _ => return Err("a workspace read whose path was not kept".into()),
        },
    };
    if path != JsString::from(sources::WORKSPACE_FILE) {
        return missing_file(rel, route, path);
    }
    Ok(if !rel.workspace_read_text {
        Runs::Output(Json::object([
            ("content", Json::str("     1\u{2192}hello")),
            ("size", Json::int(5)),
            ("path", Json::str("/a.txt")),
        ]))
    } else if rel.workspace_read_path_as_given {
        Runs::Fixed("a.txt (5 bytes)\n     1\u{2192}hello")
    } else {
        Runs::Fixed("/a.txt (5 bytes)\n     1\u{2192}hello")
    })
}

/// A read of `path`, a name the workspace's folder does not hold: from
/// 1.5.0 the tool throws `File not found: PATH`, a tool error ahead of the
/// step's results as a refused call's (observed on 1.5.0, 1.9.0, 1.13.2,
/// 1.67.0 and 1.71.0, every route, `cases/workspace/read-*`); before, the
/// error object is the call's result (`missing_file_object`).
fn missing_file(rel: &Release, route: crate::route::Route, path: JsString) -> Result<Runs, String> {
    let plain = !path.is_empty()
        && path.unit(0) != Some(u16::from(b'.'))
        && !path
            .units()
            .iter()
            .any(|&u| u == u16::from(b'/') || u == u16::from(b'\\') || u == 0);
    if !plain {
        return Err("a workspace read of a path other than a plain file name".into());
    }
    let mut message = JsString::from("File not found: ");
    message = message.concat(&path);
    if !rel.workspace_read_text {
        return Ok(Runs::Output(missing_file_object(
            rel, route, &path, message,
        )));
    }
    Ok(Runs::Refused(message))
}

/// Before `WORKSPACE_READ_TEXT` a failed read is not a tool error: its
/// result is Mastra's error object, `TOOL_EXECUTION_FAILED` caused by the
/// filesystem's `FileNotFoundError`, as a sub-agent's failed run was then
/// (`sources::sub_agent_error`): `details.errorMessage` the fixed text
/// before `SUB_AGENT_ERROR_QUOTES_CAUSE` and `String(err)` from it,
/// `details.argsJson` the input after its schema's default
/// (`showLineNumbers: true`), `details.model` the route's model
/// (`cases/workspace/read-missing-file-*` on 1.1.0 to 1.4.0, every route).
fn missing_file_object(
    rel: &Release,
    route: crate::route::Route,
    path: &JsString,
    message: JsString,
) -> Json {
    let error_message = if rel.sub_agent_error_quotes_cause {
        JsString::from("FileNotFoundError: ").concat(&message)
    } else {
        JsString::from("[Agent:probe] - Failed tool execution")
    };
    let args = Json::object([
        ("path", Json::String(path.clone())),
        ("showLineNumbers", Json::Bool(true)),
    ]);
    let cause = Json::object([
        ("message", Json::String(message.clone())),
        ("name", Json::str("FileNotFoundError")),
        ("code", Json::str("ENOENT")),
        ("path", Json::String(path.clone())),
    ]);
    sources::tool_execution_failed(message, Json::String(error_message), &args, route, cause)
}

/// One entry of a sub-agent output's `subAgentToolResults`: the call as it
/// was made (its arguments as sent) and the result its tool gave, parsed.
fn ran_entry(call: &ToolCallReply, text: &str) -> Json {
    Json::object([
        ("toolName", Json::String(call.name.clone())),
        ("toolCallId", Json::String(call.id.clone())),
        (
            "result",
            Json::parse(text).unwrap_or_else(|_| Json::str(text)),
        ),
        ("args", call.arguments.clone()),
    ])
}
