//! The agent loop: the scripted replies played through Mastra's steps.
//!
//! In: a case whose tools were formatted, its release's switches, and what
//! every request offers (`tools`, `tool_choice`). Out: the `Projection` the
//! steps produce (each request, what executed, the error the call ends in),
//! or why the model cannot say.
//!
//! One step, in the order Mastra takes it: the request with the history so
//! far (`AgentLoop::request`), the attempts a retryable error allows
//! (`send`), what each scripted call finds (`resolve`), whether the step
//! ends the call before anything runs (`waits_for_client`,
//! `not_found_error`), the case tools that run and in which order
//! (`execute`), a sub-agent's own request (`run_sub_agent`), and the calls
//! and results the next request carries back (`append_step`). The loop ends
//! at a reply that is not tool calls or after `maxSteps`; then `end` applies
//! what the release does with a failed call once the loop is over.

use super::record::{Lookup, Record};
use super::releases::Release;
use super::route::{self, ResultContent};
use super::{error_view, sources, ToolOrigin, ToolValue};
use crate::case::{Case, Method, Reply, ToolCallReply};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{ErrorView, Executed, HistoryItem, Projection, RequestView};
use crate::route::Wire;

/// The default `maxSteps` of the agent loop.
pub const DEFAULT_MAX_STEPS: u32 = 5;

/// The one execute result of the case tools, as the tool message carries it.
const TOOL_RESULT: &str = "{\"tempC\":20}";

/// How one call of a scripted reply resolves.
enum Resolved {
    Run {
        id: JsString,
        /// Found under its own name (`stepTools[name]`), not by its id:
        /// such a call can start while a stream is still arriving.
        by_name: bool,
        runs: Runs,
    },
    /// A tool without `execute` (a client tool, or a property of
    /// `Object.prototype`): the loop stops for the client to act.
    Stop,
    NotFound {
        available: Vec<JsString>,
    },
}

/// What a found, executable call runs.
#[derive(Debug, Clone, PartialEq)]
enum Runs {
    /// A case tool's `execute`: listed in `executed`, answers `TOOL_RESULT`.
    Ours,
    /// A run whose result is fixed text (an MCP server's tool, a workflow,
    /// working memory); not a case tool, so not listed in `executed`.
    Fixed(&'static str),
    /// A sub-agent: its own request takes the next reply.
    SubAgent { key: JsString, prompt: JsString },
    /// A run that fails before it starts; its tool result is this report.
    Fails(Json),
}

/// The only arguments a call of each kind is modelled with: the one shape
/// its input schema accepts. Validation messages for other shapes differ
/// between the zod and JSON Schema validators across releases; the fuzzer
/// never sends them (`loops::fuzz::gen::fit_calls`).
fn single_string_member(args: &Json, name: &str) -> Option<JsString> {
    match args.members().as_deref() {
        Some([(k, Json::String(v))]) if **k == JsString::from(name) => Some(v.clone()),
        _ => None,
    }
}

fn runs_of(
    rel: &Release,
    origin: &ToolOrigin,
    id: &JsString,
    args: &Json,
    memory: bool,
) -> Result<Runs, String> {
    let shape_error = |shape: &str| {
        format!("tool arguments other than {shape}: validation messages are not modelled")
    };
    match origin {
        ToolOrigin::Ours => single_string_member(args, "city")
            .map(|_| Runs::Ours)
            .ok_or_else(|| shape_error("{ city: string }")),
        ToolOrigin::Mcp => single_string_member(args, "city")
            .map(|_| Runs::Fixed(sources::MCP_RESULT))
            .ok_or_else(|| shape_error("{ city: string } for an MCP tool")),
        ToolOrigin::Workflow => {
            let inner = match args.members().as_deref() {
                Some([(k, v)]) if **k == JsString::from("inputData") => {
                    single_string_member(v, "city")
                }
                _ => None,
            };
            inner
                .map(|_| Runs::Fixed(sources::WORKFLOW_RESULT))
                .ok_or_else(|| shape_error("{ inputData: { city: string } } for a workflow"))
        }
        ToolOrigin::WorkingMemory => single_string_member(args, "memory")
            .map(|_| Runs::Fixed(sources::WORKING_MEMORY_RESULT))
            .ok_or_else(|| shape_error("{ memory: string } for updateWorkingMemory")),
        ToolOrigin::SubAgent(key) => {
            let prompt = single_string_member(args, "prompt")
                .ok_or_else(|| shape_error("{ prompt: string } for a sub-agent"))?;
            Ok(
                match sources::sub_agent_schema_rejects(rel, id, &prompt, memory) {
                    Some(message) => Runs::Fails(message),
                    None => Runs::SubAgent {
                        key: key.clone(),
                        prompt,
                    },
                },
            )
        }
        ToolOrigin::Builtin(_) | ToolOrigin::Client => unreachable!("resolved before"),
    }
}

fn resolve(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    call: &ToolCallReply,
) -> Result<Resolved, String> {
    let name = &call.name;
    // `stepTools?.[name] || Object.values(stepTools).find(t => t.id === name)`
    let (key, found) = match tools.get(name) {
        Lookup::Own(v) => (Some(name.clone()), Some(v.clone())),
        Lookup::Inherited => (Some(name.clone()), None),
        Lookup::Missing => match tools.entries().into_iter().find(|(_, v)| v.id == *name) {
            Some((k, v)) => (Some(k.clone()), Some(v.clone())),
            None => (None, None),
        },
    };
    let active = case
        .call
        .active_tools
        .as_ref()
        .filter(|_| rel.active_tools_applied);
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
    match found {
        None => Ok(Resolved::Stop),
        Some(ToolValue {
            origin: ToolOrigin::Client,
            ..
        }) => Ok(Resolved::Stop),
        Some(ToolValue {
            origin: ToolOrigin::Builtin(b),
            ..
        }) => Err(format!(
            "a call to the builtin {b}: its execute is Mastra's"
        )),
        Some(ToolValue { id, origin }) => {
            let memory = case.sources.memory.is_some();
            let runs = runs_of(rel, &origin, &id, &call.arguments, memory)?;
            Ok(Resolved::Run {
                id,
                by_name: matches!(tools.get(name), Lookup::Own(_)),
                runs,
            })
        }
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

/// The name a history entry carries (`sanitizeToolName` in the prompt
/// builder, from 1.9.0).
fn history_name(rel: &Release, name: &JsString) -> JsString {
    let ok = !name.is_empty()
        && name.all_units(|u| matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x5F | 0x2D));
    if rel.history_names_sanitised && !ok {
        JsString::from("unknown_tool")
    } else {
        name.clone()
    }
}

fn is_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// A call whose tool failed (`output-error` in Mastra's message list): the
/// step it was made in, the call, and the error text its result carries.
struct FailedCall {
    step: usize,
    call: ToolCallReply,
    error: JsString,
}

/// One step as later requests carry it back: the calls the model made, and
/// their results.
#[derive(Default)]
struct Step {
    calls: Vec<HistoryItem>,
    results: Vec<HistoryItem>,
}

/// Whether the loop goes on after a step.
enum Flow {
    Next,
    End,
}

/// The loop's state from one step to the next.
struct AgentLoop<'a> {
    case: &'a Case,
    rel: &'a Release,
    tools: &'a Record<ToolValue>,
    /// What every request carries in `tools` and `tool_choice`.
    offered: (Option<Vec<JsString>>, Option<Json>),
    replies: std::slice::Iter<'a, Reply>,
    steps: Vec<Step>,
    /// Every call id of the run so far (not kept on google).
    call_ids: Vec<JsString>,
    failed: Vec<FailedCall>,
    projection: Projection,
}

/// Play `case`'s replies through the agent loop over its formatted `tools`,
/// each request offering `offered`.
pub(super) fn run_loop(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    offered: (Option<Vec<JsString>>, Option<Json>),
) -> Result<Projection, String> {
    let mut agent = AgentLoop {
        case,
        rel,
        tools,
        offered,
        replies: case.replies.iter(),
        steps: Vec::new(),
        call_ids: Vec::new(),
        failed: Vec::new(),
        projection: Projection::empty(),
    };
    let max_steps = case.call.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
    for step in 0..max_steps as usize {
        if let Flow::End = agent.step(step)? {
            break;
        }
    }
    agent.end()
}

impl AgentLoop<'_> {
    /// Step number `step` (from 0): whether the loop goes on after it.
    fn step(&mut self, step: usize) -> Result<Flow, String> {
        let request = self.request();
        let Some(calls) = self.send(&request) else {
            return Ok(Flow::End);
        };
        self.check_call_ids(&calls)?;
        let resolved = calls
            .iter()
            .map(|c| resolve(self.case, self.rel, self.tools, c))
            .collect::<Result<Vec<_>, _>>()?;
        if waits_for_client(&resolved)? {
            return Ok(Flow::End);
        }
        if let Some(error) = not_found_error(self.rel, &calls, &resolved)? {
            self.projection.error = Some(error);
            return Ok(Flow::End);
        }
        self.execute(&calls, &resolved);
        let sub_agent_text = self.run_sub_agent(&resolved, &request)?;
        self.append_step(step, &calls, &resolved, sub_agent_text.as_ref());
        Ok(Flow::Next)
    }

    /// What the next reply is: the case's next one, then the listener's
    /// default once they run out.
    fn next_reply(&mut self) -> Reply {
        self.replies
            .next()
            .cloned()
            .unwrap_or_else(Reply::default_reply)
    }

    /// This step's request: what every request offers, and the steps so far
    /// written back, each step's calls then its results (`history_per_step`)
    /// or every call ahead of every result.
    fn request(&self) -> RequestView {
        let history = if self.rel.history_per_step {
            self.steps
                .iter()
                .flat_map(|s| s.calls.iter().chain(&s.results))
                .cloned()
                .collect()
        } else {
            let calls = self.steps.iter().flat_map(|s| s.calls.iter());
            let results = self.steps.iter().flat_map(|s| s.results.iter());
            calls.chain(results).cloned().collect()
        };
        RequestView {
            tools: self.offered.0.clone(),
            tool_choice: self.offered.1.clone(),
            history,
        }
    }

    /// Send `request`: the first attempt, then the retries a retryable
    /// error allows; every attempt is a request and takes the next reply.
    /// The calls of a tool-call reply, or `None` when the reply ends the
    /// call: text, or an error (the API-call error it causes, which a
    /// projection writes as no error).
    fn send(&mut self, request: &RequestView) -> Option<Vec<ToolCallReply>> {
        for attempt in 0..=self.rel.retries {
            self.projection.requests.push(request.clone());
            match self.next_reply() {
                Reply::Error { status, .. }
                    if is_retryable(status) && attempt < self.rel.retries =>
                {
                    continue
                }
                Reply::ToolCalls(calls) => return Some(calls),
                Reply::Error { .. } | Reply::Text(_) => return None,
            }
        }
        None
    }

    /// Mastra's message list keeps one tool invocation per call id: a call
    /// whose id an earlier call of the run (or of this step) had replaces it
    /// in history (measured on every release from 1.0.4 to 1.71.0: the
    /// earlier call's name and the later result before 1.16.0, the later
    /// call and result from it). Not on google, whose calls carry the AI
    /// SDK's own ids. The fuzzer numbers its calls across the whole case, so
    /// it never repeats one.
    fn check_call_ids(&mut self, calls: &[ToolCallReply]) -> Result<(), String> {
        if self.case.route.wire() == Wire::GenerateContent {
            return Ok(());
        }
        for call in calls {
            if self.call_ids.contains(&call.id) {
                return Err(
                    "a tool call id used twice in one run: the message list merges them".into(),
                );
            }
            self.call_ids.push(call.id.clone());
        }
        Ok(())
    }

    /// List the case tools' runs in `executed`, in the order they start.
    /// Eager execution (stream, from 1.71.0): each call found under its own
    /// name starts as its chunk completes; the rest start after the stream,
    /// in the step's foreach. History keeps the calls' order.
    fn execute(&mut self, calls: &[ToolCallReply], resolved: &[Resolved]) {
        let eager = self.rel.eager_stream_tools && self.case.call.method == Method::Stream;
        let runs = calls.iter().zip(resolved).filter_map(|(call, r)| match r {
            Resolved::Run {
                id,
                by_name,
                runs: Runs::Ours,
            } => Some((call, id, *by_name)),
            _ => None,
        });
        let (first, later): (Vec<_>, Vec<_>) = runs.partition(|(_, _, by_name)| !eager || *by_name);
        for (call, id, _) in first.into_iter().chain(later) {
            self.projection.executed.push(Executed {
                id: id.clone(),
                input: call.arguments.clone(),
            });
        }
    }

    /// A sub-agent's run is its own agent call: one request (no tools but
    /// memory's, no history but the parent's on some releases) that takes
    /// the next reply, made while the step executes. Its reply's text, when
    /// the step calls a sub-agent.
    fn run_sub_agent(
        &mut self,
        resolved: &[Resolved],
        parent: &RequestView,
    ) -> Result<Option<JsString>, String> {
        let sub_agents = resolved
            .iter()
            .filter(|r| {
                matches!(
                    r,
                    Resolved::Run {
                        runs: Runs::SubAgent { .. },
                        ..
                    }
                )
            })
            .count();
        match sub_agents {
            0 => return Ok(None),
            1 => {}
            _ => {
                return Err(
                    "several sub-agent calls in one step: their requests race for the replies"
                        .into(),
                )
            }
        }
        // The sub-agent borrows the parent's memory (`__setMemory`) and is
        // called with its thread and resource, so working memory's tool is
        // its one tool (found by the fuzzer, seed 1 case 986). Its request
        // is on the parent's route, so the tool and the (default) choice are
        // written as that route writes them (`{"type":"auto"}` on anthropic:
        // seed 1 case 3392 on 1.0.4).
        let working_memory = self.case.sources.memory.is_some_and(|m| m.working_memory);
        let (tools, tool_choice) = if working_memory {
            route::offer_on(
                self.case.route,
                self.rel,
                vec![JsString::from(sources::WORKING_MEMORY_KEY)],
                &None,
            )
        } else {
            (None, None)
        };
        // On the releases that hand it the parent's messages, those are the
        // steps before this one, as this step's request carried them (merged
        // or per step, names sanitised or not): calls of this same step,
        // executed or not, are not among them (measured on 1.8.0 and 1.9.0
        // with a call beside the sub-agent's).
        let history = if self.rel.sub_agent_parent_history {
            parent.history.clone()
        } else {
            Vec::new()
        };
        self.projection.requests.push(RequestView {
            tools,
            tool_choice,
            history,
        });
        match self.next_reply() {
            Reply::Text(t) => Ok(Some(t)),
            _ => Err("a sub-agent's request answered by something other than text".into()),
        }
    }

    /// Write the step back as the next request carries it: each call by the
    /// name history gives it, and its result; a call that found no tool is
    /// answered "not found" and counted as failed.
    fn append_step(
        &mut self,
        step: usize,
        calls: &[ToolCallReply],
        resolved: &[Resolved],
        sub_agent_text: Option<&JsString>,
    ) {
        let route = self.case.route;
        let mut done = Step::default();
        for (i, (call, r)) in calls.iter().zip(resolved).enumerate() {
            let name = history_name(self.rel, &call.name);
            done.calls
                .push(route::call_on(route, self.rel, i, name.clone()));
            let content = match r {
                Resolved::Run { runs, by_name, .. } => {
                    self.run_result(runs, *by_name, sub_agent_text)
                }
                Resolved::NotFound { available } => {
                    let message = not_found_message(&call.name, available);
                    self.failed.push(FailedCall {
                        step,
                        call: call.clone(),
                        error: message.clone(),
                    });
                    ResultContent::Message(message)
                }
                // Not reached: a step with a stop ended before it ran.
                Resolved::Stop => continue,
            };
            done.results
                .push(route::result_on(route, &call.id, &name, content));
        }
        self.steps.push(done);
    }

    /// The result a run gives back to the model.
    fn run_result(
        &self,
        runs: &Runs,
        by_name: bool,
        sub_agent_text: Option<&JsString>,
    ) -> ResultContent {
        match runs {
            Runs::Ours => ResultContent::Output(TOOL_RESULT),
            Runs::Fixed(text) => ResultContent::Output(text),
            Runs::Fails(report) => ResultContent::Object(report.clone()),
            Runs::SubAgent { key, .. } => sources::sub_agent_result(
                self.rel,
                by_name,
                key,
                sub_agent_text.unwrap_or(&JsString::new()),
                self.case.sources.memory.is_some(),
            ),
        }
    }

    /// The projection, once the loop is over: on the releases where a
    /// failed tool call ends a call with memory options in an error, that
    /// error.
    fn end(self) -> Result<Projection, String> {
        let mut p = self.projection;
        if self.rel.tool_error_ends_memory_calls && self.case.sources.memory.is_some() {
            if let Some(first) = self.failed.first() {
                p.error = Some(tool_invocation_error(self.case, self.rel, first)?);
            }
        }
        Ok(p)
    }
}

/// Whether the step waits for the client: its calls found tools without
/// `execute`. A step mixing those with calls that execute is not modelled.
fn waits_for_client(resolved: &[Resolved]) -> Result<bool, String> {
    let stops = resolved
        .iter()
        .filter(|r| matches!(r, Resolved::Stop))
        .count();
    if stops > 0 && stops != resolved.len() {
        return Err("one step mixing calls that execute and calls that wait for the client".into());
    }
    Ok(stops > 0)
}

/// Before 1.4.0 a call naming no tool ends the call with this error (from
/// it, "not found" is a result and the loop goes on).
fn not_found_error(
    rel: &Release,
    calls: &[ToolCallReply],
    resolved: &[Resolved],
) -> Result<Option<ErrorView>, String> {
    let missing = resolved
        .iter()
        .any(|r| matches!(r, Resolved::NotFound { .. }));
    if !missing || rel.not_found_is_a_result {
        return Ok(None);
    }
    if calls.len() > 1 {
        return Err("a missing tool among several calls of one step, before 1.4.0".into());
    }
    let mut message = JsString::from("Tool ");
    message = message.concat(&calls[0].name);
    message.push_str(" not found");
    Ok(Some(error_view(None, message, None)))
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
        return Err("a failed tool call with memory on google on 1.57.0: the error names the AI SDK's random call id".into());
    }
    // (Call ids are unique here: a repeated one is unmodelled in the loop.)
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
