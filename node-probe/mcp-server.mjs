// The MCP server the probe starts for a case's `mcp` servers
// (sources.mjs): one process per server, listing that server's tool names.
//
//   node mcp-server.mjs INSTALL_DIR NAMES_FILE
//
// INSTALL_DIR is the @mastra/core install the probe runs: the official MCP
// SDK (@modelcontextprotocol/sdk) is resolved from there, not from
// node-probe/ (which has no node_modules), so the server runs the SDK
// version installed beside @mastra/mcp. NAMES_FILE is a JSON array of tool
// names (mcp-tools.mjs). The server needs no network and no process: the
// guard allows it none.

import { createRequire } from 'node:module';
import path from 'node:path';
import { installGuard, nothingAllowed } from './guard.mjs';
import { readToolNames, serveToolNames } from './mcp-tools.mjs';

const [installDir, namesFile] = process.argv.slice(2);
if (!installDir || !namesFile) {
  console.error('usage: node mcp-server.mjs INSTALL_DIR NAMES_FILE');
  process.exit(2);
}
installGuard(nothingAllowed('the MCP server', (what) => console.error(`[mcp-server] refused ${what}`)));

let names;
try {
  names = readToolNames(namesFile);
} catch (e) {
  console.error(e.message);
  process.exit(2);
}
await serveToolNames(createRequire(path.join(path.resolve(installDir), 'package.json')), names);
