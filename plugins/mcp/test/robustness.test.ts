// Our own fixture server: timeouts, crashes, servers that never start, and no orphans.
import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, type TestKernel } from '@oryxos/kernel/testing';
import { NODE, fixture, mcpKernel, repoRoot, running, waitFor } from './helpers.ts';

let t: TestKernel | undefined;
test.after.each(async () => { await t?.close(); t = undefined; });

test('a call that outlives timeoutMs is cancelled and returned as a retryable error result', async () => {
  t = await mcpKernel({ servers: { slow: { ...fixture(), timeoutMs: 300 } } });
  const mcp = t.kernel.service('mcp');
  const result = await mcp.call('slow', 'sleep', { ms: 30_000 });
  assert.is(result.isError, true);
  assert.is(result.retryable, true);
  assert.match(result.content, /timed out after 300 ms/);
  // The server saw the cancellation (it logs it to its stderr log), and still answers.
  const log = mcp.status()[0]!.log!;
  await waitFor(async () => (await readFile(log, 'utf8')).includes('sleep cancelled'), 'the cancellation in the server log');
  const again = await mcp.call('slow', 'echo', { text: 'still here' }, { timeoutMs: 30_000 });
  assert.equal(again, { content: 'echo: still here', isError: false });
});

test('through the kernel: the model gets a retryable timeout result and the run goes on', async () => {
  const llm = scripted([
    { toolCalls: [{ id: 'c1', name: 'slow__sleep', args: { ms: 30_000 } }] },
    (req) => ({ text: `model saw: ${req.messages.at(-1)!.content}` }),
  ]);
  const seen: { retryable?: boolean; source?: string }[] = [];
  t = await mcpKernel({ servers: { slow: { ...fixture(), timeoutMs: 300 } } }, {
    plugins: [llm, {
      name: 'observer', version: '1.0.0', kernel: '^1',
      setup(k) { k.hooks.afterTool.tapPromise(async (r, info) => { seen.push({ retryable: r.retryable, source: info.tool?.source }); return r; }); },
    }],
  });
  const run = await t.service.process({ agent: 'assistant', message: 'sleep' });
  assert.is(run.stopReason, 'final');
  assert.match(run.answer, /model saw: .*timed out after 300 ms/);
  assert.equal(seen, [{ retryable: true, source: 'mcp' }]);
});

test('a server that crashes mid-call: retryable error result, then the next call restarts it (new PID)', async () => {
  t = await mcpKernel({ servers: { fx: fixture() } });
  const mcp = t.kernel.service('mcp');
  const first = Number((await mcp.call('fx', 'pid')).content);
  assert.ok(first > 0);
  const crash = await mcp.call('fx', 'crash');
  assert.is(crash.isError, true);
  assert.is(crash.retryable, true);
  assert.match(crash.content, /went away during the call/);
  assert.match(crash.content, /crashing mid-call as asked/); // the reason quotes the server's stderr
  assert.is(mcp.status()[0]!.state, 'closed');
  const second = Number((await mcp.call('fx', 'pid')).content);
  assert.ok(second > 0);
  assert.is.not(second, first);
  assert.not.ok(running(first));
  assert.equal(mcp.status()[0]!.state, 'ready');
});

test('a server that exits at start is reported unavailable with the reason; the other servers still work', async () => {
  t = await mcpKernel({ servers: { broken: fixture('--exit-at-start'), good: fixture() } });
  const agent = await t.kernel.agents.load('assistant');
  const tools = (await t.kernel.toolsFor(agent)).map((x) => x.name);
  assert.ok(tools.includes('good__echo'));
  assert.not.ok(tools.some((n) => n.startsWith('broken__')));
  const status = await t.kernel.toolSourceStatus();
  const broken = status.find((s) => s.name === 'broken')!;
  assert.is(broken.provider, 'mcp');
  assert.is(broken.ok, false);
  assert.match(broken.reason!, /the server process ran \(pid \d+\) and exited during start-up/);
  assert.match(broken.reason!, /exiting at start as asked/);
  assert.is(status.find((s) => s.name === 'good')!.ok, true);
  assert.ok(t.warnings.some((w) => w.includes('"broken" is unavailable')));
  // Its stderr went to its log file.
  const log = await readFile(path.join(t.dir, '.oryxos', 'logs', 'mcp-broken.log'), 'utf8');
  assert.match(log, /exiting at start as asked/);
});

test('failed starts back off: the first retry is immediate, the next waits', async () => {
  t = await mcpKernel({ servers: { broken: fixture('--exit-at-start') }, reconnect: { baseDelayMs: 60_000, maxDelayMs: 60_000 } });
  const mcp = t.kernel.service('mcp');
  const e1 = await mcp.connect('broken').catch((e) => e);
  assert.is(e1.code, 'ORYX_E_MCP_UNAVAILABLE');
  const e2 = await mcp.connect('broken').catch((e) => e);
  assert.match(e2.message, /could not be started/); // tried again at once
  const e3 = await mcp.connect('broken').catch((e) => e);
  assert.match(e3.message, /next attempt to start it is allowed in 60 s/);
  assert.is(e3.retryable, true);
  const s = mcp.status()[0]!;
  assert.is(s.failures, 2);
  assert.ok(s.retryAt && Date.parse(s.retryAt) > Date.now());
  const log = await readFile(s.log!, 'utf8');
  assert.is(log.match(/oryxos: starting/g)!.length, 2); // the third attempt did not start a process
});

test('a server slower than connectTimeoutMs is unavailable with ORYX_E_MCP_CONNECT_TIMEOUT and its process is gone', async () => {
  // 2 s: long enough for the process to have started on a loaded machine, far below its 20 s start-up
  t = await mcpKernel({ servers: { sleepy: { ...fixture('--slow-start', '20000'), connectTimeoutMs: 2000 } } });
  const mcp = t.kernel.service('mcp');
  const error = await mcp.connect('sleepy').catch((e) => e);
  assert.is(error.code, 'ORYX_E_MCP_CONNECT_TIMEOUT');
  const pids = mcp.server('sleepy').pids;
  assert.is(pids.length, 1);
  const pid = pids[0]!;
  assert.not.ok(running(pid));
});

test('close leaves no process behind: servers and their children, by PID', async () => {
  t = await mcpKernel({ servers: { a: fixture(), b: fixture('--spawn-child') } });
  const mcp = t.kernel.service('mcp');
  const pids = [Number((await mcp.call('a', 'pid')).content), Number((await mcp.call('b', 'pid')).content)];
  const child = Number((await mcp.call('b', 'child-pid')).content);
  for (const pid of [...pids, child]) assert.ok(running(pid), `pid ${pid} runs before close`);
  await t.close();
  t = undefined;
  for (const pid of pids) {
    try {
      process.kill(pid, 0);
      assert.unreachable(`server pid ${pid} still exists after close`);
    } catch (error) {
      assert.is((error as NodeJS.ErrnoException).code, 'ESRCH');
    }
  }
  assert.not.ok(running(child), `grandchild ${child} still runs after close`);
});

test('close during a slow start ends the half-started process too', async () => {
  t = await mcpKernel({ servers: { sleepy: fixture('--slow-start', '20000') } });
  const mcp = t.kernel.service('mcp');
  const pending = mcp.connect('sleepy').catch((e) => e);
  const pid = await waitFor(() => mcp.status()[0]!.pid, 'the fixture process to start');
  await t.close();
  t = undefined;
  assert.ok((await pending) instanceof Error);
  assert.not.ok(running(pid));
});

test('a process that exits without close still takes its servers and their children with it', async () => {
  const script = path.join(repoRoot, 'plugins', 'mcp', 'test', 'fixtures', 'exit-without-close.ts');
  const out = await new Promise<string>((resolve, reject) => {
    execFile(NODE, ['--import', 'tsx', script], { cwd: repoRoot, timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)));
  });
  const { pid, child, dir } = JSON.parse(out) as { pid: number; child: number; dir: string };
  try {
    assert.ok(pid > 0 && child > 0);
    await waitFor(() => !running(pid) && !running(child), 'the server and its child to end');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
