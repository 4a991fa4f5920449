// What is the operator's stays the operator's, with the policy `oryx init` writes
// (`read: ['.'], write: ['.']`, nothing on the deny list): the REST API token, the database
// (wherever the sqlite plugin keeps it), what servers print, the sandbox's own records, every
// user's and every conversation's memory. The tools cannot read them, and confined programs do
// not see them — not even those OryxOS creates after the program started. The agent's own
// memory, and the rest of the workspace, stay readable. Real files, SQLite, bubblewrap.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import tools from '@oryxos/plugin-tools';
import sandbox from '../src/index.ts';

const ANY = '[\\s\\S]*';
let root: string;
let ws: string;

test.before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'oryx-operator-'));
  ws = path.join(root, '.oryxos');
  const files: Record<string, string> = {
    'web-token': 'OPERATOR-TOKEN-0123456789',
    'logs/mcp-x.log': 'SERVER-PRINTED-TOKEN',
    'memory/MEMORY.md': '# Memory\n\n## Core\n- AGENT-FACT\n',
    'memory/users/bob/MEMORY.md': '# Memory\n\n## Core\n- BOB-SECRET\n',
    'memory/sessions/s-other/MEMORY.md': '# Memory\n\n## Archive\n- OTHER-SESSION-CHECKPOINT\n',
    'memory/migrated-checkpoints.md': '- MIGRATED-CHECKPOINT\n',
    'agents/assistant/MEMORY.md': '# Memory\n\n## Core\n- OWN-AGENT-FACT\n',
    'agents/assistant/users/bob/MEMORY.md': '# Memory\n\n## Core\n- BOB-AGENT-SECRET\n',
    'AGENTS.md': '# Working rules\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await writeFile(path.join(ws, rel), text);
  }
});
test.after(async () => { await rm(root, { recursive: true, force: true }); });

const DEFAULTS = { files: { read: ['.'], write: ['.'] }, exec: { allow: [{ command: 'sh', args: ['-c'], rest: ANY }] } };

async function turn(calls: { name: string; args: Record<string, unknown> }[], extra: Parameters<typeof sqlite>[0] = {}) {
  const llm = scripted([{ toolCalls: calls.map((c, i) => ({ id: `c${i + 1}`, ...c })) }, { text: 'done' }]);
  const t = await testKernel({ dir: root, plugins: [llm, sqlite(extra), sandbox(DEFAULTS), tools()], agents: { assistant: { tools: ['*'] } } });
  try {
    await t.service.process({ agent: 'assistant', message: 'go' });
    // The tool results, in call order, as the model got them.
    return llm.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => ({ id: m.toolCallId!, content: m.content }))
      .sort((a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1))).map((m) => m.content);
  } finally {
    await t.close({ keep: true });
  }
}
const read = (p: string) => ({ name: 'read_file', args: { path: p } });

test("the tools: the operator's files are denied with the default policy, the agent's memory and the workspace are not", async () => {
  const denied = ['.oryxos/web-token', '.oryxos/oryx.db', '.oryxos/oryx.db-wal', '.oryxos/logs/mcp-x.log', '.oryxos/memory/users/bob/MEMORY.md',
    '.oryxos/memory/sessions/s-other/MEMORY.md', '.oryxos/memory/migrated-checkpoints.md', '.oryxos/agents/assistant/users/bob/MEMORY.md',
    '.oryxos/sandbox/deny-identities.json'];
  const out = await turn([...denied.map(read), read('.oryxos/memory/MEMORY.md'), read('.oryxos/agents/assistant/MEMORY.md'), read('.oryxos/AGENTS.md'),
    { name: 'list_dir', args: { path: '.oryxos/memory', depth: 2 } }, { name: 'list_dir', args: { path: '.oryxos/memory/users' } }]);
  for (const [i, p] of denied.entries()) {
    assert.match(out[i]!, /^Denied by the sandbox: read of .* is not allowed: .* is on the sandbox deny list \(/, `${p}: ${out[i]}`);
  }
  assert.match(out[0]!, /\.oryxos\/web-token is on the sandbox deny list \(the REST API's token\)/);
  assert.match(out[1]!, /\.oryxos\/(?:oryx\.db|\*\.db\*) is on the sandbox deny list \(the database: sessions and the audit trail\)/);
  assert.match(out[4]!, /\.oryxos\/memory\/users is on the sandbox deny list \(users' memories: a run reads its own user's through the memory tools\)/);
  assert.match(out[7]!, /\.oryxos\/agents\/\*\/users is on the sandbox deny list/);
  assert.not.match(out.slice(0, denied.length).join('\n'), /OPERATOR-TOKEN|SERVER-PRINTED|BOB-|OTHER-SESSION|MIGRATED-CHECKPOINT/);
  assert.match(out[denied.length]!, /AGENT-FACT/);
  assert.match(out[denied.length + 1]!, /OWN-AGENT-FACT/);
  assert.match(out[denied.length + 2]!, /Working rules/);
  assert.match(out[denied.length + 3]!, /users\/ \[not listed: denied by the sandbox\]/);
  assert.match(out[denied.length + 3]!, /sessions\/ \[not listed: denied by the sandbox\]/);
  assert.match(out[denied.length + 4]!, /^Denied by the sandbox: read of .*memory\/users.* is not allowed/, 'the user ids are not listed either');
});

test('a database the sqlite plugin keeps elsewhere in the project is denied too, by its real path', async () => {
  await mkdir(path.join(root, 'data'), { recursive: true });
  const out = await turn([read('data/app.db'), { name: 'write_file', args: { path: 'data/app.db-wal', content: 'x' } }], { url: 'file:data/app.db' });
  assert.match(out[0]!, /^Denied by the sandbox: read of .*data\/app\.db.* is not allowed: data\/app\.db is on the sandbox deny list \(the database/);
  assert.match(out[1]!, /^Denied by the sandbox: write of/);
  await rm(path.join(root, 'data'), { recursive: true });
});

test("confined programs do not see the operator's files, not even those created after they started", async () => {
  const script = [
    'ls -A .oryxos; echo ---; ls -A .oryxos/memory; echo ---; ls -A .oryxos/agents/assistant; echo ---',
    'cat .oryxos/web-token .oryxos/memory/users/bob/MEMORY.md .oryxos/agents/assistant/users/bob/MEMORY.md 2>&1; echo ---',
    'while [ ! -e go ]; do sleep 0.05; done',
    'ls -A .oryxos; echo ---; ls -A .oryxos/memory/; cat .oryxos/memory/MEMORY.md',
  ].join('; ');
  const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'shell', args: { command: 'sh', args: ['-c', script] } }] }, { text: 'done' }]);
  const t = await testKernel({ dir: root, plugins: [llm, sqlite(), sandbox(DEFAULTS), tools()], agents: { assistant: { tools: ['*'] } } });
  try {
    const running = t.service.process({ agent: 'assistant', message: 'go' });
    // While it runs, OryxOS makes more of the operator's files: a new user's memory, a new token.
    await new Promise((r) => setTimeout(r, 1500));
    await mkdir(path.join(ws, 'memory', 'users', 'carol'), { recursive: true });
    await writeFile(path.join(ws, 'memory', 'users', 'carol', 'MEMORY.md'), '- CAROL-SECRET\n');
    await writeFile(path.join(ws, 'web-token'), 'ROTATED-TOKEN-0123456789');
    await writeFile(path.join(root, 'go'), '');
    await running;
    const out = String(llm.requests[1]!.messages.at(-1)!.content);
    const [, top, memory, agent, cats, topLater, memoryLater] = out.slice(out.indexOf('--- stdout')).split('---\n');
    for (const listing of [top!, topLater!]) {
      assert.not.match(listing, /web-token|oryx\.db|logs|sandbox/, listing);
      assert.match(listing, /AGENTS\.md/);
    }
    for (const listing of [memory!, memoryLater!]) assert.not.match(listing, /users|sessions|migrated/, listing);
    assert.match(memoryLater!, /AGENT-FACT/, "the agent's memory is read");
    assert.not.match(agent!, /users/);
    assert.match(cats!, /No such file or directory/);
    assert.not.match(out, /OPERATOR-TOKEN|ROTATED-TOKEN|BOB-|CAROL-SECRET/);
    assert.ok(existsSync(path.join(ws, 'memory', 'users', 'carol', 'MEMORY.md')), 'the host side is untouched');
  } finally {
    await rm(path.join(root, 'go'), { force: true });
    await t.close({ keep: true });
  }
});

test.run();
