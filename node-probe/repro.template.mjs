// A standalone reproduction of a known @mastra/core tool-naming issue,
// written by `mastra-conform repro`. It needs no harness: plain Node
// (>= 22.13, which @mastra/core 1.x needs) beside an installed @mastra/core.
//
//   npm install @mastra/core@VERSION zod@3.25.76
//   node repro.mjs
//
// It starts its own capture server on 127.0.0.1 (nothing leaves the machine),
// points the agent's OpenAI-compatible model at it, runs the case once,
// prints every request body's tools and tool_choice, and exits 1 when the
// known issue shows, 0 when it does not, 2 when it could not run.

import { readFileSync } from 'node:fs';
import http from 'node:http';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import * as mastraTools from '@mastra/core/tools';
import { z } from 'zod';

const REPRO = __REPRO_JSON__;

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
    answer(res, reply, body.stream === true);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/v1`;

function answer(res, reply, stream) {
  if (!reply.toolCalls && reply.text === undefined) {
    res.writeHead(reply.status ?? 400, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(reply.body ?? { error: { message: 'captured' } }));
  }
  const calls = (reply.toolCalls ?? []).map((c, index) => ({
    index, id: c.id, type: 'function',
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) },
  }));
  const finish = calls.length ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  const head = { id: 'chatcmpl-1', created: 1700000000, model: 'gpt-4o-mini' };
  if (!stream) {
    const message = { role: 'assistant', content: calls.length ? null : String(reply.text) };
    if (calls.length) message.tool_calls = calls.map(({ index, ...c }) => c);
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ ...head, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage }));
  }
  const chunk = (delta, finish_reason = null, extra = {}) =>
    `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: delta ? [{ index: 0, delta, finish_reason }] : [], ...extra })}\n\n`;
  let out = chunk({ role: 'assistant', content: '' });
  out += calls.length ? calls.map((tc) => chunk({ tool_calls: [tc] })).join('') : chunk({ content: String(reply.text) });
  out += chunk({}, finish) + chunk(null, null, { usage }) + 'data: [DONE]\n\n';
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(out);
}

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
    model: { id: 'openai/gpt-4o-mini', url, apiKey: 'sk-fake' },
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

const sent = requests.map((b) => ({
  tools: Array.isArray(b.tools) ? b.tools.map((t) => t.function?.name ?? t.name) : null,
  tool_choice: b.tool_choice ?? null,
}));
// An error from the scripted error reply is the capture working, not a result.
const status = (e) => e?.statusCode ?? e?.lastError?.statusCode ?? e?.cause?.statusCode;
const failure = error && status(error) === undefined
  ? { id: error.id ?? null, message: String(error.message ?? error), causeCode: error.cause?.code ?? null }
  : null;

function shows(symptom) {
  const [[kind, arg]] = Object.entries(symptom);
  const named = (r) => r.tool_choice?.function?.name;
  const has = (r, n) => (r.tools ?? []).includes(n);
  switch (kind) {
    case 'toolChoiceNotSent': return sent.some((r) => named(r) !== undefined && !has(r, named(r)));
    case 'toolChoiceSent': return sent.some((r) => named(r) !== undefined) && sent.every((r) => named(r) === undefined || has(r, named(r)));
    case 'toolSent': return sent.some((r) => has(r, arg));
    case 'toolNotSent': return sent.length > 0 && !has(sent[0], arg);
    case 'noTools': return sent.length > 0 && sent[0].tools === null;
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
console.log(`case: ${REPRO.casePath} (${c.about})`);
console.log(`@mastra/core ${installedVersion()} (the report was made on ${REPRO.madeOn})`);
for (const [i, r] of sent.entries()) console.log(`sent #${i + 1}: tools ${show(r.tools)}, tool_choice ${show(r.tool_choice)}`);
if (sent.length === 0) console.log('sent: no request reached the capture server');
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
