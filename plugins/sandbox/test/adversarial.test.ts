// The adversarial suite: each row runs a real tool through the real kernel (a scripted model
// calls it), with the real sandbox, real files, real processes and real loopback servers.
// A denial row asserts that the model got an error tool result carrying the reason, that
// afterTool saw status "denied", and that nothing happened: the folder tree is unchanged
// (no file written, no program left a mark), and no request or connection reached a server.
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, testKernel, type TestAgent } from '@oryxos/kernel/testing';
import tools from '@oryxos/plugin-tools';
import sandbox, { type SandboxOptions } from '../src/index.ts';
import {
  SECRET, afterToolProbe, httpServer, makeFixture, smtpProbe, smtpServer, snapshot,
  type CountingServer, type CountingTcp, type Fixture,
} from './fixture.ts';

interface Ctx { f: Fixture; allowed: CountingServer; evil: CountingServer; smtpOk: CountingTcp; smtpEvil: CountingTcp }
type Call = { name: string; args: Record<string, unknown> };
interface Row {
  name: string;
  call(c: Ctx): Call;
  /** Must match the denial reason. */
  reason: RegExp | ((c: Ctx) => RegExp);
  /** Extra frontmatter for the agent (a `sandbox:` narrowing). */
  agent?: Partial<TestAgent>;
  /** Requests the allowed server gets before the denial (redirect hops). */
  allowedHits?: number;
}
interface Harmless {
  name: string;
  call(c: Ctx): Call;
  check(c: Ctx, out: { content: string; status: string }): Promise<void> | void;
}

let c: Ctx;

const config = (x: Ctx): SandboxOptions => ({
  files: { read: ['.', '../readonly', '../argv'], write: ['.', '../argv'], deny: ['.oryxos/oryx.db', '.oryxos/oryx.db-wal', '.oryxos/oryx.db-shm', 'secrets'] },
  exec: { allow: ['ls', x.f.bin.argvlog, { command: x.f.bin.argvstrict, args: ['test|run'], rest: '[a-z]+' }] },
  http: { allow: [`http://127.0.0.1:${x.allowed.port}`, 'allowed.test', '*.wiki.test', `http://*:${x.evil.port}`] },
  smtp: { allow: [`127.0.0.1:${x.smtpOk.port}`, 'smtp.example.com:587'] },
});

async function runOne(call: Call, agent?: Partial<TestAgent>) {
  const seen: Parameters<typeof afterToolProbe>[0] = [];
  const llm = scripted([{ toolCalls: [{ id: 'call-1', ...call }] }, { text: 'understood' }]);
  const t = await testKernel({
    dir: c.f.root,
    plugins: [llm, sandbox(config(c)), tools(), smtpProbe(), afterToolProbe(seen)],
    agents: { assistant: { tools: ['*'], ...agent } },
  });
  return { t, llm, seen };
}

async function denied(row: Row): Promise<void> {
  const call = row.call(c);
  const { t, llm, seen } = await runOne(call, row.agent);
  try {
    const before = await snapshot(c.f.base);
    const hits = { allowed: c.allowed.hits.length, evil: c.evil.hits.length, ok: c.smtpOk.connections, bad: c.smtpEvil.connections };
    const result = await t.service.process({ agent: 'assistant', message: 'try it' });
    assert.is(result.answer, 'understood');
    // afterTool saw a denial with a reason
    assert.is(seen.length, 1);
    assert.is(seen[0]!.status, 'denied', `status was ${seen[0]!.status}: ${seen[0]!.result.content}`);
    const reason = seen[0]!.result.denied!;
    const expected = typeof row.reason === 'function' ? row.reason(c) : row.reason;
    assert.match(reason, expected);
    // the model received it as an error tool result carrying the reason
    const last = llm.requests[1]!.messages.at(-1)!;
    assert.equal(last, { role: 'tool', toolCallId: 'call-1', name: call.name, content: `Denied by the sandbox: ${reason}`, isError: true });
    // nothing happened
    assert.equal(await snapshot(c.f.base), before, 'the folder tree changed');
    assert.is(c.evil.hits.length, hits.evil, 'a request reached the server that is not allowed');
    assert.is(c.allowed.hits.length - hits.allowed, row.allowedHits ?? 0, 'allowed server hits');
    assert.is(c.smtpEvil.connections, hits.bad, 'a connection reached the SMTP server that is not allowed');
    assert.is(c.smtpOk.connections, hits.ok, 'a connection reached the SMTP server');
  } finally {
    await t.close();
  }
}

async function harmless(row: Harmless): Promise<void> {
  const call = row.call(c);
  const { t, llm, seen } = await runOne(call);
  try {
    const evil = c.evil.hits.length;
    await t.service.process({ agent: 'assistant', message: 'try it' });
    assert.is(seen.length, 1);
    const last = llm.requests[1]!.messages.at(-1)!;
    await row.check(c, { content: last.content, status: seen[0]!.status });
    assert.is(c.evil.hits.length, evil, 'a request reached the server that is not allowed');
    assert.is(await readFile(path.join(c.f.outside, 'secret.txt'), 'utf8'), SECRET);
    assert.not.ok(last.content.includes(SECRET), 'the secret reached the model');
    assert.equal((await snapshot(c.f.markers)), {}, 'a fake program ran');
  } finally {
    await t.close();
    await rm(c.f.argvFile, { force: true });
  }
}

const read = (p: string): Call => ({ name: 'read_file', args: { path: p } });
const write = (p: string): Call => ({ name: 'write_file', args: { path: p, content: 'pwned' } });
const edit = (p: string): Call => ({ name: 'edit_file', args: { path: p, old: 'S', new: 'X' } });
const list = (p: string): Call => ({ name: 'list_dir', args: { path: p, depth: 2 } });
const shell = (command: string, args: string[] = [], cwd?: string): Call => ({ name: 'shell', args: { command, args, ...(cwd ? { cwd } : {}) } });
const get = (url: string): Call => ({ name: 'http_request', args: { url } });
const smtp = (host: string, port: number): Call => ({ name: 'smtp_probe', args: { host, port } });
const marker = () => path.join(c.f.markers, 'pwned');

const OUTSIDE_READ = /is not allowed: it is outside the read roots/;
const OUTSIDE_WRITE = /is not allowed: it is outside the write roots/;
const DENY_LIST = /is on the sandbox deny list/;
const NOT_LISTED = /is not on the exec allow-list/;
const NOT_FOUND = /command ".*" was not found/;
const USERINFO = /user info before the host/;
const SCHEME = /scheme "[a-z]+:" is not allowed/;
const IP_LITERAL = /IP addresses must be listed exactly/;
const NARROWED = /narrowed by the sandbox: frontmatter of \.oryxos\/agents\/assistant\/AGENT\.md/;
const portOnly = (x: Ctx) => new RegExp(`127\\.0\\.0\\.1 is allowed only as http://127\\.0\\.0\\.1:${x.allowed.port}`);

const files: Row[] = [
  { name: 'traversal ../', call: () => read('../outside/secret.txt'), reason: OUTSIDE_READ },
  { name: 'deep traversal to /etc/passwd', call: () => read('../../../../../../../../etc/passwd'), reason: OUTSIDE_READ },
  { name: 'absolute path /etc/passwd', call: () => read('/etc/passwd'), reason: OUTSIDE_READ },
  { name: 'absolute path outside', call: (x) => read(path.join(x.f.outside, 'secret.txt')), reason: OUTSIDE_READ },
  { name: 'traversal through a real subfolder', call: () => read('sub/../../outside/secret.txt'), reason: OUTSIDE_READ },
  { name: './../ traversal', call: () => read('./../outside/secret.txt'), reason: OUTSIDE_READ },
  { name: 'sibling prefix root-evil/ (relative)', call: () => read('../root-evil/secret.txt'), reason: OUTSIDE_READ },
  { name: 'sibling prefix root-evil/ (absolute)', call: (x) => read(`${x.f.root}-evil/secret.txt`), reason: OUTSIDE_READ },
  { name: 'symlinked folder pointing out', call: () => read('link-out/secret.txt'), reason: OUTSIDE_READ },
  { name: 'symlinked file pointing out', call: () => read('secret-link'), reason: OUTSIDE_READ },
  { name: 'chain of symlinks pointing out', call: () => read('chain1'), reason: OUTSIDE_READ },
  { name: 'symlink then .. resolved as the OS does', call: () => read('link-out/../root-evil/secret.txt'), reason: OUTSIDE_READ },
  { name: 'the symlinked folder itself', call: () => read('link-out'), reason: OUTSIDE_READ },
  { name: 'write through a symlinked folder', call: () => write('link-out/new.txt'), reason: OUTSIDE_WRITE },
  { name: 'write through a dangling symlink', call: () => write('dangling'), reason: OUTSIDE_WRITE },
  { name: 'write to new folders under a symlink', call: () => write('link-out/a/b/c.txt'), reason: OUTSIDE_WRITE },
  { name: 'write ../outside', call: () => write('../outside/new.txt'), reason: OUTSIDE_WRITE },
  { name: 'write to the sibling prefix folder', call: () => write('../root-evil/new.txt'), reason: OUTSIDE_WRITE },
  { name: 'write to an absolute path outside', call: (x) => write(path.join(x.f.base, 'new.txt')), reason: OUTSIDE_WRITE },
  { name: 'write via a folder not created yet, then ..', call: () => write('newdir/../../outside/x.txt'), reason: OUTSIDE_WRITE },
  { name: 'write via sub/../link-out', call: () => write('sub/../link-out/x.txt'), reason: OUTSIDE_WRITE },
  { name: 'write into a read-only root', call: () => write('../readonly/new.txt'), reason: OUTSIDE_WRITE },
  { name: 'edit in a read-only root (read allowed, write not)', call: () => edit('../readonly/data.txt'), reason: OUTSIDE_WRITE },
  { name: 'edit outside', call: () => edit('../outside/secret.txt'), reason: OUTSIDE_READ },
  { name: 'deny list: write the database', call: () => write('.oryxos/oryx.db'), reason: DENY_LIST },
  { name: 'deny list: read the database', call: () => read('.oryxos/oryx.db'), reason: DENY_LIST },
  { name: 'deny list: write the WAL', call: () => write('.oryxos/oryx.db-wal'), reason: DENY_LIST },
  { name: 'deny list: write the SHM not created yet', call: () => write('.oryxos/oryx.db-shm'), reason: DENY_LIST },
  { name: 'deny list: unnormalized spelling', call: () => read('./.oryxos//oryx.db'), reason: DENY_LIST },
  { name: 'deny list: through sub/..', call: () => read('sub/../.oryxos/oryx.db'), reason: DENY_LIST },
  { name: 'deny list: absolute spelling', call: (x) => read(path.join(x.f.root, '.oryxos', 'oryx.db')), reason: DENY_LIST },
  { name: 'deny list: symlink to the database', call: () => read('db-link'), reason: DENY_LIST },
  { name: 'deny list: edit through the symlink', call: () => edit('db-link'), reason: DENY_LIST },
  { name: 'deny list: hard link to the database', call: () => read('hard-db'), reason: /hard link to \.oryxos\/oryx\.db/ },
  { name: 'deny list: a denied folder', call: () => read('secrets/token.txt'), reason: DENY_LIST },
  { name: 'deny list: listing a denied folder', call: () => list('secrets'), reason: DENY_LIST },
  { name: 'list ..', call: () => list('..'), reason: OUTSIDE_READ },
  { name: 'list a symlinked folder pointing out', call: () => list('link-out'), reason: OUTSIDE_READ },
  { name: 'list /', call: () => list('/'), reason: OUTSIDE_READ },
  { name: 'NUL byte in a read path', call: () => read('notes.txt\0../../outside/secret.txt'), reason: /contains a NUL byte/ },
  { name: 'NUL byte in a write path', call: () => write('new\0.txt'), reason: /contains a NUL byte/ },
  { name: 'symlink loop', call: () => write('loop-a/x.txt'), reason: /cannot be resolved \(ELOOP\)/ },
  { name: 'shell cwd outside the roots', call: (x) => shell(x.f.bin.argvlog, ['x'], '../outside'), reason: OUTSIDE_READ },
  { name: 'agent narrows write to sub/', call: () => write('notes.txt'), reason: NARROWED, agent: { sandbox: { files: { write: ['sub'] } } } },
  { name: 'agent cannot widen read to /', call: () => read('/etc/passwd'), reason: OUTSIDE_READ, agent: { sandbox: { files: { read: ['/'] } } } },
];

const exec: Row[] = [
  { name: 'sh -c is not allowed', call: () => shell('sh', ['-c', `touch ${marker()}`]), reason: NOT_LISTED },
  { name: 'bash -c is not allowed', call: () => shell('bash', ['-c', `touch ${marker()}`]), reason: NOT_LISTED },
  { name: '/bin/sh by absolute path', call: () => shell('/bin/sh', ['-c', `touch ${marker()}`]), reason: NOT_LISTED },
  { name: 'env sh -c', call: () => shell('env', ['sh', '-c', `touch ${marker()}`]), reason: NOT_LISTED },
  { name: 'touch is not allowed', call: () => shell('touch', [marker()]), reason: NOT_LISTED },
  { name: 'rm is not allowed', call: () => shell('rm', ['-rf', 'sub']), reason: NOT_LISTED },
  { name: './ls in the project is not the ls on PATH', call: () => shell('./ls'), reason: NOT_LISTED },
  { name: 'absolute path of the fake ls in the project', call: (x) => shell(x.f.bin.rootLs), reason: NOT_LISTED },
  { name: '../fake/ls outside the project', call: () => shell('../fake/ls'), reason: NOT_LISTED },
  { name: 'fake ls by name from a cwd that holds one', call: () => shell('./ls', [], 'sub/..'), reason: NOT_LISTED },
  { name: '"ls; touch" as a command name', call: () => shell(`ls; touch ${marker()}`), reason: NOT_FOUND },
  { name: '"ls && touch" as a command name', call: () => shell(`ls && touch ${marker()}`), reason: NOT_FOUND },
  { name: '$(…) as a command name', call: () => shell(`$(touch ${marker()})`), reason: NOT_FOUND },
  { name: 'backticks as a command name', call: () => shell(`\`touch ${marker()}\``), reason: NOT_FOUND },
  { name: 'redirect as a command name', call: () => shell(`ls > ${marker()}`), reason: NOT_FOUND },
  { name: 'uppercase LS', call: () => shell('LS'), reason: NOT_FOUND },
  { name: 'NUL byte in the command', call: () => shell('ls\0'), reason: /NUL byte/ },
  { name: 'NUL byte in an argument', call: (x) => shell(x.f.bin.argvlog, ['a\0b']), reason: /NUL byte/ },
  { name: 'argument rule: install is not test|run', call: (x) => shell(x.f.bin.argvstrict, ['install']), reason: /argument 1 \("install"\) does not match/ },
  { name: 'argument rule: anchored (xtestx)', call: (x) => shell(x.f.bin.argvstrict, ['xtestx']), reason: /does not match/ },
  { name: 'argument rule: test; touch', call: (x) => shell(x.f.bin.argvstrict, [`test; touch ${marker()}`]), reason: /does not match/ },
  { name: 'argument rule: newline after test', call: (x) => shell(x.f.bin.argvstrict, ['test\ntouch']), reason: /does not match/ },
  { name: 'argument rule: rest rejects --flags', call: (x) => shell(x.f.bin.argvstrict, ['run', '--evil']), reason: /argument 2 \("--evil"\) does not match/ },
  { name: 'agent narrows exec to nothing', call: () => shell('ls'), reason: NARROWED, agent: { sandbox: { exec: { allow: [] } } } },
  { name: 'agent cannot widen exec to sh', call: () => shell('sh', ['-c', `touch ${marker()}`]), reason: NOT_LISTED, agent: { sandbox: { exec: { allow: ['sh'] } } } },
  { name: 'malformed agent sandbox denies everything', call: () => read('notes.txt'), reason: /\.oryxos\/agents\/assistant\/AGENT\.md: sandbox\.files\.read must be an array/, agent: { sandbox: { files: { read: 'everything' } } } },
];

const httpRows: Row[] = [
  { name: 'allowed IP on another port', call: (x) => get(`http://127.0.0.1:${x.evil.port}/`), reason: portOnly },
  { name: 'decimal IP literal', call: (x) => get(`http://2130706433:${x.evil.port}/`), reason: portOnly },
  { name: 'hex IP literal', call: (x) => get(`http://0x7f000001:${x.evil.port}/`), reason: portOnly },
  { name: 'octal IP literal', call: (x) => get(`http://0177.0.0.1:${x.evil.port}/`), reason: portOnly },
  { name: 'short IP literal 127.1', call: (x) => get(`http://127.1:${x.evil.port}/`), reason: portOnly },
  { name: 'IPv4-mapped IPv6 literal', call: (x) => get(`http://[::ffff:127.0.0.1]:${x.evil.port}/`), reason: IP_LITERAL },
  { name: 'IPv6 loopback literal', call: (x) => get(`http://[::1]:${x.evil.port}/`), reason: IP_LITERAL },
  { name: '0.0.0.0', call: (x) => get(`http://0.0.0.0:${x.evil.port}/`), reason: IP_LITERAL },
  { name: 'wildcard host resolving to loopback (localhost)', call: (x) => get(`http://localhost:${x.evil.port}/`), reason: /resolves to 127\.0\.0\.1, a private, loopback or link-local address/ },
  { name: 'wildcard host that does not resolve', call: () => get('http://en.wiki.test/'), reason: /could not be resolved/ },
  { name: 'userinfo: allowed@evil', call: (x) => get(`http://127.0.0.1:${x.allowed.port}@127.0.0.1:${x.evil.port}/`), reason: USERINFO },
  { name: 'userinfo: allowed.test@evil', call: (x) => get(`http://allowed.test@127.0.0.1:${x.evil.port}/`), reason: USERINFO },
  { name: 'userinfo uppercase', call: (x) => get(`HTTP://ALLOWED.TEST@127.0.0.1:${x.evil.port}/`), reason: USERINFO },
  { name: 'fragment confusion evil#@allowed', call: (x) => get(`http://127.0.0.1:${x.evil.port}#@127.0.0.1:${x.allowed.port}/`), reason: portOnly },
  { name: 'backslash confusion evil\\@allowed', call: (x) => get(`http://127.0.0.1:${x.evil.port}\\@127.0.0.1:${x.allowed.port}/`), reason: portOnly },
  { name: 'query confusion evil?@allowed', call: (x) => get(`http://127.0.0.1:${x.evil.port}/?@127.0.0.1:${x.allowed.port}`), reason: portOnly },
  { name: 'percent-encoded @ is not a separator', call: (x) => get(`http://127.0.0.1:${x.allowed.port}%40127.0.0.1:${x.evil.port}/`), reason: /is not a valid absolute URL/ },
  { name: 'trailing dot', call: () => get('http://allowed.test./'), reason: /ends with a dot/ },
  { name: 'allowed host as a prefix of another', call: () => get('http://allowed.test.evil.test/'), reason: /host allowed\.test\.evil\.test \(port 80\) is not on the http allow-list/ },
  { name: 'allowed host as a suffix of another', call: () => get('http://evilallowed.test/'), reason: /is not on the http allow-list/ },
  { name: 'wildcard does not cover the apex', call: () => get('http://wiki.test/'), reason: /is not on the http allow-list/ },
  { name: 'ftp scheme', call: (x) => get(`ftp://127.0.0.1:${x.allowed.port}/`), reason: SCHEME },
  { name: 'file scheme', call: () => get('file:///etc/passwd'), reason: SCHEME },
  { name: 'data scheme', call: () => get('data:text/plain,hi'), reason: SCHEME },
  { name: 'javascript scheme', call: () => get('javascript:alert(1)'), reason: SCHEME },
  { name: 'https where only http is listed', call: (x) => get(`https://127.0.0.1:${x.allowed.port}/`), reason: portOnly },
  { name: 'cloud metadata address', call: () => get('http://169.254.169.254/latest/meta-data/'), reason: IP_LITERAL },
  { name: 'private IP 10.0.0.1', call: () => get('http://10.0.0.1/'), reason: IP_LITERAL },
  { name: 'private IP 192.168.1.1', call: () => get('http://192.168.1.1/'), reason: IP_LITERAL },
  { name: 'link-local IPv6', call: () => get('http://[fe80::1]/'), reason: IP_LITERAL },
  { name: 'redirect to a server that is not allowed', call: (x) => get(`${x.allowed.url}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${x.evil.port}/`)}`), reason: portOnly, allowedHits: 1 },
  { name: 'redirect chain ending at a server that is not allowed', call: (x) => get(`${x.allowed.url}/hop?n=2&to=${encodeURIComponent(`http://127.0.0.1:${x.evil.port}/steal`)}`), reason: portOnly, allowedHits: 3 },
  { name: 'redirect to localhost (loopback by DNS)', call: (x) => get(`${x.allowed.url}/redirect?to=${encodeURIComponent(`http://localhost:${x.evil.port}/`)}`), reason: /resolves to 127\.0\.0\.1/, allowedHits: 1 },
  { name: 'redirect with userinfo', call: (x) => get(`${x.allowed.url}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${x.allowed.port}@127.0.0.1:${x.evil.port}/`)}`), reason: USERINFO, allowedHits: 1 },
  { name: 'redirect to file:', call: (x) => get(`${x.allowed.url}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`), reason: SCHEME, allowedHits: 1 },
  { name: 'redirect to cloud metadata', call: (x) => get(`${x.allowed.url}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`), reason: IP_LITERAL, allowedHits: 1 },
  { name: 'agent narrows http to nothing', call: (x) => get(`${x.allowed.url}/ok`), reason: NARROWED, agent: { sandbox: { http: { allow: [] } } } },
  { name: 'agent cannot widen http', call: (x) => get(`http://127.0.0.1:${x.evil.port}/`), reason: portOnly, agent: { sandbox: { http: { allow: ['http://127.0.0.1:1'] } } } },
];

const smtpRows: Row[] = [
  { name: 'SMTP port mismatch on the allowed host', call: (x) => smtp('127.0.0.1', x.smtpEvil.port), reason: (x) => new RegExp(`SMTP port ${x.smtpEvil.port} is not allowed for 127\\.0\\.0\\.1 \\(allowed: ${x.smtpOk.port}\\)`) },
  { name: 'SMTP port 25 where only 587 is listed', call: () => smtp('smtp.example.com', 25), reason: /SMTP port 25 is not allowed for smtp\.example\.com \(allowed: 587\)/ },
  { name: 'SMTP uppercase host, wrong port', call: () => smtp('SMTP.EXAMPLE.COM', 465), reason: /port 465 is not allowed/ },
  { name: 'SMTP localhost is not 127.0.0.1', call: (x) => smtp('localhost', x.smtpOk.port), reason: /is not on the smtp allow-list/ },
  { name: 'SMTP IPv6 loopback', call: (x) => smtp('[::1]', x.smtpOk.port), reason: /is not on the smtp allow-list/ },
  { name: 'SMTP short IP spelling', call: (x) => smtp('127.1', x.smtpOk.port), reason: /is not on the smtp allow-list/ },
  { name: 'SMTP host with trailing space', call: (x) => smtp('127.0.0.1 ', x.smtpOk.port), reason: /is not on the smtp allow-list/ },
  { name: 'agent narrows smtp to nothing', call: (x) => smtp('127.0.0.1', x.smtpOk.port), reason: NARROWED, agent: { sandbox: { smtp: { allow: [] } } } },
];

const argvIs = async (x: Ctx, expected: string[]) => {
  const raw = await readFile(x.f.argvFile, 'utf8');
  assert.equal(raw.split('\0').slice(0, -1), expected, 'the program did not receive its arguments literally');
};
const fill = (args: string[]) => args.map((a) => a.replaceAll('<marker>', marker()));
const literal = (args: string[]): Harmless => ({
  name: `injection attempt passed literally: ${JSON.stringify(args)}`,
  call: (x) => shell(x.f.bin.argvlog, fill(args)),
  async check(x, out) { assert.is(out.status, 'ok', out.content); await argvIs(x, fill(args)); },
});
const notFound = (p: string): Harmless => ({
  name: `encoded path is a literal name: ${JSON.stringify(p)}`,
  call: () => read(p),
  check(_x, out) { assert.is(out.status, 'error'); assert.match(out.content, /does not exist/); },
});

const harmlessRows: Harmless[] = [
  literal([';', 'touch', '<marker>']),
  literal(['&&', 'touch', '<marker>']),
  literal(['$(touch <marker>)']),
  literal(['`touch <marker>`']),
  literal(['>', '<marker>']),
  literal(['|', 'touch', '<marker>']),
  literal(['*', '~', '$HOME', "'single'", '"double"', 'line\nbreak', '\\']),
  notFound('%2e%2e/outside/secret.txt'),
  notFound('..%2foutside%2fsecret.txt'),
  notFound('%2E%2E%2F%2E%2E%2Foutside%2Fsecret.txt'),
  notFound('..\\outside\\secret.txt'),
  notFound('\uFF0E\uFF0E/outside/secret.txt'),
  notFound('file:///etc/passwd'),
  notFound('~/outside/secret.txt'),
  {
    name: 'encoded traversal on write creates a literal folder inside the root',
    call: () => write('%2e%2e/escaped.txt'),
    async check(x, out) {
      assert.is(out.status, 'ok', out.content);
      assert.is(await readFile(path.join(x.f.root, '%2e%2e', 'escaped.txt'), 'utf8'), 'pwned');
      assert.equal(await snapshot(path.dirname(x.f.root)).then((s) => Object.keys(s).filter((k) => k.includes('escaped'))), ['root/%2e%2e/escaped.txt']);
      await rm(path.join(x.f.root, '%2e%2e'), { recursive: true });
    },
  },
  {
    name: 'backslash on an allowed host stays on that host',
    call: (x) => get(`${x.allowed.url}\\@127.0.0.1:${x.evil.port}/`),
    check(_x, out) { assert.is(out.status, 'ok', out.content); assert.match(out.content, /hello from the allowed server/); },
  },
];

// Controls: the same tools do act when the sandbox allows, so "nothing happened" above means something.
const controls: Harmless[] = [
  { name: 'control: read inside the root', call: () => read('notes.txt'), check(_x, o) { assert.is(o.status, 'ok'); assert.is(o.content, 'notes inside the root\n'); } },
  { name: 'control: read in the read-only root', call: () => read('../readonly/data.txt'), check(_x, o) { assert.is(o.status, 'ok'); assert.is(o.content, 'read only data\n'); } },
  { name: 'control: ls on PATH runs', call: () => shell('ls', ['sub']), check(_x, o) { assert.is(o.status, 'ok', o.content); assert.match(o.content, /file\.txt/); } },
  {
    name: 'control: argument rules allow run + [a-z]+', call: (x) => shell(x.f.bin.argvstrict, ['run', 'build']),
    async check(x, o) { assert.is(o.status, 'ok', o.content); await argvIs(x, ['run', 'build']); },
  },
  {
    name: 'control: allowed server, followed through an allowed redirect',
    call: (x) => get(`${x.allowed.url}/redirect?to=${encodeURIComponent('/ok')}`),
    check(_x, o) { assert.is(o.status, 'ok', o.content); assert.match(o.content, /redirects: 302 http:\/\/127\.0\.0\.1:\d+\/ok/); assert.match(o.content, /hello from the allowed server/); },
  },
  {
    name: 'control: allowed SMTP host:port connects', call: (x) => smtp('127.0.0.1', x.smtpOk.port),
    check(_x, o) { assert.is(o.status, 'ok', o.content); assert.is(o.content, '220 test ESMTP ready'); },
  },
];

test.before(async () => {
  const f = await makeFixture();
  const allowed = await httpServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    const to = u.searchParams.get('to');
    if (u.pathname === '/redirect' && to) { res.writeHead(302, { location: to }); res.end(); return; }
    if (u.pathname === '/hop' && to) {
      const n = Number(u.searchParams.get('n'));
      res.writeHead(302, { location: n > 0 ? `/hop?n=${n - 1}&to=${encodeURIComponent(to)}` : to });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('hello from the allowed server');
  });
  const evil = await httpServer((_req, res) => { res.end('evil'); });
  c = { f, allowed, evil, smtpOk: await smtpServer(), smtpEvil: await smtpServer() };
});

test.after(async () => {
  await Promise.all([c?.allowed.close(), c?.evil.close(), c?.smtpOk.close(), c?.smtpEvil.close()]);
  await c?.f.cleanup();
});

for (const row of files) test(`file: ${row.name}`, () => denied(row));
for (const row of exec) test(`exec: ${row.name}`, () => denied(row));
for (const row of httpRows) test(`http: ${row.name}`, () => denied(row));
for (const row of smtpRows) test(`smtp: ${row.name}`, () => denied(row));
for (const row of harmlessRows) test(`harmless: ${row.name}`, () => harmless(row));
for (const row of controls) test(row.name, () => harmless(row));

test('the suite has at least 60 denial cases across the four kinds', () => {
  assert.ok(files.length + exec.length + httpRows.length + smtpRows.length >= 60);
  for (const kind of [files, exec, httpRows, smtpRows]) assert.ok(kind.length >= 5);
});

test.run();
