// How a case runs on @mastra/core 0.x: the parts of agent.mjs and
// sources.mjs that differ on the 0.x line, kept here so that the 1.x path
// reads as it did.
//
// agent.mjs asks `legacyOf(lib)` once per install; null means 1.x. What
// differs on 0.x (each read in the dists of the releases named):
//
// - The model. Until 0.20.0, `generate` and `stream` run the AI SDK v4 loop
//   and take an AI SDK v4 model object, which a user gets from a provider
//   package (@ai-sdk/openai 1.x, ...); the install has them beside the core
//   (harness: versions/extras.rs). From 0.20.0 they take AI SDK v5 models
//   only (0.20.0 dist/chunk-DQISKQDE.js:713), named as on 1.x: `{ id, url,
//   apiKey }`, or a router string. The router reaches a provider through
//   that provider's own AI SDK package only when the core bundles it
//   (`@ai-sdk/anthropic-v5` and so on in its dependencies, from 0.20.2);
//   before, every string went through Mastra's own OpenAI-compatible client
//   (0.19.1 dist/chunk-X6PLOE2T.js: `class OpenAICompatibleModel`), which
//   sends Chat Completions to the provider's host: that is the route's wire
//   for mistral and groq, and no route's for openai, anthropic and google,
//   which are then not applicable.
// - A tool's `execute` is called with one object whose `context` is the
//   validated input (0.2.0 dist/chunk-K4DFI76V.js:131, `tool.execute({
//   context: props, mastra, runId })`; 0.24.9 alike); 1.x passes the input
//   itself first.
// - 0.1.x has no Agent at all (an integrations framework: its entry exports
//   none), so no case applies there.
// - The sources: @mastra/mcp's client was `MCPConfiguration` with
//   `getTools()` before `MCPClient`, and `MastraMCPClient`, one per server,
//   before that; memory's storage came from the core
//   before @mastra/libsql existed; a call names its thread with `threadId`
//   and `resourceId` before 0.20.0. A package the registry serves no release
//   of for this core (versions/extras.rs) makes its cases not applicable.

import { holds, line } from './releases.mjs';

/** AI SDK v4 provider factories: how a 0.x user names each route's model. */
const V4_MODELS = {
  'openai-compatible': {
    pkg: '@ai-sdk/openai-compatible',
    make: (m, url) =>
      m.createOpenAICompatible({ name: 'openai', baseURL: url, apiKey: 'sk-fake' }).chatModel('gpt-4o-mini'),
  },
  // The route is the Responses API; @ai-sdk/openai 1.x's default model is
  // Chat Completions, its `.responses()` the Responses API.
  openai: { pkg: '@ai-sdk/openai', make: (m) => m.createOpenAI({ apiKey: 'sk-fake' }).responses('gpt-4o-mini') },
  anthropic: { pkg: '@ai-sdk/anthropic', make: (m) => m.createAnthropic({ apiKey: 'sk-fake' })('claude-sonnet-4-5') },
  google: {
    pkg: '@ai-sdk/google',
    make: (m) => m.createGoogleGenerativeAI({ apiKey: 'sk-fake' })('gemini-2.5-flash'),
  },
  mistral: { pkg: '@ai-sdk/mistral', make: (m) => m.createMistral({ apiKey: 'sk-fake' })('mistral-small-latest') },
  groq: { pkg: '@ai-sdk/groq', make: (m) => m.createGroq({ apiKey: 'sk-fake' })('llama-3.3-70b-versatile') },
};

/** The core's own AI SDK v5 provider package each router route needs. */
const ROUTER_SDK = {
  openai: ['@ai-sdk/openai-v5', 'the OpenAI Responses API'],
  anthropic: ['@ai-sdk/anthropic-v5', 'the Anthropic Messages API'],
  google: ['@ai-sdk/google-v5', 'Gemini generateContent'],
};

/**
 * How this install runs a case, or null on 1.x. `coreDependencies` is the
 * core's package.json `dependencies`; `agentModule` whether the entry
 * exported an Agent.
 */
export function legacyOf(version, coreDependencies, agentModule) {
  // A snapshot build (0.0.0-TAG-TIMESTAMP) is cut from the main line: 1.x.
  if (typeof version !== 'string' || !version.startsWith('0.') || version.startsWith('0.0.0-')) return null;
  const v5 = holds('V5_LOOP_SINCE', version);
  const deps = coreDependencies ?? {};
  return {
    /** Why no case applies to this install at all, or null. */
    noAgent: agentModule ? null : `@mastra/core ${version} has no Agent (no @mastra/core/agent module)`,

    /** The validated input from execute's first argument. */
    input: (arg) => arg?.context,

    /**
     * The agent's `model` for ROUTE reaching URL: { model } or
     * { reason } when this release cannot name a model on that route.
     */
    async model(lib, route, url, modelFor) {
      if (!v5) {
        const m = V4_MODELS[route];
        let mod;
        try {
          mod = await lib.importPackage(m.pkg);
        } catch (e) {
          return { reason: `the install has no ${m.pkg} (${e?.message ?? e})` };
        }
        return { model: m.make(mod, url) };
      }
      if (route === 'openai-compatible' && !holds('ROUTER_PROVIDERS_SINCE', version)) {
        // Mastra's own OpenAI-compatible client posts to the model's `url`
        // itself, the whole endpoint (0.20.0 dist/chunk-AND6J5LG.js:1548
        // and :1622), not a base below which it adds the path.
        return { model: { ...modelFor(route, url), url: `${url}/chat/completions` } };
      }
      if (route === 'openai-compatible' && !holds('MODEL_URL_SINCE', version)) {
        return {
          reason: `@mastra/core ${version} sends a { id, url } model to the provider its id names, not to its url (the model router reads a url from ${line('MODEL_URL_SINCE').first}: dist/chunk-VNVHOWW4.js:2032)`,
        };
      }
      const sdk = ROUTER_SDK[route];
      if (sdk && !(sdk[0] in deps)) {
        return {
          reason: `@mastra/core ${version} sends a "${route}/..." model through its OpenAI-compatible client, not ${sdk[1]} (its dependencies have no ${sdk[0]})`,
        };
      }
      return { model: modelFor(route, url) };
    },

    /**
     * Why the case cannot be built on this install, or null: a package its
     * sources need that the install lacks (none served fits this core), or
     * workflows before `createWorkflow` (0.10.1).
     */
    async missing(lib, c) {
      if (c.mcp !== undefined && Object.keys(c.mcp).length > 0 && !(await hasPackage(lib, '@mastra/mcp'))) {
        return `no @mastra/mcp release the registry serves accepts @mastra/core ${version}`;
      }
      if (c.memory !== undefined && !(await hasPackage(lib, '@mastra/memory'))) {
        return `no @mastra/memory release the registry serves accepts @mastra/core ${version}`;
      }
      if (c.memory !== undefined && holds('MEMORY_EMBEDS_BY_DEFAULT', version)) {
        // Memory's default options recall semantically, with the core's
        // default embedder, fastembed (0.4.2 dist/chunk-M626YCHO.js:115 and
        // :135; 0.8.3 dist/chunk-QBQ3CW2R.js:176; 0.9.1
        // dist/chunk-INXNZ5VE.js:119 and :214; 0.9.4 dist/chunk-CIEPFV6B.js:320),
        // which fetches its model from storage.googleapis.com at the first
        // message: the call needs the network, which a probe does not
        // reach. From 0.10.1 the default has no semantic recall
        // (dist/chunk-2YYOF7DO.js:18); before 0.4.2 no @mastra/memory fits.
        return `@mastra/core ${version}'s memory embeds each message with its default embedder, fastembed, which downloads its model from storage.googleapis.com first: the call needs the network`;
      }
      if (c.workflows !== undefined) {
        const wf = await lib.importPackage('@mastra/core/workflows').catch(() => ({}));
        if (typeof wf.createWorkflow !== 'function') {
          return `@mastra/core ${version} does not export createWorkflow from @mastra/core/workflows`;
        }
      }
      return null;
    },

    /** The call options naming the case's thread and resource. */
    memoryCallOptions: (thread, resource) =>
      v5 ? { memory: { thread, resource } } : { threadId: thread, resourceId: resource },

    /**
     * An MCP client over `servers` and the tools it lists. Before
     * `MCPConfiguration` (@mastra/mcp 0.2.x) a client reaches one server:
     * a user connects one per server, in turn, and spreads what each lists,
     * its tools under their own names (0.2.6 dist/index.js:72).
     */
    async mcpTools(mod, id, servers) {
      const Client = mod.MCPClient ?? mod.MCPConfiguration;
      if (typeof Client !== 'function') {
        if (typeof mod.MastraMCPClient !== 'function')
          throw new Error('@mastra/mcp exports neither MCPClient, MCPConfiguration nor MastraMCPClient');
        const clients = [];
        const tools = {};
        for (const [name, server] of Object.entries(servers)) {
          const one = new mod.MastraMCPClient({ name, server });
          clients.push(one);
          await one.connect();
          Object.assign(tools, await one.tools());
        }
        return { client: { disconnect: () => Promise.all(clients.map((c) => c.disconnect())) }, tools };
      }
      const mcp = new Client({ id, servers, timeout: 60000 });
      const list = typeof mcp.listTools === 'function' ? () => mcp.listTools() : () => mcp.getTools();
      return { client: mcp, tools: await list() };
    },

    /**
     * The storage memory keeps its thread in: @mastra/libsql, or the core's
     * own where the install has none. Before @mastra/libsql existed the core
     * carried a libsql store; where no @mastra/libsql release fits the core
     * (0.10.1, 0.13.0, 0.14.x, 0.22.x: versions/extras.rs), the core's
     * in-memory one is what a user of that release has (`InMemoryStore`,
     * 0.22.0 dist/storage/index.js:1453; `MockStore` its older name, 0.10.1
     * dist/storage/index.js:6).
     */
    async storage(lib, url) {
      try {
        const { LibSQLStore } = await lib.importPackage('@mastra/libsql');
        return new LibSQLStore({ id: 'mastra-conform', url });
      } catch {
        const core = await lib.importPackage('@mastra/core/storage');
        const Store =
          core.LibSQLStore ?? core.DefaultStorage ?? core.MastraStorageLibSql ?? core.InMemoryStore ?? core.MockStore;
        if (typeof Store !== 'function')
          throw new Error('neither @mastra/libsql nor a storage in @mastra/core/storage');
        return new Store({ config: { url }, url });
      }
    },
  };
}

/** Whether the install has PACKAGE beside the core (a missing one is a reason, not a fault). */
export async function hasPackage(lib, pkg) {
  try {
    await lib.importPackage(pkg);
    return true;
  } catch {
    return false;
  }
}
