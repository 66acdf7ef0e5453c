// Loading a user's Mastra project for `mastra-conform lint --project`:
//
//   node project.mjs --tools DIR --loader auto|node|esbuild --isolation sandbox|guard PROJECT_DIR ENTRY_FILE
//
// The driver (harness/lint/load.rs) writes one JSON request on stdin and
// closes it: { "nonce": N, "env": [{ "file": NAME, "text": TEXT }], "envNotRead":
// [NAME] }. The loader reads it whole before any of the project's code runs,
// so the project cannot read it. It imports ENTRY_FILE (TypeScript through
// Node's type stripping where that is enough, else bundled by esbuild:
// project-bundle.mjs), finds the exported Mastra instance, and walks every
// registered agent with the @mastra/core the project installed. For each
// agent it reports the record its model receives: every tool key, in the
// order Mastra merges them and before Mastra rewrites them, with where each
// came from and where it is written (project-sources.mjs); its default
// toolChoice and activeTools; its model's route; and the MCP servers its
// tools come from, with what each gave (project-mcp.mjs).
//
// The document. One JSON line on file descriptor 3, a pipe of the driver's
// that the project's code has no reason to write to, carrying the request's
// nonce; the driver takes only a line with that nonce, so whatever the
// project prints on fd 1 and 2 (a logger, an exit handler) is the project's
// output, never the document. Keys are JS strings, written by JSON.stringify
// (lone surrogates as \udXXX escapes). On failure the document is
// {"error": {"kind", "message", "status"}}: status 2 when the project is at
// fault, 3 when this loader could not do its job; kind "needs-transpiler"
// asks the driver to load again with --loader esbuild. It exits 0 whenever it
// wrote a document.
//
// Side effects. The project runs with a scratch working folder, HOME and
// TMPDIR inside one temporary folder: the working folder sits where
// `mastra dev` runs the server (ENTRY's folder, `public/`) in a copy of the
// project's layout, so a relative storage path (`file:../mastra.db`) lands
// in it. What the load wrote there, and any file of the project's own that
// changed, is listed in `wrote`; the scratch folder is removed.
//
// Isolation: the driver starts this with an allowlisted environment (no
// credentials, no proxies), inside the OS sandbox where there is one
// (--isolation sandbox). Env files come in the request, not from disk, and
// only the ones the driver chose. Before the project is imported the guard
// (guard.mjs) is installed with nothing allowed, but, inside the sandbox, the
// commands of the project's own stdio MCP servers while their client
// connects. Each refusal is listed in the document's `blocked`.

import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseEnv } from 'node:util';
import { installGuard, nothingAllowed } from './guard.mjs';
import { bundleEntry, registerBundlerResolution } from './project-bundle.mjs';
import { McpWatch } from './project-mcp.mjs';
import { approvalPolicies, instructionsText, ownApproval, policyAnswers, sentName } from './project-names.mjs';
import { SourceIndex } from './project-sources.mjs';
import { holds, isSnapshot, line, releaseOf, releaseParts } from './releases.mjs';

// Held before the project can replace them.
const realExit = process.exit.bind(process);
const CHANNEL = 3;
let nonce = null;

/** A failure with the line the user sees and the exit status it deserves. */
class LoadError extends Error {
  constructor(kind, message, status = 2) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

function send(document) {
  writeSync(CHANNEL, `${JSON.stringify({ nonce, ...document })}\n`);
}

function fail(err) {
  const kind = err instanceof LoadError ? err.kind : 'loader';
  const status = err instanceof LoadError ? err.status : 3;
  if (!(err instanceof LoadError)) console.error('[project] loader error:', err);
  send({ error: { kind, message: err?.message ?? String(err), status }, blocked: blockedRequests, wrote: wrote() });
}

// A project's stray rejection (a storage adapter failing to connect, say)
// must not end the walk: log it and carry on.
process.on('unhandledRejection', (reason) => console.error('[project] unhandled rejection:', reason));

const firstLine = (text) => String(text ?? '').split('\n')[0];

// ---------------------------------------------------------------------------
// The request and the arguments

function readRequest() {
  let text;
  try {
    text = readFileSync(0, 'utf8');
  } catch (e) {
    throw new LoadError('usage', `no request on stdin: ${e.message}`, 3);
  }
  try {
    const request = JSON.parse(text);
    if (typeof request.nonce !== 'string') throw new Error('no nonce');
    return request;
  } catch (e) {
    throw new LoadError('usage', `the request on stdin is not the driver's: ${e.message}`, 3);
  }
}

function parseArgs(argv) {
  const options = { tools: null, loader: 'auto', isolation: 'guard' };
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--tools' || a === '--loader' || a === '--isolation') options[a.slice(2)] = argv[++i];
    else positional.push(a);
  }
  const [projectArg, entryArg] = positional;
  if (!projectArg || !entryArg || !options.tools) {
    throw new LoadError(
      'usage',
      'usage: node project.mjs --tools DIR [--loader auto|node|esbuild] [--isolation sandbox|guard] PROJECT_DIR ENTRY_FILE',
      3,
    );
  }
  return { ...options, projectDir: path.resolve(projectArg), entry: path.resolve(projectArg, entryArg) };
}

// ---------------------------------------------------------------------------
// Nothing leaves the machine

const blockedRequests = [];

/** The guard: nothing allowed but, inside the sandbox, the project's stdio MCP servers while they connect. */
function blockNetwork(isolation, mcp) {
  return installGuard({
    ...nothingAllowed('mastra-conform lint', (what) => blockedRequests.push(what)),
    child: (file, args) => isolation === 'sandbox' && mcp.isStarting(file, args),
  });
}

// ---------------------------------------------------------------------------
// Finding and checking the project's own @mastra/core

/** `node_modules/NAME` as Node's resolution finds it from DIR upward. */
function findPackage(dir, name) {
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, 'node_modules', name);
    try {
      if (statSync(path.join(candidate, 'package.json')).isFile()) return candidate;
    } catch {}
    if (path.dirname(d) === d) return null;
  }
}

/** The ESM file a package exports under SUBPATH ("." or "./x"). */
function exportedFile(pkgDir, subpath) {
  const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const pick = (target) => {
    if (typeof target === 'string') return target;
    if (target && typeof target === 'object') return pick(target.import ?? target.default ?? target.node);
    return null;
  };
  const exportsMap = pkg.exports;
  let target = null;
  if (exportsMap && typeof exportsMap === 'object') {
    if (subpath in exportsMap) target = pick(exportsMap[subpath]);
    else if (subpath === '.' && !Object.keys(exportsMap).some((k) => k.startsWith('.'))) target = pick(exportsMap);
    else {
      for (const [pattern, value] of Object.entries(exportsMap)) {
        const star = pattern.indexOf('*');
        if (star < 0) continue;
        const [before, after] = [pattern.slice(0, star), pattern.slice(star + 1)];
        if (subpath.startsWith(before) && subpath.endsWith(after)) {
          const middle = subpath.slice(before.length, subpath.length - after.length);
          target = pick(value)?.replaceAll('*', middle) ?? null;
          break;
        }
      }
    }
  } else if (subpath === '.') target = pkg.module ?? pkg.main ?? 'index.js';
  if (!target) throw new LoadError('mastra-missing', `${pkgDir} does not export ${subpath}`);
  return path.join(pkgDir, target);
}

function versionOf(pkgDir) {
  return JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version ?? null;
}

/**
 * The commands the project's own package manager installs with, read from
 * its lockfile or its `packageManager` field, here or in a folder above (a
 * workspace's root): `{ install, add }`, npm's when nothing says otherwise.
 */
function packageManager(projectDir) {
  const commands = {
    npm: { install: 'npm install', add: 'npm install' },
    pnpm: { install: 'pnpm install', add: 'pnpm add' },
    yarn: { install: 'yarn install', add: 'yarn add' },
    bun: { install: 'bun install', add: 'bun add' },
  };
  const lockfiles = [
    ['pnpm-lock.yaml', 'pnpm'],
    ['pnpm-workspace.yaml', 'pnpm'],
    ['yarn.lock', 'yarn'],
    ['bun.lock', 'bun'],
    ['bun.lockb', 'bun'],
    ['package-lock.json', 'npm'],
  ];
  for (let d = projectDir; ; d = path.dirname(d)) {
    try {
      const declared = JSON.parse(readFileSync(path.join(d, 'package.json'), 'utf8')).packageManager;
      const name = typeof declared === 'string' ? declared.split('@')[0] : null;
      if (name && commands[name]) return commands[name];
    } catch {}
    const hit = lockfiles.find(([file]) => exists(path.join(d, file)));
    if (hit) return commands[hit[1]];
    if (path.dirname(d) === d) return commands.npm;
  }
}

function checkInstalled(projectDir) {
  if (!exists(path.join(projectDir, 'package.json'))) {
    throw new LoadError('not-a-project', `${projectDir} has no package.json: not a Node project`);
  }
  const core = findPackage(projectDir, '@mastra/core');
  if (!core) {
    if (!findNodeModules(projectDir)) {
      throw new LoadError(
        'not-installed',
        `${projectDir} is not installed: no node_modules (run ${packageManager(projectDir).install} there first)`,
      );
    }
    throw new LoadError(
      'mastra-missing',
      `@mastra/core is not installed in ${projectDir} (${packageManager(projectDir).add} @mastra/core there)`,
    );
  }
  const version = versionOf(core);
  // Decided by the model's release table (releases.mjs), a snapshot build
  // as the release it was cut from.
  const release = releaseOf(version, core);
  if (release === null && isSnapshot(version)) return { core, version, zero: unplacedApi(core, version) };
  if (release === null || !holds('AGENT_SINCE', release)) {
    throw new LoadError(
      'mastra-too-old',
      `${core} is @mastra/core ${version}, which has no Agent; lint --project needs ${line('AGENT_SINCE').first} or later`,
    );
  }
  return { core, version, zero: releaseParts(release)[0] === 0 ? zeroApi(holds('V5_LOOP_SINCE', release)) : null };
}

/**
 * What the walk calls differently on a 0.x core, or null on 1.x. Read in
 * the dists of 0.12.1, 0.13.2, 0.21.1 and 0.24.9: the Mastra instance lists
 * its agents with `getAgents()`; an agent's methods are `getTools`,
 * `getWorkflows` and `listAgents` (from 0.21.0), each taking a
 * `runtimeContext` (a `RuntimeContext` of `@mastra/core/runtime-context`);
 * its default options are `defaultGenerateOptions` on the AI SDK v4 loop
 * and `defaultVNextStreamOptions` on the v5 loop (`V5_LOOP_SINCE`: what
 * `stream`, and `generate` through it, merge in); memory lists its tools
 * with `getTools()`; and before 0.13.2 there is no `formatTools`:
 * `convertTools` returns the record Mastra sends.
 */
function zeroApi(v5Loop) {
  return v5Loop
    ? { defaults: 'defaultVNextStreamOptions', getDefaults: 'getDefaultVNextStreamOptions' }
    : { defaults: 'defaultGenerateOptions', getDefaults: 'getDefaultGenerateOptions' };
}

/**
 * A snapshot build whose CHANGELOG.md names no release it was cut from
 * (`@mastra/core` 0.0.0-ai-v5-20250729181825 ships none): judged by what it
 * ships. No `@mastra/core/agent` module: no Agent. A
 * `@mastra/core/request-context` module: the 1.x API; else the 0.x one, on
 * the v5 loop where the core depends on the AI SDK v5 (`ai` 5.x), whose
 * models that loop takes.
 */
function unplacedApi(core, version) {
  const ships = (subpath) => {
    try {
      return exists(exportedFile(core, subpath));
    } catch {
      return false;
    }
  };
  if (!ships('./agent')) {
    throw new LoadError(
      'mastra-too-old',
      `${core} is @mastra/core ${version}, a snapshot build with no Agent (no @mastra/core/agent module)`,
    );
  }
  if (ships('./request-context')) return null;
  const ai = JSON.parse(readFileSync(path.join(core, 'package.json'), 'utf8')).dependencies?.ai ?? '';
  return zeroApi(/^[\^~]?5\./.test(ai));
}

function exists(p) {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

function findNodeModules(dir) {
  for (let d = dir; ; d = path.dirname(d)) {
    if (exists(path.join(d, 'node_modules'))) return true;
    if (path.dirname(d) === d) return false;
  }
}

// ---------------------------------------------------------------------------
// The environment and the scratch folders

/** Variables of each env file, in order, later ones winning. Returns the files' names. */
function applyEnv(files) {
  const read = [];
  for (const { file, text } of files ?? []) {
    let vars;
    try {
      vars = parseEnv(text);
    } catch (e) {
      throw new LoadError('env-file', `${file}: not an env file: ${firstLine(e.message)}`);
    }
    Object.assign(process.env, vars);
    read.push(file);
  }
  return read;
}

let scratch = null;

/**
 * A scratch folder with HOME, TMPDIR and a working folder placed as
 * `mastra dev` places the server's: ENTRY's folder's `public/` in a copy of
 * the project's layout, a few folders deep so that `..` stays inside.
 */
function enterScratch(projectDir, entry) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'mastra-conform-load-'));
  const layout = path.join(root, 'a', 'b', 'c', 'project');
  const cwd = path.join(layout, path.relative(projectDir, path.dirname(entry)), 'public');
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  for (const d of [cwd, home, tmp]) mkdirSync(d, { recursive: true });
  process.chdir(cwd);
  process.env.HOME = home;
  process.env.TMPDIR = tmp;
  scratch = { root, layout, home, tmp, made: new Set([cwd, home, tmp]), project: snapshot(projectDir), projectDir };
}

/** Each file of the project (not node_modules, not .git) with its size and time. */
function snapshot(dir, out = new Map(), budget = { files: 20000 }) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    if (budget.files-- <= 0) return out;
    if (e.name === 'node_modules' || e.name === '.git') continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) snapshot(full, out, budget);
    else {
      try {
        const s = lstatSync(full);
        out.set(full, `${s.size}:${s.mtimeMs}`);
      } catch {}
    }
  }
  return out;
}

/** What the load wrote: scratch files as the project would have them, and the project's own changed files. */
function wrote() {
  if (!scratch) return [];
  const out = [];
  const list = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        const before = out.length;
        list(full);
        if (out.length === before && !scratch.made.has(full) && !isAncestorOfMade(full)) out.push(label(full));
      } else out.push(label(full));
    }
  };
  list(scratch.root);
  const after = snapshot(scratch.projectDir);
  for (const [file, stamp] of after) {
    if (scratch.project.get(file) !== stamp) out.push(`${path.relative(scratch.projectDir, file)} (in the project)`);
  }
  return out.slice(0, 50);
}

function isAncestorOfMade(dir) {
  for (const m of scratch.made) if (m.startsWith(`${dir}${path.sep}`)) return true;
  return false;
}

function label(file) {
  if (file.startsWith(`${scratch.home}${path.sep}`)) return `~/${path.relative(scratch.home, file)}`;
  if (file.startsWith(`${scratch.tmp}${path.sep}`)) return `$TMPDIR/${path.relative(scratch.tmp, file)}`;
  return path.relative(scratch.layout, file);
}

function leaveScratch() {
  if (scratch) rmSync(scratch.root, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------
// Import failures, in words a user can act on

/** Errors that mean Node itself could not run the project's TypeScript. */
const NEEDS_A_TRANSPILER = new Set([
  'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX',
  'ERR_INVALID_TYPESCRIPT_SYNTAX',
  'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING',
  'ERR_UNKNOWN_FILE_EXTENSION',
  'ERR_IMPORT_ATTRIBUTE_MISSING',
  'ERR_REQUIRE_ESM',
]);

/** A bare specifier Node could not find: `Cannot find package 'x' imported from /abs/file`. */
function missingPackage(e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND') return null;
  const m = /Cannot find package '([^']+)' imported from (.+)$/m.exec(e.message ?? '');
  return m ? { name: m[1], from: m[2] } : null;
}

function needsTranspiler(e) {
  if (NEEDS_A_TRANSPILER.has(e?.code)) return true;
  // A link error: an import of a name the module does not export as a value
  // (a type imported without `import type`).
  if (e instanceof SyntaxError && /does not provide an export named/.test(e.message ?? '')) return true;
  if (e instanceof SyntaxError && /\.(c|m)?tsx?\b/.test(e.stack ?? '')) return true;
  // A bare specifier that is no package: a path alias (`@/x`, `~/x`, `#x`).
  const missing = missingPackage(e);
  return missing !== null && /^([@~#]\/|[~#])/.test(missing.name);
}

/** What installs a missing package NAME, in the project's own package manager's words. */
function installAdvice(projectDir, name) {
  const pm = packageManager(projectDir);
  return `run ${pm.install} in the project, or add it with ${pm.add} ${name}`;
}

/** The package name of a specifier: `@scope/name/x` -> `@scope/name`. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function fromPath(projectDir, file) {
  const p = file.startsWith('file:') ? fileURLToPath(file.replace(/\?.*$/, '')) : file;
  return path.relative(projectDir, p);
}

/** Variables an error message names that are not set: `DATABASE_URL is not set`. */
function unsetVariables(message) {
  const names = new Set(String(message ?? '').match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g) ?? []);
  return [...names].filter((n) => process.env[n] === undefined || process.env[n] === '');
}

/** Words of a failure that is about the environment, when it names no variable. */
const ABOUT_THE_ENV = /environment variable|\benv(ironment)? var|invalid environment|\.env\b|missing env/i;

/**
 * The hint after an import-time failure: the variables it (or what the
 * project printed just before it, as `@t3-oss/env` prints them ahead of
 * its `Invalid environment variables`) names that are not set; else, when
 * it is about the environment, where lint reads it from; else, when the
 * project printed anything, the pointer to `--verbose`.
 */
function envHint(message, request, read, printed) {
  const said = `${message}\n${printed}`;
  const unset = unsetVariables(said);
  const notRead = request.envNotRead ?? [];
  const readWords = read.length ? `lint read ${read.join(', ')}` : 'lint read no env file';
  const verbose = printed.trim() ? '; --verbose shows what it printed' : '';
  if (unset.length === 0) {
    if (ABOUT_THE_ENV.test(said)) {
      const where = notRead.length
        ? `${notRead.join(', ')} was not read, as lint reads a project's env files only inside its OS sandbox`
        : readWords;
      return ` (it demands environment variables: ${where}; set them in .env or pass a file with --env-file FILE${verbose})`;
    }
    return verbose ? ` (${verbose.slice(2)})` : '';
  }
  const names = unset.join(', ');
  const isNot = unset.length > 1 ? 'are not set' : 'is not set';
  if (notRead.length) {
    return ` (${names} ${isNot}: ${notRead.join(', ')} was not read, as lint reads a project's env files only inside its OS sandbox; pass one with --env-file FILE${verbose})`;
  }
  return ` (${names} ${isNot}; ${readWords}: set it in .env or pass a file with --env-file FILE${verbose})`;
}

/**
 * The last few kilobytes the project writes on stdout and stderr while it
 * is imported, for the hint after a failure; everything still goes where
 * it went (the driver shows it with --verbose).
 */
class Printed {
  static LIMIT = 8192;
  text = '';

  start() {
    this.restore = [process.stdout, process.stderr].map((stream) => {
      const write = stream.write;
      stream.write = (chunk, ...rest) => {
        this.text = (this.text + (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString())).slice(
          -Printed.LIMIT,
        );
        return write.call(stream, chunk, ...rest);
      };
      return () => {
        stream.write = write;
      };
    });
  }

  stop() {
    for (const r of this.restore ?? []) r();
    this.restore = null;
  }
}

class ExitDuringLoad extends Error {}

function importFailure(e, projectDir, entry, request, read, sources, printed) {
  const entryRel = path.relative(projectDir, entry);
  if (e instanceof ExitDuringLoad) {
    return new LoadError(
      'entry-throws',
      `${entryRel} called process.exit(${e.message}) while loading${envHint('', request, read, printed)}`,
    );
  }
  const missing = missingPackage(e);
  if (missing) {
    const name = packageName(missing.name);
    return new LoadError(
      'package-missing',
      `the package ${name} is not installed (imported from ${fromPath(projectDir, missing.from)}): ${installAdvice(projectDir, name)}`,
    );
  }
  if (e?.code === 'ERR_MODULE_NOT_FOUND') {
    return new LoadError('entry-throws', `${entryRel} cannot be loaded: ${firstLine(e.message)}`);
  }
  const message = firstLine(e?.message ?? e);
  // A name the installed package does not export (an API renamed between
  // releases): Node names the package's file, the user needs their own.
  const unexported = e instanceof SyntaxError && /does not provide an export named '([^']+)'/.exec(message);
  const importer = unexported && sources?.packageImportOf(unexported[1]);
  if (importer) {
    return new LoadError(
      'entry-throws',
      `${entryRel} cannot be loaded: ${importer} imports ${unexported[1]}, which the installed package does not export (${message})`,
    );
  }
  return new LoadError(
    'entry-throws',
    `${entryRel} threw while loading: ${message}${envHint(message, request, read, printed)}`,
  );
}

// ---------------------------------------------------------------------------
// Walking the agents

function isMastra(value) {
  return (
    value !== null &&
    typeof value === 'object' &&
    (typeof value.listAgents === 'function' || typeof value.getAgents === 'function') &&
    typeof value.getAgent === 'function'
  );
}

function findMastra(entryModule) {
  if (isMastra(entryModule.mastra)) return entryModule.mastra;
  if (isMastra(entryModule.default)) return entryModule.default;
  return Object.values(entryModule).find(isMastra) ?? null;
}

/** An own-keys list of a tools object, as Mastra's Object.keys sees it. */
const keysOf = (record) => (record && typeof record === 'object' ? Object.keys(record) : []);

/** The route a model config takes (docs/case-format.md, ROUTE). */
async function routeOf(agent, requestContext) {
  let model = agent.model;
  if (typeof model === 'function') model = await model({ requestContext });
  if (Array.isArray(model)) model = model.find((m) => m?.enabled !== false)?.model ?? model[0]?.model;
  if (typeof model === 'function') model = await model({ requestContext });
  if (typeof model === 'string') {
    const slash = model.indexOf('/');
    return { kind: 'router', provider: slash > 0 ? model.slice(0, slash) : model, model: model };
  }
  if (model && typeof model === 'object') {
    if (typeof model.url === 'string') return { kind: 'openai-compatible', id: String(model.id ?? ''), url: model.url };
    if (typeof model.id === 'string' && model.id.includes('/')) {
      return { kind: 'router', provider: model.id.slice(0, model.id.indexOf('/')), model: model.id };
    }
    if (typeof model.provider === 'string') {
      // An AI SDK model object: "openai.chat", "anthropic.messages", ...
      return { kind: 'sdk', provider: model.provider.split('.')[0], model: String(model.modelId ?? '') };
    }
  }
  return { kind: 'unknown' };
}

/** A toolChoice value as JSON: the name only when it names a tool. */
function toolChoiceOf(choice) {
  if (choice === undefined || choice === null) return null;
  if (typeof choice === 'string') return { mode: choice };
  if (typeof choice === 'object' && typeof choice.toolName === 'string') return { tool: choice.toolName };
  return { mode: JSON.stringify(choice) };
}

/**
 * The tools record Mastra formats for AGENT, before its rewrite: Mastra's own
 * assembly (assigned, memory, toolsets, client, sub-agent, workflow tools and
 * later versions' extras) with `formatTools` replaced, on this instance only,
 * by one that keeps what it is given. The rewrite (and its collision errors)
 * is the model's job, not Mastra's, here.
 */
async function assembledTools(agent, requestContext, defaults, zero) {
  if (zero) return assembledToolsZero(agent, requestContext, defaults);
  let captured = null;
  const own = Object.getOwnPropertyDescriptor(agent, 'formatTools');
  agent.formatTools = (tools) => {
    captured = tools;
    return tools;
  };
  // Mastra adds memory tools only to a call with a thread or a resource,
  // which every call that uses memory has: name placeholder ones.
  const thread = { threadId: 'mastra-conform-lint', resourceId: 'mastra-conform-lint' };
  try {
    if (typeof agent.getToolsForExecution === 'function') {
      await agent.getToolsForExecution({ requestContext, methodType: 'generate', ...thread });
    } else {
      await agent.convertTools({
        toolsets: defaults?.toolsets,
        clientTools: defaults?.clientTools,
        requestContext,
        methodType: 'generate',
        ...thread,
      });
    }
  } finally {
    if (own) Object.defineProperty(agent, 'formatTools', own);
    else delete agent.formatTools;
  }
  return captured ?? {};
}

/**
 * `assembledTools` on a 0.x core: `convertTools` with a `runtimeContext`.
 * Before 0.13.2 it returns the record as sent (no `formatTools` to
 * replace); after, `formatTools` is replaced as on 1.x.
 */
async function assembledToolsZero(agent, runtimeContext, defaults) {
  const args = {
    toolsets: defaults?.toolsets,
    clientTools: defaults?.clientTools,
    runtimeContext,
    methodType: 'generate',
    threadId: 'mastra-conform-lint',
    resourceId: 'mastra-conform-lint',
  };
  if (typeof agent.formatTools !== 'function') return (await agent.convertTools(args)) ?? {};
  let captured = null;
  const own = Object.getOwnPropertyDescriptor(agent, 'formatTools');
  agent.formatTools = (tools) => {
    captured = tools;
    return tools;
  };
  try {
    await agent.convertTools(args);
  } finally {
    if (own) Object.defineProperty(agent, 'formatTools', own);
    else delete agent.formatTools;
  }
  return captured ?? {};
}

/** An MCP tool's key under the listing it was not taken by, or null. */
function otherListingKey(t) {
  if (t.source !== 'mcp' || !t.server) return null;
  if (t.listing === 'toolsets') return `${t.server}_${t.key}`;
  return t.key.startsWith(`${t.server}_`) ? t.key.slice(t.server.length + 1) : null;
}

/** The MCP server a tool came from (@mastra/mcp tags each tool with it), or null. */
function mcpServerOf(tool) {
  if (!tool || typeof tool !== 'object') return null;
  const name = tool.mcpMetadata?.serverName ?? tool.serverName ?? null;
  if (typeof name === 'string') return name;
  return tool.mcp ? '' : null;
}

async function describeAgent(registeredAs, agent, RequestContext, sources, mcp, zero) {
  const requestContext = new RequestContext();
  const where = `agent "${registeredAs}"`;
  const step = async (what, fn) => {
    try {
      return await fn();
    } catch (e) {
      throw new LoadError('agent-throws', `${where}: its ${what} threw: ${firstLine(e?.message ?? e)}`);
    }
  };
  mcp.agent = registeredAs;
  const runtimeContext = requestContext;
  const given = await step('tools function', () =>
    zero ? agent.getTools({ runtimeContext }) : agent.listTools({ requestContext }),
  );
  const subAgents = await step('agents function', () =>
    zero ? (agent.listAgents?.({ runtimeContext }) ?? {}) : agent.listAgents({ requestContext }),
  );
  const workflows = await step('workflows function', () =>
    zero ? agent.getWorkflows({ runtimeContext }) : agent.listWorkflows({ requestContext }),
  );
  const defaultsName = zero ? zero.defaults : 'defaultOptions';
  const getDefaults = zero
    ? () => agent[zero.getDefaults]({ runtimeContext })
    : () => agent.getDefaultOptions({ requestContext });
  const defaults = (await step(`${defaultsName} function`, getDefaults)) ?? {};
  const memory = await step('memory function', () => agent.getMemory?.({ requestContext, runtimeContext }));
  // Mastra's assembly converts each tool for the agent's model, so a model
  // the release cannot use (a "provider/model" string before the model
  // router: the ai-v5 snapshot builds' schema compat reads its `modelId`)
  // fails it, while the agent's own record is still what users registered.
  // Then the agent is judged on that record, and the note says so.
  let assemblyThrew = null;
  const assembled = await assembledTools(agent, requestContext, defaults, zero).catch((e) => {
    if (typeof agent.model !== 'string' || given === null || typeof given !== 'object') {
      throw new LoadError('agent-throws', `${where}: its tools threw: ${firstLine(e?.message ?? e)}`);
    }
    assemblyThrew = firstLine(e?.message ?? e);
    return given;
  });
  mcp.agent = null;

  const givenKeys = keysOf(given);
  // A sub-agent or workflow tool is `agent-KEY` / `workflow-KEY`, or, on
  // the 0.x releases that name them by their key, KEY itself.
  const agentKeys = new Map(keysOf(subAgents).flatMap((k) => [[`agent-${k}`, k], ...(zero ? [[k, k]] : [])]));
  const workflowKeys = new Map(keysOf(workflows).flatMap((k) => [[`workflow-${k}`, k], ...(zero ? [[k, k]] : [])]));
  // Each toolset key with the toolset it is in, the last one winning as in
  // Mastra's merge of the toolsets.
  const toolsetOf = new Map();
  for (const [set, record] of Object.entries(defaults.toolsets ?? {})) {
    for (const k of keysOf(record)) toolsetOf.set(k, set);
  }
  // An MCP tool an older @mastra/mcp gave untagged (1.0.3 sets no
  // `mcpMetadata`): its key is SERVER_TOOL of a server that listed TOOL.
  const listedBy = (key) =>
    mcp.servers.find((r) => (r.tools ?? []).some((name) => `${r.server}_${name}` === key))?.server ?? null;
  const clientKeys = new Set(keysOf(defaults.clientTools));
  let memoryKeys = new Set();
  try {
    const list = memory && (typeof memory.listTools === 'function' ? 'listTools' : zero ? 'getTools' : null);
    const listed = list && typeof memory[list] === 'function' ? await memory[list]() : null;
    memoryKeys = new Set(keysOf(listed));
  } catch {
    // Memory that cannot list its tools without a thread: left to "other".
  }

  // The record Mastra formats, in the order it merges it. The given keys come
  // first and keep their own order (and an own "__proto__", which Mastra's
  // copy drops and the model reports); everything Mastra added follows.
  const keys = [...givenKeys];
  const seen = new Set(givenKeys);
  for (const k of keysOf(assembled)) {
    if (!seen.has(k)) {
      keys.push(k);
      seen.add(k);
    }
  }

  const who = { registeredAs, id: agent.id ?? null, name: agent.name ?? null };
  const located = keys.map((key) => {
    if (givenKeys.includes(key)) {
      const server = mcpServerOf(given[key]) ?? listedBy(key);
      if (server !== null) return { key, source: 'mcp', server, listing: 'tools', at: null };
      return { key, source: 'tool', at: sources.keyLocation(who, 'tools', key) };
    }
    if (agentKeys.has(key)) {
      return { key, source: 'agent', at: sources.keyLocation(who, 'agents', agentKeys.get(key)) };
    }
    if (workflowKeys.has(key)) {
      return { key, source: 'workflow', at: sources.keyLocation(who, 'workflows', workflowKeys.get(key)) };
    }
    if (memoryKeys.has(key)) return { key, source: 'memory', at: null };
    if (toolsetOf.has(key)) {
      // A server's tools from `listToolsets()`, given as a toolset under
      // the server's name: keyed by the name the server lists.
      const set = toolsetOf.get(key);
      const fromServer =
        mcpServerOf(defaults.toolsets[set]?.[key]) !== null || (mcp.latest(set)?.tools ?? []).includes(key);
      if (fromServer) return { key, source: 'mcp', server: set, listing: 'toolsets', at: null };
      return { key, source: 'toolset', at: null };
    }
    if (clientKeys.has(key)) return { key, source: 'client', at: null };
    return { key, source: 'other', at: null };
  });
  // A server's tools passed to one call on this agent as `toolsets: await
  // mcp.listToolsets()` are sent in that call beside its own, keyed by the
  // name the server lists: the tools of the servers the loader saw listed.
  const def = sources.agentDefinition(who);
  const calls = sources
    .callToolsets()
    .filter((c) => (c.callee.key !== undefined ? c.callee.key === registeredAs : c.callee.object === def?.object));
  for (const c of calls) {
    for (const server of c.servers) {
      for (const key of mcp.latest(server)?.tools ?? []) {
        if (seen.has(key)) continue;
        seen.add(key);
        located.push({ key, source: 'mcp', server, listing: 'toolsets', at: null });
      }
    }
  }
  // Each tool's id, the name Mastra sends it under, and its own approval
  // setting: what its approval policy is asked with, and what overrides it.
  const tools = located.map((t) => {
    const tool = assembled[t.key] ?? given?.[t.key];
    const id = typeof tool?.id === 'string' ? tool.id : null;
    const described = { ...t, id, sentAs: sentName(agent, t.key, tool), approval: ownApproval(tool) };
    // An MCP tool's key under the other listing (`listTools()` keys it
    // SERVER_TOOL, `listToolsets()` TOOL), and the name this release
    // would send that key as: what a name written for the other listing is.
    const other = otherListingKey(t);
    if (other !== null) described.other = { key: other, sentAs: sentName(agent, other, tool) };
    return described;
  });
  const context = { requestContext, runtimeContext };
  // An MCP tool's name as its server lists it too: what a server's own
  // policy is asked with, and what a policy may be written against.
  const mcpName = (t) =>
    t.listing === 'toolsets'
      ? t.key
      : t.source === 'mcp' && t.server && t.key.startsWith(`${t.server}_`)
        ? t.key.slice(t.server.length + 1)
        : null;
  const asked = [
    ...new Set(
      tools
        .flatMap((t) => [t.key, t.id, t.sentAs, mcpName(t), t.other?.key, t.other?.sentAs])
        .filter((n) => typeof n === 'string'),
    ),
  ];
  const policies = (await approvalPolicies(agent, context, asked)).map((p) => ({
    ...p,
    at: sources.policyLocation(who, p.option),
    written: asked.flatMap((name) => {
      const at = sources.policyNameLocation(who, p.option, name);
      return at ? [{ name, at }] : [];
    }),
  }));
  const instructions = await instructionsText(agent, context);

  const activeTools = Array.isArray(defaults.activeTools)
    ? defaults.activeTools.filter((n) => typeof n === 'string')
    : null;
  const choice = toolChoiceOf(defaults.toolChoice);
  return {
    registeredAs,
    id: who.id,
    name: who.name,
    assemblyThrew,
    at: sources.agentLocation(who),
    route: await step('model function', () => routeOf(agent, requestContext)),
    tools,
    toolChoice: choice && {
      ...choice,
      at:
        choice.tool !== undefined
          ? sources.optionLocation(who, ['toolChoice', 'toolName'], choice.tool, defaultsName)
          : null,
    },
    activeTools:
      activeTools === null
        ? null
        : activeTools.map((name) => ({
            name,
            at: sources.optionLocation(who, ['activeTools', '[]'], name, defaultsName),
          })),
    calls: calls.map((c) => ({
      callee: `${c.receiver ?? registeredAs}.${c.method}()`,
      at: c.at,
      toolChoice: c.toolChoice,
      activeTools: c.activeTools,
    })),
    mcp: await serversOfAgent(registeredAs, who, tools, sources, mcp),
    approval: policies,
    instructions:
      instructions === null ? null : { text: instructions, at: sources.instructionsLocation(who, instructions) },
  };
}

/**
 * The MCP servers an agent's tools come from: those its listed tools name,
 * those asked while it was walked, and those its `tools` option reaches in
 * the source. Each with what it gave.
 */
async function serversOfAgent(registeredAs, who, tools, sources, mcp) {
  const names = new Set();
  for (const t of tools) if (t.source === 'mcp' && t.server) names.add(t.server);
  for (const name of mcp.recordsFor(registeredAs).keys()) names.add(name);
  for (const name of sources.serversOf(who)) names.add(name);
  const entries = [];
  for (const name of names) {
    const record = mcp.latest(name);
    entries.push({ ...serverEntry(name, record, sources), policy: await serverPolicy(name, record, tools, sources) });
  }
  return entries;
}

/**
 * A server's own `requireToolApproval` function, asked with each of its
 * tools' MCP names, keys and sent names:
 * `{ option, at, answers: [{ name, answer }], written: [{ name, at }] }`, or
 * null where the server has none.
 */
async function serverPolicy(name, record, tools, sources) {
  if (typeof record?.policy !== 'function') return null;
  const ofServer = tools.filter((t) => t.source === 'mcp' && t.server === name);
  const names = [...(record.tools ?? []), ...ofServer.flatMap((t) => [t.key, t.sentAs])];
  const asked = [...new Set(names.filter((n) => typeof n === 'string'))];
  return {
    option: `servers[${JSON.stringify(name)}]`,
    at: sources.serverPolicyLocation(name),
    answers: await policyAnswers(record.policy, asked),
    written: asked.flatMap((n) => {
      const at = sources.serverPolicyNameLocation(name, n);
      return at ? [{ name: n, at }] : [];
    }),
  };
}

function serverEntry(name, record, sources) {
  const status = record === null ? 'unasked' : record.error !== null ? 'failed' : 'listed';
  return {
    server: name,
    transport: record?.transport ?? null,
    target: record?.target ?? null,
    status,
    error: record?.error ?? null,
    tools: record?.tools ?? [],
    // `always` for `requireToolApproval: true`, `function` for a function.
    approval: record?.approval ?? null,
    approvalAt: record?.approval ? sources.serverPolicyLocation(name) : null,
    at: sources.serverLocation(name),
  };
}

// ---------------------------------------------------------------------------

/**
 * Which registered agent a call is made on, for `approvalCalls`: the one
 * whose `new Agent({...})` the callee's name is bound to, or the one
 * `mastra.getAgent('KEY')` names; else null.
 */
function agentOfCall(agents, sources) {
  const byObject = new Map();
  for (const a of agents) {
    const def = sources.agentDefinition({ registeredAs: a.registeredAs, id: a.id, name: a.name });
    if (def) byObject.set(def.object, a.registeredAs);
  }
  const keys = new Set(agents.map((a) => a.registeredAs));
  return ({ object, key }) => (key !== undefined ? (keys.has(key) ? key : null) : (byObject.get(object) ?? null));
}

async function loadTools(dir) {
  const require = createRequire(path.join(dir, 'package.json'));
  return { esbuild: require('esbuild'), parser: require('@babel/parser') };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const request = readRequest();
  nonce = request.nonce;
  const { projectDir, entry } = options;
  if (!exists(entry)) throw new LoadError('no-entry', `${entry} does not exist (pass --entry FILE)`);

  const { core, version, zero } = checkInstalled(projectDir);
  const tools = await loadTools(options.tools);
  const sources = new SourceIndex(projectDir, tools.parser);
  const obstacle = sources.strippingObstacle(entry);
  const loader = options.loader === 'auto' ? (obstacle ? 'esbuild' : 'node') : options.loader;
  const loaderReason =
    options.loader === 'auto'
      ? obstacle
        ? `Node's type stripping cannot run ${obstacle}`
        : null
      : `asked for (${request.loaderReason ?? '--loader'})`;

  // esbuild runs its own binary: done before the guard is up, and before any
  // of the project's code runs.
  let bundled = null;
  if (loader === 'esbuild') {
    const out = await bundleEntry(tools.esbuild, projectDir, entry);
    if (out.error) {
      if (out.error.missing && !out.error.missing.startsWith('.')) {
        const name = packageName(out.error.missing);
        throw new LoadError(
          'package-missing',
          `the package ${name} is not installed (${out.error.text}): ${installAdvice(projectDir, name)}`,
        );
      }
      throw new LoadError('entry-throws', `${path.relative(projectDir, entry)} cannot be bundled: ${out.error.text}`);
    }
    bundled = out.url;
  } else {
    registerBundlerResolution();
  }

  const read = applyEnv(request.env);
  enterScratch(projectDir, entry);
  const mcp = new McpWatch();
  blockNetwork(options.isolation, mcp);
  await mcp.install(findPackage, exportedFile, projectDir);

  // A project that ends the process while it loads has said why it failed.
  process.exit = (code) => {
    throw new ExitDuringLoad(String(code ?? 0));
  };
  let entryModule;
  const printed = new Printed();
  printed.start();
  try {
    entryModule = await import(bundled ?? pathToFileURL(entry).href);
  } catch (e) {
    if (loader === 'node' && needsTranspiler(e)) {
      throw new LoadError('needs-transpiler', `Node's type stripping cannot run the project: ${firstLine(e?.message)}`);
    }
    throw importFailure(e, projectDir, entry, request, read, sources, printed.text);
  } finally {
    printed.stop();
  }
  const mastra = findMastra(entryModule);
  if (!mastra) {
    const names = Object.keys(entryModule);
    throw new LoadError(
      'no-mastra',
      `${path.relative(projectDir, entry)} exports no Mastra instance (exports: ${names.length ? names.join(', ') : 'none'}); export one, e.g. export const mastra = new Mastra({ agents })`,
    );
  }
  const RequestContext = zero
    ? (await import(pathToFileURL(exportedFile(core, './runtime-context')).href)).RuntimeContext
    : (await import(pathToFileURL(exportedFile(core, './request-context')).href)).RequestContext;
  const agents = [];
  for (const [registeredAs, agent] of Object.entries(zero ? mastra.getAgents() : mastra.listAgents())) {
    agents.push(await describeAgent(registeredAs, agent, RequestContext, sources, mcp, zero));
  }
  const attributed = new Set(agents.flatMap((a) => a.mcp.map((s) => s.server)));
  const unattributed = [...new Set(mcp.servers.map((r) => r.server))].filter((s) => !attributed.has(s));
  send({
    project: projectDir,
    entry: path.relative(projectDir, entry),
    node: process.version,
    mastra: { version, dir: core },
    loader,
    loaderReason,
    isolation: options.isolation,
    env: { read, notRead: request.envNotRead ?? [] },
    agents,
    mcp: unattributed.map((name) => serverEntry(name, mcp.latest(name), sources)),
    suppressions: sources.suppressions,
    comparisons: sources.toolNameComparisons(),
    sentNameUses: sources.sentNameUses(),
    approvalCalls: sources.approvalCalls(agentOfCall(agents, sources)),
    unparsed: sources.unparsed,
    blocked: blockedRequests,
    wrote: wrote(),
  });
  leaveScratch();
  // Mastra and the project keep timers and handles alive.
  realExit(0);
}

main().catch((e) => {
  try {
    fail(e);
  } finally {
    leaveScratch();
    realExit(0);
  }
});
