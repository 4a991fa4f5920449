// With the real sandbox plugin (@oryxos/plugin-sandbox): one server it allows, others it denies,
// and every stdio server confined by the same policy (bubblewrap).
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import audit from '@oryxos/plugin-audit';
import sandbox, { type SandboxOptions } from '@oryxos/plugin-sandbox';
import sqlite from '@oryxos/plugin-sqlite';
import { scripted, testKernel, type TestKernel } from '@oryxos/kernel/testing';
import mcp from '../src/index.ts';
import { FIXTURE, NODE, fixture, repoRoot } from './helpers.ts';

let t: TestKernel | undefined;
test.after.each(async () => { await t?.close(); t = undefined; });

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * Node may run the fixture, with exactly the fixture path (and the flags given) as arguments.
 * The server runs confined: it reads the project and the checkout (its code and the SDK).
 */
const options = (extra: Partial<SandboxOptions> = {}): SandboxOptions => ({
  files: { read: ['.', repoRoot] },
  exec: { allow: [{ command: NODE, args: [escape(FIXTURE)], rest: '--[a-z-]+|/[\\w./-]+' }] },
  ...extra,
});

test('a server the sandbox allows starts, and a scripted model calls its tool', async () => {
  const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'fx__echo', args: { text: 'allowed' } }] }, (req) => ({ text: req.messages.at(-1)!.content })]);
  t = await testKernel({ plugins: [sandbox(options()), mcp({ servers: { fx: fixture() } }), llm], agents: { assistant: { tools: ['fx__*'] } } });
  const run = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(run.answer, 'echo: allowed');
});

test('servers the sandbox does not allow are unavailable with its reason, never started, and audited', async () => {
  t = await testKernel({
    plugins: [sqlite(), audit(), sandbox(options()), mcp({ servers: {
      extra: fixture('--spawn-child', 'x'), shell: { command: '/bin/sh', args: ['-c', 'exit 0'] }, fx: fixture(),
      // An allowed program and arguments, with an environment that changes what it does.
      injected: { ...fixture(), env: { NODE_OPTIONS: `--require ${path.join(repoRoot, 'nothing.js')}` } },
    } })],
  });
  const agent = await t.kernel.agents.load('assistant');
  const names = (await t.kernel.toolsFor(agent)).map((x) => x.name);
  assert.ok(names.includes('fx__echo'));
  const status = await t.kernel.toolSourceStatus();
  for (const name of ['extra', 'shell', 'injected']) {
    const s = status.find((x) => x.name === name)!;
    assert.is(s.ok, false, name);
    assert.match(s.reason!, /may not be started: Denied by the sandbox/, name);
    // Its log says it was not started, and why; the program never ran (it would have written there).
    const log = await readFile(path.join(t.dir, '.oryxos', 'logs', `mcp-${name}.log`), 'utf8');
    assert.match(log, /oryxos: not started: MCP server ".*" may not be started: Denied by the sandbox/, name);
    assert.not.match(log, /fixture\[|connected/, `${name} was started`);
  }
  assert.match(status.find((x) => x.name === 'injected')!.reason!, /environment variable NODE_OPTIONS is not allowed/);
  const error = await t.kernel.service('mcp').connect('shell').catch((e) => e);
  assert.is(error.code, 'ORYX_E_SANDBOX_DENIED');
  // Each denied start left an audit row, with what asked and why.
  const rows = await t.kernel.service('database').query<{ decision: string; kind: string; origin: string; reason: string }>(
    "SELECT decision, kind, origin, reason FROM sandbox_events WHERE origin LIKE 'mcp server %' ORDER BY id");
  for (const name of ['extra', 'shell', 'injected']) {
    const row = rows.find((r) => r.origin === `mcp server ${name}`);
    assert.ok(row, `no audit row for ${name}`);
    assert.is(row!.decision, 'deny');
    assert.is(row!.kind, 'exec');
  }
});

test('a confined server cannot read outside its roots at start-up, and reports the error; unconfined it could', async () => {
  const outside = await mkdtemp(path.join(tmpdir(), 'oryx-mcp-outside-'));
  try {
    const secret = path.join(outside, 'secret.txt');
    await writeFile(secret, 'OUTSIDE-SECRET');
    const run = async (opts: SandboxOptions) => {
      const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'fx__startup', args: {} }] }, (req) => ({ text: req.messages.at(-1)!.content })]);
      t = await testKernel({ plugins: [sandbox(opts), mcp({ servers: { fx: fixture('--read-at-start', secret) } }), llm], agents: { assistant: { tools: ['fx__*'] } } });
      const answer = (await t.service.process({ agent: 'assistant', message: 'go' })).answer;
      await t.close();
      t = undefined;
      return answer;
    };
    const confined = await run(options());
    assert.match(confined, new RegExp(`could not read ${escape(secret)}: ENOENT`));
    assert.not.match(confined, /OUTSIDE-SECRET/);
    const open = await run(options({ confine: false }));
    assert.is(open, `read ${secret}: OUTSIDE-SECRET`);
  } finally {
    await rm(outside, { recursive: true, force: true });
  }
});

test('no agent may write a file that names the programs OryxOS starts, whether it exists yet or not: mcp_servers.yaml, .mcp.json, each include', async () => {
  t = await testKernel({ plugins: [sandbox({ files: { read: ['.'], write: ['.'] } }), mcp({ include: ['.mcp.json', '.vscode/mcp.json'] })] });
  const agent = await t.kernel.agents.load('assistant');
  const box = t.kernel.service('sandbox');
  for (const file of ['.oryxos/mcp_servers.yaml', '.mcp.json', '.vscode/mcp.json']) {
    assert.not.ok(existsSync(path.join(t.dir, file)), `${file} does not exist yet`);
    const decision = await box.enforce({ kind: 'file', op: 'write', path: path.join(t.dir, file) }, { agent });
    assert.is(decision.allow, false, file);
    assert.match((decision as { reason: string }).reason, /it lists the programs OryxOS starts/);
  }
  const other = await box.enforce({ kind: 'file', op: 'write', path: path.join(t.dir, 'notes.md') }, { agent });
  assert.is(other.allow, true, 'other files of the write root stay writable');
});

test.run();
