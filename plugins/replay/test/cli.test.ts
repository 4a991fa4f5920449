// End to end through the built `oryx` CLI (npm test builds first; alone: `npx tsc -b plugins/replay` first).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';

const repo = path.resolve(import.meta.dirname, '../../..');
/** `oryx … --json` that must succeed, parsed. */
async function json(dir: string, ...args: string[]): Promise<any> {
  const r = await runOryx([...args, '--json'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}


const tool = `const add: Tool = {
  name: 'add', description: 'Add two numbers', source: 'plugin',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  async execute(args) { return String(Number(args.a) + Number(args.b)); },
};
const calc = { name: 'calc', version: '1.0.0', kernel: '^1', setup(k: Kernel) { k.registerTool(add); } };
`;

const recordConfig = `import { defineConfig, type Kernel, type Tool } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import replay from '@oryxos/plugin-replay';
${tool}
const model = scripted([
  { toolCalls: [{ name: 'add', args: { a: 2, b: 3 } }] },
  (request) => ({ text: 'The sum is ' + request.messages.at(-1)!.content + '.' }),
], { name: 'upstream' });

export default defineConfig({
  defaultProvider: 'replay',
  plugins: [model, replay({ mode: 'record', cassette: 'sums', target: 'upstream' }), calc],
});
`;

const replayConfig = `import { defineConfig, type Kernel, type Tool } from '@oryxos/kernel';
import replay from '@oryxos/plugin-replay';
${tool}
export default defineConfig({ defaultProvider: 'replay', plugins: [replay({ cassette: 'sums' }), calc] });
`;

test('record in one oryx run process, replay in another with no model at all', async () => {
  const dir = await tempProject('replay-cli-');
  try {
    await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['add'] } });
    await writeFile(path.join(dir, 'oryx.config.ts'), recordConfig);
    const recorded = await json(dir, 'run', 'What is 2+3?');
    assert.is(recorded.answer, 'The sum is 5.');
    const cassette = await readFile(path.join(dir, '.oryxos', 'cassettes', 'sums.jsonl'), 'utf8');
    assert.is(cassette.trim().split('\n').length, 2);

    await writeFile(path.join(dir, 'oryx.config.ts'), replayConfig);
    const replayed = await json(dir, 'run', 'What is 2+3?');
    assert.is(replayed.answer, 'The sum is 5.');
    assert.is(replayed.iterations, 2);

    const diverged = await runOryx(['run', 'What is 4+4?'], { cwd: dir });
    assert.is(diverged.code, 1, 'a diverging run exits non-zero');
    assert.match(diverged.stderr, 'ORYX_E_REPLAY_DIVERGED');
    assert.match(diverged.stderr, 'this run has user "What is 4+4?"');
    assert.match(diverged.stderr, 'hint:');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a hand-written cassette, as the README documents it, replays through oryx run', async () => {
  const dir = await tempProject('replay-cli-');
  try {
    await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['add'] } });
    await writeFile(path.join(dir, 'oryx.config.ts'), replayConfig);
    const readme = await readFile(path.join(repo, 'plugins/replay/README.md'), 'utf8');
    const example = readme.match(/```jsonl\n([\s\S]*?)```/)?.[1];
    assert.ok(example, 'the README has a ```jsonl example');
    await mkdir(path.join(dir, '.oryxos', 'cassettes'), { recursive: true });
    await writeFile(path.join(dir, '.oryxos', 'cassettes', 'sums.jsonl'), example);
    const result = await json(dir, 'run', 'What is 2+3?');
    assert.is(result.stopReason, 'final');
    assert.is(result.answer, '2 + 3 = 5.');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('oryx doctor checks a replay provider by its cassette (readable, well-formed, what it answers), not by a question', async () => {
  const dir = await tempProject('replay-doctor-');
  try {
    await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['add'] } });
    await writeFile(path.join(dir, 'oryx.config.ts'), replayConfig);
    const provider = async () => {
      const r = await runOryx(['doctor', '--json'], { cwd: dir });
      return { code: r.code, line: JSON.parse(r.stdout).items.find((c: { check: string }) => c.check === 'provider replay') };
    };
    const missing = await provider();
    assert.is(missing.code, 1);
    assert.is(missing.line.status, 'fail');
    assert.is(missing.line.code, 'ORYX_E_REPLAY_CASSETTE_NOT_FOUND');

    const readme = await readFile(path.join(repo, 'plugins/replay/README.md'), 'utf8');
    const example = readme.match(/```jsonl\n([\s\S]*?)```/)![1]!;
    await mkdir(path.join(dir, '.oryxos', 'cassettes'), { recursive: true });
    const file = path.join(dir, '.oryxos', 'cassettes', 'sums.jsonl');
    await writeFile(file, example);
    // As after the quickstart: the recorded question works, and doctor agrees.
    assert.is((await json(dir, 'run', 'What is 2+3?')).stopReason, 'final');
    const ok = await provider();
    assert.is(ok.code, 0, JSON.stringify(ok.line));
    assert.is(ok.line.status, 'ok');
    assert.match(ok.line.detail, /^cassette \S*sums\.jsonl: 2 recorded answer\(s\), well-formed; answers "What is 2\+3\?", agents: assistant$/);

    await writeFile(file, `${example}{"request": not json\n`);
    const broken = await provider();
    assert.is(broken.code, 1);
    assert.is(broken.line.code, 'ORYX_E_REPLAY_CASSETTE_INVALID');
    assert.match(broken.line.detail, /sums\.jsonl:\d+/, broken.line.detail);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
