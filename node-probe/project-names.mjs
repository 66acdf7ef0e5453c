// The names a project writes outside its tool keys, for the project loader
// (project.mjs): what each agent's approval policies answer, and the text of
// its instructions.
//
// Approval. Mastra asks a `requireToolApproval` function with the name the
// model called, which is the name the tool was sent under, not its key or
// id. The loader asks the project's own policy, once per name, with each
// tool's key, id and sent name, in the shape Mastra passes it (`{ toolName,
// args, requestContext, workspace }`), and keeps each answer as it decides:
// `true` or `false` (its truthiness, awaited), `throws`, or `timeout`. Which
// release asks, and what a tool's own `requireApproval` does beside it, is
// the harness's to judge (`harness/lint/project/names.rs`).
//
// Instructions. What `getInstructions` gives for an empty request context,
// as one text.

/** How long an async policy may take to answer before it counts as `timeout`. */
const POLICY_TIMEOUT_MS = 2000;

/**
 * The default options' getters an agent may have, each with the option it
 * reads: `defaultOptions` on 1.x, and on 0.x `defaultVNextStreamOptions`
 * (from 0.20.0), `defaultStreamOptions` and `defaultGenerateOptions`.
 */
const DEFAULTS = [
  ['getDefaultOptions', 'defaultOptions'],
  ['getDefaultVNextStreamOptions', 'defaultVNextStreamOptions'],
  ['getDefaultStreamOptions', 'defaultStreamOptions'],
  ['getDefaultGenerateOptions', 'defaultGenerateOptions'],
];

/** The name Mastra sends KEY under: the release's own `formatTools`, on this key alone (none before 0.13.2). */
export function sentName(agent, key, tool) {
  if (typeof agent.formatTools !== 'function') return key;
  try {
    const [name] = Object.keys(agent.formatTools({ [key]: tool ?? {} }));
    return name ?? null;
  } catch {
    return null;
  }
}

/** A tool's own approval setting: `none`, `always` (a true flag), or `function`. */
export function ownApproval(tool) {
  if (!tool || typeof tool !== 'object') return 'none';
  if (typeof tool.needsApprovalFn === 'function' || typeof tool.requireApproval === 'function') return 'function';
  return tool.requireApproval === true ? 'always' : 'none';
}

async function answer(policy, name) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve('timeout'), POLICY_TIMEOUT_MS);
    timer.unref?.();
  });
  try {
    const asked = Promise.resolve().then(() =>
      policy({ toolName: name, args: {}, requestContext: {}, workspace: undefined }),
    );
    const got = await Promise.race([asked.then((v) => (v ? 'true' : 'false')), timeout]);
    return got;
  } catch {
    return 'throws';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A `requireToolApproval` function (an agent's or an MCP server's own)
 * asked with every name in NAMES: `[{ name, answer }]`.
 */
export async function policyAnswers(policy, names) {
  // A policy that does not settle once is not waited for again: a
  // project with many tools would otherwise hold the load for minutes.
  const answers = [];
  let settles = true;
  for (const name of names) {
    const got = settles ? await answer(policy, name) : 'timeout';
    settles = got !== 'timeout';
    answers.push({ name, answer: got });
  }
  return answers;
}

/**
 * Each default-options getter of AGENT whose `requireToolApproval` is a
 * function, asked with every name in NAMES, or `true`:
 * `[{ option, always, answers: [{ name, answer }] }]`. A getter that throws is not
 * this module's to report (the walk asks `defaultOptions` itself).
 */
export async function approvalPolicies(agent, context, names) {
  const out = [];
  for (const [getter, option] of DEFAULTS) {
    if (typeof agent[getter] !== 'function') continue;
    let options;
    try {
      options = await agent[getter](context);
    } catch {
      continue;
    }
    const policy = options?.requireToolApproval;
    // `true` holds every call: written as a policy that answers true for
    // every name, so that what it holds is judged as a function's is.
    if (policy === true) out.push({ option, always: true, answers: names.map((name) => ({ name, answer: 'true' })) });
    if (typeof policy !== 'function') continue;
    out.push({ option, answers: await policyAnswers(policy, names) });
  }
  return out;
}

/** The agent's instructions for an empty request context, as one text, or null. */
export async function instructionsText(agent, context) {
  if (typeof agent.getInstructions !== 'function') return null;
  let got;
  try {
    got = await agent.getInstructions(context);
  } catch {
    return null;
  }
  const textOf = (v) => {
    if (typeof v === 'string') return v;
    if (Array.isArray(v))
      return v
        .map(textOf)
        .filter((t) => t !== null)
        .join('\n');
    if (v && typeof v === 'object' && typeof v.content === 'string') return v.content;
    return null;
  };
  return textOf(got);
}
