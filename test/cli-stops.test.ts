// How `oryx run` ends, through the built CLI on the sqlite store: an answer (0), a limit with the
// model's tool-less answer and a note (3), an error (1), and Ctrl-C mid-model and mid-tool (130),
// after which the stored history still has a result for every call.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, testKernel, writeAgents } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';

let dir: string;
const oryx = (args: string[]) => runOryx(args, { cwd: dir });

test.before.each(async () => {
  dir = await tempProject('cli-stops-');
  // One scripted model whose behaviour the message picks; markers tell the test when a call is under way.
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from '@oryxos/kernel';
import { OryxError } from '@oryxos/provider-spec';
import { scripted, toolsPlugin, echoTool } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
const mark = (name) => writeFileSync(path.join(process.cwd(), name), '');
const wait = {
  name: 'wait', description: 'waits until aborted', source: 'plugin', inputSchema: { type: 'object' },
  execute: (_args, ctx) => new Promise((resolve) => { mark('tool-started'); ctx.signal.addEventListener('abort', () => resolve('cut short')); }),
};
const behave = (req, i) => {
  const message = req.messages.find((m) => m.role === 'user').content;
  if (message === 'loop') return req.tools.length ? { toolCalls: [{ name: 'echo', args: { text: 'step ' + i } }] } : { text: 'partial: step 3 is unfinished' };
  if (message === 'fail') return { error: new OryxError('ORYX_E_LLM_AUTH', 'bad key') };
  if (message === 'hang-model') { mark('model-started'); return { text: 'too late', delayMs: 60000 }; }
  if (message === 'hang-tool') return req.messages.at(-1).role === 'user' ? { toolCalls: [{ name: 'wait' }] } : { text: 'unreached' };
  return { text: 'answer to ' + message };
};
export default defineConfig({
  plugins: [scripted(Array.from({ length: 20 }, () => behave)), toolsPlugin(echoTool(), wait), sqlite()],
});
`);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['*'], settings: { max_iterations: 2 } } });
});
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

test('exit 0 for an answer; 3 at max_iterations with the tool-less answer and a note; 1 for an error', async () => {
  const ok = await oryx(['run', 'hello']);
  assert.is(ok.code, 0, ok.stderr);
  assert.is(ok.stdout, 'answer to hello\n');

  const limit = await oryx(['run', 'loop']);
  assert.is(limit.code, 3, limit.stderr);
  assert.is(limit.stdout, 'partial: step 3 is unfinished\n');
  assert.match(limit.stderr, /note: stopped at max_iterations \(2 model calls\); session [0-9a-f-]{36}/);

  const json = await oryx(['run', 'loop', '--json']);
  assert.is(json.code, 3);
  const result = JSON.parse(json.stdout);
  assert.equal([result.stopReason, result.answer, result.limit, result.iterations], ['limit', 'partial: step 3 is unfinished', { name: 'max_iterations', value: 2 }, 3]);
  assert.equal(Object.keys(result.budget).sort(), ['ms', 'retries', 'tokens', 'toolCalls']);
  assert.is(result.budget.toolCalls, 2);

  const failed = await oryx(['run', 'fail']);
  assert.is(failed.code, 1);
  assert.match(failed.stderr, 'error ORYX_E_LLM_AUTH: bad key');
  const failedJson = await oryx(['run', 'fail', '--json']);
  assert.is(failedJson.code, 1);
  assert.is(JSON.parse(failedJson.stdout).stopReason, 'error');

  // Every one of them has its record; --session narrows to one session.
  const runs = await oryx(['runs', '--json']);
  assert.is(runs.code, 0, runs.stderr);
  assert.equal(JSON.parse(runs.stdout).items.map((r: { stopReason: string }) => r.stopReason), ['error', 'error', 'limit', 'limit', 'final']);
  const one = JSON.parse((await oryx(['runs', '--session', result.sessionId.slice(0, 8), '--json'])).stdout).items;
  assert.equal(one.map((r: { runId: string; stopReason: string }) => [r.runId, r.stopReason]), [[result.runId, 'limit']]);
  assert.match((await oryx(['runs'])).stdout, /limit .*stopped at max_iterations/);
});

/** Starts `oryx run <message>`, sends SIGINT once `marker` exists, and resolves with the exit code and output. */
async function interrupt(message: string, marker: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.resolve('bin/run.js'), 'run', message, '--json'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
  let stdout = '', stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  for (let i = 0; i < 600 && !existsSync(path.join(dir, marker)); i++) await sleep(50);
  assert.ok(existsSync(path.join(dir, marker)), `the ${marker} marker appeared; stderr: ${stderr}`);
  child.kill('SIGINT');
  const code = await Promise.race([closed, sleep(30_000).then(() => { child.kill('SIGKILL'); return -1; })]);
  return { code, stdout, stderr };
}

test('Ctrl-C mid-model and mid-tool: exit 130, stopReason aborted, every stored call has its result', async () => {
  const model = await interrupt('hang-model', 'model-started');
  assert.is(model.code, 130, model.stderr);
  assert.is(JSON.parse(model.stdout).stopReason, 'aborted');

  const tool = await interrupt('hang-tool', 'tool-started');
  assert.is(tool.code, 130, tool.stderr);
  const result = JSON.parse(tool.stdout);
  assert.is(result.stopReason, 'aborted');

  const k = await testKernel({ plugins: [sqlite()], dir, agents: { assistant: {} } });
  try {
    const messages = (await k.kernel.service('sessions').messages(result.sessionId)).map((s) => s.message);
    assert.equal(messages.map((m) => m.role), ['user', 'assistant', 'tool']);
    const last = messages[2]!;
    assert.ok(last.role === 'tool' && last.isError && /aborted/.test(last.content), JSON.stringify(last));
    const [record] = await k.kernel.service('runRecords').list({ sessionId: result.sessionId });
    assert.equal([record!.runId, record!.stopReason], [result.runId, 'aborted']);
  } finally {
    await k.close({ keep: true });
  }
});

test.run();
