// A standalone reproduction of a known @mastra/core tool-naming issue,
// written by `mastra-conform repro`. It needs no harness: plain Node
// (>= 22.13, which @mastra/core 1.x needs) beside an installed @mastra/core.
//
//   npm install @mastra/core@VERSION zod@3.25.76
//   node repro.mjs
//
// It starts its own capture server on 127.0.0.1 (nothing leaves the machine),
// points the agent's model at it on the case's wire route, runs the case once,
// prints every request body's tools and tool choice, and exits 1 when the
// known issue shows, 0 when it does not, 2 when it could not run.
//
// On a route other than openai-compatible the agent names its model with a
// router string ("mistral/mistral-small-latest"), as most Mastra users do;
// Mastra then sends through the provider code it bundles. The provider's
// base-URL variable names a sentinel host, and this script's fetch sends
// that host's requests (and those to the provider's real host, for the
// releases that ignore the variable) to its capture server; any other
// request is refused before it leaves the process.

import { readFileSync } from 'node:fs';
import http from 'node:http';

const REPRO = __REPRO_JSON__;
const ROUTE = REPRO.route;

// --- the routes and the provider wire formats (mastra-conform's own) --------

__ROUTES_MJS__
__WIRE_MJS__
// --- the capture server: records each body, answers the case's replies -----

const requests = [];
const replies = REPRO.case.replies ?? [];
const server = http.createServer((req, res) => {
  let text = '';
  req.on('data', (c) => (text += c));
  req.on('end', () => {
    const body = JSON.parse(text);
    const reply = replies[requests.length] ?? { status: 400 };
    requests.push(body);
    const stream = ROUTE === 'google' ? req.url.includes(':streamGenerateContent') : body.stream === true;
    const out = answerOn(ROUTE, reply, stream);
    res.writeHead(out.status, { 'content-type': out.contentType });
    res.end(out.body);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/v1`;

// Before Mastra loads: fake keys, sentinel base URLs, and a fetch that sends
// the route's requests to the capture server and refuses every other one.
setRouteEnvironment();
const refusedUrls = [];
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const requested = typeof input === 'string' ? input : input instanceof URL ? input.href : String(input?.url ?? input);
  const to = destination(ROUTE, url, requested);
  if (to === null) {
    refusedUrls.push(requested);
    return Promise.reject(new TypeError(`fetch failed: the repro refused a request to ${requested} (not this case's route)`));
  }
  if (to === requested) return realFetch(input, init);
  return typeof input === 'string' || input instanceof URL ? realFetch(to, init) : realFetch(new Request(to, input), init);
};
const { Agent } = await import('@mastra/core/agent');
const mastraTools = await import('@mastra/core/tools');
const { createTool } = mastraTools;
const { z } = await import('zod');

// --- the case: tools built as Object.fromEntries builds them -----------------

const tool = (id, description) =>
  createTool({ id, description, inputSchema: z.object({ city: z.string() }), execute: async () => ({ tempC: 20 }) });
const standard = tool('get-weather', 'Get the weather');
const toolOf = (t) => (typeof t === 'string' ? standard : 'builtin' in t ? mastraTools[t.builtin] : tool(t.id, t.description));
const build = (list) => Object.fromEntries(list.map((t) => [typeof t === 'string' ? t : t.key, toolOf(t)]));

const c = REPRO.case;
const call = c.call ?? {};
const options = {};
for (const k of ['toolChoice', 'activeTools', 'maxSteps']) if (k in call) options[k] = call[k];
if (c.toolsets) options.toolsets = Object.fromEntries(Object.entries(c.toolsets).map(([n, l]) => [n, build(l)]));
if (c.clientTools) options.clientTools = build(c.clientTools);

let error = null;
try {
  const agent = new Agent({
    id: 'probe', name: 'probe', instructions: 'p',
    model: modelFor(ROUTE, url),
    tools: build(c.tools ?? []),
  });
  if (call.method === 'stream') {
    const out = await agent.stream('hi', options);
    for await (const part of out.fullStream) if (part?.type === 'error' && !error) error = part.payload?.error ?? part.error;
  } else {
    await agent.generate('hi', options);
  }
} catch (e) {
  error = e;
}
server.close();

// --- what was sent, what was expected, and whether the issue shows ----------

// Each provider API writes the tools and the choice in its own place.
const names = (list, name) => (Array.isArray(list) ? list.map((t) => name(t) ?? '') : null);
function view(b) {
  switch (ROUTE) {
    case 'openai':
    case 'anthropic':
      return { tools: names(b.tools, (t) => t.name), tool_choice: b.tool_choice ?? null };
    case 'google': {
      const objects = b.tools == null ? null : Array.isArray(b.tools) ? b.tools : [b.tools];
      const tools = objects && objects.flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name ?? ''));
      return { tools, tool_choice: b.toolConfig ?? null };
    }
    default:
      return { tools: names(b.tools, (t) => t.function?.name), tool_choice: b.tool_choice ?? null };
  }
}
const sent = requests.map(view);
// An error from the scripted error reply is the capture working, not a result.
const status = (e) => e?.statusCode ?? e?.lastError?.statusCode ?? e?.cause?.statusCode;
const failure = error && status(error) === undefined
  ? { id: error.id ?? null, message: String(error.message ?? error), causeCode: error.cause?.code ?? null }
  : null;

function shows(symptom) {
  const [[kind, arg]] = Object.entries(symptom);
  // The function a choice forces, in each route's shape.
  const named = (r) => {
    const c = r.tool_choice;
    if (c === null || typeof c !== 'object') return undefined;
    if (c.function) return c.function.name;
    if (c.type === 'function' || c.type === 'tool') return typeof c.name === 'string' ? c.name : '';
    return c.functionCallingConfig?.allowedFunctionNames?.[0];
  };
  const has = (r, n) => (r.tools ?? []).includes(n);
  switch (kind) {
    case 'toolChoiceNotSent': return sent.some((r) => named(r) !== undefined && !has(r, named(r)));
    case 'toolChoiceSent': return sent.some((r) => named(r) !== undefined) && sent.every((r) => named(r) === undefined || has(r, named(r)));
    case 'toolSent': return sent.some((r) => has(r, arg));
    case 'toolNotSent': return sent.length > 0 && !has(sent[0], arg);
    case 'noTools': return sent.length > 0 && sent[0].tools === null;
    case 'emptyTools': return sent.length > 0 && Array.isArray(sent[0].tools) && sent[0].tools.length === 0;
    case 'errorCause': return failure?.causeCode === arg;
    case 'errorMessage': return failure !== null && failure.message.includes(arg);
    default:
      console.log(`cannot check the symptom ${kind}: this script is older than its data`);
      process.exit(2);
  }
}

// The version of the @mastra/core this script imported: the package.json
// above the entry it resolved to (its exports map may not expose the file).
function installedVersion() {
  let dir = new URL('.', import.meta.resolve('@mastra/core'));
  for (let i = 0; i < 4; i++, dir = new URL('..', dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8'));
      if (pkg.name === '@mastra/core') return pkg.version;
    } catch {}
  }
  return 'unknown';
}

const show = (v) => JSON.stringify(v);
console.log(`${REPRO.issue.id}: ${REPRO.issue.title}`);
console.log(`case: ${REPRO.casePath} (${c.about}), on the ${ROUTE} route`);
console.log(`@mastra/core ${installedVersion()} (the report was made on ${REPRO.madeOn})`);
for (const [i, r] of sent.entries()) console.log(`sent #${i + 1}: tools ${show(r.tools)}, tool_choice ${show(r.tool_choice)}`);
if (sent.length === 0) console.log('sent: no request reached the capture server');
if (refusedUrls.length) console.log(`refused (not this route's provider): ${show(refusedUrls)}`);
console.log(`error: ${show(failure)}`);
console.log(`the issue shows when: ${show(REPRO.symptom)}`);
console.log(`expected (fixed): ${REPRO.issue.fixed}`);
if (REPRO.fixedSymptom) console.log(`expected (fixed), checked as: ${show(REPRO.fixedSymptom)}`);
if (shows(REPRO.symptom)) {
  console.log(`KNOWN ISSUE SHOWS: ${REPRO.issue.id}${REPRO.issue.upstream ? ` (${REPRO.issue.upstream})` : ''}`);
  process.exit(1);
}
console.log(`not shown: ${REPRO.fixedSymptom && !shows(REPRO.fixedSymptom) ? 'gone, but NOT as the fixed behaviour describes' : 'fixed'}`);
process.exit(0);
