// A real MCP server over stdio that lists a case's tool names: what
// mcp-server.mjs runs for the probe, and what the repro script runs when it
// starts itself as a case's MCP server (it inlines this module).
//
// Each name is listed in the given order with the standard tool's input
// schema ({ city: string }, required). Calling any tool answers
// { content: [{ type: "text", text: '{"tempC":20}' }] }, the standard tool's
// result, so a case reads the same whatever source it came from.
//
// The low-level `Server` is used, not `McpServer.registerTool`: the case's
// names must reach the client exactly as written (registerTool warns on or
// rejects names outside the SDK's own naming rule on some versions, and
// builds a zod schema per tool, which is slow for a thousand tools).

import { readFileSync } from 'node:fs';

/**
 * The names in NAMES_FILE, a JSON array of strings. Names travel in a file,
 * not in argv or the environment: a thousand long names pass the kernel's
 * per-argument limit, and lone surrogates survive JSON but not argv.
 */
export function readToolNames(namesFile) {
  const names = JSON.parse(readFileSync(namesFile, 'utf8'));
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
    throw new Error(`${namesFile}: must be a JSON array of strings`);
  }
  return names;
}

/**
 * Serve `names` on stdin/stdout until the client closes stdin. `sdk` is a
 * require function that resolves @modelcontextprotocol/sdk where the server
 * is to find it. Everything the SDK would print goes to stderr: stdout is
 * the transport.
 */
export async function serveToolNames(sdk, names) {
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
}
