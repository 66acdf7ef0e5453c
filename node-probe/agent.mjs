// The agent and the call of one case of docs/case-format.md, built on a
// given @mastra/core and run to its end: the tools objects, the options, the
// case's sources, generate() or the stream drained, and what the call ended
// with.
//
// The probe runs it (cases.mjs, for probe.mjs and ceiling.mjs) and
// `mastra-conform repro` inlines it into its script, so a reproduction runs
// exactly the case the harness ran. Nothing here imports @mastra/core: the
// caller passes the one to use as `lib`:
//
//   lib = {
//     Agent, createTool, toolsModule, z   the @mastra/core (and zod) under test
//     mastraVersion                       its version, for "not applicable"
//     importPackage(specifier)            imports a package installed beside it
//     mcpServer(namesFile)                { command, args } of an MCP server
//                                         listing the tool names in namesFile
//   }

import { agentListing, serverLookups } from './lookups.mjs';
import { modelFor, routeOf } from './routes.mjs';
import { checkSources, isObject, prepareSources } from './sources.mjs';
import { newTracer } from './tracing.mjs';

/** A request the probe cannot turn into a case: answered as {"fault": ...}. */
export class CaseFault extends Error {
  constructor(message) {
    super(message);
    this.name = 'CaseFault';
  }
}

// ---------------------------------------------------------------------------
// Validating a case
//
// The Rust side validates case files; this is the last line of defence, so
// that a malformed request becomes a fault line instead of a Mastra error
// that would read as an observation.

function checkToolList(list, where) {
  if (!Array.isArray(list)) throw new CaseFault(`${where} must be an array of TOOL`);
  list.forEach((t, i) => {
    if (typeof t === 'string') return;
    if (!isObject(t) || typeof t.key !== 'string') {
      throw new CaseFault(`${where}[${i}] must be a KEY string or an object with a string "key"`);
    }
    if ('builtin' in t) {
      if (typeof t.builtin !== 'string') throw new CaseFault(`${where}[${i}].builtin must be a string`);
    } else {
      if (t.requireApproval !== undefined && !isToolApproval(t.requireApproval)) {
        throw new CaseFault(
          `${where}[${i}].requireApproval must be true, {"returns": true|false} or {"throws": string} when given`,
        );
      }
      if (typeof t.id !== 'string') throw new CaseFault(`${where}[${i}].id must be a string`);
      if (t.description !== undefined && typeof t.description !== 'string') {
        throw new CaseFault(`${where}[${i}].description must be a string`);
      }
    }
  });
}

/** A TOOL's `requireApproval` as case-format.md writes it. */
function isToolApproval(a) {
  if (a === true) return true;
  if (!isObject(a)) return false;
  const keys = Object.keys(a);
  if (keys.length !== 1) return false;
  return typeof a.returns === 'boolean' || typeof a.throws === 'string';
}

/** Check a case; resolves to its call's method, throws CaseFault. */
export function checkCase(c) {
  if (!isObject(c)) throw new CaseFault('case must be a JSON object');
  if (c.tools !== undefined) checkToolList(c.tools, 'tools');
  if (c.toolsets !== undefined) {
    if (!isObject(c.toolsets)) throw new CaseFault('toolsets must be an object of TOOL arrays');
    for (const [name, list] of Object.entries(c.toolsets)) checkToolList(list, `toolsets[${JSON.stringify(name)}]`);
  }
  if (c.clientTools !== undefined) checkToolList(c.clientTools, 'clientTools');
  if (c.toolSearch !== undefined) {
    const keys = isObject(c.toolSearch) ? Object.keys(c.toolSearch) : [];
    if (keys.length !== 1 || keys[0] !== 'tools') throw new CaseFault('toolSearch must be { "tools": [TOOL, ...] }');
    checkToolList(c.toolSearch.tools, 'toolSearch.tools');
  }
  if (c.toolCallFilter !== undefined) {
    const exclude = isObject(c.toolCallFilter) ? c.toolCallFilter.exclude : undefined;
    if (!Array.isArray(exclude) || !exclude.every((n) => typeof n === 'string')) {
      throw new CaseFault('toolCallFilter must be { "exclude": [string, ...] }');
    }
  }
  if (c.workspace !== undefined) {
    const w = c.workspace;
    const keys = isObject(w) ? Object.keys(w) : null;
    if (keys === null || keys.some((k) => k !== 'name') || (keys.length === 1 && typeof w.name !== 'string')) {
      throw new CaseFault('workspace must be {} or { "name": string }');
    }
  }
  if (c.codeMode !== undefined && !(isObject(c.codeMode) && Object.keys(c.codeMode).length === 0)) {
    throw new CaseFault('codeMode must be {}');
  }
  if (c.network !== undefined && !(isObject(c.network) && Object.keys(c.network).length === 0)) {
    throw new CaseFault('network must be {}');
  }
  if (c.call !== undefined && !isObject(c.call)) throw new CaseFault('call must be an object');
  if (c.turns !== undefined) {
    if (c.call !== undefined) throw new CaseFault('turns replaces call: a case has one or the other');
    if (!Array.isArray(c.turns) || c.turns.length === 0) throw new CaseFault('turns must be a non-empty array of CALL');
    for (const [i, t] of c.turns.entries()) checkCall(t, `turns[${i}]`);
  } else {
    checkCall(c.call ?? {}, 'call');
  }
  if (c.tracing !== undefined && typeof c.tracing !== 'boolean') throw new CaseFault('tracing must be true or false');
  if (c.lookups !== undefined && typeof c.lookups !== 'boolean') throw new CaseFault('lookups must be true or false');
  if (c.replies !== undefined && !Array.isArray(c.replies)) throw new CaseFault('replies must be an array');
  checkApproval(c);
  if (routeOf(c) === null) throw new CaseFault(`route ${JSON.stringify(c.route)} is not a route of case-format.md`);
  checkSources(c, (message) => new CaseFault(message));
  return callsOf(c)[0].method ?? 'generate';
}

/**
 * How long after a turn on a memory's thread the next one starts. Mastra
 * stamps the messages of one turn created in the same millisecond one
 * millisecond apart, so the last of them can lie a few milliseconds in the
 * future; before 1.6.0 a turn started within that window had its prompt
 * stamped earlier and recalled before the previous turn's messages, varying
 * with the clock (1.0.4 to 1.5.0, measured). A person's next turn comes
 * later than that, and so does the probe's.
 */
const TURN_GAP_MS = 50;

async function paceTurn(lastEnded) {
  const wait = lastEnded + TURN_GAP_MS - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** The calls of a case, in order: its `turns`, or its one `call`. */
export function callsOf(c) {
  return c.turns ?? [c.call ?? {}];
}

/** One CALL: `call`, or an entry of `turns` (which may add a `prompt`). */
function checkCall(call, where) {
  if (!isObject(call)) throw new CaseFault(`${where} must be an object`);
  const method = call.method ?? 'generate';
  if (method !== 'generate' && method !== 'stream') {
    throw new CaseFault(`${where}.method must be "generate" or "stream", not ${JSON.stringify(method)}`);
  }
  if (call.prompt !== undefined && typeof call.prompt !== 'string')
    throw new CaseFault(`${where}.prompt must be a string`);
  const policy = call.requireToolApproval;
  if (policy !== undefined && typeof policy !== 'boolean') {
    const names = isObject(policy) ? policy.names : undefined;
    if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
      throw new CaseFault(`${where}.requireToolApproval must be true, false or {"names": [string, ...]}`);
    }
  }
  const stop = call.stopWhen;
  if (
    stop !== undefined &&
    !(isObject(stop) && Object.keys(stop).join() === 'hasToolCall' && typeof stop.hasToolCall === 'string')
  ) {
    throw new CaseFault(`${where}.stopWhen must be {"hasToolCall": string}`);
  }
}

/** `approvals` (case-format.md). */
function checkApproval(c) {
  if (c.approvals !== undefined) {
    if (!isObject(c.approvals)) throw new CaseFault('approvals must be an object of call ids');
    for (const [id, answer] of Object.entries(c.approvals)) {
      if (answer !== 'approve' && answer !== 'decline') {
        throw new CaseFault(`approvals[${JSON.stringify(id)}] must be "approve" or "decline"`);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Running a case

/**
 * Run one checked case against the model URL `url`; `fetches()` counts the
 * requests the case has made so far (cases.mjs), which is how each turn's
 * share of them is told. Resolves to {applicable, reason, error, executed,
 * mutated, seen, lookups}, `error` described by describeError, `lookups` with
 * `lookups: true` only ({ agentTools: { method, keys } | null, server }, the
 * server's routes where the install has `@mastra/server`: lookups.mjs); a case with `turns`
 * to {applicable, reason, mutated, turns: [{error, executed, seen,
 * requests}]}, `requests` the number each turn made. Throws CaseFault when
 * the case cannot be built at all. Never rejects with a Mastra error: those
 * are the observation.
 */
export async function runAgent(lib, c, url, fetches = () => 0) {
  const notApplicable = (reason) => ({
    applicable: false,
    reason,
    error: null,
    executed: [],
    mutated: [],
    seen: emptySeen(),
  });
  // On 0.x (legacy.mjs): a release without an Agent, or a case it cannot
  // build (a package or an export it lacks, a route it cannot name).
  const legacy = lib.legacy ?? null;
  if (legacy?.noAgent) return notApplicable(legacy.noAgent);
  const onlyOn1x =
    c.turns !== undefined
      ? 'turns'
      : c.memory === true
        ? 'memory: true'
        : c.tracing
          ? 'tracing'
          : c.mcpListing === 'listToolsets'
            ? 'mcpListing: listToolsets'
            : c.mcpApproval !== undefined
              ? 'mcpApproval'
              : callsOf(c).some((call) => call.stopWhen !== undefined)
                ? 'stopWhen'
                : c.toolCallFilter !== undefined
                  ? 'toolCallFilter'
                  : c.workspace !== undefined
                    ? 'workspace'
                    : c.codeMode !== undefined
                      ? 'codeMode'
                      : c.network !== undefined
                        ? 'network'
                        : null;
  if (legacy && onlyOn1x !== null) {
    return notApplicable(`@mastra/core ${lib.mastraVersion}: ${onlyOn1x} is driven on 1.x only`);
  }
  // Applicability first: a builtin this version lacks means the case does
  // not exist here, whatever else it holds.
  const missing = missingBuiltin(lib, c);
  if (missing) return notApplicable(`@mastra/core ${lib.mastraVersion} does not export ${missing}`);
  let model = modelFor(routeOf(c), url);
  if (legacy) {
    const named = await legacy.model(lib, routeOf(c), url, modelFor);
    const lacking = named.reason ?? (await legacy.missing(lib, c));
    if (lacking) return notApplicable(lacking);
    model = named.model;
  }

  // Each run of a case tool's execute, in order. The first argument is what
  // the tool received: on 1.0.4, 1.67.0 and 1.71.0 alike execute is called as
  // (parsedInput, context), so that is the validated input object.
  const executed = [];
  const makeExecute = (id) =>
    async function execute(arg) {
      const input = legacy ? legacy.input(arg) : arg;
      executed.push({ id, input: jsonSnapshot(input) });
      return { tempC: 20 };
    };
  // Each call of a tool's own `requireApproval` function, in order, as
  // `executed` is kept: what it was asked (`seen.approval.toolAsked`).
  const toolAsked = [];
  const inputSchema = lib.z.object({ city: lib.z.string() });
  const newTool = (id, description, requireApproval) => {
    try {
      const approval =
        requireApproval === undefined ? {} : { requireApproval: toolApproval(requireApproval, id, toolAsked) };
      // A case may leave `description` out: then createTool is not given one.
      const described = description === undefined ? {} : { description };
      return lib.createTool({ id, ...described, inputSchema, ...approval, execute: makeExecute(id) });
    } catch (e) {
      throw new CaseFault(`createTool({ id: ${JSON.stringify(id)} }) threw: ${e?.message ?? e}`);
    }
  };
  // Every shorthand in a case is the same tool object (case-format.md).
  let standard = null;
  const toolOf = (t) => {
    if (typeof t === 'string') {
      standard ??= newTool('get-weather', 'Get the weather');
      return standard;
    }
    if ('builtin' in t) return lib.toolsModule[t.builtin];
    return newTool(t.id, t.description, t.requireApproval);
  };
  // Object.fromEntries semantics, by using it: own data properties in case
  // order, "__proto__" an ordinary own key, a repeated key keeps its first
  // position and takes the later tool, integer-like keys first (as any JS
  // object orders them).
  const build = (list) => Object.fromEntries(list.map((t) => [typeof t === 'string' ? t : t.key, toolOf(t)]));

  const tools = build(c.tools ?? []);
  const watched = [['tools', tools]];
  // Options every turn shares: the case's toolsets and client tools.
  const shared = {};
  if (c.toolsets !== undefined) {
    const toolsets = Object.fromEntries(Object.entries(c.toolsets).map(([name, list]) => [name, build(list)]));
    watched.push(['toolsets', toolsets]);
    for (const [name, set] of Object.entries(toolsets)) watched.push([`toolsets.${name}`, set]);
    shared.toolsets = toolsets;
  }
  if (c.clientTools !== undefined) {
    shared.clientTools = build(c.clientTools);
    watched.push(['clientTools', shared.clientTools]);
  }

  // Snapshot before the Agent exists: its constructor may already touch them.
  const before = watched.map(([name, obj]) => [name, obj, shapeOf(obj)]);

  // `toolSearch`: a processor of its own for each case, since the default
  // store keeps what was loaded per thread ('default' without one) for as
  // long as the processor lives.
  let inputProcessors;
  if (c.toolSearch !== undefined) {
    const ToolSearchProcessor = await toolSearchProcessor(lib);
    if (ToolSearchProcessor === null) {
      return notApplicable(`@mastra/core ${lib.mastraVersion} does not export ToolSearchProcessor`);
    }
    inputProcessors = [new ToolSearchProcessor({ tools: build(c.toolSearch.tools) })];
  }
  // `toolCallFilter`: after `toolSearch`'s processor, as users list them.
  if (c.toolCallFilter !== undefined) {
    const ToolCallFilter = await processorExport(lib, 'ToolCallFilter');
    if (ToolCallFilter === null) {
      return notApplicable(`@mastra/core ${lib.mastraVersion} does not export ToolCallFilter`);
    }
    inputProcessors = [...(inputProcessors ?? []), new ToolCallFilter({ exclude: c.toolCallFilter.exclude })];
  }

  // `workspace`: its one tool, the read tool, among the agent's.
  const workspace = c.workspace === undefined ? undefined : await workspaceOf(lib, c.workspace);
  if (workspace === null) return notApplicable(`@mastra/core ${lib.mastraVersion} does not export Workspace`);

  // `codeMode`: the case's tools handed to Code Mode, run when the agent is made.
  const codeMode = c.codeMode === undefined ? undefined : await codeModeOf(lib);
  if (codeMode === null) return notApplicable(`@mastra/core ${lib.mastraVersion} does not export createCodeMode`);

  // Sub-agents, workflows, MCP servers, memory, dynamic tools (sources.mjs).
  // Each call of a server-level policy function, in order
  // (`seen.approval.serverAsked`).
  const serverAsked = [];
  const sources = await prepareSources(lib, c, tools, model, (message) => new CaseFault(message), serverAsked);
  Object.assign(shared, sources.callOptions);
  if (sources.mcpToolsets !== null) shared.toolsets = { ...(shared.toolsets ?? {}), ...sources.mcpToolsets };
  if (inputProcessors !== undefined) sources.agentOptions.inputProcessors = inputProcessors;
  if (workspace !== undefined) sources.agentOptions.workspace = workspace;

  const turns = [];
  let tracer = null;
  let mastra = null;
  // `lookups`: null until there is an agent to ask.
  const lookups = c.lookups !== true ? undefined : { agentTools: null, server: null };
  try {
    let agent;
    try {
      // Code Mode's own throw (an id collision) is the call's error, as the
      // constructor's is; its tool replaces the agent's (and MCP's) tools.
      const made = codeMode === undefined ? {} : codeMode(tools);
      agent = new lib.Agent({
        id: 'probe',
        name: 'probe',
        instructions: 'p',
        model,
        tools,
        ...sources.agentOptions,
        ...made,
      });
      const registered = await register(lib, c, agent);
      tracer = registered.tracer;
      mastra = registered.mastra;
      if (lookups !== undefined) {
        lookups.agentTools = await agentListing(agent);
        const names = (c.tools ?? []).map((t) => [typeof t === 'string' ? t : t.key, toolOf(t)]);
        if (registered.mastra !== null) lookups.server = await serverLookups(lib, registered.mastra, agent, names);
      }
    } catch (e) {
      // What the constructor threw: the first turn's error; no call was made.
      turns.push({ error: e, executed: [], seen: emptySeen(), requests: fetches() });
      throw null;
    }
    let lastEnded = null;
    for (const call of callsOf(c)) {
      if (lastEnded !== null) await paceTurn(lastEnded);
      const start = {
        executed: executed.length,
        toolAsked: toolAsked.length,
        serverAsked: serverAsked.length,
        requests: fetches(),
        spans: tracer?.spans.length ?? 0,
      };
      const seen = emptySeen();
      let error;
      try {
        error =
          c.network !== undefined
            ? await runNetwork(agent, call, { ...shared, ...callOptions(call, seen) }, seen)
            : await runCall(agent, call, { ...shared, ...callOptions(call, seen) }, seen, c.approvals ?? {}, !legacy);
      } catch (e) {
        // What generate() or `await agent.stream()` threw.
        error = e;
      }
      if (tracer !== null) seen.spans = await tracer.since(start.spans);
      if (hasApprovalFunction(c)) seen.approval.toolAsked = toolAsked.slice(start.toolAsked);
      if (hasServerApprovalFunction(c)) seen.approval.serverAsked = serverAsked.slice(start.serverAsked);
      turns.push({ error, executed: executed.slice(start.executed), seen, requests: fetches() - start.requests });
      if (c.memory !== undefined) lastEnded = Date.now();
    }
  } catch (e) {
    if (e !== null) throw e;
  } finally {
    await tracer?.close();
    await sources.close();
    unregisterHooks(mastra);
  }

  const mutated = before.filter(([, obj, shape]) => !sameShape(shape, shapeOf(obj))).map(([name]) => name);
  // `toolAsked` stands wherever `seen` does, once a tool has a function.
  if (hasApprovalFunction(c)) for (const t of turns) t.seen.approval.toolAsked ??= [];
  if (hasServerApprovalFunction(c)) for (const t of turns) t.seen.approval.serverAsked ??= [];
  const described = turns.map((t) => ({
    error: t.error === null || t.error === undefined ? null : describeError(t.error),
    executed: t.executed,
    seen: t.seen,
    requests: t.requests,
  }));
  if (c.turns !== undefined) return { applicable: true, reason: null, turns: described, mutated, lookups };
  const [only] = described;
  // 0.x is outside what `seen` covers (docs/seen.md).
  return {
    applicable: true,
    reason: null,
    error: only.error,
    executed: only.executed,
    mutated,
    seen: legacy ? null : only.seen,
    lookups,
  };
}

/** The options of one call: what its CALL object gives, and nothing it does not. */
function callOptions(call, seen) {
  const options = {};
  // Options are passed only when the case has them: an absent option and an
  // option set to undefined are not always the same to Mastra's deep merges.
  if ('toolChoice' in call) options.toolChoice = call.toolChoice;
  if ('activeTools' in call) options.activeTools = call.activeTools;
  if ('maxSteps' in call) options.maxSteps = call.maxSteps;
  if ('requireToolApproval' in call) options.requireToolApproval = approvalPolicy(call.requireToolApproval, seen);
  if ('stopWhen' in call) options.stopWhen = hasToolCall(call.stopWhen.hasToolCall);
  return options;
}

/**
 * The AI SDK's `hasToolCall(name)` as `ai` writes it: true once the last
 * step has a call whose `toolName` is `name`. Written out rather than
 * imported, since an install carries `ai` only as Mastra's own dependency.
 */
function hasToolCall(name) {
  return ({ steps }) => steps[steps.length - 1]?.toolCalls?.some((c) => c.toolName === name) ?? false;
}

/**
 * One call on the agent (the case's `call`, or one of its `turns`), with its
 * pending approvals answered: the one run loop every case goes through.
 */
function runCall(agent, call, options, seen, answers, readsResult) {
  const prompt = call.prompt ?? 'hi';
  return (call.method ?? 'generate') === 'generate'
    ? runGenerate(agent, prompt, options, seen, answers)
    : runStream(agent, prompt, options, seen, answers, readsResult);
}

/**
 * Register the agent on a `Mastra` where the case needs one: with
 * `approvals`, one with storage, since approving or declining resumes the run
 * from its stored snapshot (without storage every release measured says
 * there is none: "No snapshot found", 1.0.4; AGENT_RESUME_NO_SNAPSHOT_FOUND,
 * 1.67.0 and 1.71.0); with `tracing`, one with the release's observability
 * and the probe's exporter (tracing.mjs); with `lookups` and a server, a plain
 * one, which the server's tool routes are asked on. Resolves to { tracer,
 * mastra }, each null where not made.
 */
async function register(lib, c, agent) {
  // `lookups` asks the server's routes, which find the agent on a Mastra; an
  // install without `@mastra/server` (0.x before 0.10.3, and between some
  // ranges) gets none, so that its agent runs as it would with no server.
  const lookups = c.lookups === true && (await hasServer(lib));
  if (c.approvals === undefined && c.tracing !== true && !lookups) return { tracer: null, mastra: null };
  const { Mastra } = await lib.importPackage('@mastra/core/mastra');
  const config = { agents: { probe: agent }, logger: false };
  if (c.approvals !== undefined) {
    const { InMemoryStore } = await lib.importPackage('@mastra/core/storage');
    // 0.2.0 to 0.10.15 export none; they do not read approval at all
    // (APPROVAL_READ_ON_0X), so no run there is ever resumed from storage.
    if (typeof InMemoryStore === 'function') config.storage = new InMemoryStore();
  }
  const tracer = c.tracing === true ? await newTracer(lib) : null;
  if (tracer !== null) config.observability = tracer.observability;
  return { tracer, mastra: new Mastra(config) };
}

/** Whether the install has `@mastra/server`'s tool handlers. */
async function hasServer(lib) {
  try {
    await lib.importPackage('@mastra/server/handlers/tools');
    return true;
  } catch {
    return false;
  }
}

/**
 * Take a case's `Mastra` off the module-level hooks once the case is over.
 * Every `new Mastra()` adds a scorer hook to an emitter of @mastra/core's
 * that never drops a handler on its own, and the handler holds the Mastra,
 * its agent, storage and logger: every approvals, tracing or lookups case
 * stayed in the heap for the probe's life (708 Mastras and their agents
 * after one corpus on 1.67.0, the heap after a GC growing 126 to 304 MB).
 * Releases with `__unregisterHooks()` (1.55.0 has it, 1.40.0 not; the
 * emitter's own comment cites mastra-ai/mastra#19404) get it called here,
 * as Mastra's own short-lived instances do on teardown; earlier ones give
 * no way to reach the handler, and their probes are recycled by size
 * instead (pool.rs `recycle_rss`). No case runs a scorer, so the hook is
 * never called: releasing it changes nothing a case sees (the corpus on
 * 1.67.0, every route: every verdict and observation identical).
 */
function unregisterHooks(mastra) {
  if (typeof mastra?.__unregisterHooks === 'function') mastra.__unregisterHooks();
}

/**
 * `ToolSearchProcessor` of `@mastra/core/processors`, or null where the
 * release has none (the subpath missing, or without that export).
 */
async function toolSearchProcessor(lib) {
  return processorExport(lib, 'ToolSearchProcessor');
}

/**
 * `codeMode` (case-format.md): a function of the case's tools object giving
 * the agent's `instructions` and `tools` as Code Mode's docs write them
 * (`['p', instructions]`, `{ [tool.id]: tool }`), the programs run on the host
 * (`LocalSandbox`) by the Node running the probe, which strips their types;
 * null where the release exports no `createCodeMode`.
 */
async function codeModeOf(lib) {
  const { createCodeMode } = lib.toolsModule;
  if (typeof createCodeMode !== 'function') return null;
  const { LocalSandbox } = await lib.importPackage('@mastra/core/workspace');
  const { tmpdir } = await import('node:os');
  const { dirname, join } = await import('node:path');
  const sandbox = new LocalSandbox({
    workingDirectory: join(tmpdir(), 'mastra-conform-code-mode'),
    env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
  });
  return (tools) => {
    const { tool, instructions } = createCodeMode({ tools, sandbox });
    return { instructions: ['p', instructions], tools: { [tool.id]: tool } };
  };
}

/** The folder every `workspace` case reads: `a.txt` holding `hello`, made once per process. */
let workspaceFolder = null;

/**
 * `workspace` (case-format.md): a `Workspace` over a local folder whose
 * tools are all disabled but `mastra_workspace_read_file`, given the case's
 * `name` where it has one; null where the release exports no Workspace.
 */
async function workspaceOf(lib, spec) {
  let module;
  try {
    module = await lib.importPackage('@mastra/core/workspace');
  } catch (e) {
    if (e?.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED' || e?.code === 'ERR_MODULE_NOT_FOUND') return null;
    throw new CaseFault(`importing @mastra/core/workspace threw: ${e?.message ?? e}`);
  }
  const { Workspace, LocalFilesystem } = module;
  if (typeof Workspace !== 'function' || typeof LocalFilesystem !== 'function') return null;
  if (workspaceFolder === null) {
    // One fixed folder, so that what a request says of it is the same on
    // every run; written by rename, so that a probe beside reads it whole.
    const { mkdirSync, renameSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const folder = join(tmpdir(), 'mastra-conform-workspace');
    mkdirSync(folder, { recursive: true });
    const part = join(folder, `.a.txt.${process.pid}`);
    writeFileSync(part, 'hello');
    renameSync(part, join(folder, 'a.txt'));
    workspaceFolder = folder;
  }
  const read = spec.name === undefined ? { enabled: true } : { enabled: true, name: spec.name };
  return new Workspace({
    filesystem: new LocalFilesystem({ basePath: workspaceFolder }),
    tools: { enabled: false, mastra_workspace_read_file: read },
  });
}

/** The export `name` of `@mastra/core/processors`, or null where the release has none. */
async function processorExport(lib, name) {
  if (lib.legacy) return null;
  try {
    const processors = await lib.importPackage('@mastra/core/processors');
    return typeof processors[name] === 'function' ? processors[name] : null;
  } catch (e) {
    if (e?.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED' || e?.code === 'ERR_MODULE_NOT_FOUND') return null;
    throw new CaseFault(`importing @mastra/core/processors threw: ${e?.message ?? e}`);
  }
}

/** The first builtin of the case (tools, toolsets, clientTools) this install lacks. */
function missingBuiltin(lib, c) {
  const lists = [c.tools ?? [], ...Object.values(c.toolsets ?? {}), c.clientTools ?? [], c.toolSearch?.tools ?? []];
  for (const list of lists) {
    for (const t of list) {
      if (typeof t === 'string' || !('builtin' in t)) continue;
      const v = Object.hasOwn(lib.toolsModule, t.builtin) ? lib.toolsModule[t.builtin] : undefined;
      if (v === null || typeof v !== 'object') return t.builtin;
    }
  }
  return null;
}

/**
 * generate(): on every version measured a failed run throws (the raw
 * APICallError for an error reply; a MastraError AGENT_GENERATE_FAILED for a
 * failure before the request). The resolved result also carries an `error`
 * field; it is reported if set, so a version that resolves instead of
 * throwing is still seen.
 *
 * A run suspended for approval resolves with `finishReason: "suspended"` and
 * the waiting call in `suspendPayload` ({ toolCallId, toolName, args }, 1.0.4,
 * 1.67.0, 1.71.0 alike); it is answered with `approveToolCallGenerate` /
 * `declineToolCallGenerate({ runId, toolCallId })`, whose result is the
 * resumed run's.
 */
async function runGenerate(agent, prompt, options, seen, answers) {
  let result = await agent.generate(prompt, options);
  for (;;) {
    readResult(seen, result?.toolCalls, result?.toolResults);
    const waiting = result?.finishReason === 'suspended' ? result?.suspendPayload : undefined;
    if (!isObject(waiting) || typeof waiting.toolCallId !== 'string') break;
    seen.approval.pending.push({ id: waiting.toolCallId, toolName: waiting.toolName ?? null });
    const answer = answerOf(answers, waiting.toolCallId);
    if (answer === null) break;
    const resume = answer === 'approve' ? 'approveToolCallGenerate' : 'declineToolCallGenerate';
    result = await agent[resume]({ runId: result.runId, toolCallId: waiting.toolCallId });
  }
  return result?.error ?? null;
}

/**
 * stream(): drained to its end through fullStream. An error reply does not
 * make stream() throw; it shows as a chunk
 *   { type: 'error', runId, from: 'AGENT', payload: { type: 'error', error } }
 * (1.0.4, 1.67.0, 1.71.0 alike; 1.0.4's "Tool X not found" part has no
 * payload.type). The AI SDK's own shape { type: 'error', error } is accepted
 * too. If no error part was seen, the output's `error` getter is consulted.
 *
 * A call waiting for approval shows as a `tool-call-approval` chunk and the
 * stream ends; it is answered with `approveToolCall` / `declineToolCall({
 * runId, toolCallId })`, whose output (the resumed run) is drained the same
 * way, its chunks after the first run's.
 */
async function runStream(agent, prompt, options, seen, answers, readsResult) {
  let output = await agent.stream(prompt, options);
  let first;
  let failed = false;
  for (;;) {
    const waiting = [];
    for await (const chunk of output.fullStream) {
      collectChunk(seen, chunk);
      if (chunk?.type === 'tool-call-approval' && typeof chunk.payload?.toolCallId === 'string') {
        waiting.push({ runId: chunk.runId ?? output.runId, toolCallId: chunk.payload.toolCallId });
      }
      if (!failed && chunk?.type === 'error') {
        failed = true;
        first = chunk.payload !== undefined ? (chunk.payload?.error ?? chunk.payload) : chunk.error;
      }
    }
    // Not on 0.x, whose `seen` is dropped: there, up to 0.16.3 at least, the
    // result's toolCalls never settles after an HTTP error reply, so the
    // case would wait out the probe's timeout (docs/figures.md, the full night).
    if (readsResult) await readStreamResult(seen, output);
    const next = waiting.find((w) => answerOf(answers, w.toolCallId) !== null);
    if (failed || next === undefined) break;
    const resume = answerOf(answers, next.toolCallId) === 'approve' ? 'approveToolCall' : 'declineToolCall';
    output = await agent[resume]({ runId: next.runId, toolCallId: next.toolCallId });
  }
  if (failed) return first ?? 'error part without an error';
  return output.error ?? null;
}

/**
 * `network` (case-format.md): `agent.network(prompt, options)`, its stream
 * drained; resolves to the first error chunk's error, or null.
 */
async function runNetwork(agent, call, options, seen) {
  const output = await agent.network(call.prompt ?? 'hi', options);
  let first = null;
  for await (const chunk of output) {
    collectChunk(seen, chunk);
    if (first === null && chunk?.type === 'error') first = chunk.payload?.error ?? chunk.payload ?? 'error';
  }
  return first;
}

// ---------------------------------------------------------------------------
// What the user's code is handed (the projection's `seen`)

/** `seen` before anything was handed over. */
export function emptySeen() {
  return { stream: [], toolCalls: null, toolResults: null, approval: { asked: [], pending: [] } };
}

/**
 * Record one fullStream chunk: every chunk whose payload has a `toolName`,
 * and the call of each `tool-call-approval`. Kept apart from the draining so
 * that a caller running several turns can feed each turn's chunks to it.
 */
export function collectChunk(seen, chunk) {
  const payload = chunk?.payload;
  if (payload === null || typeof payload !== 'object' || !('toolName' in payload)) return;
  seen.stream.push({ type: chunk.type, toolName: payload.toolName ?? null });
  if (chunk.type === 'tool-call-approval') {
    seen.approval.pending.push({ id: payload.toolCallId ?? null, toolName: payload.toolName ?? null });
  }
}

/** The names of a result's `toolCalls` and `toolResults`, null where reading throws. */
function readResult(seen, toolCalls, toolResults) {
  seen.toolCalls = namesOf(() => toolCalls);
  seen.toolResults = namesOf(() => toolResults);
}

/** As readResult, for a stream output's promised `toolCalls` and `toolResults`. */
async function readStreamResult(seen, output) {
  const settled = async (get) => {
    try {
      return { value: await get() };
    } catch {
      return { threw: true };
    }
  };
  const calls = await settled(() => output.toolCalls);
  const results = await settled(() => output.toolResults);
  seen.toolCalls = calls.threw ? null : namesOf(() => calls.value);
  seen.toolResults = results.threw ? null : namesOf(() => results.value);
}

function namesOf(get) {
  try {
    const list = get();
    if (!Array.isArray(list)) return null;
    return list.map((x) => {
      const name = x?.payload !== undefined ? x.payload?.toolName : x?.toolName;
      return typeof name === 'string' ? name : null;
    });
  } catch {
    return null;
  }
}

/**
 * `requireToolApproval` as the case gives it: a boolean as it is, `{ names }`
 * as the function users write, which records each name it is asked.
 */
function approvalPolicy(policy, seen) {
  if (typeof policy === 'boolean') return policy;
  const names = policy.names;
  return (context) => {
    const toolName = context?.toolName;
    seen.approval.asked.push(typeof toolName === 'string' ? toolName : null);
    return names.includes(toolName);
  };
}

/** Whether a tool of the case has a `requireApproval` function (`returns`, `throws`). */
function hasApprovalFunction(c) {
  const lists = [c.tools ?? [], ...Object.values(c.toolsets ?? {}), c.clientTools ?? [], c.toolSearch?.tools ?? []];
  return lists.some((list) => list.some((t) => isObject(t) && isObject(t.requireApproval)));
}

/** Whether an MCP server of the case has a `requireToolApproval` function (`mcpApproval`'s `{ names }`). */
function hasServerApprovalFunction(c) {
  return isObject(c.mcpApproval) && Object.values(c.mcpApproval).some((p) => isObject(p));
}

/**
 * A TOOL's `requireApproval` as createTool is given it: `true` as it is,
 * `{ returns }` and `{ throws }` as functions. Each call of a function is
 * pushed to `asked` as `{ id, args, context }`: the tool's id, its first
 * argument and the own keys of its second (1.67.0 and 1.71.0 pass `(args,
 * { args, requestContext, workspace })`, no tool name), so what it was asked
 * shows in `seen.approval.toolAsked`, apart from the policy's `asked`.
 */
function toolApproval(a, id, asked) {
  if (a === true) return true;
  const record = (args, context) =>
    asked.push({
      id,
      args: args === undefined ? null : jsonSnapshot(args),
      context: isObject(context) ? Object.keys(context) : null,
    });
  if ('throws' in a) {
    const message = a.throws;
    return (args, context) => {
      record(args, context);
      throw new Error(message);
    };
  }
  const answer = a.returns;
  return (args, context) => {
    record(args, context);
    return answer;
  };
}

/** The case's answer for a call id, or null when it gives none. */
function answerOf(answers, id) {
  return Object.hasOwn(answers, id) ? answers[id] : null;
}

// ---------------------------------------------------------------------------
// Errors

const API_CALL_ERROR = Symbol.for('vercel.ai.error.AI_APICallError');

/** The projection's error object, plus name and the API-call status. */
export function describeError(e) {
  if (e === null || typeof e !== 'object') {
    // Something threw or streamed a non-object (a string, say).
    return { id: null, message: String(e), causeCode: null, name: typeof e, statusCode: null };
  }
  const prim = (v) => (typeof v === 'string' || typeof v === 'number' ? v : null);
  let message;
  try {
    message = typeof e.message === 'string' ? e.message : String(e.message ?? e);
  } catch {
    message = '<unprintable>';
  }
  return {
    id: prim(e.id),
    message,
    causeCode: prim(e.cause?.code),
    name: typeof e.name === 'string' ? e.name : (e.constructor?.name ?? 'Object'),
    statusCode: apiStatusOf(e),
  };
}

/**
 * The HTTP status of the first AI-SDK APICallError on the error or along its
 * cause / lastError / errors chains (MastraError wraps in `cause`, the AI
 * SDK's RetryError keeps `lastError` and `errors`). Breadth first, cycle-safe.
 */
export function apiStatusOf(e) {
  const queue = [e];
  const seen = new Set();
  while (queue.length > 0) {
    const x = queue.shift();
    if (x === null || typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    const isApiCallError = x[API_CALL_ERROR] === true || x.name === 'AI_APICallError';
    if (isApiCallError && typeof x.statusCode === 'number') return x.statusCode;
    queue.push(x.cause, x.lastError);
    if (Array.isArray(x.errors)) queue.push(...x.errors);
  }
  return null;
}

// ---------------------------------------------------------------------------
// Snapshots

/**
 * A JSON copy of what execute received, taken when it ran (Mastra may reuse or
 * change the object later). undefined becomes null; anything JSON cannot
 * carry becomes {"unserializable": "..."}.
 */
function jsonSnapshot(v) {
  if (v === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(v)) ?? null;
  } catch (e) {
    return { unserializable: String(e?.message ?? e) };
  }
}

/**
 * What "unchanged" means for a tools object: the same own keys in the same
 * order, each with the same descriptor (value identity, attributes), the same
 * prototype, the same extensibility. A freeze, a re-added key (which moves to
 * the end) or a swapped tool all count as a mutation.
 */
function shapeOf(obj) {
  return {
    proto: Object.getPrototypeOf(obj),
    extensible: Object.isExtensible(obj),
    props: Reflect.ownKeys(obj).map((k) => [k, Object.getOwnPropertyDescriptor(obj, k)]),
  };
}

function sameShape(a, b) {
  if (a.proto !== b.proto || a.extensible !== b.extensible || a.props.length !== b.props.length) return false;
  return a.props.every(([k, d], i) => {
    const [k2, d2] = b.props[i];
    return (
      k === k2 &&
      Object.is(d.value, d2.value) &&
      d.get === d2.get &&
      d.set === d2.set &&
      d.writable === d2.writable &&
      d.enumerable === d2.enumerable &&
      d.configurable === d2.configurable
    );
  });
}
