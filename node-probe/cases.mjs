// Building and running one case of shared/case-format.md on one @mastra/core.
//
// Shared by probe.mjs (one case per protocol request) and ceiling.mjs (the
// in-process throughput ceiling), so both run exactly the same agent and call.
// Nothing here imports @mastra/core statically: the install to use is only
// known at run time, and stdio.mjs must claim stdout before Mastra loads.

import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { destination, modelFor, routeOf, setRouteEnvironment } from './routes.mjs';
import { checkSources, prepareSources, sourceVersions } from './sources.mjs';

/** A request the probe cannot turn into a case: answered as {"fault": ...}. */
export class CaseFault extends Error {
  constructor(message) {
    super(message);
    this.name = 'CaseFault';
  }
}

// ---------------------------------------------------------------------------
// Counting and routing the requests a case makes
//
// The case URL must be a case's only destination, and every request it
// makes must reach the capture listener. The driver can only see what
// arrived; so the probe counts what left: globalThis.fetch (which the AI SDK
// looks up at call time) is wrapped once, before Mastra loads, and each call
// is charged to the case whose async context made it. The driver compares
// the count with what the listener captured. Requests made through node:http
// directly are not counted (the listener only ever gets fetches).
//
// The same wrapper routes (routes.mjs): a request to the case's provider is
// sent to the case URL instead, and a request to anywhere else is refused
// here, before anything leaves the process, and listed in `elsewhere` (a
// probe fault for the driver). A request outside any case is refused too,
// unless it is for the loopback interface (ceiling.mjs's own listener).

const caseRequests = new AsyncLocalStorage();

function requestUrl(input) {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  return String(input?.url ?? input);
}

/** An error like the one fetch gives for an unreachable host. */
function refused(url) {
  return Promise.reject(new TypeError(`fetch failed: the probe refused a request to ${url} (not this case's route)`));
}

function isLoopback(url) {
  try {
    const host = new URL(url).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  } catch {
    return false;
  }
}

function countFetches() {
  const realFetch = globalThis.fetch;
  if (typeof realFetch !== 'function' || realFetch.countsRequests) return;
  const fetch = function fetch(input, init) {
    const url = requestUrl(input);
    const log = caseRequests.getStore();
    if (!log) {
      console.error(`[probe] a request outside any case: ${url}`);
      return isLoopback(url) ? realFetch(input, init) : refused(url);
    }
    log.fetches += 1;
    const to = destination(log.route, log.url, url);
    if (to === null) {
      log.elsewhere.push(url);
      return refused(url);
    }
    if (to === url) return realFetch(input, init);
    // A Request input keeps its method, headers and body under the new URL.
    return typeof input === 'string' || input instanceof URL
      ? realFetch(to, init)
      : realFetch(new Request(to, input), init);
  };
  fetch.countsRequests = true;
  globalThis.fetch = fetch;
}

/** The URL a node:http(s) request(url | options, [options], [callback]) is for. */
function nodeRequestUrl(protocol, args) {
  const [first, second] = args;
  if (typeof first === 'string') return first;
  if (first instanceof URL) return first.href;
  const o = first ?? second ?? {};
  const host = o.hostname ?? o.host ?? 'localhost';
  return `${o.protocol ?? protocol}//${host}${o.port ? `:${o.port}` : ''}${o.path ?? '/'}`;
}

/**
 * node:http and node:https bypass fetch: Mastra's webFetchTool (1.67+) calls
 * https.request itself. No provider route uses them, so every such request to
 * a host other than the loopback interface is refused (a synchronous throw,
 * which a Promise executor turns into a rejection) and listed in the case's
 * `elsewhere`. Named ESM imports of the modules are synced to the patch.
 */
function guardNodeHttp() {
  for (const [mod, protocol] of [
    [http, 'http:'],
    [https, 'https:'],
  ]) {
    if (mod.request.guarded) continue;
    for (const fn of ['request', 'get']) {
      const real = mod[fn];
      const guarded = function (...args) {
        const url = nodeRequestUrl(protocol, args);
        if (!isLoopback(url)) {
          const log = caseRequests.getStore();
          if (log) log.elsewhere.push(url);
          else console.error(`[probe] a node:${protocol.slice(0, -1)} request outside any case: ${url}`);
          throw new TypeError(`the probe refused a node:${protocol.slice(0, -1)} request to ${url}`);
        }
        return real.apply(this, args);
      };
      guarded.guarded = true;
      mod[fn] = guarded;
    }
  }
  syncBuiltinESMExports();
}

// ---------------------------------------------------------------------------
// Loading an install

/**
 * Import INSTALL_DIR/probe-entry.mjs and describe the install.
 *
 * The entry is loaded through a file URL with a dynamic import, so
 * @mastra/core resolves through its `import` exports: some versions break
 * when loaded through `require`.
 */
export async function loadInstall(installDir) {
  countFetches();
  guardNodeHttp();
  setRouteEnvironment();
  const dir = path.resolve(installDir);
  const entry = await import(pathToFileURL(path.join(dir, 'probe-entry.mjs')).href);
  const { agent, tools, z } = entry;
  if (!agent?.Agent || !tools?.createTool || !z?.object) {
    throw new Error(`${dir}/probe-entry.mjs does not export agent.Agent, tools.createTool and z`);
  }
  // Package versions come from the installed package.json files: the packages'
  // `exports` maps may not expose ./package.json, so read them as files.
  const versionOf = (name) => {
    try {
      return JSON.parse(readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')).version ?? null;
    } catch {
      return null;
    }
  };
  // Built-in tools: exports of @mastra/core/tools named ...Tool that are
  // objects, not functions (askUserTool, webFetchTool, ...). webSearchTool
  // (1.67+) is a frozen marker object Mastra swaps for the provider's own
  // web-search tool; it is a tool a user registers, so it is listed too.
  const builtins = Object.keys(tools).filter(
    (name) => name.endsWith('Tool') && tools[name] !== null && typeof tools[name] === 'object',
  );
  return {
    dir,
    Agent: agent.Agent,
    createTool: tools.createTool,
    toolsModule: tools,
    z,
    mastraVersion: versionOf('@mastra/core'),
    zodVersion: versionOf('zod'),
    sourceVersions: sourceVersions(versionOf),
    builtins,
  };
}

// ---------------------------------------------------------------------------
// Validating a case
//
// The Rust side validates case files; this is the last line of defence, so
// that a malformed request becomes a fault line instead of a Mastra error
// that would read as an observation.

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

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

function checkCase(c) {
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
 * Run one case against the model URL `url`. Resolves to the probe's result
 * object: {applicable, reason, error, executed, mutated, fetches, elsewhere}.
 * Throws CaseFault when the case cannot be built at all. Never rejects with a
 * Mastra error: those are the observation.
 */
export async function runCase(lib, c, url) {
  const method = checkCase(c);
  if (typeof url !== 'string') throw new CaseFault('url must be a string');
  const log = { url, route: routeOf(c), fetches: 0, elsewhere: [] };
  const result = await caseRequests.run(log, () => runChecked(lib, c, url, method));
  return { ...result, fetches: log.fetches, elsewhere: log.elsewhere };
}

async function runChecked(lib, c, url, method) {
  // Applicability first: a builtin this version lacks means the case does
  // not exist here, whatever else it holds.
  const missing = missingBuiltin(lib, c);
  if (missing) {
    return {
      applicable: false,
      reason: `@mastra/core ${lib.mastraVersion} does not export ${missing}`,
      error: null,
      executed: [],
      mutated: [],
    };
  }

  // Each run of a case tool's execute, in order. The first argument is what
  // the tool received: on 1.0.4, 1.67.0 and 1.71.0 alike execute is called as
  // (parsedInput, context), so that is the validated input object.
  const executed = [];
  const makeExecute = (id) =>
    async function execute(input) {
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
    if (typeof t === 'string') return (standard ??= newTool('get-weather', 'Get the weather'));
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
  const model = modelFor(routeOf(c), url);
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
