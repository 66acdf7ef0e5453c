// A scripted provider server on 127.0.0.1, in process.
//
// It plays the capture listener of docs/case-format.md for the Node-only
// tools of this folder: `ceiling.mjs` (the in-process throughput ceiling of
// `make bench`) and `selftest.mjs` (the probe's own tests). The Rust harness
// has its own listener; this one answers with the same reply semantics and
// the same documents (wire.mjs), so that the ceiling measures the same
// conversation the harness drives:
//
//   - each case owns a slot, reached at http://127.0.0.1:PORT/SLOT/v1, so the
//     AI SDK posts to /SLOT/v1/chat/completions (or its route's path);
//   - every request to a slot, a retry included, takes the slot's next REPLY;
//     once they run out every further request gets the default {status: 400};
//   - a request that asks to stream gets the same answer as server-sent
//     events (error replies stay plain JSON with their status);
//   - every request body is recorded, parsed, in arrival order.
//
// Only node:http is used, so the ceiling measures Mastra, not a framework.

import http from 'node:http';
import { answerOn, wantsStream } from './wire.mjs';

/** The reply a slot gives once its script has run out (case-format.md). */
export const DEFAULT_REPLY = Object.freeze({ status: 400 });

/**
 * Start a listener. Resolves to
 *   { port, url(slot), open(replies) -> { slot, url, requests }, close(slot), stop() }.
 * `open` allocates a fresh slot for one case; its `requests` array fills with
 * the parsed request bodies (the raw text where a body is not JSON).
 */
export async function startListener() {
  const slots = new Map();
  let nextSlot = 1;

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      // The slot is the first path segment; anything else is a stray request
      // and gets the default reply, recorded nowhere.
      const slotName = decodeURIComponent(req.url.split('/')[1] ?? '');
      const slot = slots.get(slotName);
      let reply = DEFAULT_REPLY;
      if (slot) {
        slot.requests.push(body);
        reply = slot.replies[slot.next] ?? DEFAULT_REPLY;
        slot.next += 1;
      }
      const route = slot?.route ?? 'openai-compatible';
      const a = answerOn(route, reply, wantsStream(route, req.url, body));
      res.writeHead(a.status, { 'content-type': a.contentType });
      res.end(a.body);
    });
  });
  // Many cases in flight means many sockets; keep-alive reuse is the AI SDK's
  // (undici's) business, the server must only not be the bottleneck.
  server.keepAliveTimeout = 5000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  const url = (slot) => `http://127.0.0.1:${port}/${encodeURIComponent(slot)}/v1`;

  return {
    port,
    url,
    open(replies = [], route = 'openai-compatible') {
      const slot = String(nextSlot++);
      const entry = { replies: Array.isArray(replies) ? replies : [], next: 0, requests: [], route };
      slots.set(slot, entry);
      return { slot, url: url(slot), requests: entry.requests };
    },
    close(slot) {
      slots.delete(slot);
    },
    stop() {
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
