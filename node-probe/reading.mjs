// Reading what a case sent, and whether a known issue shows in it, by
// tables the harness generates from its own Rust: `mastra-conform repro`
// embeds them in its script (which inlines this module), so the script reads
// a body where the harness reads it and checks a symptom the way the harness
// checks it. Nothing here knows a route or a symptom by name.
//
//   READING = {
//     bodies: { ROUTE: { tools, declarations, name, choice } }   harness/route/body.rs
//     namedChoice: [ { whenType, name, orEmpty } ]             harness/judge/known.rs
//   }
//
//   viewOf(reading, route, body)        -> { tools, toolChoice }
//   holds(reading, check, projection)   -> whether a symptom's check holds
//   projectedError(error, replies, n)   -> the projection's error
//
// A path is a list of steps, each a member name or an array index; a member
// is an own property of a JSON object, never one of its prototype.

function step(value, key) {
  if (typeof key === 'number') return Array.isArray(value) ? value[key] : undefined;
  const isRecord = value !== null && typeof value === 'object' && !Array.isArray(value);
  return isRecord && Object.hasOwn(value, key) ? value[key] : undefined;
}

const at = (value, path) => path.reduce(step, value);

/** What tool naming decides about one request body on `route`. */
export function viewOf(reading, route, body) {
  const layout = reading.bodies[route];
  const nameOf = (entry) => {
    const name = at(entry, layout.name);
    return typeof name === 'string' ? name : '';
  };
  const list = step(body, layout.tools);
  let tools = null;
  if (layout.declarations === null) {
    if (Array.isArray(list)) tools = list.map(nameOf);
  } else if (list !== undefined) {
    // Gemini: one tool object or an array of them, each listing functions.
    tools = (Array.isArray(list) ? list : [list]).flatMap((t) => {
      const declarations = step(t, layout.declarations);
      return Array.isArray(declarations) ? declarations.map(nameOf) : [];
    });
  }
  return { tools, toolChoice: step(body, layout.choice) ?? null };
}

/** The function a tool choice forces, in any route's shape; null when none. */
function namedChoice(shapes, choice) {
  for (const shape of shapes) {
    const name = at(choice, shape.name);
    const applies = shape.whenType === null ? name !== undefined : shape.whenType.includes(step(choice, 'type'));
    if (applies) return typeof name === 'string' ? name : shape.orEmpty ? '' : null;
  }
  return null;
}

/** Whether one request passes a test of a symptom's check. */
function passes(reading, test, request) {
  const [[form, arg]] = Object.entries(test);
  const named = () => namedChoice(reading.namedChoice, request.toolChoice);
  const sent = (name) => (request.tools ?? []).includes(name);
  switch (form) {
    case 'choiceNamed':
      return named() !== null;
    case 'choiceNamesUnsentTool': {
      const name = named();
      return name !== null && !sent(name);
    }
    case 'hasTool':
      return sent(arg);
    case 'noTools':
      return request.tools === null;
    case 'emptyTools':
      return Array.isArray(request.tools) && request.tools.length === 0;
    case 'not':
      return !passes(reading, arg, request);
    default:
      throw new Error(`a symptom test this script cannot read: ${form}`);
  }
}

/** Whether a symptom's check holds of { requests: [view], error }. */
export function holds(reading, check, projection) {
  const [[form, arg]] = Object.entries(check);
  const { requests, error } = projection;
  switch (form) {
    case 'some':
      return requests.some((r) => passes(reading, arg, r));
    case 'every':
      return requests.every((r) => passes(reading, arg, r));
    case 'first':
      return requests.length > 0 && passes(reading, arg, requests[0]);
    case 'all':
      return arg.every((c) => holds(reading, c, projection));
    case 'errorCause':
      return error?.causeCode === arg;
    case 'errorMessageHas':
      return error?.message.includes(arg) ?? false;
    case 'seenAsked':
      return projection.seen?.approval.asked.includes(arg) ?? false;
    case 'seenUnasked':
      return (projection.seen?.approval.asked.length === 0 && projection.seen.approval.pending.length > 0) ?? false;
    case 'seenHeld':
      return projection.seen?.approval.pending.length === arg;
    case 'seenStreamNamed':
      return projection.seen?.stream.some((chunk) => chunk.toolName === arg) ?? false;
    case 'executed':
      return projection.executed.some((e) => e.id === arg);
    case 'notExecuted':
      return projection.executed.every((e) => e.id !== arg);
    case 'executedTwice':
      return projection.executed.filter((e) => e.id === arg).length >= 2;
    default:
      throw new Error(`a symptom check this script cannot read: ${form}`);
  }
}

/**
 * The projection's error from the call's (agent.mjs's describeError):
 * {id, message, causeCode}, or null when there was none and when it is the
 * API-call error of the scripted error reply the last of `count` requests
 * got (harness/observation.rs: the reply doing its job is no finding).
 */
export function projectedError(error, replies, count) {
  if (error === null) return null;
  const reply = count > 0 ? (replies[count - 1] ?? { status: 400 }) : null;
  const scripted = reply !== null && error.statusCode !== null && error.statusCode === reply.status;
  return scripted ? null : { id: error.id, message: error.message, causeCode: error.causeCode };
}
