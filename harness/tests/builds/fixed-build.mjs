// Build a "fixed" @mastra/core of our own, for the builds tests:
// the published 1.67.0, with its dist patched so that a named toolChoice is
// rewritten the way Agent.formatTools() rewrites tool keys, repacked.
//
//   node harness/tests/builds/fixed-build.mjs OUT_DIR
//
// OUT_DIR gets `package/` (the patched package folder, a folder build) and
// `mastra-core-1.67.0-fixed.tgz` (it packed, as `npm pack` would ship it). The
// tarball of 1.67.0 comes from the npm registry through `npm pack`; nothing
// is committed. Prints {"folder": ..., "tgz": ..., "original": ...,
// "passThrough": ..., "rewritten": ...} as JSON: the registry's tarball and
// the one edit, for a test that makes the same fix as a commit. Plain Node (any
// version that runs npm) is enough: this only edits files.
//
// Where the fix goes: in 1.67.0, Mastra's own prepareToolsAndToolChoice
// (dist/agent-*.js, and the CommonJS twin dist/agent-*.cjs) turns the call's
// toolChoice into the AI SDK's, passing a named choice through as
//   toolName: toolChoice.toolName
// while the tools it sends were already renamed by formatTools(). The patch
// maps that name through formatTools' rewrite (invalid characters to "_", an
// "_" prefix unless it starts with a letter or "_", cut at 63). The vendored
// AI SDK copies of the same function (dist/dist-*.js, message-list-*.js)
// are left alone: they are the SDK's, not Mastra's.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const VERSION = '1.67.0';
const PASS_THROUGH = 'toolName: toolChoice.toolName';
const REWRITTEN =
  'toolName: ((n) => { if (typeof n !== "string" || n === "" || !(n.length > 63 || /[^a-zA-Z0-9_\\-]/.test(n) || !/[a-zA-Z_]/.test(n[0]))) return n; ' +
  'let k = n.replace(/[^a-zA-Z0-9_\\-]/g, "_"); if (!/[a-zA-Z_]/.test(k[0])) k = "_" + k; return k.slice(0, 63); })(toolChoice.toolName)';

const out = path.resolve(process.argv[2] ?? fail('usage: fixed-build.mjs OUT_DIR'));
mkdirSync(out, { recursive: true });

function fail(message) {
  console.error(`fixed-build: ${message}`);
  process.exit(2);
}

const npm = (args, cwd) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_ignore_scripts: 'true' } });

// The published tarball, unpacked into OUT_DIR/package.
const [packed] = JSON.parse(npm(['pack', `@mastra/core@${VERSION}`, '--json', '--pack-destination', out], out));
// Kept under a name of its own: the repack below writes packed.filename.
const original = path.join(out, `mastra-core-${VERSION}-registry.tgz`);
renameSync(path.join(out, packed.filename), original);
execFileSync('tar', ['-xzf', original, '-C', out]);
const folder = path.join(out, 'package');

// Patch the one pass-through in each of Mastra's own agent bundles.
const dist = path.join(folder, 'dist');
const bundles = readdirSync(dist).filter((f) => /^agent-[A-Za-z0-9_-]+\.c?js$/.test(f));
let patched = 0;
for (const file of bundles) {
  const full = path.join(dist, file);
  const text = readFileSync(full, 'utf8');
  const count = text.split(PASS_THROUGH).length - 1;
  if (count === 0) continue;
  if (count !== 1) fail(`${file}: expected one "${PASS_THROUGH}", found ${count}`);
  writeFileSync(full, text.replace(PASS_THROUGH, REWRITTEN));
  patched += 1;
}
if (patched !== 2) fail(`expected to patch the ESM and CommonJS agent bundles, patched ${patched}: ${bundles.join(', ')}`);

// Repack the patched folder under a name of its own, so it never passes for
// the registry's tarball.
const [repacked] = JSON.parse(npm(['pack', folder, '--json', '--pack-destination', out], out));
const tgz = path.join(out, `mastra-core-${VERSION}-fixed.tgz`);
renameSync(path.join(out, repacked.filename), tgz);
console.log(JSON.stringify({ folder, tgz, original, passThrough: PASS_THROUGH, rewritten: REWRITTEN }));
