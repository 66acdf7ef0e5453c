// The MCP server the probe starts for a case's `mcp` servers
// (sources.mjs): one process per server, listing that server's tool names.
//
//   node mcp-server.mjs NAMES_FILE
//
// NAMES_FILE is a JSON array of tool names (mcp-tools.mjs). The server runs
// this project's code and Node's alone, no package: it installs no guard,
// which is there for code the project does not own, and which would double
// the cost of a start (its import of node:https and node:tls).

import { readToolNames, serveToolNames } from './mcp-tools.mjs';

const [namesFile] = process.argv.slice(2);
if (!namesFile) {
  console.error('usage: node mcp-server.mjs NAMES_FILE');
  process.exit(2);
}

let names;
try {
  names = readToolNames(namesFile);
} catch (e) {
  console.error(e.message);
  process.exit(2);
}
serveToolNames(names);
