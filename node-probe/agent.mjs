// The agent and the call of one case of shared/case-format.md, built on a
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

import { modelFor, routeOf } from './routes.mjs';
import { checkSources, isObject, prepareSources } from './sources.mjs';

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
      if (typeof t.id !== 'string') throw new CaseFault(`${where}[${i}].id must be a string`);
      if (t.description !== undefined && typeof t.description !== 'string') {
        throw new CaseFault(`${where}[${i}].description must be a string`);
      }
    }
  });
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
  if (c.call !== undefined && !isObject(c.call)) throw new CaseFault('call must be an object');
  const method = c.call?.method ?? 'generate';
  if (method !== 'generate' && method !== 'stream') {
    throw new CaseFault(`call.method must be "generate" or "stream", not ${JSON.stringify(method)}`);
  }
  if (c.replies !== undefined && !Array.isArray(c.replies)) throw new CaseFault('replies must be an array');
  if (routeOf(c) === null) throw new CaseFault(`route ${JSON.stringify(c.route)} is not a route of case-format.md`);
  checkSources(c, (message) => new CaseFault(message));
  return method;
}

// ---------------------------------------------------------------------------
// Running a case

/**
 * Run one checked case (`method` from checkCase) against the model URL
 * `url`. Resolves to {applicable, reason, error, executed, mutated}, `error`
 * described by describeError. Throws CaseFault when the case cannot be built
 * at all. Never rejects with a Mastra error: those are the observation.
 */
export async function runAgent(lib, c, url, method) {
  const notApplicable = (reason) => ({ applicable: false, reason, error: null, executed: [], mutated: [] });
  // On 0.x (legacy.mjs): a release without an Agent, or a case it cannot
  // build (a package or an export it lacks, a route it cannot name).
  const legacy = lib.legacy ?? null;
  if (legacy?.noAgent) return notApplicable(legacy.noAgent);
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
  const inputSchema = lib.z.object({ city: lib.z.string() });
  const newTool = (id, description) => {
    try {
      return lib.createTool({ id, description, inputSchema, execute: makeExecute(id) });
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
    return newTool(t.id, t.description);
  };
  // Object.fromEntries semantics, by using it: own data properties in case
  // order, "__proto__" an ordinary own key, a repeated key keeps its first
  // position and takes the later tool, integer-like keys first (as any JS
  // object orders them).
  const build = (list) => Object.fromEntries(list.map((t) => [typeof t === 'string' ? t : t.key, toolOf(t)]));

  const tools = build(c.tools ?? []);
  const watched = [['tools', tools]];
  const options = {};
  const call = c.call ?? {};
  // Options are passed only when the case has them: an absent option and an
  // option set to undefined are not always the same to Mastra's deep merges.
  if ('toolChoice' in call) options.toolChoice = call.toolChoice;
  if ('activeTools' in call) options.activeTools = call.activeTools;
  if ('maxSteps' in call) options.maxSteps = call.maxSteps;
  if (c.toolsets !== undefined) {
    const toolsets = Object.fromEntries(Object.entries(c.toolsets).map(([name, list]) => [name, build(list)]));
    watched.push(['toolsets', toolsets]);
    for (const [name, set] of Object.entries(toolsets)) watched.push([`toolsets.${name}`, set]);
    options.toolsets = toolsets;
  }
  if (c.clientTools !== undefined) {
    options.clientTools = build(c.clientTools);
    watched.push(['clientTools', options.clientTools]);
  }

  // Snapshot before the Agent exists: its constructor may already touch them.
  const before = watched.map(([name, obj]) => [name, obj, shapeOf(obj)]);

  // Sub-agents, workflows, MCP servers, memory, dynamic tools (sources.mjs).
  const sources = await prepareSources(lib, c, tools, model, (message) => new CaseFault(message));
  Object.assign(options, sources.callOptions);

  let error = null;
  try {
    const agent = new lib.Agent({
      id: 'probe',
      name: 'probe',
      instructions: 'p',
      model,
      tools,
      ...sources.agentOptions,
    });
    error = method === 'generate' ? await runGenerate(agent, options) : await runStream(agent, options);
  } catch (e) {
    // What the constructor, generate() or `await agent.stream()` threw.
    error = e;
  } finally {
    await sources.close();
  }

  const mutated = before.filter(([, obj, shape]) => !sameShape(shape, shapeOf(obj))).map(([name]) => name);
  return {
    applicable: true,
    reason: null,
    error: error === null || error === undefined ? null : describeError(error),
    executed,
    mutated,
  };
}

/** The first builtin of the case (tools, toolsets, clientTools) this install lacks. */
function missingBuiltin(lib, c) {
  const lists = [c.tools ?? [], ...Object.values(c.toolsets ?? {}), c.clientTools ?? []];
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
 */
async function runGenerate(agent, options) {
  const result = await agent.generate('hi', options);
  return result?.error ?? null;
}

/**
 * stream(): drained to its end through fullStream. An error reply does not
 * make stream() throw; it shows as a chunk
 *   { type: 'error', runId, from: 'AGENT', payload: { type: 'error', error } }
 * (1.0.4, 1.67.0, 1.71.0 alike; 1.0.4's "Tool X not found" part has no
 * payload.type). The AI SDK's own shape { type: 'error', error } is accepted
 * too. If no error part was seen, the output's `error` getter is consulted.
 */
async function runStream(agent, options) {
  const output = await agent.stream('hi', options);
  let first;
  let seen = false;
  for await (const chunk of output.fullStream) {
    if (!seen && chunk?.type === 'error') {
      seen = true;
      first = chunk.payload !== undefined ? (chunk.payload?.error ?? chunk.payload) : chunk.error;
    }
  }
  if (seen) return first ?? 'error part without an error';
  return output.error ?? null;
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
