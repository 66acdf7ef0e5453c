// The long-lived probe: one Node process per @mastra/core version, serving
// the line protocol of PROTOCOL.md on stdin/stdout.
//
//   node probe.mjs INSTALL_DIR
//
// Static imports are node builtins and local modules that import nothing
// else, so stdout is claimed before Mastra (dynamically imported below) can
// write a single byte to it.

import { CaseFault } from './agent.mjs';
import { importFirst, loadInstall, runCase } from './cases.mjs';
import { eachLine } from './lines.mjs';
import { relayFromEnvironment, startRelay } from './relay.mjs';
import { claimStdout } from './stdio.mjs';

const writeLine = claimStdout();

// A library's stray rejection or exception must not take the process (and
// every case in flight) down: log it and carry on.
process.on('unhandledRejection', (reason) => {
  console.error('[probe] unhandled rejection:', reason);
});
process.on('uncaughtException', (err) => {
  console.error('[probe] uncaught exception:', err);
});

/** Write one answer. An answer that cannot be serialised becomes a fault. */
function answer(obj) {
  let line;
  try {
    line = JSON.stringify(obj);
  } catch (e) {
    line = JSON.stringify({ seq: obj.seq ?? null, fault: `answer not serialisable: ${e?.message ?? e}` });
  }
  writeLine(line);
}

const installDir = process.argv[2];
if (!installDir) {
  console.error('usage: node probe.mjs INSTALL_DIR');
  process.exit(2);
}

let lib;
try {
  // In the OS sandbox, the listener is reached through the relay only.
  const relay = relayFromEnvironment();
  if (relay) await startRelay(relay);
  lib = await loadInstall(installDir);
  await importFirst(lib);
} catch (e) {
  // No hello: the driver reads this fault line (or EOF) as "version
  // unavailable". The stack goes to stderr, the line stays one sentence.
  console.error('[probe] import failed:', e);
  answer({ seq: null, fault: `cannot load ${installDir}: ${e?.message ?? e}` });
  process.exit(3);
}

answer({
  hello: {
    node: process.version,
    mastra: lib.mastraVersion,
    zod: lib.zodVersion,
    pid: process.pid,
    builtins: lib.builtins,
    // @mastra/mcp, the MCP SDK, @mastra/memory, @mastra/libsql as installed.
    packages: lib.sourceVersions,
  },
});

// ---------------------------------------------------------------------------
// Requests

let inFlight = 0;
let stdinEnded = false;

/** Exit once stdin is closed and every answer is written. */
function maybeExit() {
  // Mastra keeps timers and sockets alive; an explicit exit is the only
  // reliable end once the driver has hung up.
  if (stdinEnded && inFlight === 0) process.exit(0);
}

async function handleLine(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    answer({ seq: null, fault: `malformed request line: ${e.message}` });
    return;
  }
  const seq = req !== null && typeof req === 'object' && 'seq' in req ? req.seq : null;
  if (req === null || typeof req !== 'object' || Array.isArray(req)) {
    answer({ seq: null, fault: 'request must be a JSON object' });
    return;
  }
  if (typeof seq !== 'number' && typeof seq !== 'string') {
    answer({ seq: null, fault: 'request has no seq' });
    return;
  }
  switch (req.op) {
    case 'ping':
      answer({ seq, pong: { rss: process.memoryUsage().rss } });
      return;
    case 'run':
      try {
        const result = await runCase(lib, req.case, req.url);
        answer({ seq, result });
      } catch (e) {
        // CaseFault: the request was wrong. Anything else is a probe bug;
        // both end this request, neither ends the probe.
        if (!(e instanceof CaseFault)) console.error(`[probe] seq ${seq} failed:`, e);
        answer({ seq, fault: e instanceof CaseFault ? e.message : `probe error: ${e?.message ?? e}` });
      }
      return;
    default:
      answer({ seq, fault: `unknown op ${JSON.stringify(req.op)}` });
  }
}

// Each line starts its own task at once: answers come back in completion
// order, matched by seq.
eachLine(
  process.stdin,
  (line) => {
    if (line.trim() === '') return; // blank lines carry no request
    inFlight += 1;
    handleLine(line)
      .catch((e) => console.error('[probe] handler failed:', e))
      .finally(() => {
        inFlight -= 1;
        maybeExit();
      });
  },
  () => {
    stdinEnded = true;
    maybeExit();
  },
);
