//! `Release`: what each `@mastra/core` release does differently in the parts
//! of Mastra the model covers, as one table of release boundaries
//! (`release_table!`), in the manner of rustc_feature's `declare_features!`.
//!
//! Each line names a behaviour, the first release that has it, and, where
//! it ended, the last release that has it and the first measured without
//! it; its doc comment is its evidence (the dist line, the measurement).
//! From the line come the constant (a `Boundary`), the `Release` field
//! that says whether a version has it, the line of `TABLE` that
//! `changes_at` reads ("what changed at 1.58.0") and the JSON the probe
//! and the project loader read (`node-probe/releases.json`, `table_json`).
//! A new boundary is one line. Rules that combine boundaries (`retries`,
//! `active_tools_applied`, ...) are written by hand below the table.
//!
//! Every boundary here was measured, not guessed: the corpus was swept over
//! every stable 1.x the registry serves (`docs/figures/sweep.md` records the
//! versions and every change found) and over every 0.x (`docs/0x.md`,
//! `docs/figures/sweep-0x.md`), and each change below names the first
//! release that has it and the dist file where it lives. A 0.x line that
//! begins on 0.x holds on 1.x too (1.x kept what it brought) unless its
//! line ends it; the 1.x lines hold on no 0.x release.

pub mod legacy;

use crate::js::json::Json;
use crate::version::spec::MastraVersion;

/// What a declined call's tool result says to the model (1.0.4, 1.67.0,
/// 1.71.0 alike).
pub const APPROVAL_DECLINED_MESSAGE: &str = "Tool call was not approved by the user";

/// What a resumed `generate()` throws once a call its step held at once
/// with another is answered (1.0.4, 1.67.0, 1.71.0 alike: the model's
/// `Replay::held_at_once`).
pub const SUSPEND_PAYLOAD_UNRESOLVED_MESSAGE: &str =
    "promise 'suspendPayload' was not resolved or rejected when stream finished";

/// One line of the table: a behaviour and the releases that have it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Boundary {
    /// The constant's name (`REUSED_ID_RUNS_LAST`).
    pub name: &'static str,
    /// The `Release` field that says whether a version has it.
    pub field: &'static str,
    /// The first release that has it.
    pub first: MastraVersion,
    /// The last release that has it, where it ended.
    pub last: Option<MastraVersion>,
    /// The first release measured without it, where it ended: the release
    /// whose changes list its end.
    pub ended: Option<MastraVersion>,
    /// The line's doc comment: the dist lines and the measurements.
    pub evidence: &'static str,
}

impl Boundary {
    /// Whether `version` has it: from `first` through `last`, both included.
    pub fn holds(&self, version: MastraVersion) -> bool {
        self.first <= version && self.last.is_none_or(|last| version <= last)
    }

    /// The releases that have it, in words, as error texts and `changes`
    /// give them: `from 1.1.0`, `on 1.11.0`, `from 1.19.0 to 1.55.0`.
    pub fn range(&self) -> String {
        match self.last {
            None => format!("from {}", self.first),
            Some(last) if last == self.first => format!("on {last}"),
            Some(last) => format!("from {} to {last}", self.first),
        }
    }

    /// The evidence as one paragraph per blank-line-separated block, the
    /// doc comment's leading spaces taken off.
    pub fn evidence_text(&self) -> String {
        let lines: Vec<&str> = self
            .evidence
            .lines()
            .map(|l| l.strip_prefix(' ').unwrap_or(l))
            .collect();
        lines.join("\n").trim().to_string()
    }

    pub fn to_json(&self) -> Json {
        let mut fields = vec![
            ("name", Json::str(self.name)),
            ("field", Json::str(self.field)),
            ("first", self.first.to_json()),
        ];
        if let (Some(last), Some(ended)) = (self.last, self.ended) {
            fields.push(("last", last.to_json()));
            fields.push(("ended", ended.to_json()));
        }
        fields.push(("evidence", Json::str(&self.evidence_text())));
        Json::object(fields)
    }
}

/// Declares the table: for each line, its constant, its `Release` field,
/// and `TABLE`. A line is `NAME => field: (first);` for a behaviour that
/// has not ended, or `NAME => field: (first) ..= (last), ended (next);`,
/// `next` being the first release measured without it.
macro_rules! release_table {
    (@last) => { None };
    (@last $v:tt) => { Some(MastraVersion::new $v) };
    ($(
        $(#[doc = $doc:literal])*
        $name:ident => $field:ident: $first:tt $(..= $last:tt, ended $ended:tt)?;
    )*) => {
        $(
            $(#[doc = $doc])*
            pub const $name: Boundary = Boundary {
                name: stringify!($name),
                field: stringify!($field),
                first: MastraVersion::new $first,
                last: release_table!(@last $($last)?),
                ended: release_table!(@last $($ended)?),
                evidence: concat!($($doc, "\n"),*),
            };
        )*

        /// Every line of the table, in the order written.
        pub const TABLE: &[Boundary] = &[$($name),*];

        /// The switches for one version: one field per line of the table,
        /// and the rules that combine them (`impl Release` below).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct Release {
            pub version: MastraVersion,
            $(
                #[doc = concat!("`", stringify!($name), "` holds.")]
                pub $field: bool,
            )*
        }

        impl Release {
            pub fn of(version: MastraVersion) -> Release {
                Release {
                    version,
                    $($field: $name.holds(version),)*
                }
            }
        }
    };
}

release_table! {
    /// A `requireToolApproval` function is asked, per call, with `{ toolName,
    /// args, requestContext, ... }`, where `toolName` is the name the model
    /// called (the wire name), and its answer (a throw reads as `true`) or the
    /// tool's own `requireApproval` holds the call. Before, the option was only
    /// tested for truth (`let toolRequiresApproval = requireToolApproval ||
    /// tool2.requireApproval`, 1.37.1 `dist/chunk-2365SJTK.js:21520`), so any
    /// function held every call and was never asked. First in 1.38.0
    /// (`if (typeof requireToolApproval === "function")`,
    /// `dist/chunk-DV4HM5AG.js:21901`; 1.67.0 `dist/agent-Dk0N0Nlg.js:27196`;
    /// `bisect cases/approval/policy-by-key-generate.json --good 1.0.4 --bad
    /// 1.67.0`: 1.37.1 the same as 1.0.4, 1.38.0 changed).
    APPROVAL_POLICY_ASKED => approval_policy_asked_on_1x: (1, 38, 0);
    /// A run resumed after an approval answer has no `requireToolApproval`
    /// function: the later steps' calls are neither asked nor held, and run
    /// without approval, while `requireToolApproval: true` still holds every
    /// one (measured on 1.38.0, 1.50.1, 1.67.0 and 1.71.0, both methods,
    /// `cases/approval/resumed-run-forgets-the-policy-*.json`). Before
    /// `APPROVAL_POLICY_ASKED` a function was only tested for truth and held
    /// every call, resumed or not (1.0.4, 1.37.1): the line is the same
    /// release. A policy that fails open: every call after the first answer
    /// runs unapproved.
    APPROVAL_POLICY_LOST_ON_RESUME => approval_policy_lost_on_resume: (1, 38, 0);
    /// In the step an answer resumes, the calls after the answered one run
    /// unasked before the answered call's run, under a `requireToolApproval`
    /// function the resumed run has lost; before, after it (measured on
    /// 1.40.0, 1.55.0, 1.57.0, 1.58.0 and 1.59.0, both methods,
    /// `cases/approval/later-call-of-a-resumed-step-under-a-policy-function-*`).
    /// `bisect` of a step calling the held tool twice, the first call
    /// approved, `--good 1.40.0 --bad 1.67.0 --route openai-compatible`:
    /// first changed 1.57.0 (last the same 1.55.0; 5 steps), `executed`
    /// reversed, nothing else.
    RESUMED_STEP_RUNS_LATER_CALLS_FIRST => resumed_step_runs_later_calls_first: (1, 57, 0) ..= (1, 59, 0), ended (1, 60, 0);
    /// The same later calls wait for an answer of their own, unasked, each
    /// a `tool-call-approval` and a `pending` entry, whatever the lost
    /// function would have said: a call it lets through (`b` where it holds
    /// `a`) is held. Before, they ran unasked (`APPROVAL_POLICY_LOST_ON_RESUME`,
    /// `RESUMED_STEP_RUNS_LATER_CALLS_FIRST`). `bisect` of the step calling
    /// the held tool then another, the first approved, `--good 1.58.0 --bad
    /// 1.67.0 --route openai-compatible`: first changed 1.60.0 (last the
    /// same 1.59.0; 4 steps); measured on 1.67.0 and 1.71.0 too, both
    /// methods.
    RESUMED_STEP_HOLDS_LATER_CALLS => resumed_step_holds_later_calls: (1, 60, 0);
    /// A declined call that a `requireToolApproval` function held runs once
    /// the run resumes, as if approved: the resumed run has lost the function
    /// (`APPROVAL_POLICY_LOST_ON_RESUME`) and the decline with it. A policy
    /// that fails open. Measured on 2026-12-05 with
    /// `cases/approval/decline-generate.json` and `decline-stream.json`:
    /// `bisect --good 1.29.1 --bad 1.40.0` gave 1.38.0 (1.37.1 the same),
    /// `bisect --good 1.52.0 --bad 1.57.0` gave 1.57.0 (1.55.0 the same; no
    /// 1.56.0 is served). A decline held by `true` or by the tool's own
    /// `requireApproval: true` is kept throughout.
    APPROVAL_DECLINE_LOST_ON_RESUME => approval_decline_lost_on_resume: (1, 38, 0) ..= (1, 55, 0), ended (1, 57, 0);
    /// The model's answer to the first request of a run resumed by an
    /// approval answer is written into the assistant message of the step it
    /// resumed: in every later request's history its calls follow that
    /// step's calls and its results that step's results (three calls under
    /// `requireToolApproval: true`, each approved: `[call, call, call,
    /// result, result, result]`), while a step of the resumed run that no
    /// answer resumed stands alone (`resumed-run-forgets-the-policy-*`:
    /// `[call, call, result, result, call, result]`). Before
    /// `HISTORY_PER_STEP` every step is merged so, resumed or not (1.10.0,
    /// measured the same). Measured on 2026-12-05 with the eight
    /// `cases/approval/resumed-*` and `tool-approval-fn-true-holds-every-resumed-call-*`
    /// cases, both methods, on 1.21.0, 1.29.1, 1.34.0, 1.37.1, 1.38.0,
    /// 1.40.0, 1.52.0 and 1.55.0 (merged) and 1.57.0 and 1.70.0 (each step
    /// alone; no 1.56.0 is served).
    RESUMED_STEP_MERGED => resumed_step_merged: (1, 16, 0) ..= (1, 55, 0), ended (1, 57, 0);
    /// A declined call is not listed in the result's `toolResults`, and its
    /// resumed stream has no chunk for it; before, the decline showed as a
    /// `tool-result` chunk and was listed (1.0.4 and 1.48.0, measured). The
    /// message sent back to the model is the same on both sides. First in
    /// 1.49.0 (`bisect` of a declined call under `requireToolApproval: true`,
    /// 1.37.1 to 1.67.0: 1.48.0 the same as 1.37.1, 1.49.0 changed).
    APPROVAL_DECLINE_UNLISTED => approval_decline_unlisted_on_1x: (1, 49, 0);
    /// A declined call's resumed stream says `tool-output-denied`. First in
    /// 1.58.0 (`bisect` of the same case, 1.49.0 to 1.67.0: 1.57.0 the same as
    /// 1.49.0, 1.58.0 adds the chunk).
    APPROVAL_DENIED_CHUNK => approval_denied_chunk_on_1x: (1, 58, 0);
    /// A run an approval answer resumes finds the held step's later calls
    /// in the call's own tools (its `activeTools` and toolsets), and the
    /// steps after it in the agent's own; before, the resumed run found the
    /// held step's later calls in the agent's own tools too (a tool
    /// `activeTools` hides ran, a toolset's tool was not found). Found by
    /// `bisect cases/approval/held-in-a-later-step-before-a-hidden-call-approved-generate.json
    /// --good 1.40.0 --bad 1.57.0`: first changed 1.46.0 (last the same
    /// 1.45.0; 4 steps); `held-in-a-later-step-before-a-toolset-call-approved-generate.json`
    /// the same. Measured with both on 1.40.0, 1.57.0, 1.67.0 and 1.71.0,
    /// every route. Before it nothing else changes how the held step finds
    /// its calls: `bisect` of the toolset case from 1.0.4 to 1.45.0 first
    /// changes at 1.4.0 (`NOT_FOUND_IS_A_RESULT`: the unfound toolset call
    /// no longer throws), then at 1.16.0 (`RESUMED_STEP_MERGED`); as
    /// modelled on 1.0.4, 1.3.0, 1.4.0, 1.15.0, 1.16.0, 1.30.0, 1.40.0 and
    /// 1.45.0, every route.
    RESUMED_STEP_KEEPS_CALL_TOOLS => resumed_step_keeps_call_tools: (1, 46, 0);
    /// `GET /tools/:toolId` of the release's `@mastra/server` (the package
    /// `mastra dev` serves; each core is paired with the server of its own
    /// number, `version::extras`) looks a tool up in the agents' own
    /// listings when the Mastra's record lacks it (`findToolInAgents`, server
    /// 1.31.0 `dist/chunk-AMC32S2M.js:38` and `:120`, absent from 1.30.0's
    /// dist), so it finds the id of an agent whose tools are a function,
    /// which `new Mastra` never registers. First in 1.31.0: `bisect
    /// cases/lookups/listing-of-dynamic-tools.json --good 1.0.4 --bad 1.67.0
    /// --route openai-compatible` (1.30.0 the same as 1.0.4).
    SERVER_FINDS_TOOL_IN_AGENTS => server_finds_tool_in_agents_on_1x: (1, 31, 0);
    /// `GET /tools` fails (its handler throws, so the route answers an error,
    /// and the projection's `server.listTools` is `null`) for an agent with
    /// an MCP tool, on the servers 1.13.2 to 1.17.0 that cores 1.13.2 to
    /// 1.19.0 pair with; the single-tool routes still find the tool's id.
    /// Found by `run --cases cases/lookups --versions ">=1.0.0 <2.0.0"
    /// --route openai-compatible` (2026-12-06: `listing-with-mcp-and-memory`
    /// diverged on exactly those seven releases), and with the MCP tool
    /// alone (`cases/lookups/server-lists-mcp-tools.json`: 1.12.0 and 1.20.0
    /// list it, 1.13.2 and 1.19.0 do not). Which line of the handler throws
    /// was not read.
    SERVER_LIST_FAILS_ON_MCP_TOOLS => server_list_fails_on_mcp_tools_on_1x: (1, 13, 2) ..= (1, 19, 0), ended (1, 20, 0);
    /// A run suspended at a held call asks the `requireToolApproval` function
    /// for the step's later calls too (they do not run); before, the step
    /// stopped asking at the held call. First in 1.69.0 (`bisect` of a step
    /// calling the held tool first, then a tool the policy lets through,
    /// 1.67.0 to 1.71.0: 1.68.0 asked the held call alone, 1.69.0 both).
    /// The same change (`resolveEmittedToolCallConcurrency`, 1.71.0
    /// `dist/agent-BOxKOk3n.js:26974`) runs a step's calls at once where a
    /// policy function holds none of them, so a refused call ends its tool
    /// span first; before, any policy function ran them one at a time
    /// (`cases/tracing/refused-call-under-a-policy-ends-its-span-first-*`:
    /// call order on 1.40.0 to 1.68.0, the refused call first on 1.69.0 and
    /// 1.71.0).
    APPROVAL_LATER_CALLS_ASKED => approval_later_calls_asked: (1, 69, 0);
    /// A tool's own `requireApproval` function is asked, per call, with the
    /// call's arguments and a context without `toolName`, and its answer
    /// alone holds the call or lets it run, whatever `requireToolApproval`
    /// says (agent `true` with the tool's `false` runs unapproved); a throw
    /// holds the call. Before, `createTool` kept the function as the tool's
    /// `requireApproval` (1.25.0 `dist/chunk-L43DNVPR.js:502`), which the loop
    /// only tested for truth, so it held every call and was never asked.
    /// First in 1.26.0: `createTool` makes a function its `needsApprovalFn`
    /// (`dist/chunk-XYWVTGZY.js:526`), which the loop asks after the policy
    /// (`dist/chunk-CXW3Z2OL.js:16129`; 1.67.0 `dist/agent-Dk0N0Nlg.js:27207`).
    /// `bisect cases/approval/tool-approval-fn-false-overrides-policy-true-generate.json
    /// --good 1.0.4 --bad 1.67.0`: first changed 1.26.0 (last the same
    /// 1.25.0; 6 steps).
    TOOL_APPROVAL_FN_ASKED => tool_approval_fn_asked: (1, 26, 0);
    /// A tool's own `requireApproval` function is given the call's
    /// arguments in its context too: `(args, { args, requestContext,
    /// workspace })`; before, `(args, { requestContext, workspace })`
    /// (1.37.1 `dist/chunk-2365SJTK.js:21523`). First in 1.38.0, with
    /// `APPROVAL_POLICY_ASKED`: the function is given the policy's context
    /// with its `toolName` taken out (`const { toolName: _toolName,
    /// ...needsApprovalCtx } = buildApprovalContext()`,
    /// `dist/chunk-DV4HM5AG.js:21915`), so whichever name the model called
    /// the tool by, the function cannot tell. `bisect
    /// cases/approval/tool-approval-fn-false-overrides-policy-true-generate.json
    /// --good 1.26.0 --bad 1.67.0 --route openai-compatible`: first changed
    /// 1.38.0 (last the same 1.37.1; 5 steps), the one difference
    /// `seen.approval.toolAsked[0].context` gaining `args`.
    TOOL_APPROVAL_FN_GIVEN_ARGS => tool_approval_fn_given_args: (1, 38, 0);
    /// A call's `stopWhen` holds beside its `maxSteps`: the loop stops at
    /// whichever comes first (`stopWhenToUse = [stepCountIs(maxSteps),
    /// ...userConditions]`, `dist/chunk-OE4IEL7C.js:30009`). Before,
    /// `maxSteps` replaced it (`stopWhenToUse = stepCountIs(maxSteps)`,
    /// 1.50.0 `dist/chunk-JGDMZZAO.js:30012`), so a `hasToolCall` beside
    /// `maxSteps` was never asked. First in 1.50.1: `bisect
    /// cases/stop-when/has-tool-call-beside-max-steps-generate.json --good
    /// 1.40.0 --bad 1.67.0`: first changed 1.50.1 (last the same 1.50.0;
    /// 5 steps), three requests become one.
    STOP_WHEN_BESIDE_MAX_STEPS => stop_when_beside_max_steps: (1, 50, 1);
    /// An MCP server's own `requireToolApproval` (`mcpApproval`) holds its
    /// tools' calls: `@mastra/mcp` gives each tool `requireApproval: true`,
    /// and for a function a `needsApprovalFn` asking it with the tool's MCP
    /// name (`delete.file`, not `fs_delete.file` or the wire name)
    /// (`MCP_SERVER_APPROVAL_FN_ASKED`). Before, the `@mastra/mcp` installed
    /// beside the core has no such option (1.4.2 `dist/index.js` never reads
    /// it) and the server's policy is silently ignored: the tool runs
    /// unapproved. First in 1.25.0, the first core paired with `@mastra/mcp`
    /// 1.5.0 (`this.requireToolApproval = server.requireToolApproval`,
    /// `dist/index.js:454`; `version::extras`): `bisect
    /// cases/mcp-names/server-policy-true-holds-every-name-generate.json
    /// --good 1.13.2 --bad 1.25.0 --route openai-compatible`: first changed
    /// 1.25.0 (last the same 1.24.1; 3 steps), the call held.
    MCP_SERVER_APPROVAL => mcp_server_approval: (1, 25, 0);
    /// A server's `requireToolApproval` function (`mcpApproval`) is asked,
    /// per call, with `{ toolName: MCP_NAME, args, ... }`, and its answer
    /// alone holds the call or lets it run, whatever the agent's policy says
    /// (server `false` with agent `true` runs unapproved). Before, the
    /// `requireApproval: true` `@mastra/mcp` sets beside it held every call
    /// and the function was never asked: `@mastra/mcp` sets it as
    /// `mastraTool.needsApprovalFn` after `createTool` (1.8.1
    /// `dist/index.js:985`), and 1.37.1 reads `tool2.needsApprovalFn` off the
    /// tool it converted (`dist/chunk-2365SJTK.js:21521`); 1.38.0 asks it
    /// through `getNeedsApprovalFn(tool2)` (`dist/chunk-DV4HM5AG.js:21912`),
    /// with `APPROVAL_POLICY_ASKED`, both cores on `@mastra/mcp` 1.8.1.
    /// `bisect cases/mcp-names/server-policy-asked-with-the-mcp-name-generate.json
    /// --good 1.37.1 --bad 1.38.0 --route openai-compatible`: first changed
    /// 1.38.0 (last the same 1.37.1, no release between), `serverAsked`
    /// gaining `delete.file`.
    MCP_SERVER_APPROVAL_FN_ASKED => mcp_server_approval_fn_asked: (1, 38, 0);
    /// A tool span (`tracing`) carries the tool's key as its `entityId`, as
    /// it does its `entityName` and its name (`tool: 'KEY'`); before, the
    /// span was made with no `entityId` and took its parent step span's
    /// (`stream-text-step`, measured on 1.0.4, `generate()` and `stream()`
    /// alike). First in 1.1.0: `entityId: options.name` beside `entityName`
    /// in the tool's `createChildSpan` (1.1.0 `dist/chunk-4DDIPGB6.js:161`;
    /// 1.0.4 `dist/chunk-5RBKFP5N.js:158` has none). `bisect
    /// cases/tracing/span-named-by-the-key.json --good 1.0.4 --bad 1.71.0`:
    /// first changed 1.1.0 (last the same 1.0.4; 7 steps).
    SPAN_ENTITY_IS_THE_KEY => span_entity_is_the_key: (1, 1, 0);
    /// `generate()`'s result lists in `toolCalls` the calls of every step;
    /// before, on a call that neither drives approval nor has memory, only
    /// the last step's (none, when a text reply answered), while
    /// `toolResults` listed every step's (measured on 1.0.4, 1.1.0 and 1.5.0
    /// with `tracing`, every route). First in 1.6.0 (`bisect
    /// cases/tracing/span-named-by-the-key.json --good 1.1.0 --bad 1.71.0`:
    /// first changed 1.6.0, last the same 1.5.0; 6 steps); bisect only, the
    /// dist line not yet found.
    GENERATE_LISTS_EVERY_CALL => generate_lists_every_call: (1, 6, 0);
    /// A call whose arguments fail validation ends a tool span (`tracing`),
    /// named as any other; before, the span was created inside the execution
    /// function that runs after validation, so such a call ended none. First
    /// in 1.17.0 (`run cases/tracing/span-of-a-call-with-bad-arguments.json
    /// --fresh`: no span on 1.0.4, 1.1.0, 1.6.0, 1.12.0, 1.15.0, 1.16.0; the
    /// span on 1.17.0, 1.18.0, 1.33.1), upstream
    /// https://github.com/mastra-ai/mastra/pull/14677 ("Fixed tool input
    /// validation failures not producing observability spans").
    BAD_ARGUMENTS_END_A_SPAN => bad_arguments_end_a_span: (1, 17, 0);
    /// An MCP server's tool ends a span of its own type, `mcp_tool_call`,
    /// named `mcp_tool: 'KEY' on 'SERVER'`; before, a `tool_call` named as
    /// any tool's. The core tells them apart by the tool's `mcpMetadata`
    /// (1.13.2 `dist/chunk-FNVUZ3S2.js:206`, in 1.12.0's dist too), which
    /// `@mastra/mcp` sets from 1.2.x (1.2.1 `dist/index.js:928`; 1.1.0,
    /// installed beside 1.12.0, sets none): with the packages that fit each
    /// core (`version::extras`), first in 1.13.2 (`bisect
    /// cases/tracing/span-of-an-mcp-tool-call-generate.json --good 1.6.0
    /// --bad 1.71.0`: first changed 1.13.2, last the same 1.12.0; 6 steps).
    MCP_TOOL_SPANS => mcp_tool_spans: (1, 13, 2);
    /// A memory's next turn recalls no call named `updateWorkingMemory`,
    /// nor its result, whatever it answered (a call the agent had no such
    /// tool for, "not found", included): the message list drops such
    /// `tool-invocation` parts (1.67.0 `dist/agent-Dk0N0Nlg.js:18289`,
    /// `@mastra/memory` 1.30.0 `updateMessageToHideWorkingMemoryV2`). First
    /// in 1.14.0 (`bisect` of a case with `memory: true`, two turns, the
    /// first calling `updateWorkingMemory` then answering text, `--good
    /// 1.12.0 --bad 1.67.0`: first changed 1.14.0, last the same 1.13.2; 6
    /// steps; `cases/memory/recall-hides-a-working-memory-call.json`).
    /// Before, they are hidden where an API error ends the call, run or
    /// refused (`steps::Agent::stored`).
    RECALL_HIDES_WORKING_MEMORY_CALLS => recall_hides_working_memory_calls: (1, 14, 0);
    /// Before that, from 1.4.0, a call of `updateWorkingMemory` is hidden
    /// only beside another call of its step; alone in its step it is
    /// recalled (`cases/memory/recall-hides-a-working-memory-call.json`, and
    /// it with the other call taken out, on 1.3.0, 1.4.0, 1.10.0, 1.12.0,
    /// 1.13.2 and 1.14.0, every route; the whole 1.x on every route found
    /// the first diverging on 1.4.0 to 1.13.2). On `openai` the one alone is
    /// recalled by name rather than as an item reference: not modelled.
    RECALL_HIDES_WORKING_MEMORY_BESIDE_OTHERS => recall_hides_working_memory_beside_others: (1, 4, 0);
    /// A traced `stream()`'s `fullStream` hands the user every chunk; before,
    /// the loop's output stream dropped a chunk enqueued while its queue was
    /// full (`isControllerOpen` read `desiredSize !== 0` as "closed"), which
    /// tracing's extra stages make likely: measured on 1.0.4, 1.1.0 and 1.5.0
    /// with two calls in a step, the `tool-call` chunks and so `toolCalls`
    /// lost on openai-compatible, mistral and groq, a
    /// `tool-call-input-streaming-start` on google, which ones varying with
    /// scheduling (the untraced stream is whole; 1.5.0 with 1.6.0's
    /// observability still loses them). First in 1.6.0, which enqueues
    /// through `safeEnqueue`: upstream
    /// https://github.com/mastra-ai/mastra/issues/13107, PR #13142. A traced
    /// `generate()` under approval loses its `toolCalls` the same way
    /// (`[]` on 1.0.4 in every `cases/tracing/` approval case, every route):
    /// `bisect cases/tracing/no-span-of-a-held-call-unanswered-generate.json
    /// --good 1.0.4 --bad 1.11.0` gives 1.6.0 (last the same 1.5.0; 3 steps).
    TRACED_STREAM_KEEPS_CHUNKS => traced_stream_keeps_chunks: (1, 6, 0);
    /// `activeTools` filters the tools sent (by rewritten name). Before it, the
    /// option was ignored. First in 1.1.0 (`prepareToolsAndToolChoice` gained
    /// the `activeTools` filter; sweep: `active-*` cases, 1.0.4 → 1.1.0).
    ACTIVE_TOOLS_APPLIED => active_tools_on_1x: (1, 1, 0);

    /// `toolChoice: "none"` sends neither `tools` nor `tool_choice`; before, it
    /// sent both with `"tool_choice": "none"`. First in 1.19.0
    /// (`prepareToolsAndToolChoice`: `if (toolChoice === "none") return { tools:
    /// void 0, ... }`; sweep: `tc-none`, 1.18.0 → 1.19.0).
    NONE_DROPS_TOOLS => none_drops_tools: (1, 19, 0);

    /// A tool call naming no tool becomes a tool result ("Tool \"X\" not found.
    /// Available tools: ..."), and the loop goes on; before, the call failed with
    /// `Error("Tool X not found")`. First in 1.4.0 (sweep: `reply-unknown-name`,
    /// `reply-original-key`, 1.3.0 → 1.4.0).
    NOT_FOUND_IS_A_RESULT => not_found_is_a_result: (1, 4, 0);

    /// Under approval, the not-found result of a call naming no tool that came
    /// before a held call of its step reaches the resumed run's requests as
    /// `{"name":"ToolNotFoundError"}` (the error, serialised across the
    /// suspension, keeps its name alone); from 1.42.0 as its message. Found
    /// by `bisect cases/approval/invented-name-before-a-held-call-generate.json
    /// --good 1.38.0 --bad 1.57.0`: first changed 1.42.0 (last the same
    /// 1.41.0; 4 steps); `--good 1.4.0 --bad 1.38.0`: 1.5.0 (1.4.0 goes
    /// otherwise: `RESUME_AFTER_NOT_FOUND_ENDS`).
    NOT_FOUND_NAME_ONLY_ON_RESUME => not_found_name_only_on_resume: (1, 5, 0) ..= (1, 41, 0), ended (1, 42, 0);
    /// The release between the two: an answer to a held call after a call
    /// of its step that named no tool ends the resumed run at once, with
    /// no request and no error. The approved call runs, a declined one
    /// does not; a resumed stream hands over the not-found calls' tool
    /// errors and, for a call the resumed run does not find
    /// (`Replay::lost_on_resume`), its own, nothing else; the result's
    /// lists are the suspended result's. Only 1.4.0 (`--good 1.4.0 --bad
    /// 1.38.0` above gave 1.5.0; 1.3.0 throws "Tool X not found" before
    /// `NOT_FOUND_IS_A_RESULT`): `cases/approval/*-invented-name-*` on
    /// 1.3.0, 1.4.0 and 1.5.0, every route.
    RESUME_AFTER_NOT_FOUND_ENDS => resume_after_not_found_ends: (1, 4, 0) ..= (1, 4, 0), ended (1, 5, 0);

    /// A stream's calls give their `tool-call` chunks once every call of the
    /// step has streamed its input (`tool-call-input-streaming-start`,
    /// `tool-call-delta` for each, then the `tool-call`s); before, each call's
    /// `tool-call` followed its own input. First in 1.52.0 (`bisect` of a
    /// stream step calling a case tool and a client tool, 1.0.4 to 1.67.0:
    /// 1.51.0 the same as 1.0.4, 1.52.0 moves the first call's `tool-call`
    /// after the second call's input).
    STREAM_CALLS_AFTER_INPUTS => stream_calls_after_inputs: (1, 52, 0);
    /// The same on the `groq` route, one release earlier, as
    /// `GROQ_STREAM_REUSED_ID_RUNS_ONCE`: the whole 1.x on every route found
    /// 22 stream cases of several calls diverging on 1.51.0 `@groq` alone
    /// (`cases/calls/tool-without-description.json` on 1.50.1, 1.51.0 and
    /// 1.52.0: the first call's `tool-call` after the second's input from
    /// 1.51.0).
    GROQ_STREAM_CALLS_AFTER_INPUTS => groq_stream_calls_after_inputs: (1, 51, 0);
    /// A step with a call that waits for the client lists the results of its
    /// other calls in `toolResults` and streams their `tool-result`s; before,
    /// it listed and streamed none. First in 1.60.0 (`bisect` of the same
    /// stream step, 1.52.0 to 1.67.0: 1.59.0 the same as 1.52.0, 1.60.0 adds
    /// the `tool-result` of `ok` and lists it). The message list, and so
    /// what a memory stores of such a step, keeps the same: before, only
    /// the calls that failed at once (`steps::Cx::append_stopped_step`;
    /// `bisect cases/memory/recall-of-a-step-a-client-tool-stops-stream.json
    /// --good 1.58.0 --bad 1.67.0 --route openai-compatible`: 1.60.0, last
    /// the same 1.59.0, 4 steps; from 1.57.0 the bisect stops at 1.58.0,
    /// the end of `TOOL_ERROR_ENDS_MEMORY_CALLS`).
    STOP_STEP_LISTS_RESULTS => stop_step_lists_results: (1, 60, 0);

    /// Tool names written back into history are sanitised: a name outside
    /// `^[a-zA-Z0-9_-]+$` becomes `unknown_tool` (`sanitizeToolName` in the
    /// prompt builder). First in 1.9.0 (sweep: `reply-original-key`,
    /// 1.8.0 → 1.9.0).
    HISTORY_NAMES_SANITISED => history_names_sanitised: (1, 9, 0);

    /// A call with an empty id is left out of the history, with its
    /// result; the call still runs and is still handed to the user. First
    /// in 1.14.0 (`bisect` of two calls of `ok` in one step, the first
    /// with id "", 1.0.4 to 1.67.0: 1.13.2 the same as 1.0.4, 1.14.0 drops
    /// it; `cases/calls/empty-call-id-*` on 1.13.2, 1.14.0 and 1.71.0).
    HISTORY_DROPS_EMPTY_CALL_IDS => history_drops_empty_call_ids: (1, 14, 0);

    /// Retries of retryable API errors (408, 409, 429, 5xx): two before this
    /// release, none from it (the agent passes `maxRetries ?? 0` down). First in
    /// 1.11.0 (sweep: `error-500-retries`, 1.10.0 → 1.11.0).
    NO_RETRIES => no_retries: (1, 11, 0);

    /// A call to a tool that `activeTools` hides is answered as not found, and
    /// the available tools listed are `activeTools` as given; before, the hidden
    /// tool still executed. First in 1.11.0 (sweep: `reply-hidden-by-activeTools`,
    /// 1.10.0 → 1.11.0).
    HIDDEN_IS_NOT_FOUND => hidden_is_not_found: (1, 11, 0);

    /// Each step's assistant tool calls are followed by that step's results;
    /// before, all assistant calls were merged into one message ahead of all the
    /// results. First in 1.16.0 (sweep: `loop-default-maxsteps`, 1.15.0 → 1.16.0).
    HISTORY_PER_STEP => history_per_step_on_1x: (1, 16, 0);

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
    /// A call with an empty id keeps no verdict and starts last too (`bisect`
    /// of `cases/calls/empty-call-id-beside-a-call-*`, 1.40.0 to 1.71.0:
    /// 1.68.0 the same as 1.40.0, 1.69.0 runs it after the other call).
    REUSED_ID_RUNS_LAST => reused_id_runs_last: (1, 69, 0);

    /// Eager tool execution on `stream()` (`eagerToolExecution ?? true`): a
    /// call found under its own name in the step's tools starts as soon as its
    /// chunk completes, before the stream ends; calls found only by a tool's id
    /// start afterwards in the step's foreach, so `execute` runs in that order
    /// while history keeps the calls' order. First in 1.71.0
    /// (`EagerToolExecutionCoordinator`, 1.71.0 `dist/agent-BOxKOk3n.js:24587`,
    /// enabled at `:30443`, default at `:40579`; found by the fuzzer, seed 2
    /// case 2866: `cases/found/stream-call-by-id-executes-after-call-by-key-on-1.71.0.json`).
    EAGER_STREAM_TOOLS => eager_stream_tools: (1, 71, 0);

    /// On the `openai` route (Responses API), earlier tool calls go back in
    /// history by name (`function_call` items); before, the bundled
    /// `@ai-sdk/openai` sent them as `item_reference`s to the stored output
    /// items (`store` on by default; 1.50.1 `dist/chunk-AR6WPTSV.js:4860`).
    /// First in 1.51.0 (`bisect cases/report/execution-routes-by-rewritten-name.json
    /// --good 1.17.0 --bad 1.67.0 --route openai`; sweep: every `replies/` case
    /// `@openai`, 1.50.1 → 1.51.0).
    RESPONSES_CALLS_BY_NAME => responses_calls_by_name: (1, 51, 0);

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
    RESPONSES_NAME_MAPPING => responses_name_mapping: (1, 25, 0);

    /// A sub-agent's tool output carries `subAgentToolResults` (the sub-agent's
    /// own calls that ran, each `{ toolName, toolCallId, result, args }`: with
    /// working memory its tool's, `[]` without, the probe's sub-agent having
    /// no other tool; `cases/sources/nested-sub-agent-working-memory-step-*`
    /// on every 1.x) beside its text, thread and resource. First seen in 1.13.2 (sweep, case
    /// `cases/sources/sub-agent-call-runs-the-sub-agent.json`: 1.10.0 has the
    /// three fields, 1.11.0 and 1.12.0 run no sub-agent at all, below).
    SUB_AGENT_TOOL_RESULTS => sub_agent_tool_results: (1, 13, 2);

    /// A sub-agent whose own request is answered with an API error gives its
    /// parent the text "[Agent:probe] - Failed agent tool execution for KEY"
    /// (the parent agent's name, the sub-agent's key) as the call's result;
    /// before, Mastra's whole error object (`TOOL_EXECUTION_FAILED`, quoting
    /// the model id and the call's arguments). First in 1.5.0
    /// (`cases/calls/sub-agent-api-error.json`, and the same case without its
    /// builtin, on every route: the object on 1.0.4 and 1.4.0, the text on
    /// 1.5.0, 1.6.0, 1.7.0, 1.8.0, 1.10.0, 1.13.2, 1.30.0, 1.31.0, 1.42.0,
    /// 1.57.0, 1.67.0 and 1.71.0; not traced to a dist line).
    SUB_AGENT_ERROR_AS_TEXT => sub_agent_error_as_text: (1, 5, 0);

    /// Before `SUB_AGENT_ERROR_AS_TEXT`, the error object's
    /// `details.errorMessage` is `String(err)`, the sub-agent's own error as
    /// JSON text; before this release it is the fixed "[Agent:probe] - Failed
    /// tool execution". First in 1.2.0 (`errorMessage: String(err)`, 1.2.0
    /// `dist/chunk-T6PRRKMW.js:325`, where 1.1.0 `dist/chunk-4DDIPGB6.js:316`
    /// has `String(error)`; `cases/calls/sub-agent-api-error-before-1.5.0.json`
    /// on every route of 1.0.4, 1.1.0, 1.2.0, 1.3.0 and 1.4.0).
    SUB_AGENT_ERROR_QUOTES_CAUSE => sub_agent_error_quotes_cause: (1, 2, 0);

    /// The same object's `details.argsJson` (the arguments the sub-agent's
    /// tool ran with) ends with `"suspendedToolRunId":""` from this release
    /// (same case, 1.2.0 → 1.3.0; not traced to a dist line).
    SUB_AGENT_ARGS_RUN_ID => sub_agent_args_run_id: (1, 3, 0);

    /// On `stream()` the sub-agent's API error reaches its parent as
    /// `SUB_AGENT_ERROR_AS_TEXT` says only from 1.68.0; before, the
    /// sub-agent's stream ends without text, and the parent gets its ordinary
    /// output with empty text (from 1.0.4, before `SUB_AGENT_ERROR_AS_TEXT` too) (`cases/calls/sub-agent-api-error-on-stream.json`
    /// on every route of 1.42.0, 1.67.0, 1.68.0 and 1.71.0, and without its
    /// builtin on openai-compatible and anthropic: empty text on 1.5.0, 1.30.0,
    /// 1.31.0 and 1.67.0, the message on 1.68.0 to 1.71.0; found by
    /// the fuzzer, seed 1 cases 415 and 601 on 1.67.0; not traced to a dist
    /// line).
    SUB_AGENT_STREAM_ERROR_THROWN => sub_agent_stream_error_thrown: (1, 68, 0);

    /// A sub-agent's tool result is its text alone (`toModelOutput` on the
    /// agent tool, unless `delegation.includeSubAgentToolResultsInModelContext`;
    /// 1.67.0 `dist/agent-Dk0N0Nlg.js`, `listAgentTools`). First in 1.31.0
    /// (same sweep case, 1.30.0 → 1.31.0).
    SUB_AGENT_TEXT_ONLY => sub_agent_text_only: (1, 31, 0);

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
    SUB_AGENT_PARENT_HISTORY => sub_agent_parent_history: (1, 8, 0) ..= (1, 10, 0), ended (1, 11, 0);

    /// A sub-agent's request carries what `stripParentToolParts` leaves of
    /// the parent's messages: no tool call or tool message, but a recalled
    /// answer, which on the Responses API goes by reference (`msg_0`), so a
    /// sub-agent called in a memory's later turn on `openai` is handed it
    /// (1.67.0 and 1.71.0, `cases/tool-call-filter/beside-a-sub-agent-*` on
    /// `openai`; 1.8.0 to 1.10.0 hand every message). From 1.11.0, where
    /// the stripping starts (`SUB_AGENT_PARENT_HISTORY`).
    SUB_AGENT_STRIPPED_HISTORY => sub_agent_stripped_history: (1, 11, 0);

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
    /// 1.7.0 had neither the assignment nor the derived ids: a thread and
    /// resource the call sent were the sub-agent's as sent
    /// (`inputData.threadId || ...`, 1.7.0 `dist/chunk-QSHV7GPT.js:19956`;
    /// `t1` and `r1` on 1.7.0, `t1-<uuid>` and `r1-s` on 1.8.0, where `bisect`
    /// from 1.7.0 to 1.10.0 puts the change:
    /// `cases/calls/sub-agent-sends-its-own-thread-and-resource.json`). On 1.11.0 the
    /// injected ids also show in the validation error's "Provided arguments"
    /// of a call whose prompt passes; a call whose prompt fails is quoted as
    /// sent on every release (`cases/calls/sub-agent-rejected-with-memory-options.json`).
    /// Found by the full matrix on 1.8.0 to 1.30.0
    /// (`cases/found/seed1-case3372-1.67.0-requests-tools+requests-toolChoice.json`).
    SUB_AGENT_PARENT_MEMORY_IDS => sub_agent_parent_memory_ids: (1, 8, 0);

    /// From 1.11.0 the loop sets a sub-agent call's `threadId` and
    /// `resourceId` to the call's own outright (`args.threadId =
    /// _internal?.threadId`, 1.11.0 `dist/chunk-S5BMBKUR.js:33766`-`33767`),
    /// `undefined` without memory options, so ids the model sent are gone;
    /// from 1.8.0 to 1.10.0 it kept a truthy sent one (`args.threadId =
    /// args.threadId || _internal?.threadId`, 1.8.0
    /// `dist/chunk-VBPU6CLZ.js:13481`-`13482`, 1.10.0
    /// `dist/chunk-YC6Z75K2.js:13609`-`13610`), and the sub-agent's ids derive
    /// from whatever the tool ran with (`inputData.threadId ?
    /// \`${inputData.threadId}-${randomUUID()}\` : ...`, 1.10.0 `:20280`).
    /// Measured with `cases/calls/sub-agent-sends-its-own-thread-and-resource.json`:
    /// on 1.8.0 and 1.10.0 the sub-agent's ids are `t1-<uuid>` and `r1-s`; on
    /// 1.11.0 (no sub-agent runs: `SUB_AGENT_SCHEMA_BROKEN`) the validation
    /// error quotes the prompt alone; on 1.13.2 and 1.30.0 the ids are fresh
    /// (1.12.0 runs no sub-agent either: `SUB_AGENTS_THROW`). `bisect` from
    /// 1.10.0 to 1.13.2 names 1.11.0. Found by the nightly of 2026-12-06:
    /// `cases/calls/null-inside-arguments.json` and
    /// `cases/calls/sub-agent-api-error-before-1.5.0.json` on 1.11.0, every
    /// route.
    SUB_AGENT_IDS_OUTRIGHT => sub_agent_ids_outright: (1, 11, 0);

    /// The releases whose sub-agent tool input schema fails to compile, so that
    /// every call of a sub-agent is answered with the validation error "schema
    /// is invalid: data/required must be array" (naming the tool by its id,
    /// `agent-KEY`) and the sub-agent never runs: 1.11.0 only (same sweep case,
    /// 1.10.0 → 1.11.0 → 1.12.0).
    SUB_AGENT_SCHEMA_BROKEN => sub_agent_schema_broken: (1, 11, 0) ..= (1, 11, 0), ended (1, 12, 0);

    /// The releases on which an agent with any sub-agent fails every call
    /// before its first request: `listAgentTools` converts the sub-agent
    /// schema with `z.toJSONSchema`, which zod 3.25.76 lacks ("z.toJSONSchema is
    /// not available. Ensure zod >= 3.25.0 is installed.", as
    /// AGENT_GENERATE_FAILED / AGENT_STREAM_FAILED): 1.12.0 only (sweep:
    /// every case with `agents`, 1.11.0 → 1.12.0 → 1.13.2).
    SUB_AGENTS_THROW => sub_agents_throw: (1, 12, 0) ..= (1, 12, 0), ended (1, 13, 2);

    /// The releases on which a tool call that must wait for approval fails
    /// instead: the approval's suspension converts a schema with
    /// `z.toJSONSchema`, which zod 3.25.76 lacks, so the call ends as a
    /// `tool-error` whose message is the model's next tool result ("z.toJSONSchema
    /// is not available. Ensure zod >= 3.25.0 is installed."), nothing waits,
    /// the tool never runs and the loop goes on; a call that need not wait
    /// runs as elsewhere. 1.12.0 only, the same cause as `SUB_AGENTS_THROW`
    /// (measured on 2026-12-05: `run --cases cases/approval --versions every`
    /// diverged on 1.12.0 alone, 47 of its 56 cases, each so; 1.11.0 and
    /// 1.13.2 as modelled).
    APPROVAL_SUSPEND_THROWS => approval_suspend_throws: (1, 12, 0) ..= (1, 12, 0), ended (1, 13, 2);

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
    /// release measured. The error comes once the thread is written: the
    /// next turn recalls the call's tool messages, the failed call's too, as
    /// on 1.55.0 and 1.58.0 (measured on 2026-12-07, every route but google,
    /// both methods: `cases/memory/recall-of-a-step-*-stops-*`). Found by
    /// the full matrix on 1.57.0
    /// (`cases/found/seed1-case3372-1.67.0-requests-tools+requests-toolChoice.json`,
    /// whose third step calls a name nothing has).
    TOOL_ERROR_ENDS_MEMORY_CALLS => tool_error_ends_memory_calls: (1, 57, 0) ..= (1, 57, 0), ended (1, 58, 0);

    /// The releases on which a call with memory that an API error reply ends
    /// (here an HTTP 400 answering its second request, after a step that ran
    /// a tool) stores none of its messages on the thread: the next call
    /// recalls only what the calls before it stored. Before and after, the
    /// failed call's tool messages are stored and recalled; a call a tool
    /// error ends (`TOOL_ERROR_ENDS_MEMORY_CALLS`) stores them on 1.57.0
    /// too (`cases/memory/recall-of-an-invented-name-is-sanitised.json`). Measured on
    /// 2026-12-05 with `cases/memory/recall-after-an-error-reply.json`:
    /// `run --cases cases/memory --versions every` diverged on 1.57.0 and
    /// 1.58.0 alone (1.55.0 and 1.59.0 as modelled; 1.56.x is not served).
    FAILED_CALL_NOT_STORED => failed_call_not_stored: (1, 57, 0) ..= (1, 58, 0), ended (1, 59, 0);

    /// `ToolCallFilter` takes calls out of each request the loop sends
    /// (`processLLMRequest`), the calls of the first request it sees in a
    /// run being the run's history (`HISTORY_TOOL_CALL_IDS`, 1.60.0
    /// `dist/agent-D5C9QXkF.js:14397` and `:14482`); before, it took them
    /// once out of the messages the call started with (`processInput`,
    /// 1.59.0 `dist/agent-CKAVuxKN.js:14288`), which a run an approval
    /// answer resumes does not run (`if (!isResume)`, 1.59.0
    /// `dist/agent-CKAVuxKN.js:31106`). So from here the resumed run's
    /// requests leave out the held step's excluded calls and their results
    /// (and those of the steps before it), memory or not, while its own
    /// later steps' calls stay (`tool_call_filter::resumed`). `bisect` of a
    /// call of `a` let through and a held call of `b` declined, `exclude:
    /// ["b"]`, `--good 1.57.0 --bad 1.60.0`: 1.59.0 the same, 1.60.0
    /// changed; measured on 1.5.0, 1.12.0, 1.26.0, 1.40.0, 1.46.0, 1.50.0,
    /// 1.57.0, 1.59.0 (unchanged), 1.60.0 and 1.71.0, every route, both
    /// methods, approved and declined, each name excluded
    /// (`cases/tool-call-filter/resumed-*`).
    TOOL_CALL_FILTER_PER_REQUEST => tool_call_filter_per_request: (1, 60, 0);

    /// A declined call is stored as an invocation in the state
    /// `output-denied`, which `ToolCallFilter`'s input processor, matching
    /// the states `call` and `result` alone (1.59.0
    /// `dist/agent-CKAVuxKN.js:14429`), leaves in a recalled history with
    /// its result, whatever the list; before, a decline was stored as a
    /// result, and from `TOOL_CALL_FILTER_PER_REQUEST` the filter goes by
    /// call id. `bisect` of a call of `a` approved and one of `b` declined
    /// under `requireToolApproval: true`, `exclude: ["b"]`, recalled by a
    /// second turn, `--good 1.40.0 --bad 1.55.0`: 1.48.0 the same, 1.49.0
    /// changed (the line of `APPROVAL_DECLINE_UNLISTED`); measured on
    /// 1.5.0, 1.20.0, 1.40.0, 1.55.0, 1.57.0, 1.59.0, 1.60.0 and 1.71.0
    /// (`cases/memory/recall-of-a-turn-an-answer-resumed-beside-tool-call-filter-*`).
    DECLINE_KEPT_BY_TOOL_CALL_FILTER => decline_kept_by_tool_call_filter: (1, 49, 0) ..= (1, 59, 0), ended (1, 60, 0);

    /// `@mastra/core/tools` exports `askUserTool` (read from each swept
    /// version's exports).
    EXPORTS_ASK_USER_TOOL => exports_ask_user_tool: (1, 42, 0);

    /// `@mastra/core/tools` exports `submitPlanTool` (read from each swept
    /// version's exports).
    EXPORTS_SUBMIT_PLAN_TOOL => exports_submit_plan_tool: (1, 42, 0);

    /// `@mastra/core/tools` exports `taskWriteTool` (read from each swept
    /// version's exports).
    EXPORTS_TASK_WRITE_TOOL => exports_task_write_tool: (1, 42, 0);

    /// `@mastra/core/tools` exports `taskUpdateTool` (read from each swept
    /// version's exports).
    EXPORTS_TASK_UPDATE_TOOL => exports_task_update_tool: (1, 42, 0);

    /// `@mastra/core/tools` exports `taskCompleteTool` (read from each swept
    /// version's exports).
    EXPORTS_TASK_COMPLETE_TOOL => exports_task_complete_tool: (1, 42, 0);

    /// `@mastra/core/tools` exports `taskCheckTool` (read from each swept
    /// version's exports).
    EXPORTS_TASK_CHECK_TOOL => exports_task_check_tool: (1, 42, 0);

    /// `@mastra/core/tools` exports `webFetchTool` (read from each swept
    /// version's exports).
    EXPORTS_WEB_FETCH_TOOL => exports_web_fetch_tool: (1, 54, 0);

    /// `@mastra/core/tools` exports `webSearchTool` (read from each swept
    /// version's exports).
    EXPORTS_WEB_SEARCH_TOOL => exports_web_search_tool: (1, 55, 0);

    /// `@mastra/core/processors` exports `ToolSearchProcessor` (case field
    /// `toolSearch`), whose `processInputStep` hands each step `{
    /// search_tools, load_tool, ...stepTools, ...loadedTools }`, a loaded
    /// tool keyed by the name `load_tool` was given and never rewritten
    /// (1.67.0 `dist/agent-Dk0N0Nlg.js:15460`). First in 1.2.0: `bisect
    /// cases/toolsearch/loaded-tool-sent-unsanitised-generate.json --good
    /// 1.0.4 --bad 1.18.0`, 1.1.0 the same as 1.0.4 (not applicable, no
    /// export), 1.2.0 applicable and sending `search.web` unrewritten (5
    /// steps).
    TOOL_SEARCH_PROCESSOR => tool_search_processor: (1, 2, 0);
    /// `ToolSearchProcessor`'s `load_tool` refuses every call as failing its
    /// input validation (`Tool input validation failed for load_tool`, its
    /// `{ toolName }` arguments quoted), so nothing is ever loaded. Only
    /// on 1.11.0: `bisect cases/toolsearch/load-by-sanitised-name-not-found-generate.json
    /// --good 1.2.0 --bad 1.67.0`, 1.10.0 the same as 1.2.0, 1.11.0 refused
    /// (6 steps); `--good 1.11.0 --bad 1.67.0`: 1.12.0 differs (6 steps).
    /// Each refusal is the report a tool's rejected arguments get
    /// (`validate::report`, named `load_tool`): `run --cases cases/toolsearch
    /// --versions 1.11.0 --route all`, 144 results as modelled. So too is
    /// every call of `search_tools` (`run --cases
    /// cases/toolsearch/search-*.json --versions 1.2.0,1.11.0,1.13.2 --route
    /// all`: `{ "query": "weather" }` refused on 1.11.0 alone).
    TOOL_SEARCH_LOAD_REFUSED => tool_search_load_refused: (1, 11, 0) ..= (1, 11, 0), ended (1, 12, 0);
    /// With a `ToolSearchProcessor` every call fails before its first
    /// request: `Exhausted all fallback models. Last error: z.toJSONSchema
    /// is not available. Ensure zod >= 3.25.0 is installed.` (the install's
    /// zod is 3.25.76), on generate and stream. Only on 1.12.0: `bisect
    /// cases/toolsearch/load-by-sanitised-name-not-found-generate.json
    /// --good 1.12.0 --bad 1.67.0`, 1.13.2 differs (the next release served;
    /// 6 steps) and sends as 1.10.0 did. The throw has no id, and every
    /// turn of a case throws it; a sub-agent's listing throws first, as
    /// `SUB_AGENTS_THROW` (`run --cases cases/toolsearch --versions 1.12.0
    /// --route all`).
    TOOL_SEARCH_SCHEMA_THROWS => tool_search_schema_throws: (1, 12, 0) ..= (1, 12, 0), ended (1, 13, 2);
    /// `load_tool`'s answer for a name it does not find carries `toolName`
    /// beside `success` and `message`; before, those two alone. First in
    /// 1.31.0: `bisect cases/toolsearch/load-by-sanitised-name-not-found-generate.json
    /// --good 1.30.0 --bad 1.33.1`, 1.30.0 without it (2 steps). The same
    /// release takes `toolNames` too: `load_tool`'s `toolName` is optional
    /// (a call without it is answered that one must be given, where 1.30.0
    /// refuses it), its suggestions are the keys alone (1.30.0's add each id
    /// no key is), and `search_tools`' message says "Use load_tool with an
    /// exact toolName or a toolNames array" (1.30.0's "with the exact tool
    /// name"); read in 1.30.0 and 1.31.0's dist, and `bisect
    /// cases/toolsearch/search-finding-nothing-and-refusing-bad-arguments-generate.json
    /// --good 1.30.0 --bad 1.33.1`, 1.31.0 answering `load_tool`'s `{}`
    /// where 1.30.0 refuses it (2 steps).
    TOOL_SEARCH_NOT_FOUND_NAMED => tool_search_not_found_named: (1, 31, 0);
    /// With `tracing`, the calls of the tools a `ToolSearchProcessor` hands
    /// the step end tool spans (`tool: 'load_tool'`, then a loaded tool's
    /// under the name it was loaded by); before, those calls end none,
    /// while the agent's own tools, which it passes through, still do.
    /// First in 1.11.0: `run --cases
    /// cases/toolsearch/beside-tracing-spans-name-the-raw-id-*.json
    /// --versions 1.5.0,1.6.0,1.8.0,1.9.0,1.10.0`, `spans: []` on each,
    /// 1.11.0 and 1.13.2 to 1.71.0 the spans, every route (`bisect
    /// cases/toolsearch/beside-tracing-spans-name-the-raw-id-generate.json
    /// --good 1.6.0 --bad 1.13.2` stops at 1.9.0's history rewrite, with
    /// `spans: []` on both sides); `run --cases
    /// cases/toolsearch/beside-tracing-an-agent-tool-call-*.json --versions
    /// 1.2.0,1.5.0,1.8.0,1.10.0 --route all`: the agent's `weather` call's
    /// span alone on each.
    TOOL_SEARCH_TOOL_SPANS => tool_search_tool_spans: (1, 11, 0);
    /// The agent lists among its own tools what its input processors
    /// loaded in earlier calls (`listInputProcessorLoadedTools`, 1.34.0
    /// `dist/chunk-BK3GIF7W.js:26256`, spread after the other tools at
    /// `:27888`), keyed by the name each was loaded by, before
    /// `formatTools`: a later turn offers a tool loaded as `search.web` both
    /// as `search_web` and, from the processor's own record, as
    /// `search.web`; before, only the latter. First in 1.34.0: `bisect
    /// cases/toolsearch/later-turn-offers-a-tool-loaded-by-id-twice-generate.json
    /// --good 1.30.0 --bad 1.37.1`, 1.33.1 the same as 1.30.0 (3 steps).
    TOOL_SEARCH_LOADED_LISTED => tool_search_loaded_listed: (1, 34, 0);

    /// `Workspace` is exported (`@mastra/core/workspace`), and an agent
    /// given one offers its tools: with every tool but
    /// `mastra_workspace_read_file` disabled (`tools: { enabled: false, ... }`),
    /// that one tool, keyed and named `mastra_workspace_read_file`, spread
    /// after the agent's own tools and every other source's (`convertTools`,
    /// 1.8.0 `dist/chunk-VBPU6CLZ.js:21204`; `formatTools` then moves the
    /// keys it rewrites after it). First in 1.1.0: the 1.0.4 dist has no
    /// `workspace/` (`cases/workspace/`, `run --cases cases/workspace
    /// --versions '>=1.0.4'`).
    WORKSPACE_TOOLS => workspace_tools: (1, 1, 0);
    /// A workspace tool can be renamed (`WorkspaceToolConfig.name`): the
    /// name given replaces its record key and its id (`exposedName =
    /// config.name ?? name`), and two tools given one name throw "Duplicate
    /// workspace tool name", as does a name every plain object inherits
    /// (`if (tools[exposedName]) throw`: `__defineGetter__`, `toString`,
    /// ..., fuzz seed 1 cases 208, 499, 1128, 1209 on 1.67.0, and 1.9.0 and
    /// 1.71.0, before any request); the workspace's tools are spread after the
    /// agent's own (`convertTools`). The case field `workspace`
    /// (`cases/workspace/`). First in 1.9.0 (1.9.0 `dist/chunk-SEKQJ447.js:7815`;
    /// the 1.8.0 dist has workspace tools and no `exposedName`, and no
    /// release is served between them: `npm view @mastra/core versions`).
    WORKSPACE_TOOL_RENAMES => workspace_tool_renames: (1, 9, 0);
    /// The workspace's read tool answers text, `PATH (N bytes)` and the
    /// numbered lines (`/a.txt (5 bytes)\n     1→hello`); before, the object
    /// `{ content, size, path }`. A read of a file the folder does not
    /// hold is a tool error, `File not found: PATH` (`tool-error`, no
    /// result); before, the tool's MastraError as its result, which quotes
    /// the error as a sub-agent's did then (`SUB_AGENT_ERROR_QUOTES_CAUSE`).
    /// First in 1.5.0 (1.5.0 `dist/chunk-FZ5DRHKE.js:5321`; 1.4.0
    /// answers the object: `cases/workspace/` on 1.1.0 to 1.71.0).
    WORKSPACE_READ_TEXT => workspace_read_text: (1, 5, 0);
    /// The read tool's answer names the file as given (`a.txt`), not from
    /// the folder's root (`/a.txt`). Seen first on 1.13.2, the next release
    /// served after the two below, where no read runs.
    WORKSPACE_READ_PATH_AS_GIVEN => workspace_read_path_as_given: (1, 13, 2);
    /// Every call of the read tool fails its input validation ("schema is
    /// invalid: data/required must be array", the arguments quoted), as
    /// `load_tool`'s does (`TOOL_SEARCH_LOAD_REFUSED`): the report a tool's
    /// rejected arguments get. Only on 1.11.0 (`cases/workspace/` on 1.10.0,
    /// 1.11.0 and 1.12.0).
    WORKSPACE_READ_REFUSED => workspace_read_refused: (1, 11, 0) ..= (1, 11, 0), ended (1, 12, 0);
    /// With a workspace every call fails before its first request
    /// (`z.toJSONSchema is not available. Ensure zod >= 3.25.0 is
    /// installed.`), as with a `ToolSearchProcessor`
    /// (`TOOL_SEARCH_SCHEMA_THROWS`), as AGENT_GENERATE_FAILED /
    /// AGENT_STREAM_FAILED with no cause and nothing sent, on every route
    /// (`run --cases cases/workspace --versions 1.12.0 --route all`). Only
    /// on 1.12.0.
    WORKSPACE_SCHEMA_THROWS => workspace_schema_throws: (1, 12, 0) ..= (1, 12, 0), ended (1, 13, 2);
    /// Code Mode names each tool it hands the model's code `external_<id>`,
    /// the id (or key) with every character outside `A-Za-z0-9_$` made `_`
    /// (`sanitizeToolId`), and throws "Code Mode tool id collision" where
    /// two ids meet in one name; a program's call of a name no tool has is
    /// a `TypeError` in Code Mode's answer. The case field `codeMode`
    /// (`cases/code-mode/`). First in 1.38.0 (1.38.0
    /// `dist/chunk-OVDUY2GP.js:116`; absent from 1.37.1, the release before
    /// it: `bisect cases/code-mode/runs-by-the-id-made-an-identifier-generate.json
    /// --good 1.37.1 --bad 1.71.0`, 6 steps; `run --cases cases/code-mode
    /// --versions '>=1.0.4'`: as modelled on 1.38.0 to 1.71.0, not
    /// applicable before).
    CODE_MODE_EXTERNAL_NAMES => code_mode_external_names: (1, 38, 0);

    /// An agent network's routing request on `anthropic` asks for its pick
    /// as Anthropic's own structured output (the `structured-outputs`
    /// beta): the request offers no `tools`, and a text reply is the pick.
    /// Before, it is asked for as the provider's forced `json` tool
    /// (`tools: [json]`, `tool_choice: { type: "tool", name: "json",
    /// disable_parallel_tool_use: true }`), and a text reply ends the run
    /// after that one request, with no error. First in 1.25.0
    /// (`dist/chunk-3RIGZMZ5.js:14643`, `betas.add("structured-outputs-2025-11-13")`,
    /// absent from 1.24.1's dist; `bisect cases/network/tool-by-its-key-runs.json
    /// --good 1.0.4 --bad 1.71.0 --route anthropic`: 1.24.1 the same as
    /// 1.0.4, 1.25.0 changed, 6 steps).
    NETWORK_ANTHROPIC_NATIVE_OUTPUT => network_anthropic_native_output: (1, 25, 0);

    /// An agent network's routing request that the provider answers with an
    /// error, after a member ran and the completion check failed, is sent
    /// twice; from 1.51.0 once, and the run ends. `bisect
    /// cases/network/tool-by-its-key-runs.json --good 1.0.4 --bad
    /// 1.71.0` (openai-compatible): 1.50.1 the same as 1.0.4, 1.51.0
    /// changed (one request fewer), 6 steps; `run --cases cases/network
    /// --versions '>=1.0.4'` as modelled on every release.
    NETWORK_FAILED_ROUTING_SENT_TWICE => network_failed_routing_sent_twice: (1, 0, 4) ..= (1, 50, 1), ended (1, 51, 0);

    /// An agent network's routing step fails its own structured output's
    /// schema (as `SUB_AGENT_SCHEMA_BROKEN`'s sub-agents do), tries once
    /// more, and the run ends with no error chunk: two routing requests,
    /// nothing run, on every route but `anthropic`, whose forced `json`
    /// tool (`NETWORK_ANTHROPIC_NATIVE_OUTPUT`) ends it after one. Only on
    /// 1.11.0 (`run --cases cases/network --versions '>=1.0.4'`: every case
    /// with memory diverged on 1.11.0 alone before this line; `observe` on
    /// openai, google and anthropic the same).
    NETWORK_ROUTING_SCHEMA_BROKEN => network_routing_schema_broken: (1, 11, 0) ..= (1, 11, 0), ended (1, 12, 0);

    /// An agent network with memory sends nothing and ends with no error
    /// chunk: its routing step fails before its request (`z.toJSONSchema`,
    /// which zod 3.25.76 lacks, as with `SUB_AGENTS_THROW`), on every
    /// route. Only on 1.12.0 (`run --cases cases/network --versions
    /// '>=1.0.4'`, as for 1.11.0; `observe` on openai, google and
    /// anthropic the same).
    NETWORK_SCHEMA_THROWS => network_schema_throws: (1, 12, 0) ..= (1, 12, 0), ended (1, 13, 2);

    /// `submitPlanTool` takes the path of a plan file (`{ path: string }`);
    /// before, the plan itself (`{ title?: string, plan: string }`, at least
    /// one character). First in 1.47.0 (`dist/chunk-JVN7H2TP.js:4515`; 1.46.0
    /// `dist/chunk-HVCQJ5NJ.js:4512` has `plan`).
    SUBMIT_PLAN_TAKES_A_PATH => submit_plan_takes_a_path: (1, 47, 0);

    /// A sub-agent called without `prompt` (or with a `null` one) is given the
    /// first string among its call's `query`, `message` and `input` as its
    /// prompt, when that passes validation. First in 1.19.0 (`validateToolInput`,
    /// 1.19.0 `dist/chunk-EWPUWV33.js:262`, 1.67.0 `dist/tool-D0LLiaqQ.js:320`;
    /// absent from the 1.18.0 dist).
    PROMPT_ALIASES => prompt_aliases: (1, 19, 0);

    /// A call whose arguments are `null` is answered "Tool \"NAME\" received
    /// invalid arguments — the provided JSON could not be parsed. ..." (NAME as
    /// called) before the tool validates anything; before, the validator's
    /// report quoted `null`. First in 1.6.0 (1.6.0 `dist/chunk-IHDE4CJV.js:12494`,
    /// absent from the 1.5.0 dist; observed on 1.67.0 and 1.71.0 on every route).
    NULL_ARGUMENTS_REFUSED => null_arguments_refused: (1, 6, 0);

    /// On the `google` route a call whose `args` are `null` reaches the tool as
    /// `{}` (and is validated as such); before, as `null`, and from 1.25.0
    /// through 1.50.1 not at all (`GOOGLE_NULL_ARGUMENTS_LOST`). First in
    /// 1.51.0 (`cases/calls/null-arguments.json` and
    /// `cases/calls/null-arguments-dropped-on-google.json` on google: `null`
    /// through 1.24.1, dropped on 1.25.0, 1.50.0 and 1.50.1, `{}` on 1.51.0).
    GOOGLE_NULL_ARGUMENTS_EMPTY => google_null_arguments_empty: (1, 51, 0);

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
    GOOGLE_NULL_ARGUMENTS_LOST => google_null_arguments_lost: (1, 25, 0) ..= (1, 50, 1), ended (1, 51, 0);

    /// A call id used again replaces the earlier invocation with the later
    /// call's name; before, the earlier call's name was kept with the later
    /// result. First in 1.14.0 (`cases/calls/reused-call-id.json` over every
    /// 1.x: the earlier name through 1.13.2, the later from 1.14.0).
    REUSED_ID_TAKES_LATER_CALL => reused_id_takes_later_call: (1, 14, 0);

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
    /// result. The same release keeps a sub-agent's result so, memory or
    /// not: `bisect` of a sub-agent's call then a tool's call under its id
    /// (fuzz seed 1 case 1006) `--good 1.40.0 --bad 1.57.0 --route
    /// openai-compatible`: first changed 1.57.0 (last the same 1.55.0; 4
    /// steps); the tool's call then the sub-agent's takes the later result
    /// (`cases/calls/reused-call-id-after-a-sub-agent-call-keeps-its-result.json`).
    MEMORY_KEEPS_FIRST_RESULT => memory_keeps_first_result: (1, 57, 0);

    /// On the `openai` route, where history refers to earlier items, a call id
    /// used twice in one step is referred to by its first output item from
    /// 1.11.0 through 1.19.0, by its last (of a call that found its tool)
    /// before and after (`cases/calls/reused-call-id-in-one-step.json` over
    /// every 1.x on that route; items are referred to until 1.51.0).
    RESPONSES_REUSED_ID_FIRST_ITEM => responses_reused_id_first_item: (1, 11, 0) ..= (1, 19, 0), ended (1, 20, 0);

    /// On `stream()` the same reference names the id's first output item from
    /// 1.11.0 until history stops referring to items (`RESPONSES_CALLS_BY_NAME`),
    /// past the end of `RESPONSES_REUSED_ID_FIRST_ITEM` on `generate()`
    /// (`cases/calls/reused-call-id-on-stream.json` on openai: the last item on
    /// 1.8.0 and 1.10.0, the first on 1.11.0, 1.20.0, 1.26.0, 1.29.1, 1.30.0,
    /// 1.40.0 and 1.50.1; not traced to a dist line).
    STREAM_REUSED_ID_FIRST_ITEM => stream_reused_id_first_item: (1, 11, 0);

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
    REUSED_ID_MERGES_STEPS => reused_id_merges_later_steps: (1, 26, 0);

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
    MERGED_STEP_TAKES_LATER_ITEM => merged_step_takes_later_item: (1, 5, 0);

    /// In one step, a call whose arguments have no keys (`{}`, `null`, a
    /// number) takes the arguments of a later call of the step with its id,
    /// when those are truthy, and runs with them: the stream's output keeps the
    /// first `tool-call` chunk of an id and, `if (chunk.payload.args &&
    /// Object.keys(existing.payload.args || {}).length === 0)`, writes a later
    /// chunk's arguments into that first chunk's payload, which the step's
    /// tool runs share (1.29.0 `dist/chunk-224SOKKO.js:3505`, 1.29.1
    /// `dist/chunk-KHPY3KIA.js:3504`-`3508`; 1.28.0
    /// `dist/chunk-BPT3YHUU.js:3503` keeps the first chunk without writing its
    /// arguments). The later calls keep their own. The step's first call of
    /// the id is written to, whether or not an earlier step used the id.
    /// Measured with `cases/calls/reused-call-id-one-name-in-one-step.json`
    /// and thirteen variants (a later call of another name or none, three
    /// calls, one between, a wrong type, extra keys, `null`, an id of an
    /// earlier step) on every route of 1.25.0, 1.26.0, 1.28.0, 1.29.1 and
    /// 1.67.0 (google aside, whose calls carry the AI SDK's own ids). Found by
    /// the fuzzer on mistral. First in 1.29.0, not 1.29.1 as first written:
    /// the nightly of 2026-12-06 found that case and
    /// `reused-call-id-eager-run-has-its-own-arguments.json` diverging on
    /// 1.29.0 on every route but google, and `bisect` from 1.28.0 to 1.29.1
    /// names 1.29.0.
    EMPTY_ARGUMENTS_TAKE_LATER => empty_arguments_take_later: (1, 29, 0);

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
    STREAM_REUSED_ID_RUNS_ONCE => stream_reused_id_runs_once: (1, 52, 0);

    /// The same on the `groq` route, one release earlier: first in 1.51.0
    /// (`cases/found/seed1-case595-1.67.0-executed.json` and its variants run
    /// every call on 1.0.4, 1.13.2, 1.20.0, 1.30.0, 1.40.0, 1.45.0, 1.50.0,
    /// 1.50.1 and the first only on 1.51.0, 1.52.0, 1.67.0).
    GROQ_STREAM_REUSED_ID_RUNS_ONCE => groq_stream_reused_id_runs_once: (1, 51, 0);

    /// From 1.19.0 through 1.55.0 a sub-agent's call without a string
    /// `prompt` (a `query` alias included) makes no request and is answered
    /// "Cannot read properties of undefined (reading 'input')" as a tool
    /// error, before any validation; a call of the same step with a prompt
    /// runs (`cases/calls/sub-agent-without-prompt.json` and
    /// `sub-agent-without-prompt-beside-one-with-prompt*.json` over every
    /// 1.x; 1.57.0, the next release served, validates as elsewhere).
    SUB_AGENT_PROMPTLESS_THROWS => sub_agent_promptless_throws: (1, 19, 0) ..= (1, 55, 0), ended (1, 57, 0);

    /// A workflow's `inputData` sent as JSON text of an object is parsed and
    /// validated again (`coerceStringifiedJsonValues`, 1.10.0
    /// `dist/chunk-CY4ZWL2X.js:117`, called from `validateToolInput` at
    /// `:167`, for zod object fields only): from 1.3.0 through 1.10.0; 1.2.0
    /// and 1.11.0 reject the text (`cases/calls/workflow-input-data-as-text.json` on 1.1.0,
    /// 1.2.0, 1.3.0, 1.5.0, 1.7.0, 1.8.0, 1.9.0, 1.10.0, 1.11.0, 1.18.0,
    /// 1.30.0, 1.45.0, 1.57.0, 1.67.0, 1.69.0 and 1.71.0).
    WORKFLOW_TEXT_COERCED => workflow_text_coerced: (1, 3, 0) ..= (1, 10, 0), ended (1, 11, 0);

    /// On `stream()` on `google`, a call whose arguments are a string reaches
    /// Mastra with `{}` (its validation report quotes `{}`; `generate()` keeps
    /// the string). First in 1.25.0 (`bisect --good 1.0.4 --bad 1.67.0` on
    /// `cases/calls/google-stream-string-arguments.json`: last the same
    /// 1.24.1; found by the fuzzer, seed 3 case 2363).
    GOOGLE_STREAM_STRING_ARGUMENTS_EMPTY => google_stream_string_arguments_empty: (1, 25, 0);

    /// The first release with an `Agent`: 0.1.x is an integrations framework
    /// whose entry exports none (its install's probe says so), and no case
    /// applies there.
    AGENT_SINCE => has_agent: (0, 2, 0);

    /// `formatTools` and its rewrite (`search.web` sent as `search_web`): first
    /// in 0.13.2; 0.13.1 and earlier send every key as registered, a collision
    /// or the empty key included, and the provider rule judges the names
    /// (`bisect cases/report/search-web-is-sent-as-search_web.json --good
    /// 0.12.1 --bad 0.21.1`: 0.13.1 same as 0.12.1, 0.13.2 differs; the corpus
    /// on 0.13.1 and 0.13.2, every `merge/collision-*` and `js/empty-key-*`).
    FORMAT_TOOLS_SINCE => formats_tools: (0, 13, 2);

    /// `activeTools` filters the tools sent, by sent name: from the v5 loop
    /// (`bisect cases/active-tools/order-is-the-tools-order.json --good 0.12.1
    /// --bad 0.21.1`: 0.19.1 ignores it; the sweep of every 0.x: every
    /// `active-tools/*` case on 0.20.0 and 0.20.2 as on 0.21.0). A call of a
    /// tool it hides still runs (`cases/replies/call-hidden-by-activetools.json`
    /// on 0.21.1 and 0.24.9).
    ///
    /// The last 0.x release; 1.0.4 ignores `activeTools` until
    /// `releases::ACTIVE_TOOLS_APPLIED` (`bisect
    /// cases/active-tools/by-rewritten-name.json --good 0.24.9 --bad 1.0.4`).
    ACTIVE_TOOLS_ON_0X => active_tools_on_0x: (0, 20, 0) ..= (0, 24, 9), ended (1, 0, 4);

    /// The AI SDK v5 loop (`generate` and `stream` take v5 models only, 0.20.0
    /// `dist/chunk-DQISKQDE.js:713`). Before it the AI SDK v4 loop runs, and
    /// what differs there (a call naming no tool, arguments the schema
    /// rejects) is the AI SDK's own error, which ends the call.
    V5_LOOP_SINCE => v5_loop: (0, 20, 0);

    /// 0.x reads `requireToolApproval` and a tool's own `requireApproval`:
    /// a held call suspends the run (a `tool-call-approval` chunk on a
    /// stream) and `approveToolCall` / `declineToolCall` resume it. Any
    /// function is only tested for truth (a policy function is never asked
    /// and holds every call, a tool's `{ returns: false }` holds its call);
    /// `requireToolApproval: false` holds nothing. Before, the options are
    /// not read: the tool runs and the run goes on (0.14.0, 0.17.1, 0.18.0,
    /// 0.19.1). Measured on 2026-12-07, one call of `files_delete` under
    /// `true`, a policy function and the tool's own `requireApproval`,
    /// unanswered, declined and approved, both methods, every route, on
    /// 0.14.0, 0.17.1, 0.18.0, 0.19.1, 0.20.0, 0.20.2, 0.21.1, 0.22.2,
    /// 0.23.1 and 0.24.9 (`cases/approval/legacy-*`); `bisect
    /// legacy-held-call-unanswered-stream.json --good 0.14.0 --bad 0.21.1
    /// --route openai-compatible`: 0.20.0 (last the same 0.19.1, 4 steps).
    /// On 0.x `generate()` under a held call throws "promise 'text' was not
    /// resolved or rejected when stream finished" (`legacy_approval`).
    APPROVAL_READ_ON_0X => approval_read_on_0x: (0, 20, 0);

    /// A call held for approval has run already: its tool runs before the
    /// `tool-call-approval` chunk, with no answer given, and an answer to a
    /// call a policy held (`true` or a function) runs it again, a decline
    /// too, and the run goes on with its result; a decline of a call only
    /// the tool's own `requireApproval` held ends the run where it waited.
    /// Approval fails open (`approval-held-call-runs-on-0x` in the ledger).
    /// Measured as `APPROVAL_READ_ON_0X` is, every route (Gemini's calls
    /// have no scripted ids, so no answer reaches them: they stay
    /// unanswered); `bisect legacy-held-call-unanswered-stream.json --good
    /// 0.21.1 --bad 0.24.9 --route openai-compatible`: 0.23.1 (last the
    /// same 0.22.2, 3 steps; 0.23.0 is not served), and the same for a
    /// declined call and for the tool's own flag on mistral.
    APPROVAL_HELD_CALL_RUNS => approval_held_call_runs: (0, 20, 0) ..= (0, 22, 2), ended (0, 23, 1);

    /// A toolset's tool keeps its own `requireApproval`: its call is held.
    /// Before, only the agent's own tools keep it, and a toolset's tool
    /// runs as without approval (0.20.0 to 0.24.5). Measured on 0.20.0,
    /// 0.21.1, 0.22.2, 0.23.1 and 0.24.9, every route
    /// (`cases/approval/declined-toolset-call-*`); `bisect
    /// declined-toolset-call-alone-generate.json --good 0.23.1 --bad 0.24.9
    /// --route openai-compatible`: 0.24.6 (last the same 0.24.5, 3 steps).
    TOOLSET_TOOL_APPROVAL_SINCE => toolset_tool_approval: (0, 24, 6);

    /// The first v5 releases, which differ from the later ones in how
    /// sub-agents and workflows are named, API errors retried, a call naming
    /// no tool ended and history written (each switch below). Measured on
    /// 0.21.1 (the corpus, every route), against 0.24.9; the ends are the
    /// sweep's (docs/0x.md, "Boundaries measured").
    EARLY_V5 => early_v5: (0, 20, 0) ..= (0, 21, 1), ended (0, 22, 0);

    /// Every API error retried twice and ended in a plain `Error`: 0.21.0
    /// through 0.22.2 (`sweep --versions 0.21.1,0.22.0,...,0.24.9 --route
    /// openai-compatible`, docs/figures/sweep-0x.md: `active-tools/*` send the
    /// scripted 400 three times and end in "captured" on 0.22.0 and 0.22.2,
    /// once on 0.23.1; the sweep of every 0.x: once on 0.20.0 and 0.20.2, three
    /// times on 0.21.0).
    EVERY_ERROR_RETRIED => every_error_retried: (0, 21, 0) ..= (0, 22, 2), ended (0, 23, 1);

    /// An API error ends the call in a plain `Error` (`api_error`) from 0.20.2,
    /// whose model router replaced 0.20.0's own client, through the end of
    /// `EVERY_ERROR_RETRIED` (the sweep of every 0.x: every case answered by
    /// the default 400 on 0.20.2 ends in "captured", on mistral "Bad Request").
    PLAIN_API_ERROR => plain_api_error: (0, 20, 2) ..= (0, 22, 2), ended (0, 23, 1);

    /// Nothing is retried on 0.20.0 and 0.20.2, not even a 500 (the sweep of
    /// every 0.x: `cases/replies/retries-on-500.json` sends one request there,
    /// three on 0.19.1 and 0.21.0).
    NOTHING_RETRIED => nothing_retried: (0, 20, 0) ..= (0, 20, 2), ended (0, 21, 0);

    /// A `formatTools` failure ends the call as `AGENT_STREAM_FAILED` with the
    /// message "Unknown error", the thrown error not being read: on 0.20.0
    /// and 0.20.2 (the sweep of every 0.x: every `merge/collision-*`,
    /// `report/collision-*` and `js/empty-key-*` case; 0.21.0 gives the error's
    /// stack, `Error: Two or more tools ...`).
    FORMAT_ERROR_UNKNOWN => format_error_unknown: (0, 20, 0) ..= (0, 20, 2), ended (0, 21, 0);

    /// History written call by call (each call, then its result): from the v5
    /// loop through 0.24.2 (the same sweep: `replies/parallel-calls` changes at
    /// 0.24.2 to 0.24.5, every call ahead of every result after).
    HISTORY_PER_CALL => history_per_call: (0, 20, 0) ..= (0, 24, 2), ended (0, 24, 5);

    /// A call naming no tool ends the stream with no answer (`generate`:
    /// "promise 'text' was not resolved ..."): from the v5 loop through 0.24.6
    /// (the same sweep: `replies/call-by-unknown-name*` change at 0.24.6 to
    /// 0.24.8, "Tool X not found" after; the sweep of every 0.x puts it at
    /// 0.24.6 to 0.24.7).
    NO_TOOL_ENDS_SILENTLY => no_tool_ends_silently: (0, 20, 0) ..= (0, 24, 6), ended (0, 24, 7);

    /// The first release that calls an agent's `tools` given as a function of
    /// the request context (0.9.1 `dist/chunk-H2UWWO4L.js:180`); before it the
    /// function is taken as an object with no keys: no tools (the sweep of
    /// every 0.x: `cases/sources/dynamic-tools-*` send none on 0.2.0 to 0.9.0).
    DYNAMIC_TOOLS_SINCE => dynamic_tools: (0, 9, 1);

    /// The first release whose agent has `getTools()` (0.x's listing, which
    /// 1.x's `listTools()` replaced), added beside the function-of-context
    /// `tools` of `DYNAMIC_TOOLS_SINCE`; before it an agent has no listing
    /// method at all (plain Node on 0.2.0, 0.6.0 and 0.9.0: `typeof
    /// agent.getTools` is "undefined"; on 0.9.1 "function"). From it the
    /// listing is keyed as 1.x's is: `run --cases cases/lookups --versions
    /// 0.x` on 2026-12-05 observed the same keys as the 1.x model on every
    /// 0.x from 0.9.1 where the case applies, and no listing on 0.2.0 to
    /// 0.9.0.
    AGENT_GET_TOOLS_SINCE => agent_get_tools: (0, 9, 1);

    /// The first release whose `@mastra/server` serves `GET
    /// /agents/:agentId/tools/:toolId` (`getAgentToolHandler`, server 0.15.3
    /// `dist/chunk-A3ZHTDWB.js:94`, absent from 0.15.2's handlers; each 0.x
    /// core is paired with the server of its number or the newest before
    /// it, `version::extras`, so the server's line is the core's). Before it
    /// the route is not served: 404 for every name. 0.x's `GET /tools` and
    /// `GET /tools/:toolId` read a bundle's tools only (`src/mastra/tools`;
    /// the probe, as on 1.x, passes none), so they list nothing and find
    /// nothing on every 0.x server. `bisect
    /// cases/lookups/server-finds-the-id.json --good 0.14.1 --bad 0.17.1
    /// --route openai-compatible`: first changed 0.15.3 (last the same
    /// 0.15.2).
    AGENT_TOOL_ROUTE_SINCE => agent_tool_route: (0, 15, 3);

    /// The first release that takes a call's `clientTools` (0.8.3
    /// `dist/chunk-3DJ53HTG.js:1138`); before it they are ignored: neither
    /// sent nor found (the sweep of every 0.x: every `clientTools` case on
    /// 0.2.0 to 0.8.2 sends the agent's tools alone).
    CLIENT_TOOLS_SINCE => client_tools: (0, 8, 3);

    /// The first release whose agent offers its sub-agents as tools
    /// (`getAgentTools`, 0.21.1 `dist/chunk-HBJVAMCS.js:872`): on 0.21.0 and
    /// earlier a sub-agent is no tool, on the v5 loop as on the v4 one (the
    /// sweep of every 0.x: every `sources/sub-agent-*` and `calls/sub-agent-*`
    /// case sends no tools on 0.21.0, `a` on 0.21.1).
    SUB_AGENT_TOOLS_SINCE => sub_agent_tools: (0, 21, 1);

    /// The releases whose memory recalls semantically by default, embedding
    /// each message with the core's default embedder, fastembed, which
    /// downloads its model from storage.googleapis.com at the first message
    /// (0.4.2 `dist/chunk-M626YCHO.js:115` and `:135`; 0.8.3
    /// `dist/chunk-QBQ3CW2R.js:176`; 0.9.1 `dist/chunk-INXNZ5VE.js:119` and
    /// `:214`; 0.9.4 `dist/chunk-CIEPFV6B.js:320`): a call with memory needs
    /// the network, so no memory case applies (every memory case of the
    /// corpus on 0.4.2, 0.8.3, 0.9.1 and 0.9.4 ended in the refused download,
    /// `TAR_BAD_ARCHIVE` or, on 0.4.2, which caches the model inside
    /// `node_modules`, `EROFS`). 0.10.1's default has no semantic recall
    /// (`dist/chunk-2YYOF7DO.js:18`); before 0.4.2 no `@mastra/memory` release
    /// fits the core (`version::extras`).
    MEMORY_EMBEDS_BY_DEFAULT => memory_embeds_by_default: (0, 4, 2) ..= (0, 9, 4), ended (0, 10, 1);

    /// The first release whose `generate` tells its loop it is one (0.24.6
    /// `dist/chunk-LAQQETGP.js:1006`, `this.stream(messages, { ...,
    /// methodType: "generate" })`), so that a sub-agent called under it runs
    /// through the sub-agent's `generate`, which throws when its loop ends in
    /// an error (`:919`); before, every sub-agent is streamed, and its error
    /// ends its stream with no text (`cases/zero/sub-agent-failing-under-generate-answers-mastras-error.json`
    /// on 0.24.5: `{"text":""}`, on 0.24.6: Mastra's error object; 0.22.0 to
    /// 0.24.5 alike, found by the fuzzer on 0.24.9, seed 1 cases 734, 1608,
    /// 2324 and 2624).
    SUB_AGENT_GENERATED_SINCE => sub_agent_generated: (0, 24, 6);

    /// The first release whose `generate` wraps the AI SDK's error in a
    /// `MastraError` of id `LLM_GENERATE_TEXT_AI_SDK_EXECUTION_FAILED` (0.10.5
    /// `dist/chunk-YDGX5LRI.js:242`); 0.10.3 (0.10.4 is not served) and every
    /// earlier release end in the AI SDK's error itself, without an id (the
    /// sweep of every 0.x: `cases/calls/reused-call-id-naming-no-tool.json`
    /// and every `replies/call-by-*` on `generate`).
    GENERATE_ERROR_ID_SINCE => generate_error_id: (0, 10, 5);

    /// What a workflow tool answers its call with, by release: from
    /// `CREATE_WORKFLOW_SINCE` the run result alone, `{ status, steps, result
    /// }`; from this one wrapped with the run id, `{ result: { status, steps,
    /// result }, runId }`; from `WORKFLOW_RESULT_HAS_INPUT_SINCE` the run
    /// result carries its `input` too (found by the fuzzer on 0.13.2, seed 1
    /// cases 890 and 955; `bisect cases/zero/workflow-run-result-by-release.json`
    /// from 0.13.2 to 0.19.1: 0.15.3 the same as 0.13.2, 0.16.0 changed; from
    /// 0.16.0: 0.16.3 the same, 0.17.0 changed).
    WORKFLOW_RESULT_WRAPPED_SINCE => workflow_result_wrapped: (0, 16, 0);

    /// The run result of a workflow tool carries its `input`
    /// (`WORKFLOW_RESULT_WRAPPED_SINCE` gives the evidence: `bisect
    /// cases/zero/workflow-run-result-by-release.json` from 0.16.0: 0.16.3
    /// the same, 0.17.0 changed).
    WORKFLOW_RESULT_HAS_INPUT_SINCE => workflow_result_has_input: (0, 17, 0);

    /// The first release that exports `createWorkflow` from
    /// `@mastra/core/workflows`, which the probe builds a case's workflows
    /// with; before it a case with workflows is not applicable (the sweep:
    /// 0.9.4 lacks it, 0.10.1 has it).
    CREATE_WORKFLOW_SINCE => create_workflow: (0, 10, 1);

    /// The first release whose core bundles the AI SDK v5 providers a router
    /// string for `openai`, `anthropic` or `google` reaches its provider's
    /// own API through (`@ai-sdk/openai-v5` and the others in its
    /// `package.json` dependencies: absent from 0.20.0, present from 0.20.2).
    /// Before it, such a string goes through Mastra's own OpenAI-compatible
    /// client (0.20.0 `dist/chunk-AND6J5LG.js:1359`), no wire of those routes.
    ROUTER_PROVIDERS_SINCE => router_providers: (0, 20, 2);

    /// The first release whose model router sends a `{ id, url }` model to its
    /// `url` (0.21.0 `dist/chunk-VNVHOWW4.js:2032`). 0.20.2's router reads no
    /// url and sends it to the provider its id names (`dist/chunk-BZ6BIHLE.js:1352`;
    /// observed: `cases/report/*` on 0.20.2 sent to the OpenAI Responses API),
    /// so the `openai-compatible` route has no wire there; 0.20.0's own client
    /// posts to the url itself, the whole endpoint (`:1548`).
    MODEL_URL_SINCE => model_url: (0, 21, 0);

    /// The first release whose core bundles `@ai-sdk/mistral-v5` (its
    /// `package.json` dependencies, as the registry serves them: absent from
    /// 0.24.0, present from 0.24.1).
    MISTRAL_BUNDLED_SINCE => mistral_bundled: (0, 24, 1);
}

/// The error a sub-agent's call without a string `prompt` is answered with
/// (`SUB_AGENT_PROMPTLESS_THROWS`).
pub const SUB_AGENT_PROMPTLESS_MESSAGE: &str =
    "Cannot read properties of undefined (reading 'input')";

/// The message of the failure `SUB_AGENTS_THROW` names.
pub const SUB_AGENTS_THROW_MESSAGE: &str =
    "z.toJSONSchema is not available. Ensure zod >= 3.25.0 is installed.";

/// Whether a line began or ended at a release (`changes_at`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The release is the line's first.
    Began,
    /// The release is the first measured without it.
    Ended,
}

/// What changed at `version`: every line that begins there, and every line
/// that ended there, in the table's order.
pub fn changes_at(version: MastraVersion) -> Vec<(Change, &'static Boundary)> {
    let version = version.release();
    TABLE
        .iter()
        .filter_map(|b| {
            if b.first == version {
                Some((Change::Began, b))
            } else if b.ended == Some(version) {
                Some((Change::Ended, b))
            } else {
                None
            }
        })
        .collect()
}

/// The whole table as JSON, the lines in order: what
/// `node-probe/releases.json` holds (`mastra-conform changes --json`).
pub fn table_json() -> Json {
    Json::object([
        (
            "about",
            Json::str(
                "Written from harness/model/releases.rs by `mastra-conform changes --json`; \
                 a line holds from `first` through `last`, both included, and `ended` is \
                 the first release measured without it.",
            ),
        ),
        (
            "boundaries",
            Json::Array(TABLE.iter().map(Boundary::to_json).collect()),
        ),
    ])
}

/// The rules that combine lines of the table.
impl Release {
    /// A 0.x release: the line before 1.x, with its own loop (`legacy`).
    pub fn on_0x(&self) -> bool {
        self.version.major == 0
    }

    /// Not a 0.x release.
    pub fn on_1x(&self) -> bool {
        !self.on_0x()
    }

    /// Whether the model covers this version at all: the swept 1.x line,
    /// and the 0.x releases with an `Agent` (`AGENT_SINCE`).
    pub fn is_modelled(&self) -> bool {
        self.version.major == 1 || (self.on_0x() && self.has_agent)
    }

    /// `activeTools` filters the tools sent: on 0.x within
    /// `ACTIVE_TOOLS_ON_0X`, on 1.x from `ACTIVE_TOOLS_APPLIED`.
    pub fn active_tools_applied(&self) -> bool {
        self.active_tools_on_1x || self.active_tools_on_0x
    }

    /// Each step's calls are followed by that step's results: on 1.x from
    /// `HISTORY_PER_STEP`, and on 0.x's AI SDK v4 loop, which writes
    /// history per step too (`legacy`).
    pub fn history_per_step(&self) -> bool {
        self.history_per_step_on_1x || !self.v5_loop
    }

    /// Every route's model goes through Mastra's own OpenAI-compatible
    /// client: 0.x's v5 loop before `ROUTER_PROVIDERS_SINCE` (0.20.0).
    pub fn own_client(&self) -> bool {
        self.on_0x() && self.v5_loop && !self.router_providers
    }

    /// Retries of a retryable API error: two before `NO_RETRIES`, none
    /// from it.
    pub fn retries(&self) -> u32 {
        if self.no_retries {
            0
        } else {
            2
        }
    }

    /// `openai` route: history refers to earlier calls as `item_reference`s,
    /// before `RESPONSES_CALLS_BY_NAME`. 0.x's v4 provider
    /// (`@ai-sdk/openai` 1.3.24) and the releases within `HISTORY_PER_CALL`
    /// send calls by name (`function_call` items; every `replies/` case
    /// `@openai` on 0.13.1, 0.13.2 and 0.21.1; `found/seed1-case421-*` and
    /// `-case550-*` `@openai` on 0.22.0 to 0.24.2; 0.24.5 on refers to
    /// them, as 1.x before `RESPONSES_CALLS_BY_NAME`).
    pub fn responses_item_references(&self) -> bool {
        !self.responses_calls_by_name && self.v5_loop && !self.history_per_call
    }

    /// Whether a call id used again in a later step merges that step into
    /// the message holding the id's invocation: on 1.x before
    /// `REUSED_ID_TAKES_LATER_CALL` and from `REUSED_ID_MERGES_STEPS`, and
    /// on 0.x's v5 loop. There `MessageList.add` appends an assistant
    /// message to the latest one, a part of a known call id being an
    /// anchor whose invocation takes the later result and keeps its name,
    /// and `addPartsToLatestMessage` places each other part by the anchors
    /// (0.21.1 `dist/chunk-T3PBU7JK.js:1446` and `:1577`). So the
    /// invocation stays where it was and a new call ahead of it in the
    /// step goes in ahead of it. Found by the fuzzer on 0.21.1, seed 1:
    /// case 623 (`cases/zero/reused-id-in-a-later-step-moves-to-the-end.json`,
    /// `call_2`'s result ahead of `call_1`'s), case 56, with memory
    /// (`cases/zero/reused-id-in-a-later-step-with-memory-stays-in-place.json`),
    /// case 452, two calls of one MCP tool and the next step's reuse of the
    /// first id under another tool's name, still written under the first
    /// name, in place (`cases/zero/reused-id-alone-in-a-later-step-keeps-its-place-and-name.json`).
    pub fn reused_id_merges_steps(&self) -> bool {
        self.v5_loop && (!self.reused_id_takes_later_call || self.reused_id_merges_later_steps)
    }

    /// `openai` route: a merged step keeps the earlier item's reference,
    /// where steps merge, before `MERGED_STEP_TAKES_LATER_ITEM` (0.x's v5
    /// loop included).
    pub fn merged_step_keeps_earlier_item(&self) -> bool {
        self.v5_loop && !self.merged_step_takes_later_item
    }

    /// Whether a sub-agent or workflow is a tool under its key alone (`a`,
    /// `w`), not `agent-KEY` / `workflow-KEY`: on the v4 loop (workflows;
    /// sub-agents are no tools there) and on the first v5 releases
    /// (`EARLY_V5`; `steps::legacy_loop::convert_tools` cites the cases).
    pub fn names_sources_by_key(&self) -> bool {
        !self.v5_loop || self.early_v5
    }

    /// Whether a 0.x install's `@mastra/mcp` reaches one server per client
    /// (`version::extras::mcp_client_of_one_server`).
    pub fn mcp_client_of_one_server(&self) -> bool {
        self.on_0x() && crate::version::extras::mcp_client_of_one_server(self.version)
    }

    /// Whether the release's install has `@mastra/server`, whose tool routes
    /// `lookups` asks (`version::extras::has_server`: every 1.x, and 0.x
    /// from 0.10.3 where a server's range admits the core).
    pub fn has_server(&self) -> bool {
        crate::version::extras::has_server(self.version)
    }

    /// Whether the release exports the builtin `name` of
    /// `@mastra/core/tools`.
    pub fn exports_builtin(&self, name: &str) -> bool {
        match name {
            "askUserTool" => self.exports_ask_user_tool,
            "submitPlanTool" => self.exports_submit_plan_tool,
            "taskWriteTool" => self.exports_task_write_tool,
            "taskUpdateTool" => self.exports_task_update_tool,
            "taskCompleteTool" => self.exports_task_complete_tool,
            "taskCheckTool" => self.exports_task_check_tool,
            "webFetchTool" => self.exports_web_fetch_tool,
            "webSearchTool" => self.exports_web_search_tool,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ver(s: &str) -> MastraVersion {
        MastraVersion::parse(s).unwrap()
    }

    /// Every line's names are unique, its range is in order, and an ended
    /// line's end follows its last release.
    #[test]
    fn every_line_is_well_formed() {
        for (i, b) in TABLE.iter().enumerate() {
            assert!(!b.evidence_text().is_empty(), "{}: no evidence", b.name);
            if let (Some(last), Some(ended)) = (b.last, b.ended) {
                assert!(b.first <= last && last < ended, "{}", b.name);
            }
            for other in &TABLE[i + 1..] {
                assert_ne!(b.name, other.name);
                assert_ne!(b.field, other.field);
            }
        }
    }

    /// A line holds from its first release through its last, and
    /// `changes_at` names it at its first and at its end.
    #[test]
    fn a_range_holds_through_its_last_and_is_a_change_at_its_end() {
        let r = |s: &str| Release::of(ver(s));
        assert!(!r("1.56.0").tool_error_ends_memory_calls);
        assert!(r("1.57.0").tool_error_ends_memory_calls);
        assert!(!r("1.57.1").tool_error_ends_memory_calls);
        assert!(!r("1.58.0").tool_error_ends_memory_calls);
        let at = |s: &str| changes_at(ver(s));
        assert!(at("1.58.0").contains(&(Change::Ended, &TOOL_ERROR_ENDS_MEMORY_CALLS)));
        assert!(at("1.57.0").contains(&(Change::Began, &TOOL_ERROR_ENDS_MEMORY_CALLS)));
        assert_eq!(
            at("1.69.0"),
            vec![
                (Change::Began, &APPROVAL_LATER_CALLS_ASKED),
                (Change::Began, &REUSED_ID_RUNS_LAST)
            ]
        );
        assert!(at("1.62.0").is_empty());
        assert_eq!(SUB_AGENT_PROMPTLESS_THROWS.range(), "from 1.19.0 to 1.55.0");
        assert_eq!(SUB_AGENTS_THROW.range(), "on 1.12.0");
        assert_eq!(ACTIVE_TOOLS_APPLIED.range(), "from 1.1.0");
    }

    /// A prerelease is its release to `changes_at`.
    #[test]
    fn a_prerelease_changes_as_its_release() {
        assert_eq!(changes_at(ver("1.69.0-alpha.3")), changes_at(ver("1.69.0")));
    }

    /// The JSON the probe and the loader read is the table's: the file
    /// committed under node-probe/ is what `table_json` writes now.
    #[test]
    fn node_probe_releases_json_is_the_table() {
        let committed = include_str!("../../node-probe/releases.json");
        let now = format!("{}\n", table_json().to_pretty());
        assert!(
            committed == now,
            "node-probe/releases.json is stale: run `cargo run -- changes --json > node-probe/releases.json`"
        );
    }
}
