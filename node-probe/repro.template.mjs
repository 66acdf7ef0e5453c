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
// known issue shows, 0 when it does not, 2 when it could not run. Made for a
// case that shows no known issue, it checks what is sent against what
// mastra-conform's model predicts instead, and exits 1 on any difference.
// What Mastra logs while the case runs (the scripted error reply is logged
// with its stack) is counted, not printed: `node repro.mjs --verbose` shows it.
//
// On a route other than openai-compatible the agent names its model with a
// router string ("mistral/mistral-small-latest"), as most Mastra users do;
// Mastra then sends through the provider code it bundles. The provider's
// base-URL variable names a sentinel host, and this script's fetch sends
// that host's requests (and those to the provider's real host, for the
// releases that ignore the variable) to its capture server; any other
// request, connection or process is refused before it leaves the process.
// A case with MCP servers runs this script again as each server.
//
// What follows is mastra-conform's own code, as its probe runs it: the
// agent, the call and the case's sources, its guard, its provider formats,
// and its reading of a body and of the issue's symptom; then this
// reproduction's data (REPRO) and its run.

import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { checkCase, runAgent } from './agent.mjs';
import { installGuard } from './guard.mjs';
import { readToolNames, serveToolNames } from './mcp-tools.mjs';
import { holds, projectedError, viewOf } from './reading.mjs';
import { destination, setRouteEnvironment } from './routes.mjs';
import { answerOn, wantsStream } from './wire.mjs';

const REPRO = /* REPRO_JSON */ null;

const SCRIPT = fileURLToPath(import.meta.url);
const MCP_SERVER_FLAG = '--mcp-server';

/** Start the capture server: it records each body and answers the case's replies. */
async function startCapture(route, replies) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', () => {
      const body = JSON.parse(text);
      const reply = replies[requests.length] ?? { status: 400 };
      requests.push(body);
      const out = answerOn(route, reply, wantsStream(route, req.url, body));
      res.writeHead(out.status, { 'content-type': out.contentType });
      res.end(out.body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, requests, port: server.address().port };
}

// The version of the @mastra/core this script imported: the package.json
// above the entry it resolved to (its exports map may not expose the file).
function installedVersion() {
  let dir = new URL('.', import.meta.resolve('@mastra/core'));
  for (let i = 0; i < 4; i++, dir = new URL('..', dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8'));
      if (pkg.name === '@mastra/core') return pkg.version;
    } catch {
      // Not this folder: one up.
    }
  }
  return 'unknown';
}

async function reproduce() {
  const c = REPRO.case;
  const route = REPRO.route;
  const replies = c.replies ?? [];
  const capture = await startCapture(route, replies);
  const url = `http://127.0.0.1:${capture.port}/v1`;

  // Before Mastra loads: fake keys, sentinel base URLs, and the guard, which
  // sends the route's requests to the capture server and refuses the rest.
  const refused = [];
  installGuard({
    who: 'the repro',
    ports: new Set([capture.port]),
    route: (requested) => destination(route, url, requested),
    child: (file, args) => file === process.execPath && args[0] === SCRIPT && args[1] === MCP_SERVER_FLAG,
    refused: (what) => refused.push(what),
  });
  setRouteEnvironment();
  const { Agent } = await import('@mastra/core/agent');
  const toolsModule = await import('@mastra/core/tools');
  const { z } = await import('zod');
  const version = installedVersion();
  const lib = {
    Agent,
    createTool: toolsModule.createTool,
    toolsModule,
    z,
    mastraVersion: version,
    importPackage: (specifier) => import(specifier),
    mcpServer: (namesFile) => ({ command: process.execPath, args: [SCRIPT, MCP_SERVER_FLAG, namesFile] }),
  };

  // Mastra's logger writes through console.error and console.warn.
  const logged = [];
  const kept = { error: console.error, warn: console.warn };
  if (!process.argv.includes('--verbose')) {
    console.error = (...args) => logged.push(args);
    console.warn = (...args) => logged.push(args);
  }
  let result;
  try {
    checkCase(c);
    result = await runAgent(lib, c, url);
  } catch (e) {
    console.log(`the case cannot run here: ${e?.message ?? e}`);
    process.exit(2);
  } finally {
    Object.assign(console, kept);
  }
  capture.server.close();

  const show = (v) => JSON.stringify(v);
  if (REPRO.mode === 'prediction') console.log('no known issue: what is sent, checked against the model');
  else console.log(`${REPRO.issue.id}: ${REPRO.issue.title}`);
  console.log(`case: ${REPRO.casePath} (${c.about}), on the ${route} route`);
  console.log(`@mastra/core ${version} (the report was made on ${REPRO.madeOn})`);
  if (!result.applicable) {
    console.log(`not applicable: ${result.reason}`);
    process.exit(2);
  }
  const sent = capture.requests.map((body) => viewOf(REPRO.reading, route, body));
  const projection = {
    requests: sent,
    error: projectedError(result.error, replies, sent.length),
    seen: result.seen,
    executed: result.executed,
  };
  for (const [i, r] of sent.entries()) {
    console.log(`sent #${i + 1}: tools ${show(r.tools)}, tool_choice ${show(r.toolChoice)}`);
  }
  if (sent.length === 0) console.log('sent: no request reached the capture server');
  if (refused.length > 0) console.log(`refused (not this route's provider): ${show(refused)}`);
  console.log(`error: ${show(projection.error)}`);
  console.log(`handed to the user's code: ${show(result.seen)}`);
  console.log(`tools that ran (by id): ${show(result.executed.map((e) => e.id))}`);
  if (logged.length > 0) console.log(`Mastra logged ${logged.length} message(s) (node repro.mjs --verbose shows them)`);
  if (REPRO.mode === 'prediction') process.exit(againstTheModel(projection));
  console.log(`the issue shows when: ${show(REPRO.symptom)}`);
  console.log(`expected (fixed): ${REPRO.issue.fixed}`);
  if (REPRO.fixedSymptom) console.log(`expected (fixed), checked as: ${show(REPRO.fixedSymptom)}`);
  const shows = (check) => holds(REPRO.reading, check, projection);
  if (shows(REPRO.shows)) {
    console.log(`KNOWN ISSUE SHOWS: ${REPRO.issue.id}${REPRO.issue.upstream ? ` (${REPRO.issue.upstream})` : ''}`);
    process.exit(1);
  }
  const unlikeTheFix = REPRO.fixedShows !== null && !shows(REPRO.fixedShows);
  console.log(`not shown: ${unlikeTheFix ? 'gone, but NOT as the fixed behaviour describes' : 'fixed'}`);
  process.exit(0);
}

/** JSON text with object keys sorted, absent and undefined as null. */
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/** Compare what was sent with the model's prediction: 0 the same, 1 not. */
function againstTheModel(projection) {
  const expected = REPRO.expected;
  const parts = [['error', expected.error, projection.error]];
  const n = Math.max(expected.requests.length, projection.requests.length);
  for (let i = 0; i < n; i++) {
    const [want, got] = [expected.requests[i], projection.requests[i]];
    parts.push([`request #${i + 1} tools`, want?.tools, got?.tools]);
    parts.push([`request #${i + 1} tool_choice`, want?.toolChoice, got?.toolChoice]);
  }
  const differ = parts.filter(([, want, got]) => canonical(want) !== canonical(got));
  for (const [what, want, got] of differ) {
    console.log(`${what}: the model predicts ${canonical(want)}, Mastra sent ${canonical(got)}`);
  }
  if (expected.requests.length !== projection.requests.length) {
    console.log(`requests: the model predicts ${expected.requests.length}, Mastra sent ${projection.requests.length}`);
  }
  if (differ.length > 0) {
    console.log(`DIVERGES from the model made for ${REPRO.madeOn}: a new issue, or a model to correct`);
    return 1;
  }
  console.log(`as the model predicts for ${REPRO.madeOn}`);
  return 0;
}

// Whatever fails outside the case's own run is the script's failure, not a
// finding: exit 2, never the 1 of an issue that shows.
try {
  if (process.argv[2] === MCP_SERVER_FLAG) {
    // One of the case's MCP servers (mcp-tools.mjs).
    serveToolNames(readToolNames(process.argv[3]));
  } else {
    await reproduce();
  }
} catch (e) {
  console.log(`the script could not run: ${e?.stack ?? e}`);
  process.exit(2);
}
