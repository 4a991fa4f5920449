// One `--json` convention, checked against one schema per command: every command that takes
// --json runs through the built CLI on a project with every plugin, and what it prints must
// match its schema (lists `{items, nextCursor?}` plus only what the list is of, shows the
// object, camelCase keys); the REST API answers the same shapes. A command added with --json
// and no schema here fails the first test.
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type } from 'arktype';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kernel } from '@oryxos/kernel';
import { loadConfig } from '@oryxos/command-kit';
import { runOryx, tempProject } from '@oryxos/kernel/testing';
import { startSmtp, type TestSmtp } from '../plugins/notify/test/smtp-server.ts';
import { startOAuthFixture } from '../plugins/mcp/test/fixtures/oauth-servers.ts';

const TOKEN = 'json-shapes-token-0123456789abcdef';
const FIXTURE = path.resolve('plugins/mcp/test/fixtures/fixture-server.mjs');

// ---- the schemas: one per command -------------------------------------------------------

const list = <T extends type.Any>(item: T, extra: Record<string, string | type.Any> = {}) =>
  type({ items: item.array(), 'nextCursor?': 'string', ...extra, '+': 'reject' });
const usage = type({ inputTokens: 'number', outputTokens: 'number', '+': 'reject' });
const session = type({
  id: 'string', agent: 'string', title: 'string', createdAt: 'string', updatedAt: 'string', messageCount: 'number', turns: 'number', 'parentSessionId?': 'string',
  'external?': { door: 'string', id: 'string', '+': 'reject' }, 'tags?': 'string[]', '+': 'reject',
});
const message = type({ seq: 'number', message: { role: "'system' | 'user' | 'assistant' | 'tool'", content: 'string', '+': 'ignore' }, createdAt: 'string', '+': 'reject' });
const agent = type({
  name: 'string', description: 'string', 'provider?': 'string', 'model?': 'string', tools: 'string[]', skills: 'string[]', agents: 'string[]',
  'settings?': 'Record<string, number | boolean | string | object>', file: 'string', 'error?': { code: 'string', message: 'string' }, '+': 'reject',
});
const tool = type({ name: 'string', source: "'builtin' | 'mcp' | 'plugin'", 'plugin?': 'string', description: 'string', inputSchema: 'object', '+': 'reject' });
const source = type({ provider: 'string', name: 'string', ok: 'boolean', 'reason?': 'string', tools: 'number', '+': 'ignore' });
const nullable = <const T extends string>(t: T) => `${t} | null` as const;
const mcpServer = type({
  name: 'string', transport: "'stdio' | 'http' | 'sse'", target: 'string', origin: "'options' | 'file' | 'include'", source: 'string', state: 'string', ok: 'boolean', tools: 'number', '+': 'ignore',
});
const llmCall = type({
  id: 'number', sessionId: nullable('string'), runId: nullable('string'), agent: nullable('string'), iteration: nullable('number'), attempt: 'number',
  provider: nullable('string'), model: nullable('string'), inputTokens: nullable('number'), outputTokens: nullable('number'), cacheReadTokens: nullable('number'), cacheWriteTokens: nullable('number'), latencyMs: nullable('number'),
  finishReason: nullable('string'), status: "'ok' | 'error'", errorCode: nullable('string'), error: nullable('string'), retried: nullable('number'), createdAt: 'string',
  promptReport: type({ in: type(['string', 'number']).array(), cut: type(['string', 'number', 'string']).array(), tokens: 'number', '+': 'reject' }).or('null'), '+': 'reject',
});
const toolCall = type({
  id: 'number', sessionId: nullable('string'), runId: nullable('string'), agent: nullable('string'), iteration: nullable('number'), toolCallId: nullable('string'),
  tool: 'string', source: nullable('string'), input: nullable('string'), inputChars: nullable('number'), output: nullable('string'), outputChars: nullable('number'),
  status: "'ok' | 'error' | 'denied'", deniedReason: nullable('string'), retryable: 'number', durationMs: nullable('number'), createdAt: 'string',
  approval: type({ decision: "'approved' | 'denied'", by: 'string', 'reason?': 'string', '+': 'reject' }).or('null'), '+': 'reject',
});
const sandboxEvent = type({
  id: 'number', decision: "'allow' | 'deny'", kind: 'string', target: 'string', reason: nullable('string'), origin: nullable('string'), agent: nullable('string'),
  sessionId: nullable('string'), runId: nullable('string'), toolCallId: nullable('string'), pid: nullable('number'), process: nullable('string'), createdAt: 'string', '+': 'reject',
});
const summary = type({
  sessionId: 'string', agent: nullable('string'), llmCalls: 'number', inputTokens: 'number', outputTokens: 'number',
  cacheReadTokens: nullable('number'), cacheWriteTokens: nullable('number'), llmFailures: 'number',
  toolCalls: 'number', toolErrors: 'number', denials: 'number', lastAt: 'string', '+': 'reject',
});
const memoryEntry = type({ date: 'string', text: 'string', '+': 'ignore' });
const zones = type({ agent: 'string', path: 'string', core: memoryEntry.array(), archive: memoryEntry.array(), 'scope?': 'string', 'user?': 'string', 'session?': 'string', '+': 'reject' });
const task = type({
  name: 'string', agent: 'string', message: 'string', schedule: 'string', 'cron?': 'string', 'every?': 'string', 'everyMs?': 'number', 'at?': 'string',
  'timezone?': 'string', session: "'new' | 'task'", 'sessionId?': 'string', 'notify?': 'string', enabled: 'boolean', timeoutMs: 'number',
  overlap: "'skip' | 'queue'", catchUp: "'latest' | 'none' | 'all'", source: "'config' | 'runtime'", 'next?': 'string',
  'last?': { slot: 'string', status: 'string', 'finishedAt?': 'string', 'errorCode?': 'string' }, 'createdAt?': 'string', 'updatedAt?': 'string', '+': 'reject',
});
const execution = type({
  id: 'number', task: 'string', slot: 'string', status: 'string', firedBy: "'schedule' | 'catch-up' | 'manual'", owner: nullable('string'),
  heartbeatAt: nullable('string'), startedAt: nullable('string'), finishedAt: nullable('string'), durationMs: nullable('number'),
  sessionId: nullable('string'), runId: nullable('string'), stopReason: nullable('string'), answer: nullable('string'), errorCode: nullable('string'),
  error: nullable('string'), iterations: nullable('number'), inputTokens: nullable('number'), outputTokens: nullable('number'),
  notifyStatus: nullable('string'), notificationId: nullable('number'), '+': 'reject',
});
const runResult = type({
  runId: 'string', sessionId: 'string', agent: 'string', answer: 'string', stopReason: "'final' | 'limit' | 'budget' | 'loop' | 'length' | 'content_filter' | 'aborted' | 'error' | 'suspended'",
  'notice?': 'string', 'limit?': { name: 'string', value: 'number' }, iterations: 'number', usage,
  budget: { tokens: 'number', toolCalls: 'number', retries: 'number', ms: 'number' }, 'error?': 'object',
  'suspended?': type({ toolCallId: 'string', tool: 'string', by: 'string', reason: 'string', 'data?': 'object', '+': 'reject' }).array(),
  'approval?': { id: 'string', tool: 'string', summary: 'string', 'expiresAt?': 'string', '+': 'reject' }, '+': 'reject',
});
const approval = type({
  id: 'string', runId: 'string', sessionId: 'string', agent: 'string', tool: 'string', toolCallId: 'string', args: 'object',
  argsHash: 'string', asks: type({ 'action?': 'object', reason: 'string', '+': 'reject' }).array(), status: "'pending' | 'approved' | 'used' | 'denied' | 'expired'",
  requestedAt: 'string', 'decidedBy?': 'string', 'decidedAt?': 'string', 'reason?': 'string', 'expiresAt?': 'string', 'usedAt?': 'string', '+': 'reject',
});
const evalCheck = type({ assertion: 'string', passed: 'boolean', 'evidence?': 'string', 'skipped?': 'string', '+': 'reject' });
const evalCase = type({
  name: 'string', agent: 'string', file: 'string', line: 'number', mode: "'replay' | 'live' | 'record'", status: "'pass' | 'fail' | 'error' | 'diverged' | 'skipped'",
  runs: 'number', passed: 'number', passRate: 'number', steps: 'number', tokens: 'number', durationMs: 'number', sessions: 'string[]',
  'failure?': { assertion: 'string', evidence: 'string', '+': 'reject' }, assertions: evalCheck.array(), 'skipped?': 'string', '+': 'reject',
});
const evalSide = type({
  label: 'string', 'provider?': 'string', 'model?': 'string', 'config?': 'string', runs: 'number', passed: 'number', passRate: 'number',
  tokens: 'number', durationMs: 'number', cases: evalCase.array(), '+': 'reject',
});
const channel = type({
  name: 'string', host: 'string', port: 'number', secure: 'boolean', requireTLS: 'boolean', 'user?': 'string', password: 'string',
  from: 'string', to: 'string[]', source: "'config' | 'runtime'", '+': 'reject',
});

/** Each command that takes --json, with the shape it prints. */
const SCHEMAS: Record<string, type.Any> = {
  'init': type({ root: 'string', provider: "'openai' | 'ollama'", reason: 'string', files: 'string[]', overwritten: 'string[]', '+': 'reject' }),
  'runs': type({ items: type({
    runId: 'string', sessionId: 'string', agent: 'string', 'parentRunId?': 'string', startedAt: 'string', 'finishedAt?': 'string', stopReason: 'string',
    'notice?': 'string', iterations: 'number', toolCalls: 'number', inputTokens: 'number', outputTokens: 'number', 'cacheReadTokens?': 'number',
    'cacheWriteTokens?': 'number', 'costUsd?': 'number', retries: 'number', durationMs: 'number', 'errorCode?': 'string', 'continuation?': 'object', '+': 'reject',
  }).array(), '+': 'reject' }),
  'db:status': type({
    dialect: 'string', url: 'string', pending: 'number', newer: 'number',
    owners: type({ owner: 'string', database: 'number', 'code?': 'number', state: "'up to date' | 'pending' | 'newer' | 'not enabled'", pending: type({ version: 'number', name: 'string', '+': 'reject' }).array(), '+': 'reject' }).array(), '+': 'reject',
  }),
  'db:migrate': type({ dialect: 'string', url: 'string', owners: type({ owner: 'string', from: 'number', to: 'number', applied: 'number[]', '+': 'reject' }).array(), '+': 'reject' }),
  'db:copy': type({ from: 'string', to: 'string', rows: 'number', tables: type({ table: 'string', rows: 'number', checksum: 'string', '+': 'reject' }).array(), '+': 'reject' }),
  'db:backup': type({ file: 'string', bytes: 'number', from: 'string', '+': 'reject' }),
  'db:repair': type({
    file: 'string', 'kept?': 'string', problems: type({ kind: "'header' | 'table' | 'index' | 'file'", 'name?': 'string', detail: 'string', '+': 'reject' }).array(),
    tables: type({ table: 'string', rows: 'number', 'unreadable?': 'true', '+': 'reject' }).array(), indexes: 'string[]', '+': 'reject',
  }),
  'run': runResult,
  'agents': list(agent),
  'tools': list(tool, { 'agent?': 'string', sources: source.array() }),
  'sessions': list(session),
  'sessions:show': session.merge({ children: session.array(), messages: message.array() }),
  'sessions:delete': type({ id: 'string', deleted: 'boolean', messages: 'number', '+': 'reject' }),
  'sessions:repair': type({ id: 'string', quarantined: type({ seq: 'number', reason: 'string' }).array(), kept: 'number', '+': 'reject' }),
  'audit:llm': list(llmCall),
  'audit:tools': list(toolCall),
  'audit:sandbox': list(sandboxEvent),
  'audit:summary': list(summary),
  'memory:show': zones,
  'memory:save': type({ agent: 'string', zone: "'core' | 'archive'", path: 'string', entry: memoryEntry, duplicate: 'boolean', '+': 'reject' }),
  'memory:recall': list(memoryEntry.and({ score: 'number' }), { agent: 'string', query: 'string' }),
  'mcp:list': list(mcpServer, { 'file?': 'string', problems: type({ file: 'string', code: 'string', message: 'string', 'hint?': 'string', '+': 'reject' }).array() }),
  'mcp:tools': list(type({
    server: 'string', name: 'string', exposed: 'string', 'title?': 'string', description: 'string', 'serverDescription?': 'string', 'annotations?': 'object', inputSchema: 'object', '+': 'reject',
  }), { server: 'string' }),
  'mcp:add': type({ name: 'string', file: 'string', server: 'object', replaced: 'boolean', '+': 'reject' }),
  'mcp:remove': type({ name: 'string', file: 'string', removed: 'true', '+': 'reject' }),
  'mcp:import': type({
    file: 'string', items: type({ name: 'string', 'from?': 'string', 'server?': 'object', 'skipped?': 'string', notes: 'string[]', written: 'boolean', '+': 'reject' }).array(), '+': 'reject',
  }),
  'mcp:login': mcpServer,
  'mcp:logout': type({ server: 'string', removed: 'boolean', revoked: 'number', 'revocationError?': 'string', '+': 'reject' }),
  'mcp:resources': type({
    server: 'string', 'resources?': type({ uri: 'string', name: 'string', '+': 'ignore' }).array(), 'templates?': type({ uriTemplate: 'string', name: 'string', '+': 'ignore' }).array(),
    'contents?': type({ uri: 'string', '+': 'ignore' }).array(), '+': 'reject',
  }),
  'mcp:prompts': type({ server: 'string', 'prompts?': type({ name: 'string', arguments: 'object[]', '+': 'ignore' }).array(), 'prompt?': { messages: 'object[]', '+': 'ignore' }, '+': 'reject' }),
  'mcp:call': type({ server: 'string', tool: 'string', result: { content: 'string', isError: 'boolean', '+': 'ignore' }, '+': 'reject' }),
  'schedule:list': list(task),
  'schedule:add': task,
  'schedule:enable': task,
  'schedule:disable': task,
  'schedule:remove': type({ name: 'string', removed: 'true', '+': 'reject' }),
  'schedule:run': execution,
  'schedule:history': list(execution, { task: 'string' }),
  'approvals': list(approval),
  'approvals:approve': approval.merge({ 'run?': runResult }),
  'approvals:deny': approval.merge({ 'run?': runResult }),
  'notify:channels': list(channel),
  'notify:add': channel,
  'notify:remove': type({ name: 'string', removed: 'true', '+': 'reject' }),
  'version': type({
    cli: 'string', kernel: 'string', node: 'string', platform: 'string',
    packages: type({ name: 'string', version: 'string', type: "'core' | 'user' | 'link'", root: 'string', '+': 'reject' }).array(), '+': 'reject',
  }),
  'plugins': list(type({
    package: 'string', version: 'string', 'kernel?': 'string', 'kernelOk?': 'boolean', 'enabled?': 'boolean', from: "'bundled' | 'installed' | 'linked'",
    declaredPermissions: 'string[]', commands: 'boolean', root: 'string', '+': 'reject',
  }), { kernel: 'string' }),
  'plugins:new': type({ dir: 'string', package: 'string', kind: "'tool' | 'provider' | 'channel'", files: 'string[]', '+': 'reject' }),
  'doctor': list(type({ check: 'string', status: "'ok' | 'fail' | 'warn' | 'skip'", detail: 'string', 'code?': 'string', 'fix?': 'string', '+': 'reject' })),
  // A list of cases, or with --compare a list of the two sides.
  'eval': list(evalCase).or(list(evalSide)),
  'notify:test': type({ id: 'number', status: "'sent'", attempts: 'number', channel: 'string', to: 'string[]', 'messageId?': 'string', 'rejected?': 'string[]', '+': 'reject' }),
};

/** Keys of free-form data that keep the names they were written with (AGENT.md settings, JSON Schemas, tool arguments). */
const FREE_FORM = new Set(['settings', 'inputSchema', 'args']);

/** The first key, anywhere in `value`, that is not camelCase; undefined when all are. */
function snakeKey(value: unknown, where = '$'): string | undefined {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) { const bad = snakeKey(v, `${where}[${i}]`); if (bad) return bad; }
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (!/^[a-z][a-zA-Z0-9]*$/.test(k)) return `${where}.${k}`;
    if (FREE_FORM.has(k)) continue;
    const bad = snakeKey(v, `${where}.${k}`);
    if (bad) return bad;
  }
  return undefined;
}

function assertShape(command: string, value: unknown): void {
  const out = SCHEMAS[command]!(value);
  if (out instanceof type.errors) assert.unreachable(`oryx ${command.replaceAll(':', ' ')} --json: ${out.summary}\n${JSON.stringify(value, null, 2).slice(0, 2000)}`);
  assert.is(snakeKey(value), undefined, `oryx ${command} --json has a key that is not camelCase`);
}

// ---- the project ------------------------------------------------------------------------

let dir: string;
let smtp: TestSmtp;

test.before(async () => {
  smtp = await startSmtp();
  dir = await tempProject('json-shapes-');
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import { allowAll, scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import memory from '@oryxos/plugin-memory';
import mcp from '@oryxos/plugin-mcp';
import scheduler from '@oryxos/plugin-scheduler';
import notify from '@oryxos/plugin-notify';
import web from '@oryxos/plugin-web';
import approvals from '@oryxos/plugin-approvals';
const shout = {
  name: 'shout-tool', version: '1.0.0', kernel: '^1',
  setup(k) {
    k.registerTool({ name: 'shout', description: 'Upper-cases text', source: 'plugin',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      async execute(a) { return String(a.text).toUpperCase(); } });
  },
};
// Calls shout once per message, then answers with what it said.
const step = (req) => req.messages.at(-1).role === 'tool' ? { text: 'said ' + req.messages.at(-1).content } : { toolCalls: [{ name: 'shout', args: { text: 'hi' } }] };
export default defineConfig({
  plugins: [
    allowAll(), scripted(Array.from({ length: 10 }, () => step)), shout, sqlite(), audit(), memory(), mcp(),
    scheduler({ tasks: [{ name: 'nightly', agent: 'assistant', message: 'report', cron: '0 3 * * *' }] }),
    notify({ channels: [{ name: 'ops', host: '127.0.0.1', port: ${smtp.port}, from: 'bot@example.com', to: ['me@example.com'] }] }),
    web({ token: '${TOKEN}' }), approvals(),
  ],
});
`);
  const agent = path.join(dir, '.oryxos', 'agents', 'assistant');
  await mkdir(agent, { recursive: true });
  await writeFile(path.join(agent, 'AGENT.md'), '---\ndescription: test\ntools: [shout]\n---\nYou shout.\n');
  await mkdir(path.join(dir, '.oryxos', 'agents', 'careful'), { recursive: true });
  await writeFile(path.join(dir, '.oryxos', 'agents', 'careful', 'AGENT.md'), '---\ndescription: asks first\ntools: [shout]\napprove: [shout]\n---\nYou shout, once allowed.\n');
  await mkdir(path.join(agent, 'evals'), { recursive: true });
  await writeFile(path.join(agent, 'evals', 'shout.yaml'), 'name: shouts\ninput: hi\nexpect: { tools_called: [shout], answer_contains: HI }\n');
  await writeFile(path.join(dir, '.oryxos', 'mcp_servers.yaml'), `servers:\n  fx:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(FIXTURE)}]\n    connectTimeoutMs: 60000\n`);
});
test.after(async () => {
  await smtp.close();
  await rm(dir, { recursive: true, force: true });
});

async function json(args: string[], expectCode = 0): Promise<any> {
  const r = await runOryx([...args, '--json'], { cwd: dir });
  assert.is(r.code, expectCode, `oryx ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout);
}

const checked = new Set<string>();
async function shape(command: string, args: string[]): Promise<any> {
  const value = await json(args);
  assertShape(command, value);
  checked.add(command);
  return value;
}

test('every command with --json has a schema here', () => {
  const withJson: string[] = [];
  for (const pkg of ['plugins/cli', 'plugins/sqlite', 'plugins/audit', 'plugins/memory', 'plugins/mcp', 'plugins/scheduler', 'plugins/notify', 'plugins/web', 'plugins/postgres', 'plugins/approvals', 'plugins/eval']) {
    // A package with no commands (any more): its manifest, if one is left from an older build, is not read.
    if (!(JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { oclif?: { commands?: string } }).oclif?.commands) continue;
    const manifest = JSON.parse(readFileSync(path.join(pkg, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, { enableJsonFlag?: boolean }> };
    for (const [id, c] of Object.entries(manifest.commands)) if (c.enableJsonFlag) withJson.push(id);
  }
  assert.equal(withJson.sort(), Object.keys(SCHEMAS).sort());
});

test('every command prints its one shape; lists are {items}, shows the object, keys camelCase', async () => {
  const run = await shape('run', ['run', 'first', 'message']);
  await shape('run', ['run', '-s', run.sessionId.slice(0, 8), 'second']);
  const [sessions] = await Promise.all([
    shape('sessions', ['sessions']),
    shape('runs', ['runs', '-s', run.sessionId.slice(0, 8)]),
    shape('sessions:show', ['sessions', 'show', run.sessionId.slice(0, 8)]),
    shape('agents', ['agents']),
    shape('tools', ['tools']),
    shape('tools', ['tools', '-a', 'assistant']),
    shape('audit:llm', ['audit', 'llm']),
    shape('audit:tools', ['audit', 'tools']),
    shape('audit:sandbox', ['audit', 'sandbox']),
    shape('audit:summary', ['audit', 'summary']),
    shape('memory:save', ['memory', 'save', 'The user likes tea']),
    shape('mcp:list', ['mcp', 'list']),
    shape('mcp:tools', ['mcp', 'tools', 'fx']),
    shape('mcp:call', ['mcp', 'call', 'fx', 'echo', '--args', '{"text":"x"}']),
    shape('mcp:resources', ['mcp', 'resources', 'fx']),
    shape('mcp:resources', ['mcp', 'resources', 'fx', 'fixture://notes']),
    shape('mcp:prompts', ['mcp', 'prompts', 'fx']),
    shape('mcp:prompts', ['mcp', 'prompts', 'fx', 'greet', '--args', '{"who":"you"}']),
    shape('schedule:list', ['schedule', 'list']),
    shape('notify:channels', ['notify', 'channels']),
    shape('notify:test', ['notify', 'test', 'ops']),
    shape('db:status', ['db', 'status']),
    shape('db:backup', ['db', 'backup', path.join(dir, 'backups', 'shapes.db')]),
  ]);
  await shape('db:migrate', ['db', 'migrate']);
  await shape('db:repair', ['db', 'repair']);
  // A copy from a database with nothing in it, into the backup: the shape of a copy, nothing copied.
  const copied = await shape('db:copy', ['db', 'copy', '--from', `file:${path.join(dir, 'empty.db')}`, '--to', `file:${path.join(dir, 'backups', 'shapes.db')}`]);
  assert.equal([copied.rows, copied.tables], [0, []]);
  assert.is(sessions.items.length, 1);
  assert.is(sessions.items[0].messageCount, 8, 'both runs went to the session the short id named');
  await Promise.all([shape('memory:show', ['memory', 'show']), shape('memory:recall', ['memory', 'recall', 'tea']), shape('version', ['version'])]);
  await shape('plugins', ['plugins']);
  const evaluated = await shape('eval', ['eval', 'assistant']);
  assert.equal(evaluated.items.map((c: { status: string }) => c.status), ['pass']);
  const compared = await shape('eval', ['eval', 'assistant', '--compare', 'model-a', 'model-b']);
  assert.equal(compared.items.map((s: { label: string }) => s.label), ['model-a', 'model-b']);
  // The web port of this config (8787) may be taken on this machine: the doctor then exits 1, with the same shape.
  const doctor = await runOryx(['doctor', '--json'], { cwd: dir });
  const checks = JSON.parse(doctor.stdout);
  assertShape('doctor', checks);
  assert.is(doctor.code, checks.items.some((c: { status: string }) => c.status === 'fail') ? 1 : 0, doctor.stderr);
  checked.add('doctor');

  // Three independent chains of commands that change state, side by side.
  await Promise.all([
    (async () => {
      await shape('schedule:add', ['schedule', 'add', 'hourly', '--agent', 'assistant', '--message', 'check', '--every', '1h']);
      await shape('schedule:disable', ['schedule', 'disable', 'hourly']);
      await shape('schedule:enable', ['schedule', 'enable', 'hourly']);
      const ran = await shape('schedule:run', ['schedule', 'run', 'hourly']);
      assert.is(ran.answer, 'said HI');
      const history = await shape('schedule:history', ['schedule', 'history', 'hourly']);
      assert.is(history.items[0].firedBy, 'manual');
      await shape('schedule:remove', ['schedule', 'remove', 'hourly']);
    })(),
    (async () => {
      // Two runs of an agent whose shout needs approval stop waiting (exit 4); one is approved, one denied.
      const waiting = [];
      for (const message of ['first', 'second']) {
        const paused = await json(['run', '-a', 'careful', '--approval', 'wait', message], 4);
        assertShape('run', paused);
        waiting.push(paused.approval.id as string);
      }
      assert.equal((await shape('approvals', ['approvals'])).items.map((a: { id: string }) => a.id).sort(), [...waiting].sort());
      const approved = await shape('approvals:approve', ['approvals', 'approve', waiting[0]!.slice(0, 8)]);
      assert.equal([approved.status, approved.run.stopReason, approved.run.answer], ['approved', 'final', 'said HI']);
      const denied = await shape('approvals:deny', ['approvals', 'deny', waiting[1]!, '--reason', 'not now']);
      assert.equal([denied.reason, denied.run.stopReason], ['not now', 'final']);
      assert.equal((await shape('approvals', ['approvals', 'list', '--status', 'all'])).items.map((a: { status: string }) => a.status).sort(), ['denied', 'used'], 'the approved call ran, so its approval is used');
      await shape('notify:add', ['notify', 'add', 'pager', '--host', '127.0.0.1', '--port', String(smtp.port), '--from', 'bot@example.com', '--to', 'me@example.com']);
      await shape('notify:remove', ['notify', 'remove', 'pager']);
      await shape('sessions:repair', ['sessions', 'repair', run.sessionId.slice(0, 8)]);
      await shape('sessions:delete', ['sessions', 'delete', run.sessionId.slice(0, 8)]);
    })(),
    (async () => {
      // A remote server behind OAuth: added, signed in to (a browser that follows the redirects), signed out of, removed; and an import.
      const oauth = await startOAuthFixture();
      const state = await tempProject('json-shapes-state-');
      try {
        await shape('mcp:add', ['mcp', 'add', 'remote', oauth.url]);
        const browser = path.join(state, 'browser.mjs');
        await writeFile(browser, "let u = process.argv[2]; for (let i = 0; u && i < 5; i++) { const r = await fetch(u, { redirect: 'manual' }); const l = r.headers.get('location'); u = l && new URL(l, u).href; }\n");
        const env = { XDG_STATE_HOME: state, BROWSER: `${process.execPath} ${browser}` };
        const login = await runOryx(['mcp', 'login', 'remote', '--json'], { cwd: dir, env });
        assert.is(login.code, 0, login.stderr);
        assertShape('mcp:login', JSON.parse(login.stdout));
        checked.add('mcp:login');
        const logout = await runOryx(['mcp', 'logout', 'remote', '--json'], { cwd: dir, env });
        assert.is(logout.code, 0, logout.stderr);
        assertShape('mcp:logout', JSON.parse(logout.stdout));
        checked.add('mcp:logout');
        await shape('mcp:remove', ['mcp', 'remove', 'remote']);
        const desktop = path.join(state, 'claude_desktop_config.json');
        await writeFile(desktop, JSON.stringify({ mcpServers: { imported: { command: process.execPath, args: [FIXTURE] } } }));
        await shape('mcp:import', ['mcp', 'import', desktop]);
        await shape('mcp:remove', ['mcp', 'remove', 'imported']);
      } finally {
        await oauth.close();
        await rm(state, { recursive: true, force: true });
      }
    })(),
    (async () => {
      const other = await tempProject('json-shapes-init-');
      try {
        const init = await runOryx(['init', '--json'], { cwd: other, env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined } });
        assert.is(init.code, 0, init.stderr);
        assertShape('init', JSON.parse(init.stdout));
        checked.add('init');
        const made = await runOryx(['plugins', 'new', 'journal', '--kind', 'channel', '--json'], { cwd: other });
        assert.is(made.code, 0, made.stderr);
        assertShape('plugins:new', JSON.parse(made.stdout));
        checked.add('plugins:new');
      } finally {
        await rm(other, { recursive: true, force: true });
      }
    })(),
  ]);
  assert.equal([...checked].sort(), Object.keys(SCHEMAS).sort(), 'every schema was exercised');
});

test('the REST API answers the same shapes as the commands', async () => {
  const config = await loadConfig({ file: path.join(dir, 'oryx.config.ts') });
  const kernel = await new Kernel({ config: config! }).start();
  try {
    const server = kernel.service('web' as never) as { listen(o: { port: number }): Promise<{ url: string }> };
    const { url } = await server.listen({ port: 0 });
    const call = async (method: string, route: string, body?: unknown) => {
      const res = await fetch(`${url}${route}`, {
        method, headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
      });
      assert.ok(res.ok, `${method} ${route}: ${res.status}`);
      return res.json() as Promise<any>;
    };
    const created = await call('POST', '/api/sessions', {});
    await call('POST', `/api/sessions/${created.id}/messages`, { message: 'over REST' });
    for (const [command, route] of [
      ['agents', '/api/agents'], ['tools', '/api/tools'], ['tools', '/api/tools?agent=assistant'], ['sessions', '/api/sessions'],
      ['sessions:show', `/api/sessions/${created.id}`], ['schedule:list', '/api/tasks'],
    ] as const) {
      assertShape(command, await call('GET', route));
    }
    await call('POST', '/api/tasks', { name: 'rest-task', agent: 'assistant', message: 'check', every: '1h' });
    await (kernel.service('scheduler' as never) as { run(name: string): Promise<unknown> }).run('rest-task');
    const executions = await call('GET', '/api/tasks/rest-task/executions');
    assertShape('schedule:history', executions);
    assert.is(executions.items.length, 1);
  } finally {
    await kernel.close();
  }
});

test.run();
