// A real MCP server over stdio that lists a case's tool names: what
// mcp-server.mjs runs for the probe, and what the repro script runs when it
// starts itself as a case's MCP server (it inlines this module).
//
// Each name is listed in the given order with the standard tool's input
// schema ({ city: string }, required). Calling any tool answers
// { content: [{ type: "text", text: '{"tempC":20}' }] }, the standard tool's
// result, so a case reads the same whatever source it came from.
//
// The server speaks the protocol itself (newline-delimited JSON-RPC 2.0 on
// stdin/stdout, the MCP stdio transport) instead of running the official
// SDK's `Server`. A case's servers are started as processes, about fifty per
// corpus run per probe, and the SDK's import alone is about 0.3 s of CPU per
// start (its zod schemas and validators), most of an MCP case's cost; bare
// Node starts in about 0.04 s. What the client sees is the same: the test
// `an_mcp_listing_reads_the_same_from_this_server_and_the_sdks` in
// harness/tests/javascript.rs compares this server's answers with the SDK
// server's through the installed client, message by message.
//
// Only what a tools-only server answers is answered: `initialize` (with the
// protocol version the client asked for, which is what the SDK server does
// with any version it supports), `ping`, `tools/list` and `tools/call`;
// notifications get no answer, and any other method is JSON-RPC's
// "Method not found", as the SDK server answers a method no handler is
// registered for.

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

const INPUT_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};

/**
 * The answer to one JSON-RPC message, or null for a notification (or for an
 * answer the client sent: this server sends no requests of its own).
 * `listing` is the `tools/list` result.
 */
export function answerMessage(message, listing) {
  const isRequest = message !== null && typeof message === 'object' && typeof message.method === 'string';
  if (!isRequest || message.id === undefined) return null;
  const reply = (result) => ({ jsonrpc: '2.0', id: message.id, result });
  switch (message.method) {
    case 'initialize':
      return reply({
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'mastra-conform-mcp', version: '1.0.0' },
      });
    case 'ping':
      return reply({});
    case 'tools/list':
      return reply(listing);
    case 'tools/call':
      return reply({ content: [{ type: 'text', text: JSON.stringify({ tempC: 20 }) }] });
    default:
      return { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } };
  }
}

/** The `tools/list` result for `names`, built once: a thousand-tool listing is answered from it. */
export function toolListing(names) {
  return { tools: names.map((name) => ({ name, description: 'Get the weather', inputSchema: INPUT_SCHEMA })) };
}

/**
 * Serve `names` on stdin/stdout until the client closes stdin. Nothing else
 * is written to stdout: it is the transport.
 */
export function serveToolNames(names) {
  const listing = toolListing(names);
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    pending += chunk;
    let end = pending.indexOf('\n');
    while (end !== -1) {
      const line = pending.slice(0, end).replace(/\r$/, '');
      pending = pending.slice(end + 1);
      end = pending.indexOf('\n');
      if (line.trim() === '') continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        process.stdout.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })}\n`,
        );
        continue;
      }
      const answer = answerMessage(message, listing);
      if (answer !== null) process.stdout.write(`${JSON.stringify(answer)}\n`);
    }
  });
  // The client ends the server by closing its stdin (or with a signal).
  process.stdin.on('end', () => process.exit(0));
}
