// What the sandbox costs a command: `oryx agents` and `oryx tools` load its entry (options
// checked, the policy built and its warnings printed) but not the code that decides and confines,
// which loads on the first decision. Through the built CLI (build first), with every module the
// process loads traced.
import { rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempProject, testKernel } from '@oryxos/kernel/testing';
import { traceProject, tracedOryx } from '../../../test/fixtures/trace-oryx.ts';
import type { Plugin } from '@oryxos/kernel';
import sandbox from '../src/index.ts';

/** What only the deciding code defines: the allow-list sandbox and the bubblewrap arguments. */
const DECIDING = /\bclass AllowListSandbox\b|\bfunction bwrapArgs\b/;

function project(): Promise<string> {
  return traceProject('sandbox-lazy-', `import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';
export default defineConfig({ plugins: [
  scripted([{ toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'notes.txt' } }] }, (req) => ({ text: 'model got: ' + req.messages.at(-1).content })]),
  sandbox({ files: { read: ['.'], write: ['not-yet'] } }),
  tools({ include: ['read_file'] }),
] });
`, { assistant: { tools: ['read_file'] } }, { 'notes.txt': 'lazy notes\n' });
}

/** Runs the built CLI with its imports traced: what it printed, and the sandbox files it loaded with their text. */
const traced = (dir: string, args: string[]) => tracedOryx(dir, args, 'plugins/sandbox/dist');

test('oryx agents and oryx tools load the sandbox\'s entry and build its policy, but not the code that decides; oryx run loads it', async () => {
  const dir = await project();
  try {
    for (const command of ['agents', 'tools']) {
      const run = traced(dir, [command]);
      const loaded = run.files;
      assert.is(run.status, 0, run.stderr);
      assert.match(run.stdout, command === 'agents' ? /^assistant\s/m : /^read_file\s/m);
      assert.match(run.stderr, /warning: sandbox: files\.write\.0 \("not-yet"\) does not exist yet/, 'the policy is built at start, its warnings printed');
      assert.ok(loaded.length > 0, 'the sandbox plugin was loaded');
      assert.equal(loaded.filter((m) => DECIDING.test(m.text)).map((m) => m.url), [], `${command} loaded no deciding code`);
    }
    // The run decides (read_file is checked by the sandbox): the same detection finds the code loaded.
    const run = traced(dir, ['run', 'go']);
    const loaded = run.files;
    assert.is(run.status, 0, run.stderr);
    assert.match(run.stdout, /model got: .*lazy notes/s);
    assert.equal(run.stderr.match(/does not exist yet/g)?.length, 1, 'the warning is printed once, at start');
    assert.ok(loaded.some((m) => DECIDING.test(m.text)), 'a run that decides loads the deciding code');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a control file a plugin protects in init, before the first decision, is protected once the sandbox loads', async () => {
  const dir = await tempProject('sandbox-protect-');
  await mkdir(path.join(dir, 'state'), { recursive: true });
  const owner: Plugin = {
    name: 'owner', version: '0.0.0', kernel: '^1',
    setup(ctx) {
      ctx.hooks.init.tapPromise(async () => { ctx.service('sandbox').protect?.('state/own.json', 'the owner plugin reads it at start'); });
    },
  };
  const t = await testKernel({ dir, plugins: [sandbox({ files: { read: ['.'], write: ['.'] } }), owner] });
  try {
    const box = t.kernel.service('sandbox');
    const denied = await box.enforce({ kind: 'file', op: 'write', path: 'state/own.json' });
    assert.equal(denied.allow, false);
    assert.match(denied.allow ? '' : denied.reason, /protected control file \(the owner plugin reads it at start\)/);
    box.protect?.('state/later.json', 'protected after the first decision');
    const later = await box.enforce({ kind: 'file', op: 'write', path: 'state/later.json' });
    assert.match(later.allow ? '' : later.reason, /protected after the first decision/);
    assert.equal(await box.enforce({ kind: 'file', op: 'write', path: 'state/other.json' }), { allow: true });
  } finally {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
