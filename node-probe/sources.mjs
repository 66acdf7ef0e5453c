// The tool sources of a case beyond `tools`, `toolsets` and `clientTools`
// (docs/case-format.md): sub-agents, workflows, MCP servers, working
// memory and dynamic tools. agent.mjs calls `prepareSources` before it builds
// the Agent and `close` when the case is over; everything source-specific
// lives here, so the routes work in agent.mjs and this stay apart.
//
// The extra packages (@mastra/mcp, @mastra/memory, @mastra/libsql and the
// MCP SDK) are installed beside @mastra/core, at the versions whose peer
// ranges accept it (harness: versions/extras.rs), and imported through
// `lib.importPackage` (agent.mjs), on first use only: together they take
// seconds to load, and most cases need none.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A JSON object: not null, not an array. */
export function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Check the source fields; `fault(message)` makes the error the caller
 * throws (agent.mjs's CaseFault), so a bad field is a fault line.
 */
export function checkSources(c, fault) {
  const keyList = (field) => {
    const v = c[field];
    if (v === undefined) return;
    if (!Array.isArray(v) || !v.every((k) => typeof k === 'string'))
      throw fault(`${field} must be an array of KEY strings`);
  };
  keyList('agents');
  keyList('workflows');
  if (c.mcp !== undefined) {
    if (!isObject(c.mcp)) throw fault('mcp must be an object { SERVER: [TOOL name, ...] }');
    for (const [server, names] of Object.entries(c.mcp)) {
      if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
        throw fault(`mcp[${JSON.stringify(server)}] must be an array of tool name strings`);
      }
    }
  }
  if (c.mcpListing !== undefined && c.mcpListing !== 'listTools' && c.mcpListing !== 'listToolsets')
    throw fault('mcpListing must be "listTools" or "listToolsets"');
  if (c.mcpApproval !== undefined) {
    if (!isObject(c.mcpApproval)) throw fault('mcpApproval must be an object { SERVER: POLICY }');
    for (const [server, policy] of Object.entries(c.mcpApproval)) {
      const where = `mcpApproval[${JSON.stringify(server)}]`;
      if (!isObject(c.mcp) || !Object.hasOwn(c.mcp, server)) throw fault(`${where} names no server of mcp`);
      if (typeof policy === 'boolean') continue;
      const names = isObject(policy) ? policy.names : undefined;
      if (!Array.isArray(names) || !names.every((n) => typeof n === 'string'))
        throw fault(`${where} must be true, false or {"names": [string, ...]}`);
    }
  }
  if (c.memory !== undefined && c.memory !== true) {
    if (!isObject(c.memory)) throw fault('memory must be true or an object { "workingMemory": true|false }');
    if (typeof c.memory.workingMemory !== 'boolean') throw fault('memory.workingMemory must be true or false');
  }
  if (c.dynamicTools !== undefined && typeof c.dynamicTools !== 'boolean')
    throw fault('dynamicTools must be true or false');
}

/** A package beside the core that the case cannot be set up without. */
function need(lib, pkg, fault) {
  return lib.importPackage(pkg).catch((e) => {
    throw fault(`the install has no usable ${pkg} (${e?.message ?? e}); reinstall the version`);
  });
}

/** Versions of the extra packages in the install, for the hello line. */
export function sourceVersions(versionOf) {
  const names = ['@mastra/mcp', '@modelcontextprotocol/sdk', '@mastra/memory', '@mastra/libsql'];
  return Object.fromEntries(names.map((n) => [n, versionOf(n)]).filter(([, v]) => v !== null));
}

let clientSeq = 0;

// MCP clients kept between cases whose servers list the same tools. Each
// MCP server is a Node process (about 50 MB and a Node start), and the
// corpus names the same servers on every route: started once per probe,
// each stays a real stdio server, and every case lists its tools and calls
// them over stdio itself. A client no case uses waits for the next one
// with the same servers; past MCP_KEEP idle clients, the least recently used
// are ended. A listing that fails ends its client: the next case starts anew.
const MCP_KEEP = 8;
const mcpClients = new Map();
let mcpUse = 0;

/** End a kept client's servers and remove its folder of names files. */
async function endMcp(key, entry) {
  if (mcpClients.get(key) === entry) mcpClients.delete(key);
  try {
    await (await entry.opened).disconnect();
  } catch {
    // It never connected, or its servers are gone already.
  }
  rmSync(entry.dir, { recursive: true, force: true });
}

// Children end with the probe (their stdin closes); their folders go too.
process.on('exit', () => {
  for (const entry of mcpClients.values()) rmSync(entry.dir, { recursive: true, force: true });
});

/**
 * The servers `mcp` names, each a real stdio server listing its names from
 * a file in `dir`. Object.fromEntries, as a literal builds it: every server
 * name an own key, "__proto__" included.
 */
function mcpServers(lib, mcp, dir) {
  return Object.fromEntries(
    Object.entries(mcp).map(([server, names], i) => {
      const namesFile = path.join(dir, `mcp-${i}.json`);
      writeFileSync(namesFile, JSON.stringify(names));
      return [server, { ...lib.mcpServer(namesFile), env: {} }];
    }),
  );
}

/**
 * The servers `mcp` names with each server-level `requireToolApproval` of
 * `mcpApproval`: a boolean as it is, `{ names }` as the function users
 * write, which records each `{ server, toolName }` it is asked in `asked`.
 */
function withServerApproval(servers, approval, asked) {
  for (const [server, policy] of Object.entries(approval)) {
    if (typeof policy === 'boolean') {
      servers[server].requireToolApproval = policy;
      continue;
    }
    servers[server].requireToolApproval = (context) => {
      const toolName = context?.toolName;
      asked.push({ server, toolName: typeof toolName === 'string' ? toolName : null });
      return policy.names.includes(toolName);
    };
  }
  return servers;
}

/** A unique id: MCPClient refuses two live instances with the same configuration and no id. */
function nextClientId() {
  return `mastra-conform-${process.pid}-${++clientSeq}`;
}

/**
 * A client for the servers `c.mcp` names, kept or new, `list()`, which
 * lists its tools for one case, and `release(ok)`, which hands it back
 * (`ok` false ends it).
 */
async function borrowMcp(lib, MCPClient, mcp) {
  const key = JSON.stringify(Object.entries(mcp));
  let entry = mcpClients.get(key);
  if (entry === undefined) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mastra-conform-mcp-'));
    const client = new MCPClient({ id: nextClientId(), servers: mcpServers(lib, mcp, dir), timeout: 60000 });
    // Connected by one listing before any case uses it, so cases that
    // share it from the start never race to connect its servers.
    entry = { dir, users: 0, used: 0, tools: null, opened: listMcp(client).then(() => client) };
    mcpClients.set(key, entry);
  }
  entry.users += 1;
  entry.used = ++mcpUse;
  let client;
  try {
    client = await entry.opened;
  } catch (e) {
    entry.users -= 1;
    if (entry.users === 0) await endMcp(key, entry);
    else if (mcpClients.get(key) === entry) mcpClients.delete(key);
    throw e;
  }
  let released = false;
  const release = async (ok) => {
    if (released) return;
    released = true;
    entry.users -= 1;
    if (!ok) {
      if (entry.users === 0) await endMcp(key, entry);
      else if (mcpClients.get(key) === entry) mcpClients.delete(key);
      return;
    }
    if (entry.users === 0 && mcpClients.get(key) !== entry) await endMcp(key, entry);
    const idle = [...mcpClients.entries()].filter(([, e]) => e.users === 0).sort((a, b) => a[1].used - b[1].used);
    for (const [k, e] of idle.slice(0, Math.max(0, idle.length - MCP_KEEP))) await endMcp(k, e);
  };
  // Each case lists the servers again, so a server gone since the last
  // case fails the listing as before, but takes the first whole listing's
  // tools when this one names the same: an app lists its MCP tools once and
  // hands the same tools to each request, and Mastra builds a tool's input
  // validator (Ajv, on the listed tool's schema) once per tool object, so
  // tools listed afresh had it built again on every case.
  const list = async () => {
    const listed = await listMcp(client);
    if (Object.keys(listed.errors ?? {}).length > 0) return listed;
    entry.tools ??= listed.tools;
    const same = JSON.stringify(Object.keys(entry.tools)) === JSON.stringify(Object.keys(listed.tools));
    return same ? { tools: entry.tools, errors: {} } : listed;
  };
  return { client, list, release };
}

/** What `listTools()` gives, as `{ tools, errors }` on every release. */
function listMcp(client) {
  return typeof client.listToolsWithErrors === 'function'
    ? client.listToolsWithErrors()
    : client.listTools().then((tools) => ({ tools, errors: {} }));
}

/**
 * Build what the case's sources add to the Agent: resolves to
 *   { agentOptions, tools, callOptions, mcpToolsets, close }
 * where `tools` replaces the case's tools object (MCP tools spread after it,
 * the way users write `{ ...tools, ...(await mcp.listTools()) }`; a function
 * of the request context for `dynamicTools`), `agentOptions` go into
 * `new Agent({...})`, `callOptions` into generate()/stream(), and `close()`
 * ends MCP servers and removes the case's temporary folder; `mcpToolsets`
 * is what `listToolsets()` gave for `mcpListing: "listToolsets"` (null
 * otherwise), which the caller spreads into the call's `toolsets` after the
 * case's. A server-level policy function pushes what it is asked to
 * `serverAsked` (`seen.approval.serverAsked`). Throws `fault`
 * errors when the sources cannot be set up (not an observation of Mastra).
 */
export async function prepareSources(lib, c, tools, model, fault, serverAsked = []) {
  const agentOptions = {};
  const callOptions = {};
  let mcpToolsets = null;
  const cleanups = [];
  let tmp = null;
  const tmpDir = () => (tmp ??= mkdtempSync(path.join(os.tmpdir(), 'mastra-conform-case-')));
  cleanups.push(() => tmp && rmSync(tmp, { recursive: true, force: true }));
  const close = async () => {
    for (const f of cleanups.reverse()) {
      try {
        await f();
      } catch (e) {
        console.error('[probe] source cleanup failed:', e);
      }
    }
  };

  try {
    let allTools = tools;

    if (c.agents !== undefined) {
      // Each sub-agent is a fresh Agent on the probe's own model: its own
      // requests reach the listener too (case-format.md). Its instructions
      // name its key, so that the listener tells its requests apart from the
      // parent's and from another sub-agent's (subAgentReplies; the Rust
      // side's case/script.rs reads the same text).
      agentOptions.agents = Object.fromEntries(
        c.agents.map((key) => [
          key,
          new lib.Agent({
            id: 'sub',
            name: 'sub',
            description: 'a sub-agent',
            instructions: `sub-agent ${key}`,
            model,
          }),
        ]),
      );
    }

    if (c.workflows !== undefined) {
      const { createWorkflow, createStep } = await lib.importPackage('@mastra/core/workflows');
      const z = lib.z;
      const makeWorkflow = () => {
        const step = createStep({
          id: 'weather',
          inputSchema: z.object({ city: z.string() }),
          outputSchema: z.object({ tempC: z.number() }),
          execute: async () => ({ tempC: 20 }),
        });
        return createWorkflow({
          id: 'wf',
          description: 'a workflow',
          inputSchema: z.object({ city: z.string() }),
          outputSchema: z.object({ tempC: z.number() }),
        })
          .then(step)
          .commit();
      };
      agentOptions.workflows = Object.fromEntries(c.workflows.map((key) => [key, makeWorkflow()]));
    }

    if (c.mcp !== undefined && Object.keys(c.mcp).length > 0) {
      const mcpModule = await need(lib, '@mastra/mcp', fault);
      // Kept for the next case unless this one found it broken.
      let listedWhole = false;
      let listed;
      const toolsets = c.mcpListing === 'listToolsets';
      if (lib.legacy && (toolsets || c.mcpApproval !== undefined)) {
        throw fault('mcpListing and mcpApproval are cases of 1.x');
      }
      if (toolsets || c.mcpApproval !== undefined) {
        // A client of its own: its servers carry the case's policies, and
        // the policy functions record into this case's `serverAsked`.
        const servers = withServerApproval(mcpServers(lib, c.mcp, tmpDir()), c.mcpApproval ?? {}, serverAsked);
        const client = new mcpModule.MCPClient({ id: nextClientId(), servers, timeout: 60000 });
        cleanups.push(() => client.disconnect());
        if (toolsets) {
          listed =
            typeof client.listToolsetsWithErrors === 'function'
              ? await client.listToolsetsWithErrors()
              : { toolsets: await client.listToolsets(), errors: {} };
        } else {
          listed =
            typeof client.listToolsWithErrors === 'function'
              ? await client.listToolsWithErrors()
              : { tools: await client.listTools(), errors: {} };
        }
      } else if (lib.legacy) {
        const servers = mcpServers(lib, c.mcp, tmpDir());
        const { client, tools: listedTools } = await lib.legacy.mcpTools(mcpModule, nextClientId(), servers);
        cleanups.push(() => client.disconnect());
        listed = { tools: listedTools, errors: {} };
      } else {
        const kept = await borrowMcp(lib, mcpModule.MCPClient, c.mcp);
        cleanups.push(() => kept.release(listedWhole));
        listed = await kept.list();
      }
      const failed = Object.entries(listed.errors ?? {});
      if (failed.length > 0) {
        throw fault(`MCP server ${JSON.stringify(failed[0][0])} failed to list its tools: ${failed[0][1]}`);
      }
      listedWhole = true;
      // `listToolsets()` goes where its docs put it: the call's `toolsets`.
      if (toolsets) mcpToolsets = listed.toolsets;
      else allTools = { ...tools, ...listed.tools };
    }

    if (c.memory === true) {
      // The contract's memory: LibSQL in memory, one thread and resource.
      const { Memory } = await need(lib, '@mastra/memory', fault);
      const { LibSQLStore } = await need(lib, '@mastra/libsql', fault);
      const storage = new LibSQLStore({ id: 'memory', url: 'file::memory:' });
      cleanups.push(async () => {
        if (typeof storage.close === 'function') await storage.close();
        else if (storage.client && storage.client.closed === false) storage.client.close();
      });
      agentOptions.memory = new Memory({ storage });
      Object.assign(callOptions, { memory: { thread: 'thread-1', resource: 'user-1' } });
    } else if (c.memory !== undefined) {
      const { Memory } = await need(lib, '@mastra/memory', fault);
      const dbUrl = `file:${path.join(tmpDir(), 'memory.db')}`;
      let storage;
      if (lib.legacy) {
        storage = await lib.legacy.storage(lib, dbUrl);
      } else {
        const { LibSQLStore } = await need(lib, '@mastra/libsql', fault);
        storage = new LibSQLStore({ id: 'mastra-conform', url: dbUrl });
      }
      // Closed before its folder goes (cleanups run last first): an open
      // libsql client keeps its native connection and file handles for the
      // probe's life. Releases before close() existed close the client.
      cleanups.push(async () => {
        if (typeof storage.close === 'function') await storage.close();
        else if (storage.client && storage.client.closed === false) storage.client.close();
      });
      agentOptions.memory = new Memory({
        storage,
        options: { workingMemory: { enabled: c.memory.workingMemory } },
      });
      // Memory tools join only when the call names a thread or resource.
      const [thread, resource] = ['mastra-conform-thread', 'mastra-conform'];
      Object.assign(
        callOptions,
        lib.legacy ? lib.legacy.memoryCallOptions(thread, resource) : { memory: { thread, resource } },
      );
    }

    if (c.dynamicTools === true) {
      const resolved = allTools;
      agentOptions.tools = () => resolved;
    } else {
      agentOptions.tools = allTools;
    }
    return { agentOptions, callOptions, mcpToolsets, close };
  } catch (e) {
    await close();
    if (e?.name === 'CaseFault') throw e;
    throw fault(`setting up the case's sources failed: ${e?.message ?? e}`);
  }
}
