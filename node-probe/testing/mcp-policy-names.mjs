// Whether an MCP server-level `requireToolApproval` (`MCPClient({ servers:
// { fs: { ..., requireToolApproval: true } } })`) holds a call of the
// server's tool, on a real install: the server is the harness's own
// (`mastra-conform mcp-server`) listing `delete.file`, whose tool the agent
// takes from `listTools()` and the model calls as `fs_delete_file`. Every
// request goes to a scripted Chat Completions server of this script's on
// 127.0.0.1; a held call suspends the run before the tool runs, so no
// second request carries its result.
//
//   node mcp-policy-names.mjs HARNESS_BINARY INSTALL_DIR...
//
// Each INSTALL_DIR holds `@mastra/core`, `@mastra/mcp` and `zod`. Prints,
// per install, the `@mastra/mcp` version and whether the call was held or
// ran (docs/names.md).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { scriptedChat, toolCallReply } from './scripted-chat.mjs';

// A scripted entry is `{ call: NAME }` (one tool call) or `{ text }`.
const reply = toolCallReply('{"city":"Paris"}');

async function measure(harness, dir) {
  const load = (m) => import(pathToFileURL(path.join(dir, 'node_modules', m)).href);
  const { Agent } = await load('@mastra/core/dist/agent/index.js');
  const { MCPClient } = await load('@mastra/mcp/dist/index.js');
  const mcpVersion = JSON.parse(readFileSync(path.join(dir, 'node_modules/@mastra/mcp/package.json'), 'utf8')).version;
  const folder = mkdtempSync(path.join(tmpdir(), 'mcp-policy-names-'));
  const names = path.join(folder, 'names.json');
  writeFileSync(names, JSON.stringify(['delete.file']));
  const mcp = new MCPClient({
    id: `policy-${process.pid}-${dir.length}`,
    servers: { fs: { command: harness, args: ['mcp-server', names], requireToolApproval: true } },
  });
  const { state, model, close } = await scriptedChat(reply);
  state.script = [{ call: 'fs_delete_file' }, { text: 'done' }];
  try {
    const agent = new Agent({ id: 'a', name: 'a', instructions: 'i', model, tools: await mcp.listTools() });
    await agent.generate('hi');
  } finally {
    await mcp.disconnect();
    close();
    rmSync(folder, { recursive: true, force: true });
  }
  const results = (state.bodies[1]?.messages ?? []).filter((m) => m.role === 'tool');
  return { mcpVersion, ran: results.length > 0 };
}

const [harness, ...dirs] = process.argv.slice(2);
for (const dir of dirs) {
  const { mcpVersion, ran } = await measure(harness, dir);
  console.log(
    `${dir}: @mastra/mcp ${mcpVersion}: a call under a server-level requireToolApproval: true ${ran ? 'ran' : 'was held'}`,
  );
}
