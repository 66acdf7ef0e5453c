// Which names a workspace tool renamed by `WorkspaceToolConfig.name` is sent
// and found under, on a real install: a workspace over a local folder
// holding `a.txt`, whose read tool (`mastra_workspace_read_file`) is
// configured with the name `files.read`. Every request goes to a scripted
// Chat Completions server of this script's on 127.0.0.1, whose first reply
// calls the tool by one name; the second request's tool message says
// whether it ran (the file's text) or was not found.
//
//   node workspace-names.mjs INSTALL_DIR...
//
// Prints, per install, the read tool's name in the first request's `tools`
// and the names a call ran it by, and exits 1 unless it is sent as
// `files_read` and runs by `files_read` and `files.read` alone
// (docs/names.md).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { scriptedChat, toolCallReply } from './scripted-chat.mjs';

const ORIGINAL = 'mastra_workspace_read_file';
const CALLS = [ORIGINAL, 'files.read', 'files_read'];
const TEXT = 'workspace-names says hello';

// A scripted entry is `{ call: NAME }` (one tool call) or `{ text }`.
const reply = toolCallReply('{"path":"a.txt"}');

async function measure(dir) {
  const load = (m) => import(pathToFileURL(path.join(dir, 'node_modules', m)).href);
  const { Agent } = await load('@mastra/core/dist/agent/index.js');
  const { Workspace, LocalFilesystem } = await load('@mastra/core/dist/workspace/index.js');
  const folder = mkdtempSync(path.join(tmpdir(), 'workspace-names-'));
  writeFileSync(path.join(folder, 'a.txt'), TEXT);
  const { state, model, close } = await scriptedChat(reply);
  let sent = [];
  const ran = [];
  for (const name of CALLS) {
    state.script = [{ call: name }, { text: 'done' }];
    state.bodies = [];
    const workspace = new Workspace({
      filesystem: new LocalFilesystem({ basePath: folder }),
      tools: { [ORIGINAL]: { name: 'files.read' } },
    });
    const agent = new Agent({ id: 'a', name: 'a', instructions: 'i', model, workspace });
    try {
      await agent.generate('hi');
    } catch {
      // a call that is not found may end the run: what ran is read below
    }
    const offered = (state.bodies[0]?.tools ?? []).map((t) => t.function?.name);
    sent = offered.filter((n) => n === ORIGINAL || n.startsWith('files'));
    const answer = (state.bodies[1]?.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
    if (answer.some((c) => c.includes(TEXT))) ran.push(name);
  }
  close();
  rmSync(folder, { recursive: true, force: true });
  return { sent, ran };
}

let failed = false;
for (const dir of process.argv.slice(2)) {
  const { sent, ran } = await measure(dir);
  failed ||= sent.join() !== 'files_read' || ran.join() !== 'files.read,files_read';
  console.log(`${dir}: the read tool is sent as [${sent.join(', ')}]; calls that ran it: [${ran.join(', ')}]`);
}
process.exit(failed ? 1 : 0);
