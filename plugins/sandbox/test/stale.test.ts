// What a killed OryxOS leaves, removed at the next start: a process is SIGKILLed while a
// confined program with network runs (so it holds its proxy socket folder in the temp folder,
// and its placeholders in the project); the folder and the placeholders stay behind. The next
// process that loads the sandbox removes both, and nothing of a process still running.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { prepareExec } from '@oryxos/plugin-kit';
import { testKernel } from '@oryxos/kernel/testing';
import sandbox from '../src/index.ts';

const HOLD = path.join(import.meta.dirname, 'fixtures', 'hold-launch.ts');

/** Starts hold-launch.ts on the project; resolves with the child and its proxy folder once its program runs. */
function hold(root: string): Promise<{ child: ReturnType<typeof spawn>; proxyDir: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', HOLD, root], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`hold-launch exited (${code}): ${out}`)));
    child.stdout!.on('data', (d) => { out += d; const m = /READY (\S+)/.exec(out); if (m) resolve({ child, proxyDir: m[1]! }); });
  });
}

test('a SIGKILLed process: its proxy folder and placeholders are gone after the next start; a running one keeps its own', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'oryx-stale-'));
  await writeFile(path.join(root, 'oryx.config.mjs'), 'export default { plugins: [] };\n');
  const killed = await hold(root);
  const alive = await hold(root);
  try {
    assert.ok(existsSync(killed.proxyDir), 'the proxy folder exists while the program runs');
    assert.match(path.basename(killed.proxyDir), new RegExp(`^oryx-proxy-${killed.child.pid}-`));
    assert.ok(existsSync(path.join(root, 'node_modules')), 'a placeholder is held');
    const exited = new Promise((r) => killed.child.once('exit', r));
    killed.child.kill('SIGKILL');
    await exited;
    assert.ok(existsSync(killed.proxyDir), 'SIGKILL leaves the folder behind');

    // The next start: the sandbox loads, and the first launch waits for the cleanup.
    const t = await testKernel({ dir: root, configFile: path.join(root, 'oryx.config.mjs'), plugins: [sandbox({ files: { read: ['.'] }, exec: { allow: ['true'] } })], agents: { a: { tools: [] } } });
    try {
      const launch = await prepareExec(t.kernel, { command: 'true', args: [] });
      await launch.done();
    } finally {
      await t.close({ keep: true });
    }
    assert.not.ok(existsSync(killed.proxyDir), "the killed process's proxy folder was removed");
    assert.ok(existsSync(alive.proxyDir), "a running process's proxy folder is left alone");
    assert.ok(existsSync(path.join(root, 'node_modules')), 'the placeholder the running process holds stays');

    const exitedToo = new Promise((r) => alive.child.once('exit', r));
    alive.child.kill('SIGKILL');
    await exitedToo;
    const t2 = await testKernel({ dir: root, configFile: path.join(root, 'oryx.config.mjs'), plugins: [sandbox({ files: { read: ['.'] }, exec: { allow: ['true'] } })], agents: { a: { tools: [] } } });
    try {
      const launch = await prepareExec(t2.kernel, { command: 'true', args: [] });
      await launch.done();
    } finally {
      await t2.close({ keep: true });
    }
    assert.not.ok(existsSync(alive.proxyDir));
    assert.equal((await readdir(root)).sort(), ['.oryxos', 'oryx.config.mjs'], 'no placeholder is left in the project');
  } finally {
    killed.child.kill('SIGKILL');
    alive.child.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  }
});

test.run();
