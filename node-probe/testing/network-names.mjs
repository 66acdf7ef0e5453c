// Which names an agent network (`agent.network()`) carries and finds, on a
// real install: its routing agent's prompt lists the network's sub-agents,
// workflows and tools, and its routing reply picks one by `primitiveId`.
// The network's members are keyed with names the rewrite changes: the
// sub-agent `research.agent` (id `researcher`), the workflow `flow.one` (id
// `flow-one`) and the tool `search.web` (id `get-weather`). Every request
// goes to a scripted Chat Completions server of this script's on 127.0.0.1,
// whose first reply picks one name.
//
//   node network-names.mjs INSTALL_DIR...
//
// Prints, per install, the names the routing prompt lists, whether a
// routing request offered any `tools`, and which picks ran their member;
// exits 1 unless the prompt lists the keys as written and only a pick by
// the key runs (docs/names.md).

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { scriptedChat } from './scripted-chat.mjs';

const PICKS = [
  ['tool', 'search.web'],
  ['tool', 'search_web'],
  ['tool', 'get-weather'],
  ['agent', 'research.agent'],
  ['agent', 'research_agent'],
  ['agent', 'researcher'],
  ['workflow', 'flow.one'],
  ['workflow', 'flow_one'],
  ['workflow', 'flow-one'],
];
const KEYS = ['research.agent', 'flow.one', 'search.web'];
// The picks by the key as written, in the order PICKS tries them.
const RAN = ['search.web', 'research.agent', 'flow.one'];

// A scripted entry is the reply's text: the routing step's pick, as JSON.
const reply = (content = 'done') => ({ message: { role: 'assistant', content }, finish_reason: 'stop' });

async function network(mastra, model, ran) {
  const { Agent, createTool, createWorkflow, createStep, z, Memory, LibSQLStore } = mastra;
  const tool = createTool({
    id: 'get-weather',
    description: 'w',
    inputSchema: z.object({ city: z.string() }),
    execute: async () => {
      ran.push('tool');
      return { tempC: 20 };
    },
  });
  const sub = new Agent({
    id: 'researcher',
    name: 'researcher',
    description: 'researches',
    instructions: 'sub-agent',
    model,
  });
  const step = createStep({
    id: 's',
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({ ok: z.boolean() }),
    execute: async () => {
      ran.push('workflow');
      return { ok: true };
    },
  });
  const flow = createWorkflow({
    id: 'flow-one',
    description: 'a flow',
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({ ok: z.boolean() }),
  })
    .then(step)
    .commit();
  const memory = new Memory({ storage: new LibSQLStore({ id: 'm', url: ':memory:' }) });
  return new Agent({
    id: 'net',
    name: 'net',
    instructions: 'route',
    model,
    memory,
    tools: { 'search.web': tool },
    agents: { 'research.agent': sub },
    workflows: { 'flow.one': flow },
  });
}

async function measure(dir) {
  const load = (m) => import(pathToFileURL(path.join(dir, 'node_modules', m)).href);
  const mastra = {
    ...(await load('@mastra/core/dist/agent/index.js')),
    ...(await load('@mastra/core/dist/tools/index.js')),
    ...(await load('@mastra/core/dist/workflows/index.js')),
    ...(await load('zod/index.js')),
    ...(await load('@mastra/memory/dist/index.js')),
    ...(await load('@mastra/libsql/dist/index.js')),
  };
  const { state, model, close } = await scriptedChat(reply);
  const runs = [];
  let listed = [];
  let offered = false;
  for (const [kind, name] of PICKS) {
    const pick = { primitiveId: name, primitiveType: kind, prompt: '{"city":"Paris"}', selectionReason: 'r' };
    state.script = [JSON.stringify(pick)];
    state.bodies = [];
    const ran = [];
    const agent = await network(mastra, model, ran);
    try {
      const stream = await agent.network('go', { memory: { thread: `t-${name}`, resource: 'r' } });
      for await (const _ of stream) {
        // drained: the run's end is not what is measured
      }
    } catch {
      // the scripted run ends in an error once its replies run out
    }
    const routing = state.bodies[0];
    const system = routing?.messages?.find((m) => m.role === 'system')?.content ?? '';
    listed = String(system)
      .split('\n')
      .filter((l) => l.trim().startsWith('- **'))
      .map((l) => l.split('**')[1]);
    offered ||= Boolean(routing?.tools?.length);
    const subAsked = state.bodies.some((b) =>
      b.messages?.some((m) => m.role === 'system' && String(m.content).trim() === 'sub-agent'),
    );
    if (ran.includes(kind) || (kind === 'agent' && subAsked)) runs.push(name);
  }
  close();
  return { listed, offered, runs };
}

let failed = false;
for (const dir of process.argv.slice(2)) {
  const { listed, offered, runs } = await measure(dir);
  failed ||= listed.join() !== KEYS.join() || offered || runs.join() !== RAN.join();
  console.log(
    `${dir}: the routing prompt lists [${listed.join(', ')}]; routing requests offer tools: ${offered}; picks that ran: [${runs.join(', ')}]`,
  );
}
process.exit(failed ? 1 : 0);
