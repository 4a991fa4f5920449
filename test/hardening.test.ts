// Nothing a model, a tool or an MCP server sends can hang `oryx web`, flood the store, leak a
// secret or forge what a person reads. The built CLI, a malicious MCP server over stdio and
// HTTP (test/hostile-project.ts), a scripted model. /health is polled during every attack: it
// must answer each time (the latencies are in bench/README.md, from bench/hardening.ts).
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx } from '@oryxos/kernel/testing';
import { healthDuring, hostileProject, SECRET, SECRET_ENV, type HostileProject } from './hostile-project.ts';

let p: HostileProject;
const oryx = (args: string[]) => runOryx(args, { cwd: p.dir, env: SECRET_ENV });
/** Every byte a terminal would act on: C0 controls but newline, DEL, and C1 controls (as UTF-8). */
const RAW_CONTROLS = /[\x00-\x09\x0b-\x1f\x7f\u0080-\u009f]/;
const ANSI_SHOWN = '\\x1b]0;pwned\\x07\\x1b[2K\\x1b[1A\\x1b]52;c;cHduZWQ=\\x07clean';

test.before(async () => {
  p = await hostileProject();
  await writeFile(path.join(p.dir, 'big.txt'), 'a'.repeat(2 * 1024 * 1024));
});
test.after(async () => {
  await p?.close();
  if (p) await rm(p.dir, { recursive: true, force: true });
});

const attacks: [string, string, string, string][] = [
  ['stdio: a catastrophic pattern with a 31-character argument', 'stdio', `evil__redos ${JSON.stringify({ text: `${'a'.repeat(31)}!` })}`, 'must match pattern "^(a+)+$"'],
  ['stdio: a tool whose schema is invalid', 'stdio', 'evil__bad_required {}', 'Unknown tool "evil__bad_required"'],
  ['stdio: a 50 MB result', 'stdio', 'evil__huge {"mb":50}', 'more than 10485760 bytes'],
  ['http: a catastrophic pattern', 'http', `hevil__redos ${JSON.stringify({ text: `${'a'.repeat(31)}!` })}`, 'must match pattern "^(a+)+$"'],
  ['http: a tool whose schema is invalid', 'http', 'hevil__bad_pattern {}', 'Unknown tool "hevil__bad_pattern"'],
  ['http: a 50 MB result', 'http', 'hevil__huge {"mb":50}', 'more than 10485760 bytes'],
  ['a server offering 10,000 tools', 'many', 'many__filler_1 {}', 'Unknown tool "many__filler_1"'],
  ['edit_file: 2 MB of "a" and a 30,000-character old text', 'files', `edit_file ${JSON.stringify({ path: 'big.txt', old: 'a'.repeat(30_000), new: 'b' })}`, 'occurs 2067153 times'],
];

for (const [name, agent, message, expected] of attacks) {
  test(`/health answers all the while: ${name}`, async () => {
    const { result, latencies, failures } = await healthDuring(p.web.url, p.run(agent, message));
    assert.is(result.status, 200, JSON.stringify(result.body));
    assert.match(String(result.body.answer), expected);
    assert.is(failures, 0);
    assert.ok(latencies.length >= 1, 'polled at least once during the run');
    // The old freeze was 100 s for one call; this bound only catches a blocked event loop.
    assert.ok(Math.max(...latencies) < 5_000, `slowest /health: ${Math.round(Math.max(...latencies))} ms`);
  });
}

test('the session stores what the model saw, not 50 MB; the audit records the full size', async () => {
  const { body } = await p.run('stdio', 'evil__huge {"mb":2}');
  const shown = await oryx(['sessions', 'show', body.sessionId, '--json']);
  const stored = JSON.parse(shown.stdout).messages.find((m: { message: { role: string } }) => m.message.role === 'tool').message.content as string;
  assert.ok(stored.length <= 20_000, `${stored.length}`);
  const rows = JSON.parse((await oryx(['audit', 'tools', '--session', body.sessionId, '--json'])).stdout);
  assert.is(rows.items[0].outputChars, 2 * 1024 * 1024);
});

test('${VAR} secrets: absent from the server log, oryx mcp list, tool results, stored messages, the audit and oryx web output', async () => {
  const { body } = await p.run('stdio', 'evil__argv {}');
  assert.match(body.answer, '--token ***');
  const log = await readFile(path.join(p.dir, '.oryxos', 'logs', 'mcp-evil.log'), 'utf8');
  assert.match(log, 'argv: --token ***');
  const list = await oryx(['mcp', 'list']);
  const listJson = await oryx(['mcp', 'list', '--json']);
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, 'evil: tool "bad_required" of MCP server "evil" has an invalid input schema: required must be array; the tool is left out');
  assert.match(JSON.parse(listJson.stdout).items.find((s: { name: string }) => s.name === 'evil').target, '--token ***');
  const session = await oryx(['sessions', 'show', body.sessionId]);
  const audit = await oryx(['audit', 'tools', '--json']);
  for (const [what, text] of Object.entries({ log, list: list.stdout + list.stderr, listJson: listJson.stdout, session: session.stdout, audit: audit.stdout, web: p.web.stdout() + p.web.stderr() })) {
    assert.not.ok(text.includes(SECRET), `the secret leaked into ${what}`);
  }
});

test('.oryxos/logs is denied to tools, reads included', async () => {
  const { body } = await p.run('files', 'read_file {"path":".oryxos/logs/mcp-evil.log"}');
  assert.match(body.answer, /Denied by the sandbox: read of "\S+\/\.oryxos\/logs\/mcp-evil\.log" is not allowed: \.oryxos\/logs is on the sandbox deny list/);
});

test("the operator's files are denied to tools by default: the web token, the database, another user's memory", async () => {
  await mkdir(path.join(p.dir, '.oryxos', 'memory', 'users', 'bob'), { recursive: true });
  await writeFile(path.join(p.dir, '.oryxos', 'memory', 'users', 'bob', 'MEMORY.md'), '# Memory\n\n## Core\n- BOB-SECRET\n');
  const token = (await readFile(path.join(p.dir, '.oryxos', 'web-token'), 'utf8')).trim();
  const cases: [string, RegExp][] = [
    ['.oryxos/web-token', /\.oryxos\/web-token is on the sandbox deny list \(the REST API's token\)/],
    ['.oryxos/oryx.db', /is on the sandbox deny list \(the database: sessions and the audit trail\)/],
    ['.oryxos/memory/users/bob/MEMORY.md', /\.oryxos\/memory\/users is on the sandbox deny list/],
  ];
  for (const [file, why] of cases) {
    const { body } = await p.run('files', `read_file ${JSON.stringify({ path: file })}`);
    assert.match(body.answer, /^result: Denied by the sandbox: read of /, file);
    assert.match(body.answer, why, body.answer);
    assert.not.ok(body.answer.includes(token) || body.answer.includes('BOB-SECRET'), `${file} leaked`);
  }
});

test('control files cannot be written whether or not they exist: another config name, a config in a subfolder, the compile cache, the kernel where node resolves it', async () => {
  for (const file of ['oryx.config.mts', 'sub/oryx.config.ts', 'node_modules/.cache/oryxos-config/config-0123456789abcdef.mjs', 'node_modules/@oryxos/kernel/package.json']) {
    const { body } = await p.run('files', `write_file ${JSON.stringify({ path: file, content: 'export default {};\n' })}`);
    assert.match(body.answer, /^result: Denied by the sandbox: write of .* is not allowed: it is a protected control file/, `${file}: ${body.answer}`);
    assert.not.ok(existsSync(path.join(p.dir, file)), `${file} was written`);
  }
  assert.not.ok(existsSync(path.join(p.dir, 'node_modules')));
});

test('a request path with a line break writes one escaped log line, never a forged one', async () => {
  await fetch(`${p.web.url}/x%0Aweb%20admin-forged%20GET%20/api/info%20200%201ms`);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const lines = p.web.stdout().split('\n');
  assert.ok(lines.some((l) => /^web: \S+ GET \/x%0Aweb%20admin-forged%20GET%20\/api\/info%20200%201ms 401 \d+ms$/.test(l)), p.web.stdout());
  assert.not.ok(lines.some((l) => l.startsWith('web admin-forged')));
});

test('escape sequences from a tool reach people inert: oryx run, run -v, sessions show, audit tools', async () => {
  const run = await oryx(['run', '-a', 'stdio', 'evil__ansi {}', '-v']);
  assert.is(run.code, 0, run.stderr);
  assert.is(run.stdout, `result: ${ANSI_SHOWN}\n`);
  assert.ok(run.stderr.split('\n').includes(`← evil__ansi: ${ANSI_SHOWN}`), run.stderr);
  assert.not.match(run.stdout + run.stderr, RAW_CONTROLS);
  const session = /^session (\S+)/m.exec(run.stderr)![1]!;
  const shown = await oryx(['sessions', 'show', session]);
  assert.not.match(shown.stdout, RAW_CONTROLS);
  const lines = shown.stdout.split('\n');
  assert.ok(lines.includes(`    ${ANSI_SHOWN}`), shown.stdout);
  assert.ok(lines.includes(`    result: ${ANSI_SHOWN}`), shown.stdout);
  const audit = await oryx(['audit', 'tools', '--session', session]);
  assert.not.match(audit.stdout, RAW_CONTROLS);
  assert.ok(audit.stdout.split('\n')[1]!.endsWith(`{}     ${ANSI_SHOWN}`), audit.stdout);
  // --json keeps the text exact: the escapes are JSON's own, and parse back to the bytes sent.
  const json = await oryx(['audit', 'tools', '--session', session, '--json']);
  assert.not.match(json.stdout, RAW_CONTROLS);
  assert.is(JSON.parse(json.stdout).items[0].output, '\x1b]0;pwned\x07\x1b[2K\x1b[1A\x1b]52;c;cHduZWQ=\x07clean');
});

test.run();
