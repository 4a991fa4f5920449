// Nothing written by a read: the commands that only read (`oryx agents`, `sessions`, `tools`,
// `audit …`, `memory show|recall`, `mcp list|tools`, `db status`, `version`, `plugins`) leave the
// project folder byte-identical, with or without a database, and say there is nothing yet.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Libsql from 'libsql';
import { runOryx, scripted, tempProject, testKernel, writeAgents } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';

const READS = [
  ['agents'], ['sessions'], ['tools'], ['audit', 'llm'], ['audit', 'tools'], ['audit', 'sandbox'], ['audit', 'summary'],
  ['memory', 'show'], ['memory', 'recall', 'tea'], ['mcp', 'list'], ['mcp', 'tools', 'fx'], ['db', 'status'], ['version'], ['plugins'],
];
const FIXTURE = path.resolve('plugins/mcp/test/fixtures/fixture-server.mjs');

/**
 * Every file under `dir` with the hash of its content. MCP server logs (`.oryxos/logs/mcp-*.log`)
 * are left out: every start of a server writes its log, a read command's too, because that is
 * where the cause of a failed start is (plugins/mcp README); they are diagnostics, not state.
 */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (/^mcp-.*\.log$/.test(entry.name) && path.basename(entry.parentPath) === 'logs') continue;
    files[path.relative(dir, file)] = createHash('sha256').update(await readFile(file)).digest('hex');
  }
  return files;
}

async function project(): Promise<string> {
  const dir = await tempProject('read-only-');
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import { allowAll, scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import memory from '@oryxos/plugin-memory';
import mcp from '@oryxos/plugin-mcp';
export default defineConfig({ plugins: [allowAll(), scripted([{ text: 'hello back' }]), sqlite(), audit(), memory(), mcp()] });
`);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: {} });
  // A stdio MCP server: the read commands start it (its log is written, and left out of the snapshots).
  await writeFile(path.join(dir, '.oryxos', 'mcp_servers.yaml'), `servers:\n  fx:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(FIXTURE)}]\n    connectTimeoutMs: 60000\n`);
  return dir;
}

test('in a project with no database, every read command creates nothing and says there is nothing yet', async () => {
  const dir = await project();
  try {
    const before = await snapshot(dir);
    assert.not.ok(Object.keys(before).some((f) => f.endsWith('.db')), 'no database to start with');
    const results = await Promise.all(READS.map((args) => runOryx(args, { cwd: dir })));
    for (const [i, r] of results.entries()) assert.is(r.code, 0, `${READS[i]!.join(' ')}: ${r.stderr}`);
    assert.equal(await snapshot(dir), before, 'the folder is byte-identical');
    const said = Object.fromEntries(READS.map((args, i) => [args.join(' '), results[i]!.stdout]));
    assert.match(said.sessions!, 'No sessions yet');
    assert.match(said['audit llm']!, 'No model calls recorded');
    assert.match(said['audit summary']!, 'Nothing recorded yet');
    assert.match(said['mcp tools fx']!, 'echo', 'the MCP server was started and listed its tools');
    const json = await runOryx(['sessions', '--json'], { cwd: dir });
    assert.equal(JSON.parse(json.stdout), { items: [] });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('in a folder that is no project (no config, no .oryxos), a command that fails there leaves no file; db migrate creates the database', async () => {
  // Outside the repository: its oryx.config.ts must not be found from here.
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-no-project-'));
  try {
    const run = await runOryx(['run', 'hi'], { cwd: dir });
    assert.is(run.code, 1);
    assert.match(run.stderr, 'ORYX_E_AGENT_NOT_FOUND');
    const web = await runOryx(['web', '--port', '0'], { cwd: dir });
    assert.is(web.code, 1);
    assert.match(web.stderr, 'ORYX_E_WEB_NOT_ENABLED');
    const removed = await runOryx(['sessions', 'delete', 'abcd'], { cwd: dir });
    assert.match(removed.stderr, 'ORYX_E_SESSION_NOT_FOUND');
    assert.equal(await readdir(dir), [], 'no .oryxos, no database');
    const migrated = await runOryx(['db', 'migrate', '--json'], { cwd: dir });
    assert.is(migrated.code, 0, migrated.stderr);
    assert.ok(existsSync(path.join(dir, '.oryxos', 'oryx.db')), 'asked for by name, the database is made');
    assert.ok(JSON.parse(migrated.stdout).owners.some((o: { owner: string; to: number }) => o.owner === 'sqlite' && o.to > 0));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('with a database, read commands see its rows and add no file; a run is what creates the database', async () => {
  const dir = await project();
  try {
    const ran = await runOryx(['run', 'hi', '--json'], { cwd: dir });
    assert.is(ran.code, 0, ran.stderr);
    const sessionId = JSON.parse(ran.stdout).sessionId as string;
    const before = Object.keys(await snapshot(dir)).sort();
    assert.ok(before.includes(path.join('.oryxos', 'oryx.db')), 'the run created the database');
    const results = await Promise.all(READS.map((args) => runOryx(args, { cwd: dir })));
    for (const [i, r] of results.entries()) assert.is(r.code, 0, `${READS[i]!.join(' ')}: ${r.stderr}`);
    assert.equal(Object.keys(await snapshot(dir)).sort(), before, 'no file added or removed');
    const sessions = JSON.parse((await runOryx(['sessions', '--json'], { cwd: dir })).stdout);
    assert.equal(sessions.items.map((s: { id: string }) => s.id), [sessionId]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a read command that queries no database never opens it: agents and tools list over a newer one, sessions refuses it', async () => {
  const dir = await project();
  try {
    // Written by "the future": schema version 99.
    const file = path.join(dir, '.oryxos', 'oryx.db');
    const future = new Libsql(file);
    future.exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);
      INSERT INTO schema_migrations VALUES (1, 'sessions', 'x'), (99, 'future', 'x');`);
    future.close();
    const before = await snapshot(dir);
    const agents = await runOryx(['agents'], { cwd: dir });
    assert.is(agents.code, 0, agents.stderr);
    assert.match(agents.stdout, /^assistant\s/m);
    const tools = await runOryx(['tools'], { cwd: dir });
    assert.is(tools.code, 0, tools.stderr);
    const sessions = await runOryx(['sessions'], { cwd: dir });
    assert.is(sessions.code, 1);
    assert.match(sessions.stderr, 'ORYX_E_SQLITE_SCHEMA_NEWER');
    assert.match(sessions.stderr, 'schema version 99');
    assert.equal(await snapshot(dir), before, 'the database is untouched');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a read-only kernel migrates at its first query, its own tables then those the other plugins asked for at init', async () => {
  const dir = await tempProject('read-only-open-');
  const tables = () => {
    const db = new Libsql(path.join(dir, '.oryxos', 'oryx.db'));
    try {
      return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
    } finally {
      db.close();
    }
  };
  try {
    // A database written without the audit plugin: no audit tables.
    await (await testKernel({ plugins: [scripted([]), sqlite()], dir })).close({ keep: true });
    assert.ok(tables().includes('sessions') && !tables().includes('llm_calls'));
    const t = await testKernel({ plugins: [scripted([]), sqlite(), audit()], dir, readOnly: true });
    try {
      assert.not.ok(tables().includes('llm_calls'), 'nothing applied at start');
      assert.equal((await t.kernel.service('sessions').list()).items, []);
      assert.ok(tables().includes('llm_calls') && tables().includes('tool_invocations'), 'the audit migrations ran with the first query');
      assert.equal(await t.kernel.service('database').query('SELECT COUNT(*) AS n FROM llm_calls'), [{ n: 0 }]);
    } finally {
      await t.close({ keep: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
