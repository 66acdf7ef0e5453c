// Mastra's own tool lookups for a case with `lookups: true`
// (docs/case-format.md, `lookups`): the agent's listing, and the tool routes
// of `@mastra/server`, the package `mastra dev` serves, whose handlers are
// called in process on a `Mastra` holding the agent, as the server calls
// them: no port, no tools of a bundle (`registeredTools`), no request
// context.

import { sentName } from './project-names.mjs';
import { isObject } from './sources.mjs';

/**
 * The agent's own tool listing, asked before any call, as a user's code
 * asks it: `listTools()` where the release has it (every 1.x), else the
 * `getTools()` it replaced; resolved to { method, keys } with the own keys
 * of what it returns, in order, or null where asking throws. Called with
 * no request context, as the docs' examples call it.
 */
export async function agentListing(agent) {
  const method = typeof agent.listTools === 'function' ? 'listTools' : 'getTools';
  try {
    const listing = await agent[method]();
    return isObject(listing) ? { method, keys: Object.keys(listing) } : null;
  } catch {
    return null;
  }
}

/**
 * The server's tool routes, asked about every name of the case's tools:
 * `GET /tools` (its keys), and `GET /tools/:toolId` and `GET
 * /agents/probe/tools/:toolId` for each key, id and sent name. `names` are
 * [key, tool] pairs in case order; the sent name is the release's own
 * `formatTools` on that key alone, so the harness compares it with the
 * model's, never assumes it. Resolves to { listTools: { keys } | null,
 * getTool: { NAME: ANSWER }, getAgentTool: { NAME: ANSWER } }, or null where
 * the install has no `@mastra/server` or its handlers cannot be read.
 */
export async function serverLookups(lib, mastra, agent, names) {
  let handlers;
  try {
    handlers = await lib.importPackage('@mastra/server/handlers/tools');
  } catch {
    return null;
  }
  const routes = routesOf(handlers, mastra);
  if (routes === null) return null;
  const ask = async (route, params) => {
    try {
      return { value: await route(params) };
    } catch (e) {
      return { status: typeof e?.status === 'number' ? e.status : 500 };
    }
  };
  const listed = await ask(routes.listTools, {});
  const asked = [];
  for (const [key, tool] of names) {
    asked.push(key, typeof tool?.id === 'string' ? tool.id : null, sentName(agent, key, tool));
  }
  // Without a prototype, so that a name like `__proto__` is a key like any other.
  const getTool = Object.create(null);
  const getAgentTool = Object.create(null);
  for (const name of asked) {
    if (name === null || Object.hasOwn(getTool, name)) continue;
    getTool[name] = routeAnswer(await ask(routes.getTool, { toolId: name }));
    getAgentTool[name] = routeAnswer(await ask(routes.getAgentTool, { agentId: 'probe', toolId: name }));
  }
  const listTools = isObject(listed.value) ? { keys: Object.keys(listed.value) } : null;
  return { listTools, getTool, getAgentTool };
}

/**
 * The three routes as functions of their parameters, or null where the
 * handlers are neither form. 1.x exports route objects whose `handler`
 * takes `{ mastra, ...params }`. 0.x exports one function per route, whose
 * `tools` are a bundle's (`src/mastra/tools`), of which the probe has none,
 * as on 1.x it passes no `registeredTools`; `getAgentToolHandler` from
 * @mastra/server 0.15.3. A route the release does not serve answers as the
 * server would: 404.
 */
function routesOf(handlers, mastra) {
  const { LIST_TOOLS_ROUTE, GET_TOOL_BY_ID_ROUTE, GET_AGENT_TOOL_ROUTE } = handlers;
  const objects = [LIST_TOOLS_ROUTE, GET_TOOL_BY_ID_ROUTE, GET_AGENT_TOOL_ROUTE];
  if (objects.every((r) => typeof r?.handler === 'function')) {
    const [listTools, getTool, getAgentTool] = objects.map((r) => (params) => r.handler({ mastra, ...params }));
    return { listTools, getTool, getAgentTool };
  }
  const { getToolsHandler, getToolByIdHandler, getAgentToolHandler } = handlers;
  if (typeof getToolsHandler !== 'function' || typeof getToolByIdHandler !== 'function') return null;
  const notServed = async () => {
    throw Object.assign(new Error('no such route'), { status: 404 });
  };
  return {
    listTools: (params) => getToolsHandler({ mastra, ...params }),
    getTool: (params) => getToolByIdHandler({ mastra, ...params }),
    getAgentTool:
      typeof getAgentToolHandler === 'function' ? (params) => getAgentToolHandler({ mastra, ...params }) : notServed,
  };
}

/**
 * What one route answered, as the projection writes it: the answered tool's
 * id (a string), `true` for an answer that carries no string id, `false` for
 * a 404, or the HTTP status of any other failure.
 */
function routeAnswer({ value, status }) {
  if (status !== undefined) return status === 404 ? false : status;
  return typeof value?.id === 'string' ? value.id : true;
}
