// The wire routes of docs/case-format.md: how a case's model is named, and
// how every request it makes reaches the case's capture-listener URL.
//
// A route is how a Mastra user names the model. `openai-compatible` passes
// `{ id, url, apiKey }`, so Mastra sends to the case URL itself. The others
// pass a router string ("openai/gpt-4o-mini"); Mastra then resolves the
// provider's own base URL, which no option of a single agent can change. Two
// mechanisms bring those requests to the case URL, and both are needed:
//
// - The base-URL variable, where Mastra reads one. Measured in the dist of
//   each version: OPENAI_BASE_URL and ANTHROPIC_BASE_URL are read by the
//   bundled AI SDK providers (1.0.4 dist/chunk-YWUDQUAV.js:12686 and :6681;
//   1.67.0 dist/dist-BESwrsHG.js:9904 and :14767); `${PROVIDER}_BASE_URL` by
//   the models.dev gateway's buildUrl for providers with an API URL template
//   (1.0.4 dist/chunk-GVINAESE.js:7350, where only groq uses it, through the
//   OpenAI-compatible provider; 1.67.0 dist/models-dev-BiPr0PJE.js:11503,
//   passed as baseURL to createMistral and createGroq). Google has no URL
//   template, so GOOGLE_BASE_URL is never read; 1.0.4 calls
//   createMistral({ apiKey }) with no baseURL (chunk-GVINAESE.js:7387).
//   A variable is global to the process while cases run concurrently, so it
//   cannot name a case's URL: each names a per-route sentinel host under
//   `.invalid` (RFC 6761: never resolves), and the probe's fetch maps it to
//   the case URL. Whatever happens, a request through the variable cannot
//   reach a real provider.
// - A redirect of the provider's real host, for the versions and providers
//   that ignore the variable (google always; mistral on 1.0.4).
//
// Only the case's own route is redirected. A request to any other host (the
// listener excepted) is refused before it leaves the process and reported in
// the case's `elsewhere`, which the driver reports as a probe fault.

/** ROUTE -> how the agent names its model and where its requests go. */
export const ROUTES = {
  'openai-compatible': { model: 'openai/gpt-4o-mini', router: false, bases: [] },
  openai: {
    model: 'openai/gpt-4o-mini',
    router: true,
    apiKeyVar: 'OPENAI_API_KEY',
    baseUrlVar: 'OPENAI_BASE_URL',
    bases: ['http://openai.route.invalid/v1', 'https://api.openai.com/v1'],
  },
  anthropic: {
    model: 'anthropic/claude-sonnet-4-5',
    router: true,
    apiKeyVar: 'ANTHROPIC_API_KEY',
    baseUrlVar: 'ANTHROPIC_BASE_URL',
    bases: ['http://anthropic.route.invalid/v1', 'https://api.anthropic.com/v1'],
  },
  google: {
    model: 'google/gemini-2.5-flash',
    router: true,
    apiKeyVar: 'GOOGLE_GENERATIVE_AI_API_KEY',
    // 1.36.0 and 1.37.1 look the key up as GOOGLE_API_KEY instead ("Could
    // not find API key process.env.GOOGLE_API_KEY"; the route sweep).
    moreApiKeyVars: ['GOOGLE_API_KEY', 'GEMINI_API_KEY'],
    baseUrlVar: 'GOOGLE_BASE_URL',
    bases: ['http://google.route.invalid/v1beta', 'https://generativelanguage.googleapis.com/v1beta'],
  },
  mistral: {
    model: 'mistral/mistral-small-latest',
    router: true,
    apiKeyVar: 'MISTRAL_API_KEY',
    baseUrlVar: 'MISTRAL_BASE_URL',
    endpoint: '/chat/completions',
    bases: ['http://mistral.route.invalid/v1', 'https://api.mistral.ai/v1'],
  },
  groq: {
    model: 'groq/llama-3.3-70b-versatile',
    router: true,
    apiKeyVar: 'GROQ_API_KEY',
    baseUrlVar: 'GROQ_BASE_URL',
    endpoint: '/chat/completions',
    bases: ['http://groq.route.invalid/v1', 'https://api.groq.com/openai/v1'],
  },
};

export const DEFAULT_ROUTE = 'openai-compatible';

/**
 * Point every route's variables at fakes, before Mastra loads: the API key
 * variable holds "sk-fake" (a router string refuses to run without one), the
 * base-URL variable the route's sentinel base. Overwrites whatever was set:
 * the probe's environment must never carry a real key or base URL.
 */
export function setRouteEnvironment(env = process.env) {
  for (const route of Object.values(ROUTES)) {
    if (!route.router) continue;
    env[route.apiKeyVar] = 'sk-fake';
    for (const name of route.moreApiKeyVars ?? []) env[name] = 'sk-fake';
    env[route.baseUrlVar] = route.bases[0];
  }
}

/** The route of a case, checked: a name of ROUTES, else null for a bad one. */
export function routeOf(c) {
  const name = c.route ?? DEFAULT_ROUTE;
  return typeof name === 'string' && Object.hasOwn(ROUTES, name) ? name : null;
}

/** The agent's `model` option for a case on ROUTE reaching URL. */
export function modelFor(route, url) {
  const r = ROUTES[route];
  return r.router ? r.model : { id: r.model, url, apiKey: 'sk-fake' };
}

/**
 * Where a request to `requested` goes for a case on ROUTE with URL `caseUrl`:
 * the URL itself when it is the case's (or below it), the case URL plus the
 * request's path below the provider base when it is the route's provider (by
 * the sentinel or the real host), else null: refused.
 */
export function destination(route, caseUrl, requested) {
  if (requested === caseUrl || requested.startsWith(`${caseUrl}/`)) return requested;
  const r = ROUTES[route];
  for (const base of r?.bases ?? []) {
    if (requested.startsWith(`${base}/`)) return caseUrl + requested.slice(base.length);
    // @mastra/core 0.20.0 reads the base-URL variable as the whole endpoint
    // (dist/chunk-AND6J5LG.js:1143), so it posts to the sentinel itself.
    if (requested === base && r.endpoint) return caseUrl + r.endpoint;
  }
  return null;
}
