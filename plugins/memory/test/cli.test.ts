// End-to-end: the built `oryx memory …` commands in a temp project. Needs the built JS:
// `npx tsc -b plugins/memory && node scripts/manifest.mjs` first.
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';
import { parseMemory } from '../src/format.ts';

let dir = '';

const oryx = (args: string[]) => runOryx(args, { cwd: dir });

const config = (plugins: string) => `import { defineConfig } from '@oryxos/kernel';
import memory from '@oryxos/plugin-memory';
void memory;
export default defineConfig({ plugins: [${plugins}] });
`;

test.before(async () => {
  dir = await tempProject('oryx-memory-cli-');
  await writeFile(path.join(dir, 'oryx.config.ts'), config('memory({ coreMaxChars: 80 })'));
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['save_memory', 'recall_memory'] }, other: { tools: [] } });
});
test.after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('save, show and recall through the CLI, as JSON and as text', async () => {
  const core = await oryx(['memory', 'save', 'The user is Ana', '--core', '-a', 'assistant', '--json']);
  assert.is(core.code, 0, core.stderr);
  const saved = JSON.parse(core.stdout);
  assert.is(saved.zone, 'core');
  assert.is(saved.entry.text, 'The user is Ana');
  assert.match(saved.entry.date, /^\d{4}-\d{2}-\d{2}$/);
  assert.is(saved.path, path.join(dir, '.oryxos', 'memory', 'MEMORY.md'));

  const zh = await oryx(['memory', 'save', '用户喜欢喝绿茶', '--json']);
  assert.is(zh.code, 0, zh.stderr);
  assert.is(JSON.parse(zh.stdout).agent, 'assistant', 'defaults to the config default agent');
  const text = await oryx(['memory', 'save', 'Deploys happen on Fridays', '-a', 'assistant']);
  assert.is(text.code, 0, text.stderr);
  assert.match(text.stdout, 'Saved to the Archive of .oryxos/memory/MEMORY.md: ');

  const file = parseMemory(await readFile(saved.path, 'utf8'));
  assert.equal(file.core.map((e) => e.text), ['The user is Ana']);
  assert.equal(file.archive.map((e) => e.text), ['用户喜欢喝绿茶', 'Deploys happen on Fridays']);

  const [show, human, recall] = await Promise.all([
    oryx(['memory', 'show', '-a', 'assistant', '--json']),
    oryx(['memory', 'show', '-a', 'assistant']),
    oryx(['memory', 'recall', '用户喜欢', '-a', 'assistant', '--limit', '1', '--json']),
  ]);
  assert.is(show.code, 0, show.stderr);
  const zones = JSON.parse(show.stdout);
  assert.is(zones.agent, 'assistant');
  assert.equal(zones.core.map((e: { text: string }) => e.text), ['The user is Ana']);
  assert.is(zones.archive.length, 2);
  assert.match(human.stdout, '.oryxos/memory/MEMORY.md');
  assert.match(human.stdout, 'Core (1 entry)');
  assert.match(human.stdout, 'Archive (2 entries)');
  assert.match(human.stdout, ': Deploys happen on Fridays');
  assert.is(recall.code, 0, recall.stderr);
  const hits = JSON.parse(recall.stdout).items;
  assert.is(hits.length, 1);
  assert.is(hits[0].text, '用户喜欢喝绿茶');
  assert.ok(hits[0].score > 0);
});

test("--user: a user's memory is saved, shown and searched apart from the agent's", async () => {
  const saved = await oryx(['memory', 'save', 'Ana is on call this week', '--user', 'ana', '--json']);
  assert.is(saved.code, 0, saved.stderr);
  assert.is(JSON.parse(saved.stdout).path, path.join(dir, '.oryxos', 'memory', 'users', 'ana', 'MEMORY.md'));
  const [mine, agent, human, withUser, without] = await Promise.all([
    oryx(['memory', 'show', '--user', 'ana', '--json']),
    oryx(['memory', 'show', '--json']),
    oryx(['memory', 'show', '-u', 'ana']),
    oryx(['memory', 'recall', 'on call', '--user', 'ana', '--json']),
    oryx(['memory', 'recall', 'on call', '--json']),
  ]);
  assert.is(mine.code, 0, mine.stderr);
  const zones = JSON.parse(mine.stdout);
  assert.is(zones.scope, 'user');
  assert.is(zones.user, 'ana');
  assert.equal(zones.archive.map((e: { text: string }) => e.text), ['Ana is on call this week']);
  assert.not.match(agent.stdout, 'on call');
  assert.match(human.stdout, 'Memory of user ana: .oryxos/memory/users/ana/MEMORY.md');
  const hits = JSON.parse(withUser.stdout).items;
  assert.equal(hits.map((h: { text: string; scope: string }) => [h.scope, h.text]), [['user', 'Ana is on call this week']]);
  assert.equal(JSON.parse(without.stdout).items, []);
});

test('errors print their code and hint and exit non-zero', async () => {
  const [full, missing] = await Promise.all([
    oryx(['memory', 'save', 'x'.repeat(100), '--core', '-a', 'assistant']),
    oryx(['memory', 'show', '-a', 'nosuch', '--json']),
  ]);
  assert.is(full.code, 1);
  assert.match(full.stderr, 'error ORYX_E_MEMORY_CORE_FULL');
  assert.match(full.stderr, "hint: Save it to the archive instead (zone 'archive')");
  assert.is(missing.code, 1);
  assert.is(JSON.parse(missing.stdout).error.code, 'ORYX_E_AGENT_NOT_FOUND');
});

test('without the memory plugin the commands read MEMORY.md directly, with a warning', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), config(''));
  try {
    const show = await oryx(['memory', 'show', '-a', 'other', '--json']);
    assert.is(show.code, 0, show.stderr);
    assert.match(show.stderr, 'memory plugin is not enabled');
    assert.equal(JSON.parse(show.stdout).core.map((e: { text: string }) => e.text), ['The user is Ana'], 'the shared file');
  } finally {
    await writeFile(path.join(dir, 'oryx.config.ts'), config('memory({ coreMaxChars: 80 })'));
  }
});

test.run();
