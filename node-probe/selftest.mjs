// The probe's own tests: spawn probe.mjs on each given install, drive it over
// the line protocol against the scripted listener, check the answers and the
// captured request bodies.
//
//   node selftest.mjs INSTALL_DIR...
//
// Exit 0 when every check passes on every install, 1 otherwise. It pins what
// PROTOCOL.md says the probe does over the protocol itself (the hello, ping,
// malformed lines, many cases in flight, nothing but answers on stdout), and
// the observations recorded there ("how errors surface"). `make test` runs
// it on the pinned versions (harness/tests/javascript.rs).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eachLine } from './lines.mjs';
import { startListener } from './listener.mjs';

const PROBE = fileURLToPath(new URL('./probe.mjs', import.meta.url));

/** A running probe: send(request) resolves to the answer with its seq. */
function startProbe(installDir) {
  const child = spawn(process.execPath, [PROBE, installDir], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map();
  const nonJson = [];
  let stderrBytes = 0;
  let helloResolve;
  const hello = new Promise((r) => (helloResolve = r));
  eachLine(child.stdout, (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      nonJson.push(line); // any such line is a protocol violation
      return;
    }
    if ('hello' in msg) helloResolve(msg.hello);
    else if (waiting.has(msg.seq)) {
      waiting.get(msg.seq)(msg);
      waiting.delete(msg.seq);
    } else if (msg.seq === null) {
      waiting.get('null')?.(msg);
      waiting.delete('null');
    }
  });
  child.stderr.on('data', (d) => (stderrBytes += d.length));
  let seq = 0;
  return {
    child,
    hello,
    nonJson,
    stderrBytes: () => stderrBytes,
    nextSeq: () => ++seq,
    send(req) {
      return new Promise((resolve) => {
        waiting.set(req.seq ?? 'null', resolve);
        child.stdin.write(`${JSON.stringify(req)}\n`);
      });
    },
    sendRaw(line, key) {
      return new Promise((resolve) => {
        waiting.set(key, resolve);
        child.stdin.write(`${line}\n`);
      });
    },
    stop() {
      child.stdin.end();
      return new Promise((r) => child.once('exit', r));
    },
  };
}

const names = (body) => (Array.isArray(body.tools) ? body.tools.map((t) => t.function.name) : null);
const history = (body) =>
  body.messages.flatMap((m) => {
    if (m.role === 'assistant' && m.tool_calls) return m.tool_calls.map((c) => ({ call: c.function.name }));
    if (m.role === 'tool') return [{ result: { id: m.tool_call_id, content: m.content } }];
    return [];
  });

const PARIS = [{ toolCalls: [{ id: 'call_1', name: 'search_web', arguments: { city: 'Paris' } }] }, { text: 'done' }];

async function testInstall(installDir) {
  const L = await startListener();
  const p = startProbe(installDir);
  const hello = await p.hello;
  const v = hello.mastra;
  const results = [];
  const check = async (title, fn) => {
    try {
      await fn();
      results.push([title, null]);
    } catch (e) {
      results.push([title, e]);
    }
  };
  /** Run one case; resolve to { answer, requests }. */
  const run = async (c) => {
    const slot = L.open(c.replies ?? []);
    const seq = p.nextSeq();
    const answer = await p.send({ op: 'run', seq, url: slot.url, case: c });
    return { answer, result: answer.result, requests: slot.requests };
  };

  await check('hello', async () => {
    assert.equal(hello.node, process.version);
    assert.match(v, /^\d+\.\d+\.\d+/);
    assert.equal(hello.zod, '3.25.76');
    assert.ok(Array.isArray(hello.builtins));
  });

  await check('ping', async () => {
    const a = await p.send({ op: 'ping', seq: p.nextSeq() });
    assert.ok(a.pong.rss > 0);
  });

  for (const method of ['generate', 'stream']) {
    await check(`${method}: key "search.web" is sent as search_web; the 400 reply is the error`, async () => {
      const { result, requests } = await run({ tools: ['search.web'], call: { method } });
      assert.deepEqual(requests.map(names), [['search_web']]);
      assert.equal(requests[0].tool_choice, 'auto');
      assert.equal(result.error.statusCode, 400);
      assert.equal(result.error.message, 'captured');
      assert.deepEqual(result.executed, []);
      assert.deepEqual(result.mutated, []);
    });

    await check(`${method}: toolChoice names "search.web" unrewritten`, async () => {
      const { requests } = await run({
        tools: ['search.web'],
        call: { method, toolChoice: { type: 'tool', toolName: 'search.web' } },
      });
      assert.deepEqual(requests[0].tool_choice, { type: 'function', function: { name: 'search.web' } });
      assert.deepEqual(names(requests[0]), ['search_web']);
    });

    await check(`${method}: a call to search_web runs execute with {city:"Paris"}; the result goes back`, async () => {
      const { result, requests } = await run({ tools: ['search.web'], call: { method }, replies: PARIS });
      assert.equal(result.error, null);
      assert.deepEqual(result.executed, [{ id: 'get-weather', input: { city: 'Paris' } }]);
      assert.equal(requests.length, 2);
      assert.deepEqual(history(requests[1]), [
        { call: 'search_web' },
        { result: { id: 'call_1', content: '{"tempC":20}' } },
      ]);
      assert.deepEqual(result.mutated, []);
    });

    await check(`${method}: the empty key fails before any request`, async () => {
      const { result, requests } = await run({ tools: [''], call: { method } });
      assert.equal(requests.length, 0);
      assert.equal(result.error.id, method === 'generate' ? 'AGENT_GENERATE_FAILED' : 'AGENT_STREAM_FAILED');
      assert.match(result.error.message, /reading 'match'/);
      assert.equal(result.error.statusCode, null);
    });

    await check(`${method}: colliding keys throw AGENT_TOOL_NAME_COLLISION (as causeCode)`, async () => {
      const { result, requests } = await run({ tools: ['search.web', 'search web'], call: { method } });
      assert.equal(requests.length, 0);
      assert.equal(result.error.causeCode, 'AGENT_TOOL_NAME_COLLISION');
      assert.equal(result.error.statusCode, null);
    });
  }

  await check('custom tool objects are recorded under their own id', async () => {
    const { result, requests } = await run({
      tools: [{ key: 'w', id: 'weather-x', description: 'X' }],
      replies: [{ toolCalls: [{ id: 'c1', name: 'w', arguments: { city: 'Oslo' } }] }, { text: 'ok' }],
    });
    assert.deepEqual(result.executed, [{ id: 'weather-x', input: { city: 'Oslo' } }]);
    assert.equal(requests[0].tools[0].function.description, 'X');
  });

  await check('"__proto__" is an own key of the tools object and is carried', async () => {
    const { result, requests } = await run({ tools: ['__proto__', 'a'] });
    assert.deepEqual(result.mutated, []);
    // Observation, not a requirement: record what the version sends.
    console.error(`  [${v}] tools ["__proto__","a"] -> ${JSON.stringify(names(requests[0]))}`);
  });

  await check('a repeated key keeps its first position and takes the later tool', async () => {
    const { requests } = await run({ tools: ['a', 'b', { key: 'a', id: 'other', description: 'Other' }] });
    assert.deepEqual(names(requests[0]), ['a', 'b']);
    assert.equal(requests[0].tools[0].function.description, 'Other');
  });

  await check('a lone surrogate key reaches the wire exactly (toolChoice) and sanitised (tools)', async () => {
    const key = '\ud800x';
    const { requests } = await run({ tools: [key], call: { toolChoice: { type: 'tool', toolName: key } } });
    assert.equal(requests[0].tool_choice.function.name, key);
    assert.deepEqual(names(requests[0]), ['_x']);
  });

  await check('toolsets and clientTools are passed and not mutated', async () => {
    const { result, requests } = await run({
      tools: ['a'],
      toolsets: { set1: ['b.c'] },
      clientTools: [{ key: 'client', id: 'client-tool', description: 'C' }],
    });
    assert.deepEqual(result.mutated, []);
    console.error(`  [${v}] tools a + toolsets b.c + clientTools client -> ${JSON.stringify(names(requests[0]))}`);
  });

  await check('askUserTool: applicable exactly when exported', async () => {
    const { result } = await run({ tools: [{ key: 'ask_user', builtin: 'askUserTool' }] });
    const exported = hello.builtins.includes('askUserTool');
    assert.equal(result.applicable, exported);
    if (!exported) {
      assert.equal(result.reason, `@mastra/core ${v} does not export askUserTool`);
      assert.equal(result.error, null);
    }
  });

  await check('malformed lines answer faults and the probe continues', async () => {
    const a = await p.sendRaw('not json', 'null');
    assert.equal(a.seq, null);
    assert.match(a.fault, /malformed/);
    const b = await p.send({ op: 'run', seq: 9001, case: { tools: ['a'] } });
    assert.match(b.fault, /url/);
    const c = await p.send({ op: 'run', seq: 9002, url: 'http://127.0.0.1:1/v1', case: { tools: [42] } });
    assert.match(c.fault, /tools\[0\]/);
    const d = await p.send({ op: 'nope', seq: 9003 });
    assert.match(d.fault, /unknown op/);
    const e = await p.send({ op: 'ping', seq: 9004 });
    assert.ok(e.pong);
  });

  await check('20 cases in flight at once', async () => {
    const cases = Array.from({ length: 20 }, (_, i) => ({
      tools: [`k.${i}`],
      call: { method: i % 2 ? 'stream' : 'generate' },
      replies:
        i % 4 < 2
          ? [{ toolCalls: [{ id: `c${i}`, name: `k_${i}`, arguments: { city: `C${i}` } }] }, { text: 'ok' }]
          : [],
    }));
    const t0 = performance.now();
    const outs = await Promise.all(cases.map(run));
    const ms = performance.now() - t0;
    outs.forEach(({ result, requests }, i) => {
      assert.deepEqual(names(requests[0]), [`k_${i}`]);
      if (i % 4 < 2) {
        assert.equal(result.error, null);
        assert.deepEqual(result.executed, [{ id: 'get-weather', input: { city: `C${i}` } }]);
      } else {
        assert.equal(result.error.statusCode, 400);
      }
    });
    console.error(`  [${v}] 20 concurrent cases in ${ms.toFixed(0)} ms`);
  });

  await check('stdout carried only protocol lines', async () => {
    assert.deepEqual(p.nonJson, []);
  });

  await p.stop();
  await L.stop();
  let failed = 0;
  for (const [title, err] of results) {
    if (err) failed += 1;
    console.error(
      `${err ? 'FAIL' : 'ok  '} [${v}] ${title}${err ? `\n     ${err.message.split('\n').join('\n     ')}` : ''}`,
    );
  }
  return failed;
}

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error('usage: node selftest.mjs INSTALL_DIR...');
  process.exit(2);
}
let failed = 0;
for (const dir of dirs) failed += await testInstall(dir);
console.error(failed === 0 ? 'all passed' : `${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
