// A scripted Chat Completions server on 127.0.0.1, for the testing scripts
// that measure a real install beside the harness: every request an agent
// makes ends here, is kept in `bodies`, and is answered with the next entry
// of `script`, turned into the reply's message by the script's own `reply`.
// Only the JSON (non-streamed) reply is served: these scripts call
// `generate()`, or a network whose routing step does.

import http from 'node:http';

const USAGE = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };

/**
 * Starts the server. `reply(entry, n)` gives `{ message, finish_reason }`
 * for the `n`th request (from 1), `entry` being the script's next entry or
 * undefined once it has run out.
 */
export async function scriptedChat(reply) {
  const state = { script: [], bodies: [] };
  const server = http.createServer((rq, rs) => {
    let body = '';
    rq.on('data', (d) => {
      body += d;
    });
    rq.on('end', () => {
      state.bodies.push(JSON.parse(body));
      const { message, finish_reason } = reply(state.script.shift(), state.bodies.length);
      rs.setHeader('content-type', 'application/json');
      rs.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4o-mini',
          choices: [{ index: 0, message, finish_reason }],
          usage: USAGE,
        }),
      );
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}/v1`;
  return {
    state,
    model: { id: 'openai/gpt-4o-mini', url, apiKey: 'sk-fake' },
    close: () => server.close(),
  };
}

/**
 * A `reply` for scripts whose entries are `{ call: NAME, arguments? }` (one
 * tool call, with `args`, a JSON text, where the entry gives none) or
 * `{ text }`; once the script has run out, the text `done`.
 */
export function toolCallReply(args) {
  return (r = { text: 'done' }, n) => {
    if (!r.call) return { message: { role: 'assistant', content: r.text }, finish_reason: 'stop' };
    const call = { id: `call_${n}`, type: 'function', function: { name: r.call, arguments: r.arguments ?? args } };
    return { message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' };
  };
}
