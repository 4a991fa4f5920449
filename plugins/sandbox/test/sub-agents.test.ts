// A sub-agent is narrowed by its callers' `sandbox:` as well as by its own: handing a task to
// another agent never widens what the caller may do. Real sandbox and tools plugins on a real
// folder; only the model is scripted.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, testKernel, type ScriptStep } from '@oryxos/kernel/testing';
import subagents from '@oryxos/plugin-subagents';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';

const delegate = (agent: string): ScriptStep => ({ toolCalls: [{ name: `agent__${agent}`, args: { task: 'go' } }] });
const read = (...files: string[]): ScriptStep => ({ toolCalls: files.map((f) => ({ name: 'read_file', args: { path: f } })) });
const shell = (command: string, ...args: string[]): ScriptStep => ({ toolCalls: [{ name: 'shell', args: { command, args, cwd: 'docs' } }] });

async function kernelWith(steps: ScriptStep[], agents: Parameters<typeof testKernel>[0]['agents']) {
  const llm = scripted(steps);
  const t = await testKernel({
    plugins: [llm, sandbox({ files: { read: ['docs'] }, exec: { allow: ['echo'] }, confine: false }), tools(), subagents()],
    agents,
  });
  await mkdir(path.join(t.dir, 'docs', 'public'), { recursive: true });
  await writeFile(path.join(t.dir, 'docs', 'public', 'fact.txt'), 'the sky is blue');
  await writeFile(path.join(t.dir, 'docs', 'secret.txt'), 'only for the wide agents');
  return { t, llm };
}

/** The content of every tool result of the sessions' runs, in order. */
async function toolResults(t: Awaited<ReturnType<typeof testKernel>>): Promise<string[]> {
  const store = t.kernel.service('sessions');
  const out: string[] = [];
  for (const s of (await store.list({})).items.reverse()) {
    for (const m of await store.messages(s.id)) if (m.message.role === 'tool') out.push(`${s.agent}: ${m.message.content}`);
  }
  return out;
}

test('a narrowed caller: its sub-agent (no sandbox: of its own) is denied what the caller is, two levels down too', async () => {
  const { t } = await kernelWith(
    [delegate('mid'), delegate('leaf'), read('docs/secret.txt', 'docs/public/fact.txt'), { text: 'leaf done' }, { text: 'mid done' }, { text: 'lead done' }],
    {
      lead: { agents: ['mid'], tools: [], sandbox: { files: { read: ['docs/public'] } } },
      mid: { agents: ['leaf'], tools: [] },
      leaf: { tools: ['read_file'] },
    },
  );
  const r = await t.service.process({ agent: 'lead', message: 'go' });
  assert.is(r.stopReason, 'final');
  const leaf = (await toolResults(t)).filter((x) => x.startsWith('leaf: '));
  assert.is(leaf.length, 2);
  assert.match(leaf[0]!, /Denied by the sandbox: .*docs\/secret\.txt.*narrowed by the sandbox: frontmatter of \.oryxos\/agents\/lead\/AGENT\.md/);
  assert.is(leaf[1], 'leaf: the sky is blue', 'what the caller may read, the sub-agent may');
  await t.close();
});

test('the same sub-agent started on its own, or by a caller that does not narrow, reads what the global policy allows', async () => {
  const { t } = await kernelWith(
    [read('docs/secret.txt'), { text: 'leaf alone' }, delegate('leaf'), read('docs/secret.txt'), { text: 'leaf done' }, { text: 'wide done' }],
    { wide: { agents: ['leaf'], tools: [] }, leaf: { tools: ['read_file'] } },
  );
  assert.is((await t.service.process({ agent: 'leaf', message: 'alone' })).stopReason, 'final');
  assert.is((await t.service.process({ agent: 'wide', message: 'go' })).stopReason, 'final');
  assert.equal((await toolResults(t)).filter((x) => x.startsWith('leaf: ')), ['leaf: only for the wide agents', 'leaf: only for the wide agents']);
  await t.close();
});

test('a process: a caller that may run nothing makes its sub-agent\'s shell call a denial; its own narrowing still applies', async () => {
  const { t } = await kernelWith(
    [delegate('runner'), shell('echo', 'hi'), { text: 'runner done' }, { text: 'lead done' }, delegate('runner'), shell('echo', 'hi'), { text: 'runner done' }, { text: 'open done' }],
    {
      lead: { agents: ['runner'], tools: [], sandbox: { exec: { allow: [] } } },
      open: { agents: ['runner'], tools: [] },
      runner: { tools: ['shell'] },
    },
  );
  await t.service.process({ agent: 'lead', message: 'go' });
  await t.service.process({ agent: 'open', message: 'go' });
  const runs = (await toolResults(t)).filter((x) => x.startsWith('runner: '));
  assert.is(runs.length, 2);
  assert.match(runs[0]!, /narrowed by the sandbox: frontmatter of \.oryxos\/agents\/lead\/AGENT\.md/, 'denied under the narrowed caller');
  assert.match(runs[1]!, /hi/, 'run under a caller that does not narrow');
  await t.close();
});

test.run();
