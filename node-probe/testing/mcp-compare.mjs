// The probe's MCP servers, the harness's own (`mastra-conform mcp-server`,
// on the Rust SDK) and ../mcp-server.mjs, each against the official SDK's
// `Server` serving the same listing, all over stdio, read by the MCP
// client @mastra/mcp itself uses in that install: the SDK 2 client
// (@modelcontextprotocol/client) where @mastra/mcp depends on it, else the
// SDK 1 client. For harness/tests/javascript.rs.
//
//   node mcp-compare.mjs HARNESS_BINARY INSTALL_DIR...
//
// For each install, one session per server: initialize, ping, tools/list,
// tools/call and a method no tools-only server has. Every message the client
// receives is recorded, and each of our records must equal the SDK's.
// Prints one line per install and server ("ok DIR harness: N messages
// identical (SDK x.y.z)") and exits 1 on the first difference, printing
// both records.

import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SDK_SERVER_FLAG = '--sdk-server';

// Names JSON carries but a naive server might not: an empty name, keys of
// Object.prototype, a lone surrogate, one past the 63-character cut, digits.
const NAMES = ['get.weather', '', '__proto__', 'constructor', '\ud800x', 'x'.repeat(70), '0', 'a b/c'];

/** The reference: the SDK's low-level Server, listing NAMES_FILE's names as the probe's server does. */
async function serveWithSdk(installDir, namesFile) {
  const sdk = createRequire(path.join(path.resolve(installDir), 'package.json'));
  const { Server } = sdk('@modelcontextprotocol/sdk/server/index.js');
  const { StdioServerTransport } = sdk('@modelcontextprotocol/sdk/server/stdio.js');
  const { ListToolsRequestSchema, CallToolRequestSchema } = sdk('@modelcontextprotocol/sdk/types.js');
  const names = JSON.parse(readFileSync(namesFile, 'utf8'));
  const inputSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
  const listing = { tools: names.map((name) => ({ name, description: 'Get the weather', inputSchema })) };
  const server = new Server({ name: 'mastra-conform-mcp', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => listing);
  server.setRequestHandler(CallToolRequestSchema, async () => ({
    content: [{ type: 'text', text: JSON.stringify({ tempC: 20 }) }],
  }));
  await server.connect(new StdioServerTransport());
  process.stdin.on('end', () => process.exit(0));
}

/** The MCP client @mastra/mcp resolves in INSTALL_DIR: `{ Client, StdioClientTransport, z, name }`. */
function mastraClient(installDir) {
  const mcp = createRequire(realpathSync(path.join(installDir, 'node_modules', '@mastra', 'mcp', 'package.json')));
  const z = createRequire(path.join(path.resolve(installDir), 'package.json'))('zod').z;
  try {
    const { Client } = mcp('@modelcontextprotocol/client');
    const { StdioClientTransport } = mcp('@modelcontextprotocol/client/stdio');
    return { Client, StdioClientTransport, z, name: '@modelcontextprotocol/client' };
  } catch (e) {
    if (e?.code !== 'MODULE_NOT_FOUND') throw e;
    const { Client } = mcp('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = mcp('@modelcontextprotocol/sdk/client/stdio.js');
    return { Client, StdioClientTransport, z, name: '@modelcontextprotocol/sdk' };
  }
}

/** Every message `client` receives in one session with the server `command args`. */
async function session({ Client, StdioClientTransport, z }, command, args) {
  const received = [];
  const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
  // The client sets its handler on connect; it is wrapped on the way in, so
  // the initialize answer is recorded too.
  let handler;
  Object.defineProperty(transport, 'onmessage', {
    get: () => handler,
    set: (fn) => {
      handler = (message, ...rest) => {
        received.push(message);
        return fn(message, ...rest);
      };
    },
  });
  const client = new Client({ name: 'mastra-conform-compare', version: '1.0.0' });
  await client.connect(transport);
  await client.ping();
  await client.listTools();
  await client.callTool({ name: NAMES[0], arguments: { city: 'Paris' } });
  const refused = await client.request({ method: 'resources/list', params: {} }, z.object({}).passthrough()).then(
    () => 'answered',
    (e) => `refused: ${e?.code} ${e?.message}`,
  );
  await client.close();
  return { received, refused };
}

async function compare(harness, installDir) {
  const client = mastraClient(installDir);
  // Its exports map has no ./package.json: read it where the install put it.
  const sdkVersion = JSON.parse(
    readFileSync(path.join(installDir, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8'),
  ).version;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mastra-conform-mcp-compare-'));
  try {
    const namesFile = path.join(dir, 'names.json');
    writeFileSync(namesFile, JSON.stringify(NAMES));
    const theirs = await session(client, process.execPath, [
      fileURLToPath(import.meta.url),
      SDK_SERVER_FLAG,
      installDir,
      namesFile,
    ]);
    const servers = {
      harness: [harness, ['mcp-server', namesFile]],
      node: [process.execPath, [path.join(HERE, '..', 'mcp-server.mjs'), namesFile]],
    };
    for (const [which, [command, args]] of Object.entries(servers)) {
      const ours = await session(client, command, args);
      if (!isDeepStrictEqual(ours, theirs)) {
        console.log(
          `FAIL ${installDir} ${which} (server: SDK ${sdkVersion}; client: ${client.name}): the two servers differ`,
        );
        console.log(`ours:   ${JSON.stringify(ours)}`);
        console.log(`the SDK's: ${JSON.stringify(theirs)}`);
        return false;
      }
      const listed = ours.received.find((m) => Array.isArray(m.result?.tools))?.result.tools.length;
      if (listed !== NAMES.length) {
        console.log(`FAIL ${installDir} ${which}: ${listed} tools listed, not ${NAMES.length}`);
        return false;
      }
      console.log(
        `ok ${installDir} ${which}: ${ours.received.length} messages identical (server: SDK ${sdkVersion}; client: ${client.name}; resources/list ${ours.refused})`,
      );
    }
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === SDK_SERVER_FLAG) {
  await serveWithSdk(process.argv[3], process.argv[4]);
} else {
  const [harness, ...dirs] = process.argv.slice(2);
  if (dirs.length === 0) {
    console.error('usage: node mcp-compare.mjs HARNESS_BINARY INSTALL_DIR...');
    process.exit(2);
  }
  for (const dir of dirs) {
    if (!(await compare(harness, dir))) process.exit(1);
  }
}
