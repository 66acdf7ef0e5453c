// A scripted OpenAI chat-completions server on 127.0.0.1, in process.
//
// It plays the capture listener of shared/case-format.md for the Node-only
// tools of this folder: `ceiling.mjs` (the in-process throughput ceiling of
// `make bench`) and `selftest.mjs` (the probe's own tests). The Rust harness
// has its own listener; this one answers with the same reply semantics so that
// the ceiling measures the same conversation the harness drives:
//
//   - each case owns a slot, reached at http://127.0.0.1:PORT/SLOT/v1, so the
//     AI SDK posts to /SLOT/v1/chat/completions;
//   - every request to a slot, a retry included, takes the slot's next REPLY;
//     once they run out every further request gets the default {status: 400};
//   - a request whose body has "stream": true gets the same answer as
//     server-sent `chat.completion.chunk` events closed by `data: [DONE]`
//     (error replies stay plain JSON with their status, as OpenAI does);
//   - every request body is recorded, parsed, in arrival order.
//
// Only node:http is used, so the ceiling measures Mastra, not a framework.

import http from 'node:http';
import { answerOn } from './wire.mjs';

/** The reply a slot gives once its script has run out (case-format.md). */
export const DEFAULT_REPLY = Object.freeze({ status: 400 });

/** The body of an error reply that does not bring its own (case-format.md). */
const DEFAULT_ERROR_BODY = Object.freeze({ error: { message: 'captured' } });

// Token counts are constant: the harness never looks at them, but the AI SDK's
// response schemas accept a usage block and Mastra sums it across steps.
const USAGE = Object.freeze({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 });

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
      // Gemini asks for events in the path, every other API in the body.
      const stream =
        route === 'google'
          ? req.url.includes(':streamGenerateContent')
          : body !== null && typeof body === 'object' && body.stream === true;
      if (route !== 'openai-compatible') {
        const a = answerOn(route, reply, stream);
        res.writeHead(a.status, { 'content-type': a.contentType });
        res.end(a.body);
        return;
      }
      answer(res, reply, stream, slot ? slot.requests.length : 0);
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

/** Write one REPLY as a chat-completions answer (JSON or SSE). */
function answer(res, reply, stream, n) {
  if (reply.status !== undefined || (!reply.toolCalls && reply.text === undefined)) {
    // An error reply (or a REPLY of no known shape, answered as the default).
    const status = Number.isInteger(reply.status) ? reply.status : 400;
    const body = reply.body !== undefined ? reply.body : DEFAULT_ERROR_BODY;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
    return;
  }
  const id = `chatcmpl-${n}`;
  const created = 1700000000;
  const model = 'gpt-4o-mini';
  const toolCalls = reply.toolCalls
    ? reply.toolCalls.map((c, index) => ({
        index,
        id: c.id,
        type: 'function',
        function: {
          name: c.name,
          // Arguments are an object in a case; on the wire they are a JSON
          // string. A string is sent verbatim, so a case can script bad JSON.
          arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
        },
      }))
    : null;
  const finish = toolCalls ? 'tool_calls' : 'stop';

  if (!stream) {
    const message = { role: 'assistant', content: toolCalls ? null : String(reply.text) };
    if (toolCalls) message.tool_calls = toolCalls.map(({ index, ...rest }) => rest);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: USAGE,
      }),
    );
    return;
  }

  // Server-sent events: a role delta, the content (text, or whole tool calls
  // in one delta each, which the AI SDK accepts), the finish, usage, [DONE].
  const chunk = (delta, finish_reason = null, extra = {}) =>
    `data: ${JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: delta === null ? [] : [{ index: 0, delta, finish_reason }],
      ...extra,
    })}\n\n`;
  let out = chunk({ role: 'assistant', content: '' });
  if (toolCalls) {
    for (const tc of toolCalls) out += chunk({ tool_calls: [tc] });
  } else {
    out += chunk({ content: String(reply.text) });
  }
  out += chunk({}, finish);
  out += chunk(null, null, { usage: USAGE });
  out += 'data: [DONE]\n\n';
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
  });
  res.end(out);
}
