// A real MCP server over stdio that lists a case's tool names.
//
//   node mcp-server.mjs INSTALL_DIR NAMES_FILE
//
// INSTALL_DIR is the @mastra/core install the probe runs (it also holds the
// official MCP SDK, @modelcontextprotocol/sdk); NAMES_FILE is a JSON array of
// tool names, listed in that order, each with the standard tool's input
// schema ({ city: string }, required). Names are passed in a file, not in argv
// or the environment: a thousand long names pass the kernel's per-argument
// limit, and lone surrogates survive JSON but not argv.
//
// Calling any tool answers { content: [{ type: "text", text: '{"tempC":20}' }] },
// the standard tool's result, so a case reads the same whatever source it
// came from. Everything the SDK would print goes to stderr: stdout is the
// transport.
//
// The low-level `Server` is used, not `McpServer.registerTool`: the case's
// names must reach the client exactly as written (registerTool warns on or
// rejects names outside the SDK's own naming rule on some versions, and
// builds a zod schema per tool, which is slow for a thousand tools).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [installDir, namesFile] = process.argv.slice(2);
if (!installDir || !namesFile) {
  console.error('usage: node mcp-server.mjs INSTALL_DIR NAMES_FILE');
  process.exit(2);
}

const names = JSON.parse(readFileSync(namesFile, 'utf8'));
if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
  console.error(`${namesFile}: must be a JSON array of strings`);
  process.exit(2);
}

// The SDK is resolved from the install, not from node-probe/ (which has no
// node_modules): the server runs the SDK version installed beside @mastra/mcp.
const sdk = createRequire(path.join(path.resolve(installDir), 'package.json'));
const { Server } = sdk('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = sdk('@modelcontextprotocol/sdk/server/stdio.js');
const { ListToolsRequestSchema, CallToolRequestSchema } = sdk('@modelcontextprotocol/sdk/types.js');

const inputSchema = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};
// Built once: a thousand-tool listing is answered from this array.
const listing = {
  tools: names.map((name) => ({ name, description: 'Get the weather', inputSchema })),
};

const server = new Server({ name: 'mastra-conform-mcp', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => listing);
server.setRequestHandler(CallToolRequestSchema, async () => ({
  content: [{ type: 'text', text: JSON.stringify({ tempC: 20 }) }],
}));

await server.connect(new StdioServerTransport());
// The client ends the server by closing its stdin (or with a signal).
process.stdin.on('end', () => process.exit(0));
