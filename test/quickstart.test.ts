// The README's main job, end to end through the built CLI: this repository's own
// oryx.config.ts (replay provider, sqlite, audit, memory, sandbox, tools, mcp, web) in a copy
// of the project, `oryx run` with the quickstart question, then the session and the audit
// trail it left. The model is replayed from the cassette; read_file runs for real.
import { cp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject } from '@oryxos/kernel/testing';

const repo = process.cwd();
const QUESTION = 'What is this project? Read README.md and answer in one line.';
let dir: string;

const oryx = (args: string[]) => runOryx(args, { cwd: dir });

test.before(async () => {
  dir = await tempProject('quickstart-');
  for (const f of ['oryx.config.ts', 'README.md', '.oryxos/agents', '.oryxos/cassettes', '.oryxos/memory', '.oryxos/AGENTS.md', '.oryxos/SOUL.md', '.oryxos/USER.md', '.oryxos/mcp_servers.yaml']) {
    await cp(path.join(repo, f), path.join(dir, f), { recursive: true });
  }
});
test.after(async () => { await rm(dir, { recursive: true, force: true }); });

test('the quickstart answers offline: replayed model, real read_file through the sandbox', async () => {
  const cassette = (await readFile(path.join(dir, '.oryxos/cassettes/quickstart.jsonl'), 'utf8')).split('\n').filter((l) => l.startsWith('{'));
  const expected = JSON.parse(cassette.at(-1)!).response.content;
  const r = await oryx(['run', QUESTION]);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.trim(), expected);
});

test('the run left a session and an audit trail in .oryxos/oryx.db', async () => {
  const sessions = JSON.parse((await oryx(['sessions', '--json'])).stdout);
  assert.is(sessions.items.length, 1);
  const tools = JSON.parse((await oryx(['audit', 'tools', '--json'])).stdout);
  const rows = tools.items;
  assert.is(rows.length, 1);
  assert.is(rows[0].tool, 'read_file');
  assert.is(rows[0].status, 'ok');
  const readme = await readFile(path.join(dir, 'README.md'), 'utf8');
  assert.ok(Number(rows[0].outputChars) >= readme.length, 'the real README was read');
  const llm = JSON.parse((await oryx(['audit', 'llm', '--json'])).stdout);
  assert.is(llm.items.length, 2);
});

test('oryx doctor right after the quickstart: every check passes (the web port aside: the machine may use it)', async () => {
  const r = await oryx(['doctor', '--json']);
  const items: { check: string; status: string; detail: string }[] = JSON.parse(r.stdout).items;
  const failed = items.filter((c) => c.status === 'fail' && c.check !== 'web port');
  assert.equal(failed, [], 'no failed check');
  const provider = items.find((c) => c.check === 'provider replay')!;
  assert.is(provider.status, 'ok');
  assert.match(provider.detail, `answers "${QUESTION}"`);
  if (!items.some((c) => c.status === 'fail')) assert.is(r.code, 0, r.stdout);
});

test('a question the cassette does not hold fails clearly instead of inventing an answer', async () => {
  const r = await oryx(['run', 'Something else entirely']);
  assert.is(r.code, 1);
  assert.match(r.stderr, 'ORYX_E_REPLAY_DIVERGED');
  assert.match(r.stderr, 'hint:');
});

test.run();
