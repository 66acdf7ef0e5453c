// The in-process throughput ceiling for `make bench`.
//
//   node ceiling.mjs INSTALL_DIR CASES_JSONL CONCURRENCY
//
// Runs every case of CASES_JSONL (one case JSON per line, repeated as given)
// in this one Node process, against an in-process node:http listener with the
// case format's reply semantics, CONCURRENCY cases in flight, and prints one
// line: {"cases":N,"seconds":S,"casesPerSecond":R,"cpuSeconds":C}.
//
// This is what the harness could reach with no process boundary, no line
// protocol and no Rust listener: the probe + driver pipeline is measured
// against it. The agent and call are built by cases.mjs, exactly as the probe
// builds them. `seconds` covers running the cases only: the import of Mastra
// and the listener's start are paid once per probe too and are not
// throughput. `cpuSeconds` is this process's CPU (user and system, every
// thread: V8's collector and compiler run beside the loop) over the same
// span, the MCP servers it starts left out: the cost of a case on the
// cores, where `seconds` is its cost on the clock.

import { readFileSync } from 'node:fs';
import { importFirst, loadInstall, runCase } from './cases.mjs';
import { startListener } from './listener.mjs';
import { claimStdout } from './stdio.mjs';

const writeLine = claimStdout();
// A stray library rejection must not end the measurement.
process.on('unhandledRejection', (reason) => console.error('[ceiling] unhandled rejection:', reason));

const [installDir, casesPath, concurrencyArg] = process.argv.slice(2);
const concurrency = Number.parseInt(concurrencyArg ?? '', 10);
if (!installDir || !casesPath || !(concurrency >= 1)) {
  console.error('usage: node ceiling.mjs INSTALL_DIR CASES_JSONL CONCURRENCY');
  process.exit(2);
}

let cases;
try {
  cases = readFileSync(casesPath, 'utf8')
    .split('\n')
    .map((line, i) => [line.replace(/\r$/, ''), i + 1])
    .filter(([line]) => line.trim() !== '')
    .map(([line, n]) => {
      try {
        return JSON.parse(line);
      } catch (e) {
        throw new Error(`${casesPath}:${n}: ${e.message}`);
      }
    });
} catch (e) {
  console.error(`[ceiling] ${e.message}`);
  process.exit(2);
}

const lib = await loadInstall(installDir);
// As the probe does before its hello, outside the measured span.
await importFirst(lib);
const listener = await startListener();

let next = 0;
let faults = 0;
/** One of CONCURRENCY workers: take the next case until none are left. */
async function worker() {
  while (next < cases.length) {
    const c = cases[next++];
    const slot = listener.open(c.replies ?? [], c.route ?? 'openai-compatible');
    try {
      await runCase(lib, c, slot.url);
    } catch (e) {
      // A case the probe would answer with a fault: counted, reported, and
      // the run goes on (the probe goes on too).
      faults += 1;
      console.error(`[ceiling] fault: ${e?.message ?? e}`);
    } finally {
      listener.close(slot.slot);
    }
  }
}

const t0 = performance.now();
const cpu0 = process.cpuUsage();
await Promise.all(Array.from({ length: Math.min(concurrency, cases.length) }, worker));
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);

writeLine(
  JSON.stringify({
    cases: cases.length,
    seconds: Number(seconds.toFixed(3)),
    casesPerSecond: Number((seconds > 0 ? cases.length / seconds : 0).toFixed(1)),
    cpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(3)),
  }),
);
await listener.stop();
// Mastra keeps timers alive; the measurement is done.
process.exit(faults === 0 ? 0 : 1);
