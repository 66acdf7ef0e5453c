//! `Release`: what each `@mastra/core` release does differently in the parts
//! of Mastra the model covers, as a set of switches computed from the
//! version.
//!
//! Every boundary here was measured, not guessed: the corpus was swept over
//! every stable 1.x the registry serves (`docs/figures/sweep.md` records the
//! versions and every change found), and each change below names
//! the first release that has it and the dist file where it lives.

pub mod zero;

use crate::version::spec::MastraVersion;
use zero::Zero;

const fn v(major: u32, minor: u32, patch: u32) -> MastraVersion {
    MastraVersion::new(major, minor, patch)
}

/// `activeTools` filters the tools sent (by rewritten name). Before it, the
/// option was ignored. First in 1.1.0 (`prepareToolsAndToolChoice` gained
/// the `activeTools` filter; sweep: `active-*` cases, 1.0.4 → 1.1.0).
pub const ACTIVE_TOOLS_APPLIED: MastraVersion = v(1, 1, 0);

/// `toolChoice: "none"` sends neither `tools` nor `tool_choice`; before, it
/// sent both with `"tool_choice": "none"`. First in 1.19.0
/// (`prepareToolsAndToolChoice`: `if (toolChoice === "none") return { tools:
/// void 0, ... }`; sweep: `tc-none`, 1.18.0 → 1.19.0).
pub const NONE_DROPS_TOOLS: MastraVersion = v(1, 19, 0);

/// A tool call naming no tool becomes a tool result ("Tool \"X\" not found.
/// Available tools: ..."), and the loop goes on; before, the call failed with
/// `Error("Tool X not found")`. First in 1.4.0 (sweep: `reply-unknown-name`,
/// `reply-original-key`, 1.3.0 → 1.4.0).
pub const NOT_FOUND_IS_A_RESULT: MastraVersion = v(1, 4, 0);

/// Tool names written back into history are sanitised: a name outside
/// `^[a-zA-Z0-9_-]+$` becomes `unknown_tool` (`sanitizeToolName` in the
/// prompt builder). First in 1.9.0 (sweep: `reply-original-key`,
/// 1.8.0 → 1.9.0).
pub const HISTORY_NAMES_SANITISED: MastraVersion = v(1, 9, 0);

/// Retries of retryable API errors (408, 409, 429, 5xx): two before this
/// release, none from it (the agent passes `maxRetries ?? 0` down). First in
/// 1.11.0 (sweep: `error-500-retries`, 1.10.0 → 1.11.0).
pub const NO_RETRIES: MastraVersion = v(1, 11, 0);

/// A call to a tool that `activeTools` hides is answered as not found, and
/// the available tools listed are `activeTools` as given; before, the hidden
/// tool still executed. First in 1.11.0 (sweep: `reply-hidden-by-activeTools`,
/// 1.10.0 → 1.11.0).
pub const HIDDEN_IS_NOT_FOUND: MastraVersion = v(1, 11, 0);

/// Each step's assistant tool calls are followed by that step's results;
/// before, all assistant calls were merged into one message ahead of all the
/// results. First in 1.16.0 (sweep: `loop-default-maxsteps`, 1.15.0 → 1.16.0).
pub const HISTORY_PER_STEP: MastraVersion = v(1, 16, 0);

/// A step's tools run concurrently (up to ten at once) unless a call names
/// no tool or the tool set holds one that can suspend; each call's approval
/// verdict is worked out before the step's foreach, keyed by call id, and
/// the foreach takes its call's verdict and deletes it. A later call of an
/// id already called in the step finds none and works its verdict out
/// again with an `await`, so its `execute` starts after the step's other
/// calls' (`cachedApprovalVerdict`, 1.69.0 `dist/agent-DwtTO5Px.js:28472`;
/// the verdicts are set at `:25972`). First in 1.69.0: seed 1 case 3073 of
/// 5000 runs in call order on 1.67.0 and 1.68.0, the later call last on
/// 1.69.0, 1.70.0 and 1.71.0, on `stream()` and `generate()`
/// (`cases/calls/reused-call-id-runs-last-in-a-concurrent-step.json`).
pub const REUSED_ID_RUNS_LAST: MastraVersion = v(1, 69, 0);

/// Eager tool execution on `stream()` (`eagerToolExecution ?? true`): a
/// call found under its own name in the step's tools starts as soon as its
/// chunk completes, before the stream ends; calls found only by a tool's id
/// start afterwards in the step's foreach, so `execute` runs in that order
/// while history keeps the calls' order. First in 1.71.0
/// (`EagerToolExecutionCoordinator`, 1.71.0 `dist/agent-BOxKOk3n.js:24587`,
/// enabled at `:30443`, default at `:40579`; found by the fuzzer, seed 2
/// case 2866: `cases/found/stream-call-by-id-executes-after-call-by-key-on-1.71.0.json`).
pub const EAGER_STREAM_TOOLS: MastraVersion = v(1, 71, 0);

/// On the `openai` route (Responses API), earlier tool calls go back in
/// history by name (`function_call` items); before, the bundled
/// `@ai-sdk/openai` sent them as `item_reference`s to the stored output
/// items (`store` on by default; 1.50.1 `dist/chunk-AR6WPTSV.js:4860`).
/// First in 1.51.0 (`bisect cases/report/execution-routes-by-rewritten-name.json
/// --good 1.17.0 --bad 1.67.0 --route openai`; sweep: every `replies/` case
/// `@openai`, 1.50.1 → 1.51.0).
pub const RESPONSES_CALLS_BY_NAME: MastraVersion = v(1, 51, 0);

/// On the `openai` route, the bundled `@ai-sdk/openai` passes tool names
/// through `createToolNameMapping`, a lookup in a plain object
/// (`customToolNameToProviderToolName[name] ?? name`), for a named tool
/// choice and for the calls written back into history. A name of
/// `Object.prototype` finds the inherited member instead of itself: a
/// function, which `JSON.stringify` leaves out (`{"type":"function"}`), or
/// for `__proto__` the prototype, written `{}`. 1.71.0
/// `dist/dist-BKksSoz6.js:837` (the mapping), `:8571` (the choice), `:6793`
/// (history); found by the fuzzer on the openai route (seed 1, cases 23,
/// 112, 154, 421, 550: `cases/found/seed1-case*-1.71.0-*.json`). First in
/// 1.25.0: `bisect cases/found/seed1-case23-1.71.0-requests-toolChoice.json
/// --good 1.0.4 --bad 1.71.0` gave 1.27.0 with 1.24.0 to 1.26.0 not run (their
/// probes did not start in time on a loaded machine); the dists settle it:
/// 1.25.0 `dist/chunk-3RIGZMZ5.js:4568` (the mapping) and `:11169` (the
/// choice), none in 1.24.1.
pub const RESPONSES_NAME_MAPPING: MastraVersion = v(1, 25, 0);
/// A sub-agent's tool output carries `subAgentToolResults` (the sub-agent's
/// own tool results, `[]` for the probe's sub-agent) beside its text,
/// thread and resource. First seen in 1.13.2 (sweep, case
/// `cases/sources/sub-agent-call-runs-the-sub-agent.json`: 1.10.0 has the
/// three fields, 1.11.0 and 1.12.0 run no sub-agent at all, below).
pub const SUB_AGENT_TOOL_RESULTS: MastraVersion = v(1, 13, 2);

/// A sub-agent whose own request is answered with an API error gives its
/// parent the text "[Agent:probe] - Failed agent tool execution for KEY"
/// (the parent agent's name, the sub-agent's key) as the call's result;
/// before, Mastra's whole error object (`TOOL_EXECUTION_FAILED`, quoting
/// the model id and the call's arguments). First in 1.5.0
/// (`cases/calls/sub-agent-api-error.json`, and the same case without its
/// builtin, on every route: the object on 1.0.4 and 1.4.0, the text on
/// 1.5.0, 1.6.0, 1.7.0, 1.8.0, 1.10.0, 1.13.2, 1.30.0, 1.31.0, 1.42.0,
/// 1.57.0, 1.67.0 and 1.71.0; not traced to a dist line).
pub const SUB_AGENT_ERROR_AS_TEXT: MastraVersion = v(1, 5, 0);

/// Before `SUB_AGENT_ERROR_AS_TEXT`, the error object's
/// `details.errorMessage` is `String(err)`, the sub-agent's own error as
/// JSON text; before this release it is the fixed "[Agent:probe] - Failed
/// tool execution". First in 1.2.0 (`errorMessage: String(err)`, 1.2.0
/// `dist/chunk-T6PRRKMW.js:325`, where 1.1.0 `dist/chunk-4DDIPGB6.js:316`
/// has `String(error)`; `cases/calls/sub-agent-api-error-before-1.5.0.json`
/// on every route of 1.0.4, 1.1.0, 1.2.0, 1.3.0 and 1.4.0).
pub const SUB_AGENT_ERROR_QUOTES_CAUSE: MastraVersion = v(1, 2, 0);

/// The same object's `details.argsJson` (the arguments the sub-agent's
/// tool ran with) ends with `"suspendedToolRunId":""` from this release
/// (same case, 1.2.0 → 1.3.0; not traced to a dist line).
pub const SUB_AGENT_ARGS_RUN_ID: MastraVersion = v(1, 3, 0);

/// On `stream()` the sub-agent's API error reaches its parent as
/// `SUB_AGENT_ERROR_AS_TEXT` says only from 1.68.0; before, the
/// sub-agent's stream ends without text, and the parent gets its ordinary
/// output with empty text (from 1.0.4, before `SUB_AGENT_ERROR_AS_TEXT` too) (`cases/calls/sub-agent-api-error-on-stream.json`
/// on every route of 1.42.0, 1.67.0, 1.68.0 and 1.71.0, and without its
/// builtin on openai-compatible and anthropic: empty text on 1.5.0, 1.30.0,
/// 1.31.0 and 1.67.0, the message on 1.68.0 to 1.71.0; found by
/// the fuzzer, seed 1 cases 415 and 601 on 1.67.0; not traced to a dist
/// line).
pub const SUB_AGENT_STREAM_ERROR_THROWN: MastraVersion = v(1, 68, 0);

/// A sub-agent's tool result is its text alone (`toModelOutput` on the
/// agent tool, unless `delegation.includeSubAgentToolResultsInModelContext`;
/// 1.67.0 `dist/agent-Dk0N0Nlg.js`, `listAgentTools`). First in 1.31.0
/// (same sweep case, 1.30.0 → 1.31.0).
pub const SUB_AGENT_TEXT_ONLY: MastraVersion = v(1, 31, 0);

/// A sub-agent's request carries the parent's history so far: the agent
/// loop hands an `agent-*` tool every message of the run
/// (`messages: isAgentTool ? messageList.get.all.aiV5.model() : ...`, 1.8.0
/// `dist/chunk-VBPU6CLZ.js:13349`), and the tool sends them ahead of its
/// prompt (`messagesForSubAgent = [...contextMessages, { role: "user", ...
/// }]`, `:20381`, `:20545`, passed to `agent.generate` / `agent.stream` at
/// `:20564` / `:20642`); 1.7.0 sent the prompt alone
/// (`dist/chunk-QSHV7GPT.js:19980`). The messages are those of the steps
/// before the current one, written as the parent writes them. From 1.11.0
/// `stripParentToolParts` removes tool calls and tool messages from them
/// (1.11.0 `dist/chunk-S5BMBKUR.js:40376`, applied at `:40453`; in every
/// later release), so the sub-agent's history is empty again. 1.11.0 and
/// 1.12.0 run no sub-agent at all (below), so the end is read from the
/// dist; 1.13.2 measures it. Found by the full matrix on 1.8.0 to 1.10.0
/// (`cases/found/seed1-case2212-1.67.0-requests-history.json`, request 3).
pub const SUB_AGENT_PARENT_HISTORY: (MastraVersion, MastraVersion) = (v(1, 8, 0), v(1, 10, 0));

/// A sub-agent call is given the parent call's thread and resource: the
/// agent loop sets `args.threadId` and `args.resourceId` from the call's
/// memory options on every `agent-*` call whose arguments have `prompt`
/// (1.8.0 `dist/chunk-VBPU6CLZ.js:13479`-`13482`, `args.threadId ||
/// _internal?.threadId`; from 1.11.0 assigned outright,
/// `dist/chunk-S5BMBKUR.js:33764`-`33767`; 1.67.0
/// `dist/agent-Dk0N0Nlg.js:27417`-`27420`), and the sub-agent's ids derive
/// from them: thread `${threadId}-${randomUUID()}`, resource
/// `${resourceId}-${key}` (1.8.0 `:20404`, `:20409`; 1.71.0
/// `dist/agent-BOxKOk3n.js:38914`, `:38920`). Without memory options both
/// are `undefined` and the ids are not derived (a fresh UUID, `probe-KEY`);
/// 1.7.0 had neither the assignment nor the derived ids. On 1.11.0 the
/// injected ids also show in the validation error's "Provided arguments"
/// of a call whose prompt passes; a call whose prompt fails is quoted as
/// sent on every release (`cases/calls/sub-agent-rejected-with-memory-options.json`).
/// Found by the full matrix on 1.8.0 to 1.30.0
/// (`cases/found/seed1-case3372-1.67.0-requests-tools+requests-toolChoice.json`).
pub const SUB_AGENT_PARENT_MEMORY_IDS: MastraVersion = v(1, 8, 0);

/// The releases whose sub-agent tool input schema fails to compile, so that
/// every call of a sub-agent is answered with the validation error "schema
/// is invalid: data/required must be array" (naming the tool by its id,
/// `agent-KEY`) and the sub-agent never runs: 1.11.0 only (same sweep case,
/// 1.10.0 → 1.11.0 → 1.12.0).
pub const SUB_AGENT_SCHEMA_BROKEN: (MastraVersion, MastraVersion) = (v(1, 11, 0), v(1, 11, 0));

/// The releases on which an agent with any sub-agent fails every call
/// before its first request: `listAgentTools` converts the sub-agent
/// schema with `z.toJSONSchema`, which zod 3.25.76 lacks ("z.toJSONSchema is
/// not available. Ensure zod >= 3.25.0 is installed.", as
/// AGENT_GENERATE_FAILED / AGENT_STREAM_FAILED): 1.12.0 only (sweep:
/// every case with `agents`, 1.11.0 → 1.12.0 → 1.13.2).
pub const SUB_AGENTS_THROW: (MastraVersion, MastraVersion) = (v(1, 12, 0), v(1, 12, 0));

/// The message of that failure.
pub const SUB_AGENTS_THROW_MESSAGE: &str =
    "z.toJSONSchema is not available. Ensure zod >= 3.25.0 is installed.";

/// The releases on which a tool call that failed (here: a call naming no
/// tool, answered "Tool \"X\" not found. ...") makes a call with memory
/// options end in an error once the loop is over: "ToolInvocation must have
/// a result: " + `JSON.stringify` of the failed call's invocation. The
/// agent records a failed call in the message list as a tool invocation in
/// state `output-error` (1.57.0 `dist/agent-Dj30gJa3.js:24441`-`24450`;
/// 1.55.0 records no such state), and the AI SDK v4 view of the list
/// (`toAIV4UIMessages`, `dist/message-list-mC29laJJ.js:686`-`711`) passes
/// it on without a `result`, so `convertToCoreMessages` throws
/// (`dist/dist-_kmO6lmF.js:3858`-`3863`). The invocation is written
/// `{ step?, state, toolCallId, toolName, args, errorText }`, `step` being
/// the count of `step-start` parts before it less one (absent for the
/// first step). 1.58.0 turns `output-error` into a result there
/// (`dist/message-list-CTjNC4HJ.js:689`-`695`). Only calls with memory
/// options end so (measured: the same replies without `memory` end
/// normally on 1.57.0); 1.56.x is not served, so 1.57.0 is the first
/// release measured. Found by the full matrix on 1.57.0
/// (`cases/found/seed1-case3372-1.67.0-requests-tools+requests-toolChoice.json`,
/// whose third step calls a name nothing has).
pub const TOOL_ERROR_ENDS_MEMORY_CALLS: (MastraVersion, MastraVersion) = (v(1, 57, 0), v(1, 57, 0));

/// The first release exporting each builtin of `@mastra/core/tools`
/// (read from each swept version's exports).
pub const BUILTINS_SINCE: &[(&str, MastraVersion)] = &[
    ("askUserTool", v(1, 42, 0)),
    ("submitPlanTool", v(1, 42, 0)),
    ("taskWriteTool", v(1, 42, 0)),
    ("taskUpdateTool", v(1, 42, 0)),
    ("taskCompleteTool", v(1, 42, 0)),
    ("taskCheckTool", v(1, 42, 0)),
    ("webFetchTool", v(1, 54, 0)),
    ("webSearchTool", v(1, 55, 0)),
];

/// `submitPlanTool` takes the path of a plan file (`{ path: string }`);
/// before, the plan itself (`{ title?: string, plan: string }`, at least
/// one character). First in 1.47.0 (`dist/chunk-JVN7H2TP.js:4515`; 1.46.0
/// `dist/chunk-HVCQJ5NJ.js:4512` has `plan`).
pub const SUBMIT_PLAN_TAKES_A_PATH: MastraVersion = v(1, 47, 0);

/// The id each builtin carries (what the model can also call it by).
/// `webSearchTool` has none: it is a marker Mastra swaps for the provider's
/// own web search, which the model does not cover.
pub const BUILTIN_IDS: &[(&str, &str)] = &[
    ("askUserTool", "ask_user"),
    ("submitPlanTool", "submit_plan"),
    ("taskWriteTool", "task_write"),
    ("taskUpdateTool", "task_update"),
    ("taskCompleteTool", "task_complete"),
    ("taskCheckTool", "task_check"),
    ("webFetchTool", "web_fetch"),
];

/// A sub-agent called without `prompt` (or with a `null` one) is given the
/// first string among its call's `query`, `message` and `input` as its
/// prompt, when that passes validation. First in 1.19.0 (`validateToolInput`,
/// 1.19.0 `dist/chunk-EWPUWV33.js:262`, 1.67.0 `dist/tool-D0LLiaqQ.js:320`;
/// absent from the 1.18.0 dist).
pub const PROMPT_ALIASES: MastraVersion = v(1, 19, 0);

/// A call whose arguments are `null` is answered "Tool \"NAME\" received
/// invalid arguments — the provided JSON could not be parsed. ..." (NAME as
/// called) before the tool validates anything; before, the validator's
/// report quoted `null`. First in 1.6.0 (1.6.0 `dist/chunk-IHDE4CJV.js:12494`,
/// absent from the 1.5.0 dist; observed on 1.67.0 and 1.71.0 on every route).
pub const NULL_ARGUMENTS_REFUSED: MastraVersion = v(1, 6, 0);

/// On the `google` route a call whose `args` are `null` reaches the tool as
/// `{}` (and is validated as such); before, as `null`, and from 1.25.0
/// through 1.50.1 not at all (`GOOGLE_NULL_ARGUMENTS_LOST`). First in
/// 1.51.0 (`cases/calls/null-arguments.json` and
/// `cases/calls/null-arguments-dropped-on-google.json` on google: `null`
/// through 1.24.1, dropped on 1.25.0, 1.50.0 and 1.50.1, `{}` on 1.51.0).
pub const GOOGLE_NULL_ARGUMENTS_EMPTY: MastraVersion = v(1, 51, 0);

/// On the `google` route, from 1.25.0 through 1.50.1, a call whose `args`
/// are `null` is dropped by the bundled Gemini provider before Mastra sees
/// it: its stream parser emits a `functionCall` part as a tool call only
/// when `isCompleteCall = part.functionCall.name != null &&
/// part.functionCall.args != null && part.functionCall.partialArgs ==
/// null` (1.25.0 `dist/chunk-3RIGZMZ5.js:20230`, 1.50.1
/// `dist/chunk-DRULWNQ6.js:21090`; 1.24.1 has no such parser), and a part
/// with `args: null` is neither that nor a streaming or terminal chunk. The
/// call does not run, is not written back, and a step of such calls alone
/// is a step with no calls: the loop ends there. 1.51.0 routes google
/// through the other bundled provider, which stringifies the `null`.
/// Measured with `cases/calls/null-arguments.json` and
/// `cases/calls/null-arguments-dropped-on-google.json` (a null call alone,
/// first, last, between, beside `{}`) on 1.24.1 (kept), 1.25.0, 1.50.0,
/// 1.50.1 (dropped) and 1.51.0 (kept, as `{}`).
pub const GOOGLE_NULL_ARGUMENTS_LOST: (MastraVersion, MastraVersion) = (v(1, 25, 0), v(1, 50, 1));

/// A call id used again replaces the earlier invocation with the later
/// call's name; before, the earlier call's name was kept with the later
/// result. First in 1.14.0 (`cases/calls/reused-call-id.json` over every
/// 1.x: the earlier name through 1.13.2, the later from 1.14.0).
pub const REUSED_ID_TAKES_LATER_CALL: MastraVersion = v(1, 14, 0);

/// Within one step, the same release changes how a second call of an id
/// is kept: before 1.14.0 the id's one invocation moves to the end of the
/// step, with the last call's name and the last result of a call that
/// found its tool; from 1.14.0 it stays where the id was first used, with
/// the later call's name and result, and a later call naming no tool is
/// dropped where the earlier found its tool
/// (`cases/calls/reused-call-id-in-one-step.json` over every 1.x, and
/// variants on every route of 1.0.4, 1.13.2, 1.14.0, 1.55.0, 1.58.0 and
/// 1.67.0).
///
/// From 1.57.0 a call with memory options keeps the first result of a
/// reused id, in one step or across steps, with the later call's name
/// (1.55.0 as without memory; 1.56.x is not served). Found by the fuzzer
/// on 1.67.0: an `updateWorkingMemory` call answered with another tool's
/// result.
pub const MEMORY_KEEPS_FIRST_RESULT: MastraVersion = v(1, 57, 0);

/// On the `openai` route, where history refers to earlier items, a call id
/// used twice in one step is referred to by its first output item from
/// 1.11.0 through 1.19.0, by its last (of a call that found its tool)
/// before and after (`cases/calls/reused-call-id-in-one-step.json` over
/// every 1.x on that route; items are referred to until 1.51.0).
pub const RESPONSES_REUSED_ID_FIRST_ITEM: (MastraVersion, MastraVersion) =
    (v(1, 11, 0), v(1, 19, 0));

/// On `stream()` the same reference names the id's first output item from
/// 1.11.0 until history stops referring to items (`RESPONSES_CALLS_BY_NAME`),
/// past the end of `RESPONSES_REUSED_ID_FIRST_ITEM` on `generate()`
/// (`cases/calls/reused-call-id-on-stream.json` on openai: the last item on
/// 1.8.0 and 1.10.0, the first on 1.11.0, 1.20.0, 1.26.0, 1.29.1, 1.30.0,
/// 1.40.0 and 1.50.1; not traced to a dist line).
pub const STREAM_REUSED_ID_FIRST_ITEM: MastraVersion = v(1, 11, 0);

/// A call id used again in a later step merges that step into the message
/// that holds the id's invocation, as `MessageMerger.merge` does with an
/// incoming message sharing a tool call id with the latest (1.26.0
/// `dist/chunk-EFTNMBKQ.js:2817`, parts placed by `addPartsToMessage` at
/// `:2918`; 1.13.2 `dist/chunk-ESN5IH6I.js:2173`, `:2239`): the reused call replaces its invocation where it stood (the
/// anchor); each other call of the step is put at the anchor before it plus
/// its distance from it in the step (counting the step's own `step-start`
/// first), or with no anchor before it at that distance from the start of
/// the message, and is dropped where that passes the next anchor; the
/// step's `step-start` is never added, so the step joins the earlier one.
/// From 1.14.0 (`REUSED_ID_TAKES_LATER_CALL`) through 1.25.0 the step
/// stays a step of its own (the merger is in those dists too, 1.25.0
/// `dist/chunk-XMF2ZGOE.js:2817`: what keeps it from the step was not
/// traced); before and after, it is merged. Measured with
/// `cases/calls/reused-call-id-naming-no-tool.json` and seven variants (the
/// reused call first or second in the later step, found or not, a third
/// call in the earlier step, two ids reused out of order, which drops the
/// call between them) on 1.4.0, 1.8.0, 1.10.0 to 1.13.2 (merged), 1.14.0,
/// 1.16.0, 1.20.0, 1.24.1, 1.25.0 (not merged), 1.26.0, 1.28.0, 1.29.1,
/// 1.67.0 (merged), on every route but google. Found by the fuzzer on
/// anthropic.
pub const REUSED_ID_MERGES_STEPS: MastraVersion = v(1, 26, 0);

/// On the `openai` route, where history refers to earlier items, a later
/// step that reuses an id and joins the earlier steps' message
/// (`REUSED_ID_MERGES_STEPS`) keeps the reference to the id's earlier
/// output item; from 1.5.0 it takes the later step's item. Measured with
/// `cases/calls/reused-call-id-twice-in-a-later-step.json` and three
/// variants (one reuse after another call, two reuses of an id with a call
/// between, one of them after another id) on 1.0.4 and 1.4.0 (earlier
/// item) and 1.5.0, 1.6.0, 1.7.0, 1.8.0 (later item); where the merger
/// takes the item from was not traced to a dist line. Found by the corpus
/// variants on openai 1.0.4.
pub const MERGED_STEP_TAKES_LATER_ITEM: MastraVersion = v(1, 5, 0);

/// In one step, a call whose arguments have no keys (`{}`, `null`, a
/// number) takes the arguments of a later call of the step with its id,
/// when those are truthy, and runs with them: the stream's output keeps the
/// first `tool-call` chunk of an id and, `if (chunk.payload.args &&
/// Object.keys(existing.payload.args || {}).length === 0)`, writes a later
/// chunk's arguments into that first chunk's payload, which the step's
/// tool runs share (1.29.1 `dist/chunk-KHPY3KIA.js:3504`-`3508`; 1.28.0
/// `dist/chunk-BPT3YHUU.js:3503` keeps the first chunk without writing its
/// arguments). The later calls keep their own. The step's first call of
/// the id is written to, whether or not an earlier step used the id. First
/// in 1.29.1: `cases/calls/reused-call-id-one-name-in-one-step.json` and
/// thirteen variants (a later call of another name or none, three calls,
/// one between, a wrong type, extra keys, `null`, an id of an earlier step)
/// on every route of 1.25.0, 1.26.0, 1.28.0, 1.29.1 and 1.67.0 (google
/// aside, whose calls carry the AI SDK's own ids). Found by the fuzzer on
/// mistral.
pub const EMPTY_ARGUMENTS_TAKE_LATER: MastraVersion = v(1, 29, 1);

/// On `stream()` on the `openai-compatible` and `groq` routes, the calls
/// of an id called more than once in one step are one call, where the id
/// was first used, under the last call's name with the first call's
/// arguments: it runs once, as that name does (measured on those routes
/// and on `openai`, `anthropic` and `mistral`, where every call runs as on
/// `generate()`; the names of two tools, a tool and no tool, no tool and a
/// tool, two missing names on 1.50.1, 1.51.0, 1.52.0 and 1.67.0: the
/// fuzzer's seed 1 cases 1204, 1303 and 4396 on 1.67.0 with 5000 cases).
/// First in 1.52.0 on `openai-compatible`:
/// `cases/found/seed1-case595-1.67.0-executed.json` and
/// four variants (other arguments, another name, a call between, keyless
/// arguments first) on 1.29.1, 1.40.0, 1.50.0, 1.51.0 (each call runs) and
/// 1.52.0, 1.52.1, 1.53.0, 1.54.0, 1.55.0, 1.60.0, 1.63.1, 1.66.0, 1.67.0
/// (the first only); where in the stream this happens was not traced.
/// With eager execution (`EAGER_STREAM_TOOLS`) the one call has `{}` for
/// arguments: none of the id's calls runs, and a case tool answers it with
/// a validation report of `{}` (`cases/calls/reused-call-id-on-stream-eager.json`).
pub const STREAM_REUSED_ID_RUNS_ONCE: MastraVersion = v(1, 52, 0);

/// The same on the `groq` route, one release earlier: first in 1.51.0
/// (`cases/found/seed1-case595-1.67.0-executed.json` and its variants run
/// every call on 1.0.4, 1.13.2, 1.20.0, 1.30.0, 1.40.0, 1.45.0, 1.50.0,
/// 1.50.1 and the first only on 1.51.0, 1.52.0, 1.67.0).
pub const GROQ_STREAM_REUSED_ID_RUNS_ONCE: MastraVersion = v(1, 51, 0);

/// From 1.19.0 through 1.55.0 a sub-agent called without a string `prompt`
/// makes no request, and every sub-agent call of that step is answered
/// "Cannot read properties of undefined (reading 'input')"
/// (`cases/calls/sub-agent-without-prompt.json` over every 1.x; 1.57.0, the
/// next release served, answers as modelled): not modelled there.
pub const SUB_AGENT_PROMPTLESS_THROWS: (MastraVersion, MastraVersion) = (v(1, 19, 0), v(1, 55, 0));

/// A workflow's `inputData` sent as JSON text of an object is parsed and
/// validated again (`coerceStringifiedJsonValues`, 1.10.0
/// `dist/chunk-CY4ZWL2X.js:117`, called from `validateToolInput` at
/// `:167`, for zod object fields only): from 1.3.0 through 1.10.0; 1.2.0
/// and 1.11.0 reject the text (`cases/calls/workflow-input-data-as-text.json` on 1.1.0,
/// 1.2.0, 1.3.0, 1.5.0, 1.7.0, 1.8.0, 1.9.0, 1.10.0, 1.11.0, 1.18.0,
/// 1.30.0, 1.45.0, 1.57.0, 1.67.0, 1.69.0 and 1.71.0).
pub const WORKFLOW_TEXT_COERCED: (MastraVersion, MastraVersion) = (v(1, 3, 0), v(1, 10, 0));

/// On `stream()` on `google`, a call whose arguments are a string reaches
/// Mastra with `{}` (its validation report quotes `{}`; `generate()` keeps
/// the string). First in 1.25.0 (`bisect --good 1.0.4 --bad 1.67.0` on
/// `cases/calls/google-stream-string-arguments.json`: last the same
/// 1.24.1; found by the fuzzer, seed 3 case 2363).
pub const GOOGLE_STREAM_STRING_ARGUMENTS_EMPTY: MastraVersion = v(1, 25, 0);

/// The switches for one version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    pub version: MastraVersion,
    pub active_tools_applied: bool,
    pub none_drops_tools: bool,
    pub not_found_is_a_result: bool,
    pub history_names_sanitised: bool,
    pub hidden_is_not_found: bool,
    pub history_per_step: bool,
    pub eager_stream_tools: bool,
    pub reused_id_runs_last: bool,
    pub retries: u32,
    /// `openai` route: history refers to earlier calls as `item_reference`s.
    pub responses_item_references: bool,
    /// `openai` route: names go through a plain-object lookup.
    pub responses_name_mapping: bool,
    pub sub_agent_tool_results: bool,
    pub sub_agent_text_only: bool,
    pub sub_agent_error_as_text: bool,
    pub sub_agent_error_quotes_cause: bool,
    pub sub_agent_args_run_id: bool,
    pub sub_agent_stream_error_thrown: bool,
    pub sub_agent_schema_broken: bool,
    pub sub_agents_throw: bool,
    pub sub_agent_parent_history: bool,
    pub sub_agent_parent_memory_ids: bool,
    pub tool_error_ends_memory_calls: bool,
    pub prompt_aliases: bool,
    pub null_arguments_refused: bool,
    pub google_null_arguments_empty: bool,
    pub google_null_arguments_lost: bool,
    pub google_stream_string_arguments_empty: bool,
    pub reused_id_takes_later_call: bool,
    pub memory_keeps_first_result: bool,
    pub responses_reused_id_first_item: bool,
    pub stream_reused_id_first_item: bool,
    pub sub_agent_promptless_throws: bool,
    pub reused_id_merges_steps: bool,
    /// `openai` route: a merged step keeps the earlier item's reference.
    pub merged_step_keeps_earlier_item: bool,
    pub empty_arguments_take_later: bool,
    pub stream_reused_id_runs_once: bool,
    pub groq_stream_reused_id_runs_once: bool,
    /// What a 0.x release does differently (`zero`); `None` on 1.x.
    pub zero: Option<Zero>,
}

impl Release {
    pub fn of(version: MastraVersion) -> Release {
        let zero = Zero::of(version);
        Release {
            version,
            active_tools_applied: version >= ACTIVE_TOOLS_APPLIED
                || zero.is_some_and(|z| z.active_tools_applied),
            none_drops_tools: version >= NONE_DROPS_TOOLS,
            not_found_is_a_result: version >= NOT_FOUND_IS_A_RESULT,
            history_names_sanitised: version >= HISTORY_NAMES_SANITISED,
            hidden_is_not_found: version >= HIDDEN_IS_NOT_FOUND,
            // The v4 loop of 0.x writes history per step too (`zero`).
            history_per_step: version >= HISTORY_PER_STEP || zero.is_some_and(|z| !z.v5_loop),
            eager_stream_tools: version >= EAGER_STREAM_TOOLS,
            reused_id_runs_last: version >= REUSED_ID_RUNS_LAST,
            retries: if version >= NO_RETRIES { 0 } else { 2 },
            // 0.x's v4 provider and the first v5 releases' send calls by name
            // (`zero::calls_by_name`).
            responses_item_references: version < RESPONSES_CALLS_BY_NAME
                && !zero.is_some_and(|z| z.calls_by_name()),
            responses_name_mapping: version >= RESPONSES_NAME_MAPPING,
            sub_agent_tool_results: version >= SUB_AGENT_TOOL_RESULTS,
            sub_agent_text_only: version >= SUB_AGENT_TEXT_ONLY,
            sub_agent_error_as_text: version >= SUB_AGENT_ERROR_AS_TEXT,
            sub_agent_error_quotes_cause: version >= SUB_AGENT_ERROR_QUOTES_CAUSE,
            sub_agent_args_run_id: version >= SUB_AGENT_ARGS_RUN_ID,
            sub_agent_stream_error_thrown: version >= SUB_AGENT_STREAM_ERROR_THROWN,
            sub_agent_schema_broken: within(SUB_AGENT_SCHEMA_BROKEN, version),
            sub_agents_throw: within(SUB_AGENTS_THROW, version),
            sub_agent_parent_history: within(SUB_AGENT_PARENT_HISTORY, version),
            sub_agent_parent_memory_ids: version >= SUB_AGENT_PARENT_MEMORY_IDS,
            tool_error_ends_memory_calls: within(TOOL_ERROR_ENDS_MEMORY_CALLS, version),
            prompt_aliases: version >= PROMPT_ALIASES,
            null_arguments_refused: version >= NULL_ARGUMENTS_REFUSED,
            google_null_arguments_empty: version >= GOOGLE_NULL_ARGUMENTS_EMPTY,
            google_stream_string_arguments_empty: version >= GOOGLE_STREAM_STRING_ARGUMENTS_EMPTY,
            google_null_arguments_lost: within(GOOGLE_NULL_ARGUMENTS_LOST, version),
            reused_id_takes_later_call: version >= REUSED_ID_TAKES_LATER_CALL,
            memory_keeps_first_result: version >= MEMORY_KEEPS_FIRST_RESULT,
            responses_reused_id_first_item: within(RESPONSES_REUSED_ID_FIRST_ITEM, version),
            stream_reused_id_first_item: version >= STREAM_REUSED_ID_FIRST_ITEM,
            sub_agent_promptless_throws: within(SUB_AGENT_PROMPTLESS_THROWS, version),
            reused_id_merges_steps: (version.major == 1
                && (version < REUSED_ID_TAKES_LATER_CALL || version >= REUSED_ID_MERGES_STEPS))
                || zero.is_some_and(|z| z.merges_reused_steps()),
            merged_step_keeps_earlier_item: (version.major == 1
                || zero.is_some_and(|z| z.merges_reused_steps()))
                && version < MERGED_STEP_TAKES_LATER_ITEM,
            empty_arguments_take_later: version >= EMPTY_ARGUMENTS_TAKE_LATER,
            stream_reused_id_runs_once: version >= STREAM_REUSED_ID_RUNS_ONCE,
            groq_stream_reused_id_runs_once: version >= GROQ_STREAM_REUSED_ID_RUNS_ONCE,
            zero,
        }
    }

    pub fn exports_builtin(&self, name: &str) -> bool {
        BUILTINS_SINCE
            .iter()
            .any(|(n, since)| *n == name && self.version >= *since)
    }

    /// Whether the model covers this version at all: the swept 1.x line,
    /// and the 0.x releases with an `Agent` (`zero`).
    pub fn is_modelled(&self) -> bool {
        self.version.major == 1 || (self.zero.is_some() && self.version >= zero::AGENT_SINCE)
    }

    /// Whether `formatTools` runs (every 1.x; 0.x from 0.13.2).
    pub fn formats_tools(&self) -> bool {
        self.zero.is_none_or(|z| z.format_tools)
    }
}

/// Whether `version` is in the releases `(first, last)`, both included.
pub(super) fn within(
    (first, last): (MastraVersion, MastraVersion),
    version: MastraVersion,
) -> bool {
    (first..=last).contains(&version)
}

pub fn builtin_id(name: &str) -> Option<&'static str> {
    BUILTIN_IDS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, id)| *id)
}
