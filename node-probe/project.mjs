// Loading a user's Mastra project for `mastra-conform lint --project`:
//
//   node project.mjs PROJECT_DIR ENTRY_FILE [--under-tsx]
//
// Imports ENTRY_FILE (TypeScript through Node's type stripping, or through
// the project's own tsx where Node cannot strip it), finds the exported
// Mastra instance, and walks every registered agent with the @mastra/core the
// project installed. For each agent it prints the record its model receives:
// every tool key, in the order Mastra merges them and before Mastra rewrites
// them, with where each came from; its default toolChoice and activeTools;
// and its model's route. One JSON document on stdout; keys are JS strings,
// written by JSON.stringify (lone surrogates as \udXXX escapes).
//
// On failure it prints {"error": {"kind", "message", "status"}}: status 2
// when the project is at fault (not installed, no @mastra/core or one older
// than 1.0, the entry throws, no Mastra instance, an agent's function
// throws), 3 when this loader could not do its job. It exits 0 whenever it
// printed a document, so the driver reads the document, not the exit status;
// a non-zero exit means it could not even say why.
//
// Isolation: the driver starts this with an allowlisted environment (no
// credentials, no proxies unless the user passes --env-file). Loading a
// project runs its code, so before it is imported the guard (guard.mjs) is
// installed with nothing allowed: no fetch, no node:http(s), no socket, no
// datagram, no worker, no child process (an MCP server the project
// configures included). Each refusal is listed in the document's `blocked`.
// Static imports are node builtins and local modules only, so stdout is
// claimed before the project can write to it.

import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire, registerHooks } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installGuard, nothingAllowed } from './guard.mjs';
import { claimStdout } from './stdio.mjs';

const writeLine = claimStdout();

/** A failure with the line the user sees and the exit status it deserves. */
class LoadError extends Error {
  constructor(kind, message, status = 2) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

function fail(err) {
  const kind = err instanceof LoadError ? err.kind : 'loader';
  const status = err instanceof LoadError ? err.status : 3;
  if (!(err instanceof LoadError)) console.error('[project] loader error:', err);
  writeLine(
    JSON.stringify({ error: { kind, message: err?.message ?? String(err), status }, blocked: blockedRequests }),
  );
  process.exit(0);
}

// A project's stray rejection (a storage adapter failing to connect, say)
// must not end the walk: log it and carry on.
process.on('unhandledRejection', (reason) => console.error('[project] unhandled rejection:', reason));

// ---------------------------------------------------------------------------
// Nothing leaves the machine

const blockedRequests = [];

/**
 * The guard, with nothing allowed but, under the project's tsx, the one
 * worker tsx's esbuild runs its transforms in (esbuild's own lib/main.js,
 * resolved from tsx). Returns the functions it replaced.
 */
function blockNetwork(projectDir, underTsx) {
  const transpiler = underTsx ? esbuildWorkerOf(projectDir) : null;
  return installGuard({
    ...nothingAllowed('mastra-conform lint', (what) => blockedRequests.push(what)),
    worker: (filename) => transpiler !== null && realFile(filename) === transpiler,
  });
}

/** The real path of a worker's file (a path or a file: URL), or null. */
function realFile(filename) {
  try {
    const file = String(filename).startsWith('file:') ? fileURLToPath(filename) : String(filename);
    return realpathSync(file);
  } catch {
    return null;
  }
}

/**
 * The file esbuild starts its worker from, as tsx resolves esbuild: from
 * where tsx really is (Node resolves a linked package's dependencies there).
 */
function esbuildWorkerOf(projectDir) {
  const tsx = findPackage(projectDir, 'tsx');
  if (!tsx) return null;
  try {
    return realpathSync(createRequire(path.join(realpathSync(tsx), 'package.json')).resolve('esbuild'));
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------
// Finding and checking the project's own @mastra/core

/** `node_modules/NAME` as Node's resolution finds it from DIR upward. */
function findPackage(dir, name) {
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
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

function majorOf(version) {
  const m = /^(\d+)\./.exec(version ?? '');
  return m ? Number(m[1]) : null;
}

function checkInstalled(projectDir) {
  if (!existsSync(path.join(projectDir, 'package.json'))) {
    throw new LoadError('not-a-project', `${projectDir} has no package.json: not a Node project`);
  }
  const core = findPackage(projectDir, '@mastra/core');
  if (!core) {
    if (!findNodeModules(projectDir)) {
      throw new LoadError(
        'not-installed',
        `${projectDir} is not installed: no node_modules (run npm install there first)`,
      );
    }
    throw new LoadError(
      'mastra-missing',
      `@mastra/core is not installed in ${projectDir} (npm install @mastra/core there)`,
    );
  }
  const version = versionOf(core);
  const major = majorOf(version);
  if (major === null || major < 1) {
    throw new LoadError('mastra-too-old', `${core} is @mastra/core ${version}; lint --project needs 1.0 or later`);
  }
  return { core, version };
}

function findNodeModules(dir) {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, 'node_modules'))) return true;
    if (path.dirname(d) === d) return false;
  }
}

// ---------------------------------------------------------------------------
// TypeScript: Node strips types; extensionless relative imports (what
// `moduleResolution: "bundler"` projects write) are resolved here the way a
// bundler would: `./x` -> `./x.ts`, `./x/index.ts`, and `./x.js` -> `./x.ts`.

const TS_EXTENSIONS = ['.ts', '.mts', '.tsx', '.js', '.mjs'];

function resolveLikeABundler(specifier, parentURL) {
  if (!parentURL?.startsWith('file:') || !(specifier.startsWith('./') || specifier.startsWith('../'))) return null;
  const base = fileURLToPath(new URL(specifier, parentURL));
  const candidates = [];
  if (/\.(c|m)?js$/.test(base)) candidates.push(base.replace(/js$/, 'ts'));
  for (const ext of TS_EXTENSIONS) candidates.push(base + ext);
  for (const ext of TS_EXTENSIONS) candidates.push(path.join(base, `index${ext}`));
  const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  return hit ? pathToFileURL(hit).href : null;
}

function registerBundlerResolution() {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context);
      } catch (e) {
        if (e?.code !== 'ERR_MODULE_NOT_FOUND' && e?.code !== 'ERR_UNSUPPORTED_DIR_IMPORT') throw e;
        const url = resolveLikeABundler(specifier, context.parentURL);
        if (!url) throw e;
        return { url, shortCircuit: true };
      }
    },
  });
}

/** Errors that mean Node itself could not run the project's TypeScript. */
const NEEDS_A_TRANSPILER = new Set([
  'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX',
  'ERR_INVALID_TYPESCRIPT_SYNTAX',
  'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING',
  'ERR_UNKNOWN_FILE_EXTENSION',
]);

function needsTranspiler(e) {
  if (NEEDS_A_TRANSPILER.has(e?.code)) return true;
  // A bare specifier that is no package: a tsconfig `paths` alias (`@/x`, `~/x`).
  return e?.code === 'ERR_MODULE_NOT_FOUND' && /Cannot find package '([@~#]\/|[@~#][^/']*\/)/.test(e.message ?? '');
}

/**
 * Re-run this loader under the project's tsx, or say what is missing. The
 * loader's own child starts through the spawnSync the guard replaced.
 */
function retryWithTsx(projectDir, original, spawnSync) {
  const tsx = findPackage(projectDir, 'tsx');
  if (!tsx) {
    throw new LoadError(
      'needs-tsx',
      `Node cannot load the project's TypeScript (${original.code}: ${firstLine(original.message)}); install tsx in the project (npm install -D tsx) so lint can use it`,
    );
  }
  const loader = exportedFile(tsx, './esm');
  const child = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(loader).href, fileURLToPath(import.meta.url), ...process.argv.slice(2), '--under-tsx'],
    {
      stdio: 'inherit',
      env: process.env,
    },
  );
  process.exit(child.status ?? 3);
}

const firstLine = (text) => String(text ?? '').split('\n')[0];

// ---------------------------------------------------------------------------
// Where keys are literals in the source
//
// A plain scan of the project's own source files (not node_modules, not
// dotfolders, not build output) for each name as a quoted string literal
// ('k', "k", `k` without substitutions) or, where it is an identifier, as an
// object property key (`k:`). It does not find keys built at run time
// (template substitutions, computed keys, names from an MCP server or another
// package), keys written with escapes (`'\u002e'`, a lone surrogate), or tell
// apart two identical literals by meaning beyond the hints below.

const SOURCE_EXTENSIONS = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'build', 'out', '.mastra', 'coverage']);

function sourceFiles(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIP_DIRS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (entry.isFile() && SOURCE_EXTENSIONS.test(entry.name)) out.push(full);
  }
  return out;
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

class SourceIndex {
  constructor(projectDir) {
    this.projectDir = projectDir;
    this.files = sourceFiles(projectDir)
      .sort()
      .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n') }));
  }

  /** Every occurrence of NAME as a literal: {file, line, column, text}. */
  occurrences(name) {
    if (name === '') return [];
    const quoted = new RegExp(`(['"\`])${escapeRegExp(name)}\\1`, 'g');
    const bare = IDENTIFIER.test(name) ? new RegExp(`(?<![\\w$.'"\`])${escapeRegExp(name)}\\s*:(?!:)`, 'g') : null;
    const found = [];
    for (const { file, lines } of this.files) {
      lines.forEach((text, i) => {
        for (const re of bare ? [quoted, bare] : [quoted]) {
          for (const m of text.matchAll(re)) {
            found.push({ file: path.relative(this.projectDir, file), line: i + 1, column: m.index + 1, text });
          }
        }
      });
    }
    return found.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  }

  /**
   * Where a registration key is written: an occurrence followed by `:` (an
   * object property) is preferred over one that is merely mentioned.
   */
  definition(name) {
    const all = this.occurrences(name);
    const asKey = all.find((o) => new RegExp(`${escapeRegExp(name)}['"\`]?\\s*:`).test(o.text.slice(o.column - 1)));
    return place(asKey ?? all[0]);
  }

  /** Where a name is used in an option: the occurrence on a line naming it. */
  reference(name, hint) {
    const all = this.occurrences(name);
    return place(all.find((o) => hint.test(o.text)) ?? null);
  }
}

function place(o) {
  return o ? { file: o.file, line: o.line, column: o.column } : null;
}

// ---------------------------------------------------------------------------
// Walking the agents

function isMastra(value) {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof value.listAgents === 'function' &&
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

/** The route a model config takes (shared/case-format.md, ROUTE). */
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
async function assembledTools(agent, requestContext, defaults) {
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

async function describeAgent(registeredAs, agent, RequestContext, sources) {
  const requestContext = new RequestContext();
  const where = `agent "${registeredAs}"`;
  const step = async (what, fn) => {
    try {
      return await fn();
    } catch (e) {
      throw new LoadError('agent-throws', `${where}: its ${what} threw: ${firstLine(e?.message ?? e)}`);
    }
  };
  const given = await step('tools function', () => agent.listTools({ requestContext }));
  const subAgents = await step('agents function', () => agent.listAgents({ requestContext }));
  const workflows = await step('workflows function', () => agent.listWorkflows({ requestContext }));
  const defaults = (await step('defaultOptions function', () => agent.getDefaultOptions({ requestContext }))) ?? {};
  const memory = await step('memory function', () => agent.getMemory?.({ requestContext }));
  const assembled = await step('tools', () => assembledTools(agent, requestContext, defaults));

  const givenKeys = keysOf(given);
  const agentKeys = new Set(keysOf(subAgents).map((k) => `agent-${k}`));
  const workflowKeys = new Set(keysOf(workflows).map((k) => `workflow-${k}`));
  const toolsetKeys = new Set(Object.values(defaults.toolsets ?? {}).flatMap(keysOf));
  const clientKeys = new Set(keysOf(defaults.clientTools));
  let memoryKeys = new Set();
  try {
    const listed = memory && typeof memory.listTools === 'function' ? await memory.listTools() : null;
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

  // Where a key came from, and the literal the user wrote for it.
  const origin = (key) => {
    if (givenKeys.includes(key)) return [isMcpTool(given[key]) ? 'mcp' : 'tool', key];
    if (agentKeys.has(key)) return ['agent', key.slice('agent-'.length)];
    if (workflowKeys.has(key)) return ['workflow', key.slice('workflow-'.length)];
    if (memoryKeys.has(key)) return ['memory', key];
    if (toolsetKeys.has(key)) return ['toolset', key];
    if (clientKeys.has(key)) return ['client', key];
    return ['other', key];
  };
  const tools = keys.map((key) => {
    const [source, literal] = origin(key);
    return { key, source, at: sources.definition(literal) };
  });

  const activeTools = Array.isArray(defaults.activeTools)
    ? defaults.activeTools.filter((n) => typeof n === 'string')
    : null;
  const choice = toolChoiceOf(defaults.toolChoice);
  return {
    registeredAs,
    id: agent.id ?? null,
    name: agent.name ?? null,
    route: await step('model function', () => routeOf(agent, requestContext)),
    tools,
    toolChoice: choice && {
      ...choice,
      at: choice.tool !== undefined ? sources.reference(choice.tool, /toolName|toolChoice/) : null,
    },
    activeTools:
      activeTools === null
        ? null
        : activeTools.map((name) => ({ name, at: sources.reference(name, /activeTools|^\s*(['"`])[^'"`]*\1,?\s*$/) })),
  };
}

/** Tools an MCP client made (@mastra/mcp tags them with their server). */
function isMcpTool(tool) {
  return Boolean(tool && typeof tool === 'object' && (tool.mcpMetadata || tool.mcp || tool.serverName));
}

// ---------------------------------------------------------------------------

async function main() {
  const args = process.argv.slice(2);
  const underTsx = args.includes('--under-tsx');
  const [projectArg, entryArg] = args.filter((a) => a !== '--under-tsx');
  if (!projectArg || !entryArg) throw new LoadError('usage', 'usage: node project.mjs PROJECT_DIR ENTRY_FILE', 3);
  const projectDir = path.resolve(projectArg);
  const entry = path.resolve(projectDir, entryArg);
  if (!existsSync(entry)) throw new LoadError('no-entry', `${entry} does not exist (pass --entry FILE)`);

  const { core, version } = checkInstalled(projectDir);
  const unguarded = blockNetwork(projectDir, underTsx);
  registerBundlerResolution();

  let entryModule;
  try {
    entryModule = await import(pathToFileURL(entry).href);
  } catch (e) {
    if (!underTsx && needsTranspiler(e)) retryWithTsx(projectDir, e, unguarded.spawnSync);
    const where = e?.code === 'ERR_MODULE_NOT_FOUND' ? 'cannot be loaded' : 'threw while loading';
    throw new LoadError('entry-throws', `${path.relative(projectDir, entry)} ${where}: ${firstLine(e?.message ?? e)}`);
  }
  const mastra = findMastra(entryModule);
  if (!mastra) {
    const names = Object.keys(entryModule);
    throw new LoadError(
      'no-mastra',
      `${path.relative(projectDir, entry)} exports no Mastra instance (exports: ${names.length ? names.join(', ') : 'none'}); export one, e.g. export const mastra = new Mastra({ agents })`,
    );
  }
  const { RequestContext } = await import(pathToFileURL(exportedFile(core, './request-context')).href);
  const sources = new SourceIndex(projectDir);
  const agents = [];
  for (const [registeredAs, agent] of Object.entries(mastra.listAgents())) {
    agents.push(await describeAgent(registeredAs, agent, RequestContext, sources));
  }
  writeLine(
    JSON.stringify({
      project: projectDir,
      entry: path.relative(projectDir, entry),
      node: process.version,
      mastra: { version, dir: core },
      loader: underTsx ? 'tsx' : 'node',
      agents,
      blocked: blockedRequests,
    }),
  );
  // Mastra and the project keep timers and handles alive.
  process.exit(0);
}

main().catch(fail);
