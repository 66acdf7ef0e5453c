// The probe's side of a case: loading an install, the guard's allow-list
// for the probe, and running one case (agent.mjs) in an async context of its
// own, with the requests it made counted.
//
// Shared by probe.mjs (one case per protocol request) and ceiling.mjs (the
// in-process throughput ceiling), so both run exactly the same agent and
// call. Nothing here imports @mastra/core statically: the install to use is
// only known at run time, and stdio.mjs must claim stdout before Mastra
// loads.

import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CaseFault, checkCase, runAgent } from './agent.mjs';
import { installGuard, loopbackPort } from './guard.mjs';
import { legacyOf } from './legacy.mjs';
import { destination, routeOf, setRouteEnvironment } from './routes.mjs';
import { sourceVersions } from './sources.mjs';

// The MCP server the probe starts for a case's `mcp` servers: the harness's
// own binary (`mastra-conform mcp-server NAMES_FILE`, a start of about a
// millisecond), named in MASTRA_CONFORM_MCP_SERVER and taken out of the
// environment before Mastra loads; without it (ceiling.mjs, selftest.mjs run
// by hand), the pinned Node running mcp-server.mjs. Either way one program.
const MCP_SERVER = mcpServerCommand(process.env);

function mcpServerCommand(env) {
  const program = env.MASTRA_CONFORM_MCP_SERVER;
  delete env.MASTRA_CONFORM_MCP_SERVER;
  if (program) return { command: program, args: ['mcp-server'] };
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'mcp-server.mjs');
  return { command: process.execPath, args: [script] };
}

// ---------------------------------------------------------------------------
// What a probe may reach
//
// The case URL must be a case's only destination, and every request it
// makes must reach the capture listener. The driver can only see what
// arrived; so the probe counts what left: each fetch (which the AI SDK looks
// up at call time) is charged to the case whose async context made it, and
// the driver compares the count with what the listener captured.
//
// The guard (guard.mjs) lets the probe reach:
// - its listeners: TCP to the loopback port of a case URL it was given (the
//   Rust listener, or ceiling.mjs's own); nothing else on loopback;
// - by fetch, the case URL and the case's route's provider, which routes.mjs
//   maps to the case URL; nothing else;
// - one child process: MCP_SERVER, the MCP server the probe itself starts
//   for a case's `mcp` servers;
// - Code Mode's runner (`codeMode`): `node --experimental-strip-types` on the
//   runner Mastra writes into a fresh folder of the temporary directory,
//   through `/bin/sh -c` as `LocalSandbox` starts it. It runs the program of
//   the case's own scripted reply, inside the probe's sandbox.
// Everything else is refused before it leaves the process, and a refusal
// inside a case is listed in its `elsewhere` (a probe fault for the
// driver). No provider route uses node:http(s), so those reach the listener
// only; Mastra's webFetchTool (https.request) is refused.

const caseRequests = new AsyncLocalStorage();
const listenerPorts = new Set();

function guardProbe() {
  installGuard({
    who: 'the probe',
    ports: listenerPorts,
    route(url) {
      const log = caseRequests.getStore();
      if (!log) {
        console.error(`[probe] a request outside any case: ${url}`);
        return url;
      }
      log.fetches += 1;
      return destination(log.route, log.url, url);
    },
    child: (file, args) =>
      (file === MCP_SERVER.command &&
        args.length === MCP_SERVER.args.length + 1 &&
        MCP_SERVER.args.every((a, i) => args[i] === a)) ||
      isCodeModeRunner(file, args),
    refused(what) {
      const log = caseRequests.getStore();
      if (log) log.elsewhere.push(what);
      else console.error(`[probe] refused outside any case: ${what}`);
    },
  });
}

/** Whether a child is Code Mode's runner, as `LocalSandbox` starts it. */
function isCodeModeRunner(file, args) {
  const runner = new RegExp(
    `^node --experimental-strip-types ${escapeRegExp(tmpdir())}/mastra-code-mode-[A-Za-z0-9]{6}/runner-[0-9a-f]{8}\\.mjs$`,
  );
  return file === '/bin/sh' && args.length === 2 && args[0] === '-c' && runner.test(args[1]);
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Let the probe reach the loopback port a case URL names. */
function allowListener(url) {
  const port = loopbackPort(url);
  if (port !== null) listenerPorts.add(port);
}

// ---------------------------------------------------------------------------
// Loading an install

// The install's extra packages are imported through `probe-sources.mjs`
// inside it, written here, so that each bare specifier resolves from the
// install and `@mastra/core` imported by @mastra/mcp is the very copy the
// Agent comes from (one ESM instance).
const SOURCES_ENTRY = 'export const importHere = (specifier) => import(specifier);\n';

function packageImporter(dir) {
  let entry = null;
  return async (specifier) => {
    if (entry === null) {
      const file = path.join(dir, 'probe-sources.mjs');
      if (!existsSync(file) || readFileSync(file, 'utf8') !== SOURCES_ENTRY) {
        // Several probes may share one install: write beside, rename into place.
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, SOURCES_ENTRY);
        renameSync(tmp, file);
      }
      entry = await import(pathToFileURL(file).href);
    }
    return entry.importHere(specifier);
  };
}

/**
 * Import INSTALL_DIR/probe-entry.mjs and describe the install, with the
 * guard in place first.
 *
 * The entry is loaded through a file URL with a dynamic import, so
 * @mastra/core resolves through its `import` exports: some versions break
 * when loaded through `require`.
 */
export async function loadInstall(installDir) {
  guardProbe();
  setRouteEnvironment();
  const dir = path.resolve(installDir);
  const entry = await import(pathToFileURL(path.join(dir, 'probe-entry.mjs')).href);
  const { agent, tools, z } = entry;
  // 0.1.x has no Agent; its entry says so (legacy.mjs), and no case applies.
  const noAgent = entry.noAgent === true;
  if (!noAgent && (!agent?.Agent || !tools?.createTool || !z?.object)) {
    throw new Error(`${dir}/probe-entry.mjs does not export agent.Agent, tools.createTool and z`);
  }
  // Package versions come from the installed package.json files: the packages'
  // `exports` maps may not expose ./package.json, so read them as files.
  const versionOf = (name) => {
    try {
      return JSON.parse(readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')).version ?? null;
    } catch {
      return null;
    }
  };
  // Built-in tools: exports of @mastra/core/tools named ...Tool that are
  // objects, not functions (askUserTool, webFetchTool, ...). webSearchTool
  // (1.67+) is a frozen marker object Mastra swaps for the provider's own
  // web-search tool; it is a tool a user registers, so it is listed too.
  const builtins = Object.keys(tools ?? {}).filter(
    (name) => name.endsWith('Tool') && tools[name] !== null && typeof tools[name] === 'object',
  );
  const mastraVersion = versionOf('@mastra/core');
  const importPackage = packageImporter(dir);
  await weakenZodRegistries(importPackage);
  return {
    Agent: agent?.Agent ?? null,
    createTool: tools?.createTool ?? null,
    toolsModule: tools ?? {},
    z,
    mastraVersion,
    legacy: legacyOf(mastraVersion, coreDependencies(dir), !noAgent),
    importPackage,
    mcpServer: (namesFile) => ({ command: MCP_SERVER.command, args: [...MCP_SERVER.args, namesFile] }),
    zodVersion: versionOf('zod'),
    sourceVersions: sourceVersions(versionOf),
    builtins,
  };
}

// The packages a case imports on its first use of what they serve (MCP,
// memory and its storage, tracing, approval's storage and Mastra, workflows,
// processors), imported before the hello instead. A probe's memory is read
// against its reading after its first cases (`make bench`, and the pool when
// it replaces probes by growth); imported on first use, these packages
// arrived after that reading, so a process grew by them (about 50 MB) while
// a replacement started below its own bound by less. Every probe of a run
// meets such cases, so the import costs it nothing it would not pay anyway.
// 0.x installs (`legacy`) import their own way and are left as they were.
const IMPORTED_FIRST = [
  '@mastra/mcp',
  '@mastra/memory',
  '@mastra/libsql',
  '@mastra/observability',
  '@mastra/core/mastra',
  '@mastra/core/storage',
  '@mastra/core/workflows',
  '@mastra/core/processors',
];

/**
 * Import `IMPORTED_FIRST` from the install. A package the install lacks, or
 * that fails to load, fails here silently and again, as before, in the case
 * that needs it (a failed import stays failed).
 */
export async function importFirst(lib) {
  if (lib.legacy) return;
  for (const specifier of IMPORTED_FIRST) {
    await lib.importPackage(specifier).catch(() => {});
  }
}

/**
 * Make the install's zod metadata registries hold their schemas weakly.
 *
 * zod 3.25's v4 core (what the 1.x cores run their schemas through) keeps
 * every schema given metadata (`.describe()`, `.meta()`, each JSON Schema
 * converted to zod) in its `globalRegistry`, a `Map`: nothing a case built
 * is ever released, about 85 kB a case, and a probe grew by hundreds of
 * megabytes over one corpus. zod 4.1 made that map a `WeakMap`; the
 * registry only ever looks a schema up by the schema itself, so the same
 * change here keeps every answer and lets a finished case's schemas go.
 * Registries made later (`z.registry()`) are weakened on their first `add`.
 */
async function weakenZodRegistries(importPackage) {
  let core;
  try {
    core = await importPackage('zod/v4/core');
  } catch {
    return; // a zod without the v4 core: no such registry
  }
  const proto = core.$ZodRegistry?.prototype;
  if (typeof proto?.add !== 'function') return;
  const weaken = (registry) => {
    if (!(registry?._map instanceof Map)) return;
    const weak = new WeakMap();
    for (const [schema, meta] of registry._map) weak.set(schema, meta);
    registry._map = weak;
  };
  weaken(core.globalRegistry);
  const add = proto.add;
  // `clear()` puts a new Map back; the next `add` weakens it again.
  proto.add = function (...args) {
    weaken(this);
    return add.apply(this, args);
  };
}

/** The installed core's package.json `dependencies` (legacy.mjs reads which AI SDKs it bundles). */
function coreDependencies(dir) {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'node_modules', '@mastra/core', 'package.json'), 'utf8'))
      .dependencies;
  } catch {
    return {};
  }
}

// ---------------------------------------------------------------------------
// Running a case

/**
 * Run one case against the model URL `url`. Resolves to the probe's result
 * object: {applicable, reason, error, executed, mutated, fetches, elsewhere}.
 * Throws CaseFault when the case cannot be built at all.
 */
export async function runCase(lib, c, url) {
  checkCase(c);
  if (typeof url !== 'string') throw new CaseFault('url must be a string');
  allowListener(url);
  const log = { url, route: routeOf(c), fetches: 0, elsewhere: [] };
  const result = await caseRequests.run(log, () => runAgent(lib, c, url, () => log.fetches));
  return { ...result, fetches: log.fetches, elsewhere: log.elsewhere };
}
