// Which name two of Mastra's name-taking parts compare, measured on a real
// install: a stop condition written as the AI SDK's hasToolCall(NAME)
// (`stopWhen`), and ToolCallFilter({ exclude: [NAME] }) (an input
// processor). The agent's one tool is keyed `search.web` with the id
// `get-weather`, so it is sent, and called, as `search_web`. Every request
// goes to a scripted Chat Completions server of this script's on 127.0.0.1.
//
//   node names-compare.mjs INSTALL_DIR...
//
// Prints, per install, which NAME stopped the loop after the first call and
// which NAME took a stored call out of the request, and exits 1 where either
// is not the wire name alone (docs/names.md, docs/rules/has-tool-call-names-a-key.md,
// docs/rules/tool-call-filter-names-a-key.md).

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { scriptedChat, toolCallReply } from './scripted-chat.mjs';

const NAMES = ['search.web', 'search_web', 'get-weather'];
const WIRE = 'search_web';

// A scripted entry is `{ call: NAME }` (one tool call) or `{ text }`.
const reply = toolCallReply('{"city":"Paris"}');

async function measure(dir) {
  const load = (m) => import(pathToFileURL(path.join(dir, 'node_modules', m)).href);
  const { Agent } = await load('@mastra/core/dist/agent/index.js');
  const { createTool } = await load('@mastra/core/dist/tools/index.js');
  const { ToolCallFilter } = await load('@mastra/core/dist/processors/index.js');
  const { z } = await load('zod/index.js');
  const { state, model, close } = await scriptedChat(reply);
  const tools = () => ({
    'search.web': createTool({
      id: 'get-weather',
      description: 'w',
      inputSchema: z.object({ city: z.string() }),
      execute: async () => ({ tempC: 20 }),
    }),
  });
  const stops = [];
  for (const name of NAMES) {
    state.script = [{ call: WIRE }, { call: WIRE }, { text: 'done' }];
    state.bodies = [];
    const agent = new Agent({ id: 'a', name: 'a', instructions: 'i', model, tools: tools() });
    // hasToolCall(name), as the AI SDK writes it.
    const hasToolCall = ({ steps }) => steps.at(-1)?.toolCalls?.some((c) => c.toolName === name) ?? false;
    await agent.generate('hi', { stopWhen: hasToolCall });
    if (state.bodies.length === 1) stops.push(name);
  }
  // An earlier exchange passed in, its call stored under the name the model
  // called, as a memory recalls it.
  const history = [
    { role: 'user', content: 'first' },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'c0', toolName: WIRE, input: { city: 'Paris' }, args: { city: 'Paris' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c0',
          toolName: WIRE,
          output: { type: 'json', value: { tempC: 20 } },
          result: { tempC: 20 },
        },
      ],
    },
    { role: 'user', content: 'again' },
  ];
  const filters = [];
  for (const name of NAMES) {
    state.script = [{ text: 'done' }];
    state.bodies = [];
    const agent = new Agent({
      id: 'b',
      name: 'b',
      instructions: 'i',
      model,
      tools: tools(),
      inputProcessors: [new ToolCallFilter({ exclude: [name] })],
    });
    await agent.generate(history);
    const sent = state.bodies[0]?.messages ?? [];
    if (!sent.some((m) => m.tool_calls?.length || m.role === 'tool')) filters.push(name);
  }
  close();
  return { stops, filters };
}

let failed = false;
for (const dir of process.argv.slice(2)) {
  const { stops, filters } = await measure(dir);
  const wireOnly = (got) => got.length === 1 && got[0] === WIRE;
  failed ||= !wireOnly(stops) || !wireOnly(filters);
  console.log(`${dir}: hasToolCall stops on [${stops.join(', ')}]; ToolCallFilter excludes by [${filters.join(', ')}]`);
}
process.exit(failed ? 1 : 0);
