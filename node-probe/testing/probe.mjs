// A probe that misbehaves on purpose, for the fault suite
// (harness/tests/faults.rs). It speaks PROTOCOL.md like ../probe.mjs, but
// loads no Mastra: what it does with each case is chosen by the case's
// `about`, a word and an optional argument.
//
//   node probe.mjs INSTALL_DIR
//
//   ok                one request to the case's URL, then a result
//   requests N        N requests, one after another, then a result
//   hang              never answers
//   hang-group FILE   ignores SIGTERM, starts a child that ignores it too,
//                     writes "PROBE_PID CHILD_PID" to FILE, never answers
//   deaf FILE         writes its pid to FILE, ignores SIGTERM and the end of
//                     stdin, never answers: only the parent-death signal
//                     ends it when the harness is SIGKILLed
//   spin              blocks its event loop for good (it stops reading stdin)
//   die               one request, then SIGKILLs itself
//   die-once FILE     dies like `die` unless FILE exists (it creates it first)
//   garbage           writes lines that are not answers (text, bytes that are
//                     not UTF-8, JSON that is no answer, an answer for a seq
//                     never sent, a line of 6 MiB), then answers
//   grow MB           keeps MB more megabytes for good, then answers
//   elsewhere         one request to the case's URL and one to ARG's port on
//                     127.0.0.1 (which nobody serves), counted as both
//   lose              one request, but counts two
//   env               answers with its environment's names as the error
//   body KIND         one request whose body is KIND: not-json, bad-utf8,
//                     lone-surrogate
//
// At start it reads INSTALL_DIR/fake-probe.json when there is one:
//   {"startup": "no-hello" | "exit" | "exit-after-hello" | "garbage-first",
//    "pidfile": FILE}
// (`pidfile` gets this process's pid before anything else happens).

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { eachLine } from '../lines.mjs';

const out = (line) => process.stdout.write(`${line}\n`);
const answer = (obj) => out(JSON.stringify(obj));

const installDir = process.argv[2] ?? '.';
let startup = {};
try {
  startup = JSON.parse(readFileSync(path.join(installDir, 'fake-probe.json'), 'utf8'));
} catch {
  // No file: an ordinary start.
}
if (startup.pidfile) writeFileSync(startup.pidfile, `${process.pid}`);

const kept = []; // what `grow` holds on to

// `seen` as the model predicts it for the fake's cases, which script no
// reply: the fake stands in for a 1.x probe, and a 1.x probe's every result
// carries `seen` (docs/seen.md).
const SEEN = { stream: [], toolCalls: null, toolResults: null, approval: { asked: [], pending: [] } };

function result(extra = {}) {
  return {
    applicable: true,
    reason: null,
    error: null,
    executed: [],
    mutated: [],
    elsewhere: [],
    seen: SEEN,
    ...extra,
  };
}

async function post(url, body) {
  const res = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  await res.arrayBuffer();
}

const REQUEST = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

async function run(seq, url, c) {
  const [mode, arg] = String(c?.about ?? 'ok').split(' ');
  switch (mode) {
    case 'ok':
      await post(url, REQUEST);
      return answer({ seq, result: result({ fetches: 1 }) });
    case 'requests': {
      const n = Number(arg);
      for (let i = 0; i < n; i++) await post(url, REQUEST);
      return answer({ seq, result: result({ fetches: n }) });
    }
    case 'hang':
      return new Promise(() => {});
    case 'wait-for': {
      // Says it started (ARG.started), then waits for ARG to exist: a case
      // that keeps its run busy until the scenario lets it go.
      writeFileSync(`${arg}.started`, `${process.pid}`);
      while (!existsSync(arg)) await new Promise((r) => setTimeout(r, 50));
      await post(url, REQUEST);
      return answer({ seq, result: result({ fetches: 1 }) });
    }
    case 'hang-group': {
      process.on('SIGTERM', () => {});
      const child = spawn(process.execPath, ['-e', 'process.on("SIGTERM",()=>{}); setInterval(()=>{},1000)'], {
        stdio: 'ignore',
      });
      writeFileSync(arg, `${process.pid} ${child.pid}`);
      return new Promise(() => {});
    }
    case 'deaf':
      process.on('SIGTERM', () => {});
      process.stdin.removeAllListeners('end');
      setInterval(() => {}, 1000);
      writeFileSync(arg, `${process.pid}`);
      return new Promise(() => {});
    case 'spin':
      process.on('SIGTERM', () => {});
      for (;;) {}
    case 'die':
      await post(url, REQUEST);
      return process.kill(process.pid, 'SIGKILL');
    case 'die-once':
      if (!existsSync(arg)) {
        writeFileSync(arg, 'died');
        await post(url, REQUEST);
        return process.kill(process.pid, 'SIGKILL');
      }
      await post(url, REQUEST);
      return answer({ seq, result: result({ fetches: 1 }) });
    case 'garbage':
      out('Upstream LLM API error from a library that logs to stdout');
      process.stdout.write(Buffer.from([0xff, 0xfe, 0x00, 0x0a]));
      out('{"seq":');
      out('[1,2,3]');
      out('{"hello":{"node":"again"}}');
      out('{"seq":null,"fault":"an unsolicited fault"}');
      out('{"seq":999999999999,"result":{"applicable":true}}');
      out('{"seq":"7","pong":{"rss":1}}');
      out('x'.repeat(6 << 20));
      await post(url, REQUEST);
      return answer({ seq, result: result({ fetches: 1 }) });
    case 'grow':
      kept.push(Buffer.alloc(Number(arg) << 20, 1));
      await post(url, REQUEST);
      return answer({ seq, result: result({ fetches: 1 }) });
    case 'elsewhere': {
      await post(url, REQUEST);
      const stray = `http://127.0.0.1:${arg}/v1`;
      await post(stray, REQUEST).catch(() => {});
      return answer({ seq, result: result({ fetches: 2, elsewhere: [`${stray}/chat/completions`] }) });
    }
    case 'lose':
      await post(url, REQUEST);
      return answer({ seq, result: result({ fetches: 2 }) });
    case 'env': {
      const names = Object.keys(process.env).sort().join(' ');
      const error = { id: null, message: `ENV ${names}`, causeCode: null, name: 'Error', statusCode: null };
      return answer({ seq, result: result({ fetches: 0, error }) });
    }
    case 'body': {
      const bodies = {
        'not-json': Buffer.from('this is not JSON'),
        'bad-utf8': Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
        'lone-surrogate': Buffer.from('{"model":"m","messages":[],"x":"\\ud800"}'),
      };
      await post(url, bodies[arg]);
      return answer({ seq, result: result({ fetches: 1 }) });
    }
    default:
      return answer({ seq, fault: `the fake probe has no mode ${JSON.stringify(mode)}` });
  }
}

if (startup.startup === 'garbage-first') out('not a hello');
if (startup.startup === 'exit') process.exit(3);
if (startup.startup !== 'no-hello') {
  answer({ hello: { node: process.version, mastra: 'fake', zod: 'fake', pid: process.pid, builtins: [] } });
}
if (startup.startup === 'exit-after-hello') setTimeout(() => process.exit(1), 50);

let inFlight = 0;
let ended = false;
eachLine(
  process.stdin,
  (line) => {
    let req;
    try {
      req = JSON.parse(line);
    } catch {
      answer({ seq: null, fault: 'malformed request line' });
      return;
    }
    if (req.op === 'ping') {
      answer({ seq: req.seq, pong: { rss: process.memoryUsage().rss } });
      return;
    }
    inFlight += 1;
    run(req.seq, req.url, req.case)
      .catch((e) => answer({ seq: req.seq, fault: `fake probe error: ${e?.message ?? e}` }))
      .finally(() => {
        inFlight -= 1;
        if (ended && inFlight === 0) process.exit(0);
      });
  },
  () => {
    ended = true;
    if (inFlight === 0) process.exit(0);
  },
);
