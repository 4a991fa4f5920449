import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OryxError } from '@oryxos/provider-spec';
import { scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import sqlite, { openDatabase } from '@oryxos/plugin-sqlite';
import path from 'node:path';
import type { Plugin } from '@oryxos/kernel';
import audit, { type LlmCallRow, type ToolInvocationRow } from '../src/index.ts';
import { promptReportOf } from '../src/queries.ts';
import { big, echo, fail, guarded, rejection, tempDir } from './helpers.ts';

const allTools = toolsPlugin(echo, fail, guarded, big);

test('a run with a success, a tool error, a denial and an unknown tool: one row per model call and per tool call', async () => {
  const llm = scripted([
    { toolCalls: [
      { id: 'c1', name: 'echo', args: { text: 'hi' } },
      { id: 'c2', name: 'fail' },
      { id: 'c3', name: 'guarded', args: { path: '/etc/passwd' } },
      { id: 'c4', name: 'nope', args: {} },
    ], usage: { inputTokens: 100, outputTokens: 20 } },
    { text: 'done', usage: { inputTokens: 150, outputTokens: 7 } },
  ]);
  const t = await testKernel({ plugins: [llm, allTools, sqlite(), audit()] });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'done');
    const db = t.kernel.service('database');
    const calls = await db.query<LlmCallRow>('SELECT * FROM llm_calls ORDER BY id');
    assert.equal(calls.map((c) => [c.iteration, c.attempt, c.status, c.input_tokens, c.output_tokens, c.finish_reason]), [
      [1, 1, 'ok', 100, 20, 'tool_calls'],
      [2, 1, 'ok', 150, 7, 'stop'],
    ]);
    for (const c of calls) {
      assert.is(c.session_id, r.sessionId);
      assert.is(c.agent, 'assistant');
      assert.is(c.provider, 'scripted');
      assert.is(c.model, 'scripted-model');
      assert.ok(typeof c.latency_ms === 'number' && c.latency_ms >= 0);
      assert.ok(!Number.isNaN(Date.parse(c.created_at)));
    }

    // The four calls of one response run concurrently: each row is written as its call ends.
    const tools = await db.query<ToolInvocationRow>('SELECT * FROM tool_invocations ORDER BY tool_call_id');
    assert.equal(tools.map((x) => [x.tool_call_id, x.tool, x.source, x.status]), [
      ['c1', 'echo', 'plugin', 'ok'],
      ['c2', 'fail', 'builtin', 'error'],
      ['c3', 'guarded', 'mcp', 'denied'],
      ['c4', 'nope', null, 'error'],
    ]);
    const [ok, err, denied, unknown] = tools as [ToolInvocationRow, ToolInvocationRow, ToolInvocationRow, ToolInvocationRow];
    assert.equal(JSON.parse(ok.input!), { text: 'hi' });
    assert.is(ok.output, 'echo: hi');
    assert.is(ok.output_chars, 'echo: hi'.length);
    assert.is(ok.denied_reason, null);
    assert.match(err.output!, 'kaput');
    assert.is(err.retryable, 0);
    assert.match(denied.denied_reason!, 'no sandbox plugin');
    assert.match(denied.output!, 'Denied by the sandbox');
    assert.match(unknown.output!, 'Unknown tool "nope"');
    for (const x of tools) {
      assert.is(x.session_id, r.sessionId);
      assert.is(x.iteration, 1);
      assert.is(x.agent, 'assistant');
      assert.ok(typeof x.duration_ms === 'number');
    }
  } finally {
    await t.close();
  }
});

test('every llm_calls row keeps its prompt report: each section\'s size, and what was cut and why', async () => {
  const llm = scripted([{ toolCalls: [{ id: 'b1', name: 'big', args: { n: 6000 } }] }, { text: 'done' }]);
  const t = await testKernel({ plugins: [llm, allTools, sqlite(), audit()], agents: { assistant: { tools: ['big'], settings: { context_tokens: 1000 } } } });
  try {
    await t.service.process({ agent: 'assistant', message: 'go' });
    const calls = await t.kernel.service('database').query<LlmCallRow>('SELECT * FROM llm_calls ORDER BY id');
    const [first, second] = calls.map((c) => promptReportOf(c)!);
    assert.ok(first && second, 'both rows have a report');
    assert.equal(first.cut, [], 'nothing cut before the big result');
    assert.ok(first.in.some(([section, chars]) => section === 'history' && chars > 0));
    assert.ok(first.tokens > 0);
    assert.is(second.cut.length, 1);
    const [section, chars, reason] = second.cut[0]!;
    assert.is(section, 'tool:big');
    assert.is(chars, 6000 - 2000, 'a tool result over a quarter of the budget keeps 2,000 characters at least');
    assert.match(reason, 'context_tokens');
  } finally {
    await t.close();
  }
});

test('a failed model call that is retried: an error row (retried) then an ok row; a final failure is recorded too', async () => {
  const llm = scripted([
    { error: new OryxError('ORYX_E_LLM_SERVER', 'boom', { retryable: true }) },
    { text: 'recovered' },
    { error: new OryxError('ORYX_E_LLM_AUTH', 'bad key', { retryable: false }) },
  ]);
  const t = await testKernel({ plugins: [llm, sqlite(), audit()] });
  try {
    const r1 = await t.service.process({ agent: 'assistant', message: 'one' });
    assert.is(r1.answer, 'recovered');
    const r2 = await t.service.process({ agent: 'assistant', message: 'two' });
    assert.is(r2.stopReason, 'error');
    const rows = await t.kernel.service('database').query<LlmCallRow>('SELECT * FROM llm_calls ORDER BY id');
    assert.equal(rows.map((c) => [c.attempt, c.status, c.error_code, c.error, c.retried]), [
      [1, 'error', 'ORYX_E_LLM_SERVER', 'boom', 1],
      [2, 'ok', null, null, null],
      [1, 'error', 'ORYX_E_LLM_AUTH', 'bad key', 0],
    ]);
    assert.equal(rows.map((c) => c.iteration), [1, 1, 1]);
    assert.is(rows[0]!.input_tokens, null);
  } finally {
    await t.close();
  }
});

test('secrets are redacted before anything is written: defaults, literal strings and patterns', async () => {
  const key = 'sk-proj-abcdefghijklmnopqrstuvwx1234';
  const llm = scripted([
    { error: new OryxError('ORYX_E_LLM_AUTH', `Incorrect API key provided: ${key}`, { retryable: true }) },
    { toolCalls: [{ id: 'c1', name: 'echo', args: { text: `use ${key} and hunter2 and ticket CORP-12345` } }] },
    { toolCalls: [{ id: 'c2', name: 'echo', args: { text: 'Authorization: Bearer eyJhbGciOi.payload.sig api_key=AKIAABCDEFGHIJKLMNOP' } }] },
    { text: 'ok' },
  ]);
  const t = await testKernel({ plugins: [llm, allTools, sqlite(), audit({ redact: ['hunter2', /CORP-\d+/] })] });
  try {
    await t.service.process({ agent: 'assistant', message: 'go' });
    const db = t.kernel.service('database');
    const written = JSON.stringify([
      await db.query('SELECT * FROM llm_calls'),
      await db.query('SELECT * FROM tool_invocations'),
    ]);
    for (const secret of [key, 'hunter2', 'CORP-12345', 'eyJhbGciOi', 'AKIAABCDEFGHIJKLMNOP']) {
      assert.not.ok(written.includes(secret), `${secret} was written`);
    }
    const [first] = await db.query<ToolInvocationRow>("SELECT * FROM tool_invocations WHERE tool_call_id = 'c1'");
    assert.equal(JSON.parse(first!.input!), { text: 'use [REDACTED] and [REDACTED] and ticket [REDACTED]' });
    assert.is(first!.output, 'echo: use [REDACTED] and [REDACTED] and ticket [REDACTED]');
    assert.is(first!.output_chars, `echo: use ${key} and hunter2 and ticket CORP-12345`.length, 'the length recorded is the original one');
    const [second] = await db.query<ToolInvocationRow>("SELECT * FROM tool_invocations WHERE tool_call_id = 'c2'");
    assert.is(second!.output, 'echo: Authorization: Bearer [REDACTED] api_key=[REDACTED]');
    const [err] = await db.query<LlmCallRow>("SELECT * FROM llm_calls WHERE status = 'error'");
    assert.is(err!.error, 'Incorrect API key provided: [REDACTED]');
    // the session itself keeps what the model said: redaction is for the audit trail only
    const stored = await t.kernel.service('sessions').messages((await t.kernel.service('sessions').list()).items[0]!.id);
    assert.ok(JSON.stringify(stored).includes('hunter2'));
  } finally {
    await t.close();
  }
});

test('a redact function runs after the defaults; redactDefaults: false turns the defaults off', async () => {
  const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'sk-abcdefghijklmnopqrstuvwx secret-word' } }] }, { text: 'ok' }]);
  const t = await testKernel({ plugins: [llm, allTools, sqlite(), audit({ redactDefaults: false, redact: (s) => s.replaceAll('secret-word', '***') })] });
  try {
    await t.service.process({ agent: 'assistant', message: 'go' });
    const [row] = await t.kernel.service('database').query<ToolInvocationRow>('SELECT output FROM tool_invocations');
    assert.is(row!.output, 'echo: sk-abcdefghijklmnopqrstuvwx ***');
  } finally {
    await t.close();
  }
});

test('long output is capped at maxOutputChars with its full length recorded', async () => {
  const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'big', args: { n: 20_000 } }] }, { text: 'ok' }]);
  const t = await testKernel({ plugins: [llm, allTools, sqlite(), audit({ maxOutputChars: 100 })] });
  try {
    await t.service.process({ agent: 'assistant', message: 'go' });
    const [row] = await t.kernel.service('database').query<ToolInvocationRow>('SELECT output, output_chars FROM tool_invocations');
    assert.is(row!.output!.length, 100);
    assert.is(row!.output_chars, 20_000);
    // the model still got all of it
    assert.is((llm.requests[1]!.messages.at(-1)!.content as string).length, 20_000);
  } finally {
    await t.close();
  }
});

test('retentionDays prunes older rows at start and keeps recent ones', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const t1 = await testKernel({ plugins: [scripted([]), sqlite(), audit()], dir });
    const db1 = t1.kernel.service('database');
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
    const recent = new Date(Date.now() - 2 * 86_400_000).toISOString();
    for (const at of [old, recent]) {
      await db1.execute("INSERT INTO llm_calls (session_id, status, created_at) VALUES ('s', 'ok', ?)", [at]);
      await db1.execute("INSERT INTO tool_invocations (session_id, tool, status, created_at) VALUES ('s', 'echo', 'ok', ?)", [at]);
    }
    // a table that holds only old rows is emptied
    await db1.execute("INSERT INTO sandbox_events (decision, kind, target, created_at) VALUES ('deny', 'file', '/x', ?), ('deny', 'file', '/y', ?)", [old, old]);
    await t1.close({ keep: true });
    const t2 = await testKernel({ plugins: [scripted([]), sqlite(), audit({ retentionDays: 30 })], dir });
    try {
      const db = t2.kernel.service('database');
      assert.equal((await db.query<{ created_at: string }>('SELECT created_at FROM llm_calls')).map((r) => r.created_at), [recent]);
      assert.equal((await db.query<{ created_at: string }>('SELECT created_at FROM tool_invocations')).map((r) => r.created_at), [recent]);
      assert.equal(await db.query('SELECT id FROM sandbox_events'), []);
    } finally {
      await t2.close({ keep: true });
    }
  } finally {
    await cleanup();
  }
});

test('a database from audit schema version 2 migrates to 3, 4, 5 and 6: its rows stay, the created_at indexes of the per-step tables go, the tool-call and session index comes, the cache columns come', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const t1 = await testKernel({ plugins: [scripted([]), sqlite(), audit()], dir });
    const db1 = t1.kernel.service('database');
    // What version 2 left: both indexes, no tool-call index, no version 3, 4 or 5 recorded, and rows.
    await db1.execute('CREATE INDEX llm_calls_by_created ON llm_calls (created_at)');
    await db1.execute('CREATE INDEX tool_invocations_by_created ON tool_invocations (created_at)');
    await db1.execute('DROP INDEX sandbox_events_by_call_session');
    await db1.execute('ALTER TABLE llm_calls DROP COLUMN cache_read_tokens');
    await db1.execute('ALTER TABLE llm_calls DROP COLUMN cache_write_tokens');
    await db1.execute("DELETE FROM schema_migrations WHERE owner = 'audit' AND version >= 3");
    await db1.execute("INSERT INTO llm_calls (session_id, status, created_at) VALUES ('s', 'ok', '2026-01-01T00:00:00.000Z')");
    await db1.execute("INSERT INTO tool_invocations (session_id, tool, status, created_at) VALUES ('s', 'echo', 'denied', '2026-01-01T00:00:00.000Z')");
    await t1.close({ keep: true });
    const t2 = await testKernel({ plugins: [scripted([]), sqlite(), audit()], dir });
    try {
      const db = t2.kernel.service('database');
      const versions = await db.query<{ version: number }>("SELECT version FROM schema_migrations WHERE owner = 'audit' ORDER BY version");
      assert.equal(versions.map((v) => Number(v.version)), [1, 2, 3, 4, 5, 6]);
      assert.equal(await db.query('SELECT cache_read_tokens, cache_write_tokens FROM llm_calls'), [{ cache_read_tokens: null, cache_write_tokens: null }], 'not reported: null, not 0');
      const indexes = await db.query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('llm_calls', 'tool_invocations', 'sandbox_events') ORDER BY name");
      assert.equal(indexes.map((i) => i.name), ['llm_calls_by_session', 'sandbox_events_by_call_session', 'sandbox_events_by_created', 'tool_invocations_by_session']);
      assert.equal(await db.query('SELECT session_id, status FROM llm_calls'), [{ session_id: 's', status: 'ok' }]);
      assert.equal(await db.query('SELECT tool, status FROM tool_invocations'), [{ tool: 'echo', status: 'denied' }]);
    } finally {
      await t2.close({ keep: true });
    }
  } finally {
    await cleanup();
  }
});

test('an audit write that fails is logged with ORYX_E_AUDIT_WRITE and the run goes on', async () => {
  const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'hi' } }] }, { text: 'still fine' }]);
  const t = await testKernel({ plugins: [llm, allTools, sqlite(), audit()] });
  try {
    await t.kernel.service('database').execute('DROP TABLE tool_invocations');
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'still fine');
    assert.ok(t.warnings.some((w) => w.includes('ORYX_E_AUDIT_WRITE') && w.includes('tool_invocations')), t.warnings.join('\n'));
    assert.is((await t.kernel.service('database').query('SELECT * FROM llm_calls')).length, 2, 'the other table still gets its rows');
  } finally {
    await t.close();
  }
});

test('the async driver (@libsql/client on a file: URL) records the same rows', async () => {
  const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'hi' } }] }, { text: 'ok' }]);
  const t = await testKernel({ plugins: [llm, allTools, sqlite({ driver: 'client' }), audit()] });
  try {
    await t.service.process({ agent: 'assistant', message: 'go' });
    const db = t.kernel.service('database');
    assert.equal((await db.query<LlmCallRow>('SELECT status FROM llm_calls')).map((r) => r.status), ['ok', 'ok']);
    assert.equal((await db.query<ToolInvocationRow>('SELECT tool, status FROM tool_invocations')), [{ tool: 'echo', status: 'ok' }]);
  } finally {
    await t.close();
  }
});

test('audit needs the database service (whatever plugin provides it, listed before or after), and validates its options at once', async () => {
  const missing = await rejection(() => testKernel({ plugins: [scripted([]), audit()] }));
  assert.is(missing.code, 'ORYX_E_PLUGIN_MISSING_DEPENDENCY');
  assert.match(missing.message, 'Plugin "audit" requires the "database" service');
  assert.match(missing.hint, '@oryxos/plugin-audit');
  const after = await testKernel({ plugins: [scripted([]), audit(), sqlite()] });
  try {
    const owners = await after.kernel.service('database').query<{ owner: string; version: number }>("SELECT owner, version FROM schema_migrations WHERE owner = 'audit' ORDER BY version");
    assert.equal(owners.map((o) => `${o.owner} ${o.version}`), ['audit 1', 'audit 2', 'audit 3', 'audit 4', 'audit 5', 'audit 6'], 'audit listed before sqlite still migrates its tables');
  } finally {
    await after.close();
  }
  for (const [options, field] of [
    [{ retentionDays: 0 }, 'retentionDays'], [{ redact: 'sk-' }, 'redact'], [{ redact: [1] }, 'redact'],
    [{ maxOutputChars: 1.5 }, 'maxOutputChars'], [{ redactDefault: false }, 'redactDefault'],
  ] as const) {
    const error = await rejection(() => audit(options as never));
    assert.is(error.code, 'ORYX_E_AUDIT_OPTIONS', JSON.stringify(options));
    assert.match(error.message, field);
  }
  assert.not.throws(() => audit());
});

test('a database without the audit tables is refused at start with ORYX_E_AUDIT_SCHEMA', async () => {
  const { dir, cleanup } = await tempDir();
  const db = await openDatabase({ kind: 'file', path: path.join(dir, 'bare.db') }, { driver: 'libsql', busyTimeoutMs: 1000 });
  // a stand-in "sqlite" plugin whose database never ran the migrations
  const bare: Plugin = { name: 'sqlite', version: '1.0.0', kernel: '^1', provides: ['database'], setup(k) { k.provide('database', Object.assign(db, { migrate: async () => [] as number[] }) as never); } };
  try {
    const error = await rejection(() => testKernel({ plugins: [scripted([]), bare, audit()], dir }));
    assert.is(error.cause?.code, 'ORYX_E_AUDIT_SCHEMA');
    assert.match(error.message, 'llm_calls');
    assert.match(error.hint, 'sqlite()');
  } finally {
    await db.close();
    await cleanup();
  }
});

test.run();
