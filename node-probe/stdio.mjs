// Claim stdout for the protocol; send everything else to stderr.
//
// probe.mjs and ceiling.mjs speak JSON lines on stdout. Mastra, the AI SDK and
// their dependencies log freely (Mastra's console logger prints "Upstream LLM
// API error ..." on every error reply), and a single stray line on stdout
// would corrupt the protocol. So the real stdout write is saved first, and
// console.* and process.stdout.write are pointed at stderr. This module
// imports only node builtins, so it runs before any library is loaded.

import { Console } from 'node:console';

let saved = null;

/**
 * Redirect console.* and process.stdout.write to stderr (once) and return a
 * function that writes one line to the real stdout.
 */
export function claimStdout() {
  if (saved) return saved;
  const stdout = process.stdout;
  const realWrite = stdout.write.bind(stdout);

  // A console whose "stdout" is stderr: console.log/info/debug/table/dir...
  // all keep their formatting, only the destination changes.
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  for (const name of Object.keys(console)) {
    if (typeof toStderr[name] === 'function') console[name] = toStderr[name].bind(toStderr);
  }
  // Libraries that hold process.stdout and call .write on it (pino-style
  // loggers, progress output) land on stderr too.
  stdout.write = (...args) => process.stderr.write(...args);

  saved = (line) => realWrite(`${line}\n`);
  return saved;
}
