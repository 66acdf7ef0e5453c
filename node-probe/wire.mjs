// Scripted replies in each route's provider format, for the in-process
// listener (listener.mjs, used by ceiling.mjs): the same documents the Rust
// listener writes (harness/observe/wire/), so the ceiling runs the same
// round trips as the harness on every route. The OpenAI-compatible route
// keeps listener.mjs's own writer.
//
//   answerOn(route, reply, stream) -> { status, contentType, body }
const enc = (o) => JSON.stringify(o);
const sseData = (objs) => objs.map((o) => `data: ${enc(o)}\n\n`).join('');
const sseEvents = (objs) => objs.map((o) => `event: ${o.type}\ndata: ${enc(o)}\n\n`).join('');
const argsText = (a) => (typeof a === 'string' ? a : enc(a));
const argsObj = (a) => { if (typeof a !== 'string') return a; try { return JSON.parse(a); } catch { return a; } };
export function answerOn(route, reply, stream) {
  if (reply.status) {
    const body = reply.body ?? errorBody(route);
    return { status: reply.status, contentType: 'application/json', body: enc(body) };
  }
  const calls = reply.toolCalls ?? null;
  const text = reply.text ?? '';
  switch (route) {
    case 'openai': return responses(calls, text, stream);
    case 'anthropic': return anthropic(calls, text, stream);
    case 'google': return google(calls, text, stream);
    default: return chat(calls, text, stream, route === 'mistral');
  }
}
function errorBody(route) {
  switch (route) {
    case 'anthropic': return { type: 'error', error: { type: 'invalid_request_error', message: 'captured' } };
    case 'google': return { error: { code: 400, message: 'captured', status: 'INVALID_ARGUMENT' } };
    case 'mistral': return { object: 'error', message: 'captured', type: 'invalid_request_error', param: null, code: null };
    default: return { error: { message: 'captured' } };
  }
}
const usageChat = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
function chat(calls, text, stream, usageOnFinish) {
  const tc = (c, i) => ({ ...(i === undefined ? {} : { index: i }), id: c.id, type: 'function', function: { name: c.name, arguments: argsText(c.arguments) } });
  const finish = calls ? 'tool_calls' : 'stop';
  const base = { id: 'chatcmpl-conform', created: 0, model: 'm' };
  if (!stream) {
    const message = calls ? { role: 'assistant', content: null, tool_calls: calls.map((c) => tc(c)) } : { role: 'assistant', content: text };
    return { status: 200, contentType: 'application/json', body: enc({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage: usageChat }) };
  }
  const deltas = calls ? calls.map((c, i) => ({ role: 'assistant', tool_calls: [tc(c, i)] })) : [{ role: 'assistant', content: text }];
  const chunk = (choices, usage) => ({ ...base, object: 'chat.completion.chunk', choices, ...(usage ? { usage } : {}) });
  const ev = [...deltas.map((d) => chunk([{ index: 0, delta: d, finish_reason: null }])), ...(usageOnFinish ? [chunk([{ index: 0, delta: {}, finish_reason: finish }], usageChat)] : [chunk([{ index: 0, delta: {}, finish_reason: finish }]), chunk([], usageChat)])];
  return { status: 200, contentType: 'text/event-stream', body: sseData(ev) + 'data: [DONE]\n\n' };
}
function responses(calls, text, stream) {
  const items = calls
    ? calls.map((c, i) => ({ type: 'function_call', id: `fc_${i}`, call_id: c.id, name: c.name, arguments: argsText(c.arguments), status: 'completed' }))
    : [{ type: 'message', id: 'msg_0', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }];
  const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };
  const response = (status, output) => ({ id: 'resp_conform', object: 'response', created_at: 0, status, model: 'gpt-4o-mini', output, incomplete_details: null, usage });
  if (!stream) return { status: 200, contentType: 'application/json', body: enc(response('completed', items)) };
  const ev = [{ type: 'response.created', sequence_number: 0, response: response('in_progress', []) }];
  items.forEach((item, i) => {
    if (item.type === 'function_call') {
      ev.push({ type: 'response.output_item.added', output_index: i, item: { ...item, arguments: '', status: 'in_progress' } });
      ev.push({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: i, delta: item.arguments });
      ev.push({ type: 'response.output_item.done', output_index: i, item });
    } else {
      ev.push({ type: 'response.output_item.added', output_index: i, item: { ...item, content: [], status: 'in_progress' } });
      ev.push({ type: 'response.output_text.delta', item_id: item.id, output_index: i, content_index: 0, delta: text, logprobs: [] });
      ev.push({ type: 'response.output_item.done', output_index: i, item });
    }
  });
  ev.push({ type: 'response.completed', response: response('completed', items) });
  ev.forEach((e, i) => (e.sequence_number = i));
  return { status: 200, contentType: 'text/event-stream', body: sseData(ev) };
}
function anthropic(calls, text, stream) {
  const content = calls ? calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: argsObj(c.arguments) })) : [{ type: 'text', text }];
  const stop = calls ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 1, output_tokens: 1 };
  const msg = (content, stop_reason) => ({ id: 'msg_conform', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content, stop_reason, stop_sequence: null, usage });
  if (!stream) return { status: 200, contentType: 'application/json', body: enc(msg(content, stop)) };
  const ev = [{ type: 'message_start', message: msg([], null) }];
  content.forEach((b, i) => {
    if (b.type === 'tool_use') {
      ev.push({ type: 'content_block_start', index: i, content_block: { ...b, input: {} } });
      ev.push({ type: 'content_block_delta', index: i, delta: { type: 'input_json_delta', partial_json: argsText(calls[i].arguments) } });
    } else {
      ev.push({ type: 'content_block_start', index: i, content_block: { type: 'text', text: '' } });
      ev.push({ type: 'content_block_delta', index: i, delta: { type: 'text_delta', text } });
    }
    ev.push({ type: 'content_block_stop', index: i });
  });
  ev.push({ type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } });
  ev.push({ type: 'message_stop' });
  return { status: 200, contentType: 'text/event-stream', body: sseEvents(ev) };
}
function google(calls, text, stream) {
  const parts = calls ? calls.map((c) => ({ functionCall: { name: c.name, args: argsObj(c.arguments) } })) : [{ text }];
  const body = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 }, modelVersion: 'gemini-2.5-flash' };
  if (!stream) return { status: 200, contentType: 'application/json', body: enc(body) };
  return { status: 200, contentType: 'text/event-stream', body: sseData([body]) };
}
