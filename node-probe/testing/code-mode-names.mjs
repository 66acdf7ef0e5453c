// Which names Code Mode (`createCodeMode` of `@mastra/core/tools`) gives a
// tool, on a real install: a tool keyed `search.web` with the id
// `get-weather` handed to Code Mode, whose `execute_typescript` tool runs the
// model's program on the host (`LocalSandbox`) with one `external_<name>`
// function per tool. Every request goes to a scripted Chat Completions
// server of this script's on 127.0.0.1, whose first reply calls
// `execute_typescript` with a program calling one name; the tool's result in
// the second request says whether the tool ran.
//
//   node code-mode-names.mjs INSTALL_DIR...
//
// Prints, per install, the `external_` functions the instructions declare
// and the programs' names that ran the tool, and exits 1 unless both are
// `external_get_weather` alone (docs/names.md).

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { scriptedChat, toolCallReply } from './scripted-chat.mjs';

// The sandbox runs the program as a `.ts` module with the `node` on PATH,
// which must strip types: the Node running this script (the project's
// pinned one) goes first.
process.env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`;

const NAMES = ['external_search_web', 'external_search.web', 'external_get_weather', 'external_get-weather'];

// A scripted entry is `{ call, arguments }` (one call of execute_typescript) or `{ text }`.
const reply = toolCallReply();

async function measure(dir) {
  const load = (m) => import(pathToFileURL(path.join(dir, 'node_modules', m)).href);
  const { Agent } = await load('@mastra/core/dist/agent/index.js');
  const { createTool, createCodeMode } = await load('@mastra/core/dist/tools/index.js');
  if (typeof createCodeMode !== 'function') return null;
  const { LocalSandbox } = await load('@mastra/core/dist/workspace/index.js');
  const { z } = await load('zod/index.js');
  const { state, model, close } = await scriptedChat(reply);
  const ran = [];
  let declared = [];
  for (const name of NAMES) {
    let runs = 0;
    const tool = createTool({
      id: 'get-weather',
      description: 'w',
      inputSchema: z.object({ city: z.string() }),
      execute: async () => {
        runs += 1;
        return { tempC: 20 };
      },
    });
    const { tool: codeTool, instructions } = createCodeMode({
      tools: { 'search.web': tool },
      sandbox: new LocalSandbox(),
    });
    declared = [...instructions.matchAll(/declare function (external_[^(]*)\(/g)].map((m) => m[1]);
    // A name that is no identifier is read as a property of `globalThis`.
    const program = `return await globalThis[${JSON.stringify(name)}]({ city: 'Paris' });`;
    state.script = [{ call: 'execute_typescript', arguments: JSON.stringify({ code: program }) }, { text: 'done' }];
    state.bodies = [];
    const agent = new Agent({ id: 'a', name: 'a', instructions, model, tools: { [codeTool.id]: codeTool } });
    try {
      await agent.generate('hi');
    } catch {
      // what ran is counted by the tool itself
    }
    if (runs > 0) ran.push(name);
  }
  close();
  return { declared, ran };
}

let failed = false;
for (const dir of process.argv.slice(2)) {
  const measured = await measure(dir);
  if (measured === null) {
    failed = true;
    console.log(`${dir}: no createCodeMode`);
    continue;
  }
  const { declared, ran } = measured;
  failed ||= declared.join() !== 'external_get_weather' || ran.join() !== 'external_get_weather';
  console.log(
    `${dir}: the instructions declare [${declared.join(', ')}]; programs that ran the tool: [${ran.join(', ')}]`,
  );
}
process.exit(failed ? 1 : 0);
