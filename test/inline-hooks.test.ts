// Custom hooks for policy and audit written inline in oryx.config.ts, as the README documents
// them, through the built CLI: a guard (`beforeTool`) that refuses a write to an .env file —
// the write never happens and the audit trail records the denial with the guard's reason —
// and an observer (`afterTool`) that keeps its own log of every call.
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';

const readme = await readFile(path.join(process.cwd(), 'README.md'), 'utf8');
/** The README's example of inline hooks, as written there. */
const example = /<!-- inline-hooks -->\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];

let dir: string;
test.before.each(async () => { dir = await tempProject('inline-hooks-'); });
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

test('the README has the inline hooks example', () => {
  assert.ok(example, 'README.md has a ```ts block after <!-- inline-hooks -->');
});

test('an inline beforeTool guard denies a write (the audit shows it), an inline afterTool observer logs every call', async () => {
  // The README's plugins, with a model that tries to write prod.env, then notes.md.
  const config = example!
    .replace("import openai from '@oryxos/plugin-openai';\n", "import { scripted } from '@oryxos/kernel/testing';\n")
    .replace('openai(),', `scripted([
      { toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'prod.env', content: 'KEY=1' } }] },
      { toolCalls: [{ id: 'w2', name: 'write_file', args: { path: 'notes.md', content: 'ok' } }] },
      { text: 'done' },
    ]),`);
  assert.ok(config.includes('scripted(['), 'the example enables a provider as openai()');
  await writeFile(path.join(dir, 'oryx.config.ts'), config);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['write_file'] } });

  const r = await runOryx(['run', 'write them'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /⊘ write_file prod\.env .*denied .*: \.env files are never written by an agent/);
  assert.is(await readFile(path.join(dir, 'prod.env'), 'utf8').catch(() => 'absent'), 'absent', 'the guard stopped the write');
  assert.is(await readFile(path.join(dir, 'notes.md'), 'utf8'), 'ok');

  const audit = JSON.parse((await runOryx(['audit', 'tools', '--json'], { cwd: dir })).stdout).items;
  const byCall = Object.fromEntries(audit.map((row: { toolCallId: string }) => [row.toolCallId, row]));
  assert.is(byCall.w1.status, 'denied');
  assert.match(byCall.w1.deniedReason, '.env files are never written by an agent');
  assert.is(byCall.w2.status, 'ok');

  const log = (await readFile(path.join(dir, '.oryxos', 'tool-calls.log'), 'utf8')).trim().split('\n');
  assert.equal(log.map((l) => l.split(' ').slice(1).join(' ')), ['write_file denied', 'write_file ok']);
});

test('a wrong field is caught by the kernel: an unknown hook name says which ones exist', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), `
import { defineConfig, definePlugin } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
export default defineConfig({ plugins: [scripted([{ text: 'hi' }]), definePlugin({ name: 'typo', hooks: { beforeTools() {} } as never })] });
`);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: {} });
  const r = await runOryx(['run', 'hi'], { cwd: dir });
  assert.is(r.code, 1);
  assert.match(r.stderr, /taps an unknown hook "beforeTools".*did you mean "beforeTool"/);
});

test.run();
