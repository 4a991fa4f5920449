// Read commands must not compile the replay provider's code: `oryx agents` loads the plugin's
// entry, shows `replay` as the provider with the cassette's last model, and loads neither the
// cassette's parser nor the matcher; the first model call does. The CLI runs from the build.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempProject, writeAgents } from '@oryxos/kernel/testing';
import { tracedOryx, type LoadedFile } from '../../../test/fixtures/trace-oryx.ts';
import { lastModel } from '../src/lazy-provider.ts';

function oryx(dir: string, args: string[]) {
  const r = tracedOryx(dir, args, 'plugins/replay/dist');
  assert.is(r.status, 0, r.stderr);
  return r;
}

const WORK = ['function parseCassette(', 'function replayProvider('];
const working = (files: LoadedFile[]) => files.filter((f) => WORK.some((w) => f.text.includes(w))).map((f) => f.url);

const cassette = [
  '# recorded by hand',
  '{"request":{"messages":[{"role":"user","content":"hi"}]},"response":{"content":"first"},"model":"old-model"}',
  '{"request":{"messages":[{"role":"user","content":"hello"}]},"response":{"content":"replayed hello"},"model":"cassette-model"}',
  '',
].join('\n');

test('oryx agents shows the replay provider and the cassette\'s model without loading the cassette code; a run loads it', async () => {
  const dir = await tempProject('replay-lazy-');
  try {
    writeFileSync(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import replay from '@oryxos/plugin-replay';
export default defineConfig({ defaultProvider: 'replay', plugins: [replay({ cassette: 'demo' })] });
`);
    await writeAgents(path.join(dir, '.oryxos'), { assistant: {} });
    mkdirSync(path.join(dir, '.oryxos', 'cassettes'));
    writeFileSync(path.join(dir, '.oryxos', 'cassettes', 'demo.jsonl'), cassette);

    const agents = oryx(dir, ['agents', '--json']);
    const [listed] = (JSON.parse(agents.stdout) as { items: { name: string; provider: string; model?: string }[] }).items;
    assert.equal([listed?.name, listed?.provider, listed?.model], ['assistant', 'replay', 'cassette-model']);
    assert.ok(agents.files.some((f) => f.url.endsWith('/plugins/replay/dist/index.js')), 'the plugin\'s entry is loaded');
    assert.equal(working(agents.files), []);

    const run = oryx(dir, ['run', 'hello', '--json']);
    assert.is((JSON.parse(run.stdout) as { answer: string }).answer, 'replayed hello');
    assert.ok(working(run.files).length > 0, 'a model call loads the cassette code');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('lastModel: the model of the last line that names one, as the full parse reports it', () => {
  assert.is(lastModel(cassette), 'cassette-model');
  assert.is(lastModel(`${cassette}{"request":{"messages":[]},"response":{}}\n// note\n`), 'cassette-model', 'lines without a model are passed');
  assert.is(lastModel(''), undefined);
  assert.is(lastModel('{"request":{"messages":[]},"response":{}}'), undefined);
  assert.is(lastModel(`${cassette}{not json\n`), undefined, 'a broken line on the way: no model, as when the parse fails');
});

test.run();
