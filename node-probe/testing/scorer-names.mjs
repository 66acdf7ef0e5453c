// Which name the tool-call accuracy scorer of `@mastra/evals`
// (`createToolCallAccuracyScorerCode`) compares its `expectedTool` and
// `expectedToolOrder` with, measured on a real run: the agent's one tool is
// keyed `search.web` with the id `get-weather`, so it is sent, and called, as
// `search_web`; the run's scoring data (`returnScorerData`, what the agent's
// scorer hook hands a scorer) is scored once per name. Every request goes to
// a scripted Chat Completions server of this script's on 127.0.0.1.
//
//   node scorer-names.mjs INSTALL_DIR...
//
// Each INSTALL_DIR holds `@mastra/core`, `@mastra/evals` and `zod`. Prints,
// per install, the names `expectedTool` scores 1 with and the names
// `expectedToolOrder: [NAME]` scores 1 with, and exits 1 where either is not
// the wire name alone (docs/names.md, docs/rules/expected-tool-names-a-key.md).

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
  const { createToolCallAccuracyScorerCode } = await load('@mastra/evals/dist/scorers/prebuilt/index.js');
  const { z } = await load('zod/index.js');
  const { state, model, close } = await scriptedChat(reply);
  const tool = createTool({
    id: 'get-weather',
    description: 'w',
    inputSchema: z.object({ city: z.string() }),
    execute: async () => ({ tempC: 20 }),
  });
  state.script = [{ call: WIRE }, { text: 'done' }];
  const agent = new Agent({ id: 'a', name: 'a', instructions: 'i', model, tools: { 'search.web': tool } });
  const result = await agent.generate('hi', { returnScorerData: true });
  close();
  const { input, output } = result.scoringData ?? {};
  const scores = async (options) => {
    const ones = [];
    for (const name of NAMES) {
      const scored = await createToolCallAccuracyScorerCode(options(name)).run({ input, output });
      if (scored.score === 1) ones.push(name);
    }
    return ones;
  };
  return {
    expected: await scores((name) => ({ expectedTool: name })),
    ordered: await scores((name) => ({ expectedToolOrder: [name] })),
  };
}

let failed = false;
for (const dir of process.argv.slice(2)) {
  const { expected, ordered } = await measure(dir);
  const wireOnly = (got) => got.length === 1 && got[0] === WIRE;
  failed ||= !wireOnly(expected) || !wireOnly(ordered);
  console.log(
    `${dir}: expectedTool scores 1 with [${expected.join(', ')}]; expectedToolOrder with [${ordered.join(', ')}]`,
  );
}
process.exit(failed ? 1 : 0);
