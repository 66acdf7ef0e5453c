// What the project's MCP servers gave, for the project loader (project.mjs).
//
// The project's own @mastra/mcp (when it has one) is imported before the
// project and its MCPClient watched, on the class, so that every client the
// project makes is: each time a client asks one of its servers for its tools
// (`listTools`, `listToolsets` and the rest all go through one method per
// server), the server's name, how it is reached (a command, or a URL), and
// what it gave (its tool names, or the error) are kept, together with the
// agent being walked at the time (none during the import).
//
// A stdio server is a child process. Inside the OS sandbox the loader lets
// exactly the commands of the configured stdio servers start, while their
// client connects; with only the JavaScript guard none starts, and the server
// reads as failed with the guard's refusal. A URL server is never reached:
// the loader has no network.

import { pathToFileURL } from 'node:url';

/** `{ command, args }` or `{ url }`, as one line. */
function describeServer(config) {
  if (config && typeof config === 'object') {
    if (typeof config.command === 'string') {
      return { transport: 'stdio', target: [config.command, ...(config.args ?? [])].map(String).join(' ') };
    }
    if (config.url !== undefined) return { transport: 'url', target: String(config.url?.href ?? config.url) };
  }
  return { transport: 'unknown', target: '' };
}

/**
 * The package a stdio server's command downloads before it runs (`npx -y
 * PKG`, `pnpm dlx PKG`, `bunx PKG`, `yarn dlx PKG`, `npm exec PKG`, `uvx
 * PKG`), or null. The loader has no registry to download from: inside the
 * sandbox such a command waits for the network until the client gives up.
 */
export function downloadedPackage(config) {
  if (!config || typeof config.command !== 'string') return null;
  const command = config.command.split('/').pop();
  const args = (config.args ?? []).map(String);
  const words = [command, ...args];
  const after = (n) => words.slice(n).find((w) => !w.startsWith('-')) ?? null;
  if (command === 'npx' || command === 'bunx' || command === 'pnpx' || command === 'uvx') return after(1);
  if ((command === 'pnpm' || command === 'yarn') && args[0] === 'dlx') return after(2);
  if ((command === 'npm' && args[0] === 'exec') || (command === 'bun' && args[0] === 'x')) return after(2);
  return null;
}

/** `@scope/name@1.2.3` or `name@latest` -> the package's name. */
function nameOf(spec) {
  const at = spec.indexOf('@', 1);
  return at > 0 ? spec.slice(0, at) : spec;
}

const firstLine = (text) =>
  String(text ?? '')
    .split('\n')[0]
    .slice(0, 300);

export class McpWatch {
  constructor() {
    /** Every server asked, in order: { server, transport, target, tools, error, agent }. */
    this.servers = [];
    /** Stdio commands a client is connecting to right now: "file\0args". */
    this.starting = new Map();
    this.agent = null;
    this.installed = false;
  }

  /** Whether a child process is a configured stdio server being started. */
  isStarting(file, args) {
    return (this.starting.get(`${file}\0${args.join('\0')}`) ?? 0) > 0;
  }

  /** Watch the project's own @mastra/mcp, if it has one. */
  async install(findPackage, exportedFile, projectDir) {
    const pkg = findPackage(projectDir, '@mastra/mcp');
    if (!pkg) return;
    let MCPClient;
    try {
      ({ MCPClient } = await import(pathToFileURL(exportedFile(pkg, '.')).href));
    } catch {
      return;
    }
    const proto = MCPClient?.prototype;
    // `getToolsForServer` is where every listing goes from @mastra/mcp
    // 1.2 on; the older clients (1.0.3, beside core 1.0.4) connect each
    // server through `getConnectedClientForServer` and list its tools on
    // the connected client, so there the connection is watched and the
    // client's `tools()` read.
    const method = ['getToolsForServer', 'getConnectedClientForServer'].find((m) => typeof proto?.[m] === 'function');
    if (!method) return;
    const real = proto[method];
    const watch = this;
    proto[method] = async function (serverName, ...rest) {
      const config = this.serverConfigs?.[serverName] ?? safe(() => this.getServerConfig(serverName));
      const { transport, target } = describeServer(config);
      const record = { server: serverName, transport, target, tools: null, error: null, agent: watch.agent };
      // The server's own approval setting: a function the loader asks with
      // its tools' names (project.mjs: serverPolicy), or `true`, which the
      // @mastra/mcp beside cores before 1.25.0 never reads.
      if (typeof config?.requireToolApproval === 'function') record.policy = config.requireToolApproval;
      record.approval =
        typeof config?.requireToolApproval === 'function'
          ? 'function'
          : config?.requireToolApproval === true
            ? 'always'
            : null;
      watch.servers.push(record);
      // A package the command would download, unless the project has it
      // installed (npx runs that one): refused at once, as lint starts no
      // command that downloads.
      const downloads = downloadedPackage(config);
      if (downloads && !findPackage(projectDir, nameOf(downloads))) {
        record.error = `not started: ${target} downloads ${downloads}, and lint starts no command that downloads (install the package in the project to have its server listed)`;
        throw new Error(`Failed to connect to MCP server ${serverName}: ${record.error}`);
      }
      const key = transport === 'stdio' ? `${config.command}\0${(config.args ?? []).map(String).join('\0')}` : null;
      if (key) watch.starting.set(key, (watch.starting.get(key) ?? 0) + 1);
      try {
        const got = await real.call(this, serverName, ...rest);
        if (method === 'getToolsForServer') record.tools = Object.keys(got ?? {});
        else watchTools(got, record);
        return got;
      } catch (e) {
        record.error = firstLine(e?.message ?? e);
        throw e;
      } finally {
        if (key) watch.starting.set(key, watch.starting.get(key) - 1);
      }
    };
    this.installed = true;
  }

  /** The latest record of each server asked while AGENT was walked, or during the import. */
  recordsFor(agent) {
    const latest = new Map();
    for (const r of this.servers) if (r.agent === agent) latest.set(r.server, r);
    return latest;
  }

  /** The latest record of a server, asked at any time. */
  latest(server) {
    let hit = null;
    for (const r of this.servers) if (r.server === server) hit = r;
    return hit;
  }
}

/** An older client's connected server: what its `tools()` lists goes into RECORD. */
function watchTools(client, record) {
  if (!client || typeof client.tools !== 'function') return;
  const tools = client.tools;
  client.tools = async function (...args) {
    const listed = await tools.apply(this, args);
    record.tools = Object.keys(listed ?? {});
    return listed;
  };
}

function safe(fn) {
  try {
    return fn();
  } catch {
    return null;
  }
}
