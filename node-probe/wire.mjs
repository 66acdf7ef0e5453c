// Scripted replies in each route's provider format: the same documents the
// Rust listener writes (harness/observe/wire/), for the in-process listener
// (listener.mjs, used by ceiling.mjs and selftest.mjs) and the repro
// script's capture server (which inlines this module), so both run the same
// round trips as the harness on every route.
//
//   answerOn(route, reply, stream) -> { status, contentType, body }
//   wantsStream(route, path, body) -> whether the request asked for events

const JSON_TYPE = 'application/json';
const EVENTS_TYPE = 'text/event-stream';

const enc = (o) => JSON.stringify(o);
const sseData = (objs) => objs.map((o) => `data: ${enc(o)}\n\n`).join('');
const sseEvents = (objs) => objs.map((o) => `event: ${o.type}\ndata: ${enc(o)}\n\n`).join('');

// A case's tool-call arguments are an object; on the wire they are JSON
// text. A string is sent verbatim, so a case can script bad JSON.
const argsText = (a) => (typeof a === 'string' ? a : enc(a ?? {}));
const argsObj = (a) => {
  if (typeof a !== 'string') return a ?? {};
  try {
    return JSON.parse(a);
  } catch {
    return a;
  }
};

/** Gemini asks for events in the path, every other API in the body. */
export function wantsStream(route, path, body) {
  if (route === 'google') return path.includes(':streamGenerateContent');
  return body !== null && typeof body === 'object' && body.stream === true;
}

/** The answer to one REPLY on `route`; a REPLY of no known shape is an error. */
export function answerOn(route, reply, stream) {
  if (reply.status !== undefined || (reply.toolCalls === undefined && reply.text === undefined)) {
    const status = Number.isInteger(reply.status) ? reply.status : 400;
    return { status, contentType: JSON_TYPE, body: enc(reply.body ?? errorBody(route)) };
  }
  const calls = reply.toolCalls ?? null;
  const text = String(reply.text ?? '');
  switch (route) {
    case 'openai':
      return responses(calls, text, stream);
    case 'anthropic':
      return anthropic(calls, text, stream);
    case 'google':
      return google(calls, text, stream);
    default:
      return chat(calls, text, stream, route === 'mistral');
  }
}

/** The default error document, in each provider's own shape. */
function errorBody(route) {
  switch (route) {
    case 'anthropic':
      return { type: 'error', error: { type: 'invalid_request_error', message: 'captured' } };
    case 'google':
      return { error: { code: 400, message: 'captured', status: 'INVALID_ARGUMENT' } };
    case 'mistral':
      return { object: 'error', message: 'captured', type: 'invalid_request_error', param: null, code: null };
    default:
      return { error: { message: 'captured' } };
  }
}

const CHAT_USAGE = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };

/**
 * Chat Completions (OpenAI-compatible, Mistral, Groq): a `chat.completion`,
 * or the role delta with the content (or one delta per whole tool call), the
 * finish and the usage as `chat.completion.chunk` events, then [DONE].
 * OpenAI sends usage in a last chunk with no choices; Mistral's stream
 * parser reads `choices[0]` of every chunk, so there the usage rides on the
 * finish chunk, as Mistral's API sends it.
 */
function chat(calls, text, stream, usageOnFinish) {
  const toolCall = (c, index) => ({
    ...(index === undefined ? {} : { index }),
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: argsText(c.arguments) },
  });
  const finish = calls ? 'tool_calls' : 'stop';
  const base = { id: 'chatcmpl-conform', created: 0, model: 'gpt-4o-mini' };
  if (!stream) {
    const message = calls
      ? { role: 'assistant', content: null, tool_calls: calls.map((c) => toolCall(c)) }
      : { role: 'assistant', content: text };
    const completion = {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message, finish_reason: finish }],
      usage: CHAT_USAGE,
    };
    return { status: 200, contentType: JSON_TYPE, body: enc(completion) };
  }
  const chunk = (choices, usage) => ({
    ...base,
    object: 'chat.completion.chunk',
    choices,
    ...(usage ? { usage } : {}),
  });
  const deltas = calls
    ? calls.map((c, i) => ({ role: 'assistant', tool_calls: [toolCall(c, i)] }))
    : [{ role: 'assistant', content: text }];
  const events = deltas.map((delta) => chunk([{ index: 0, delta, finish_reason: null }]));
  const end = { index: 0, delta: {}, finish_reason: finish };
  if (usageOnFinish) {
    events.push(chunk([end], CHAT_USAGE));
  } else {
    events.push(chunk([end]), chunk([], CHAT_USAGE));
  }
  return { status: 200, contentType: EVENTS_TYPE, body: `${sseData(events)}data: [DONE]\n\n` };
}

/** The OpenAI Responses API: a `response`, or its lifecycle events. */
function responses(calls, text, stream) {
  const items = calls
    ? calls.map((c, i) => ({
        type: 'function_call',
        id: `fc_${i}`,
        call_id: c.id,
        name: c.name,
        arguments: argsText(c.arguments),
        status: 'completed',
      }))
    : [
        {
          type: 'message',
          id: 'msg_0',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text, annotations: [] }],
        },
      ];
  const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };
  const response = (status, output) => ({
    id: 'resp_conform',
    object: 'response',
    created_at: 0,
    status,
    model: 'gpt-4o-mini',
    output,
    incomplete_details: null,
    usage,
  });
  if (!stream) return { status: 200, contentType: JSON_TYPE, body: enc(response('completed', items)) };
  const events = [{ type: 'response.created', response: response('in_progress', []) }];
  items.forEach((item, i) => {
    if (item.type === 'function_call') {
      events.push(
        {
          type: 'response.output_item.added',
          output_index: i,
          item: { ...item, arguments: '', status: 'in_progress' },
        },
        { type: 'response.function_call_arguments.delta', item_id: item.id, output_index: i, delta: item.arguments },
        { type: 'response.output_item.done', output_index: i, item },
      );
    } else {
      events.push(
        { type: 'response.output_item.added', output_index: i, item: { ...item, content: [], status: 'in_progress' } },
        {
          type: 'response.output_text.delta',
          item_id: item.id,
          output_index: i,
          content_index: 0,
          delta: text,
          logprobs: [],
        },
        { type: 'response.output_item.done', output_index: i, item },
      );
    }
  });
  events.push({ type: 'response.completed', response: response('completed', items) });
  events.forEach((e, i) => {
    e.sequence_number = i;
  });
  return { status: 200, contentType: EVENTS_TYPE, body: sseData(events) };
}

/** The Anthropic Messages API: a `message`, or its named events. */
function anthropic(calls, text, stream) {
  const content = calls
    ? calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: argsObj(c.arguments) }))
    : [{ type: 'text', text }];
  const stop = calls ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 1, output_tokens: 1 };
  const message = (blocks, stopReason) => ({
    id: 'msg_conform',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: blocks,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  });
  if (!stream) return { status: 200, contentType: JSON_TYPE, body: enc(message(content, stop)) };
  const events = [{ type: 'message_start', message: message([], null) }];
  content.forEach((block, i) => {
    if (block.type === 'tool_use') {
      events.push(
        { type: 'content_block_start', index: i, content_block: { ...block, input: {} } },
        {
          type: 'content_block_delta',
          index: i,
          delta: { type: 'input_json_delta', partial_json: argsText(calls[i].arguments) },
        },
      );
    } else {
      events.push(
        { type: 'content_block_start', index: i, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: i, delta: { type: 'text_delta', text } },
      );
    }
    events.push({ type: 'content_block_stop', index: i });
  });
  events.push(
    { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } },
    { type: 'message_stop' },
  );
  return { status: 200, contentType: EVENTS_TYPE, body: sseEvents(events) };
}

/** Gemini generateContent: one candidate, streamed as one event. */
function google(calls, text, stream) {
  const parts = calls ? calls.map((c) => ({ functionCall: { name: c.name, args: argsObj(c.arguments) } })) : [{ text }];
  const body = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    modelVersion: 'gemini-2.5-flash',
  };
  if (!stream) return { status: 200, contentType: JSON_TYPE, body: enc(body) };
  return { status: 200, contentType: EVENTS_TYPE, body: sseData([body]) };
}
