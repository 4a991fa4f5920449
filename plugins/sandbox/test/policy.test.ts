// The sandbox on its own: enforce() called directly, so these decisions do not lean on the
// tools' own path resolution (the adversarial suite covers the two together).
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import type { SandboxAction, SandboxDecision } from '@oryxos/contracts';
import { scripted, testKernel, type TestAgent, type TestKernel } from '@oryxos/kernel/testing';
import tools from '@oryxos/plugin-tools';
import sandbox, { sandboxWarnings, type SandboxOptions } from '../src/index.ts';
import { makeFixture, type Fixture } from './fixture.ts';

let f: Fixture;
test.before(async () => { f = await makeFixture(); });
test.after(async () => { await f?.cleanup(); });

async function start(options: SandboxOptions, agents?: Record<string, TestAgent>): Promise<TestKernel> {
  return testKernel({ dir: f.root, plugins: [sandbox(options)], agents: agents ?? { assistant: { tools: [] } } });
}

async function decide(options: SandboxOptions, actions: SandboxAction[], agent?: TestAgent): Promise<SandboxDecision[]> {
  const t = await start(options, { a: agent ?? { tools: [] } });
  try {
    const def = await t.kernel.agents.load('a');
    const box = t.kernel.service('sandbox');
    return await Promise.all(actions.map((a) => box.enforce(a, { agent: def })));
  } finally {
    await t.close();
  }
}

const file = (op: 'read' | 'write', p: string): SandboxAction => ({ kind: 'file', op, path: p });
const http = (url: string, method = 'GET'): SandboxAction => ({ kind: 'http', url, method });
const exec = (command: string, args: string[] = []): SandboxAction => ({ kind: 'exec', command, args });
const allowed = (d: SandboxDecision) => d.allow;
const reasonOf = (d: SandboxDecision) => (d.allow ? '' : d.reason);

test('no options at all: every kind of action is denied', async () => {
  const ds = await decide({}, [file('read', 'notes.txt'), file('write', 'x.txt'), exec('ls'), http('http://127.0.0.1/'), { kind: 'smtp', host: 'a', port: 25 }]);
  assert.equal(ds.map(allowed), [false, false, false, false, false]);
  assert.match(reasonOf(ds[0]!), /no files may be read \(files\.read is empty\)/);
  assert.match(reasonOf(ds[2]!), /exec allow-list is empty/);
  assert.match(reasonOf(ds[3]!), /http allow-list is empty/);
  assert.match(reasonOf(ds[4]!), /smtp allow-list is empty/);
});

test('without any sandbox plugin the kernel denies what the tools try', async () => {
  const llm = scripted([{ toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] }, { text: 'ok' }]);
  const t = await testKernel({ dir: f.root, plugins: [llm, tools()] });
  try {
    await t.service.process({ agent: 'assistant', message: 'read' });
    const last = llm.requests[1]!.messages.at(-1)!;
    assert.match(last.content, /Denied by the sandbox: no sandbox plugin is enabled/);
  } finally {
    await t.close();
  }
});

test('files: decisions on the spelled path, resolved the way the OS resolves it', async () => {
  const opts: SandboxOptions = { files: { read: ['.'], write: ['sub'], deny: ['secrets'] } };
  const cases: [SandboxAction, boolean][] = [
    [file('read', 'notes.txt'), true],
    [file('read', path.join(f.root, 'notes.txt')), true],
    [file('read', '.'), true],
    [file('read', 'missing/deeper/file.txt'), true],
    [file('read', 'link-out/../root-evil/secret.txt'), false],
    [file('read', 'link-out/../outside/secret.txt'), false],
    [file('read', `${f.root}/link-out/../root/notes.txt`), true],
    [file('read', 'sub/../notes.txt'), true],
    [file('read', `${f.root}-evil/secret.txt`), false],
    [file('read', 'dangling'), false],
    [file('write', 'sub/new/file.txt'), true],
    [file('write', 'notes.txt'), false],
    [file('write', 'sub/../notes.txt'), false],
    [file('read', 'secrets'), false],
    [file('read', 'secrets/../notes.txt'), true],
    [file('read', '%2e%2e/outside/secret.txt'), true],
  ];
  const ds = await decide(opts, cases.map(([a]) => a));
  cases.forEach(([a, want], i) => assert.is(ds[i]!.allow, want, `${JSON.stringify(a)}: ${reasonOf(ds[i]!)}`));
});

test('files: "/" as a root allows everything except the deny list', async () => {
  const ds = await decide({ files: { read: ['/'], deny: ['.oryxos'] } }, [file('read', '/etc/passwd'), file('read', '.oryxos/oryx.db')]);
  assert.equal(ds.map(allowed), [true, false]);
});

test('files: the workspace logs folder is denied by default, reads included, whatever the roots say', async () => {
  await mkdir(path.join(f.root, '.oryxos', 'logs'), { recursive: true });
  await writeFile(path.join(f.root, '.oryxos', 'logs', 'mcp-x.log'), 'starting server --token …');
  const ds = await decide({ files: { read: ['/'], write: ['.'] } }, [
    file('read', '.oryxos/logs/mcp-x.log'), file('read', '.oryxos/logs'), file('write', '.oryxos/logs/new.log'), file('read', 'notes.txt'),
  ]);
  assert.equal(ds.map(allowed), [false, false, false, true]);
  assert.match(reasonOf(ds[0]!), 'is not allowed: .oryxos/logs is on the sandbox deny list');
});

test('files: write does not imply read', async () => {
  const ds = await decide({ files: { write: ['.'] } }, [file('write', 'notes.txt'), file('read', 'notes.txt')]);
  assert.equal(ds.map(allowed), [true, false]);
});

test('exec: positional argument rules, rest, and several entries for one command', async () => {
  const opts: SandboxOptions = {
    files: { read: ['.'] }, // a program runs in a folder it may read (the project folder here)
    exec: { allow: [
      { command: f.bin.argvstrict, args: ['test|run', 'unit|e2e'] },
      { command: f.bin.argvlog, rest: '-[a-z]' },
      { command: f.bin.argvlog, args: ['status'] },
    ] },
  };
  const cases: [SandboxAction, boolean][] = [
    [exec(f.bin.argvstrict), true],
    [exec(f.bin.argvstrict, ['test']), true],
    [exec(f.bin.argvstrict, ['run', 'e2e']), true],
    [exec(f.bin.argvstrict, ['run', 'e2e', 'more']), false],
    [exec(f.bin.argvstrict, ['run', 'lint']), false],
    [exec(f.bin.argvstrict, ['Test']), false],
    [exec(f.bin.argvlog, ['-a', '-b']), true],
    [exec(f.bin.argvlog, ['status']), true],
    [exec(f.bin.argvlog, ['-ab']), false],
    [exec(f.bin.argvlog, ['status', '-a']), false],
  ];
  const ds = await decide(opts, cases.map(([a]) => a));
  cases.forEach(([a, want], i) => assert.is(ds[i]!.allow, want, `${JSON.stringify(a)}: ${reasonOf(ds[i]!)}`));
});

test('exec: names resolve on absolute PATH entries only; folders are realpath\'d, program names are not', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-path-'));
  const oldPath = process.env.PATH;
  const oldCwd = process.cwd();
  try {
    await mkdir(path.join(dir, 'real'));
    await mkdir(path.join(dir, 'cwd'));
    await symlink('real', path.join(dir, 'linked'));
    for (const p of ['real/tool', 'cwd/tool']) { await writeFile(path.join(dir, p), '#!/bin/sh\n'); await chmod(path.join(dir, p), 0o755); }
    await symlink('tool', path.join(dir, 'real', 'alias'));
    process.env.PATH = `:.:cwd:${path.join(dir, 'real')}`;
    process.chdir(path.join(dir, 'cwd'));
    const viaName = await decide({ files: { read: ['.'] }, exec: { allow: [path.join(dir, 'cwd', 'tool')] } }, [exec('tool')]);
    assert.is(viaName[0]!.allow, false, 'an empty or relative PATH entry must not find ./tool');
    const ds = await decide({ files: { read: ['.'] }, exec: { allow: [path.join(dir, 'linked', 'tool')] } }, [
      exec('tool'), exec(path.join(dir, 'real', 'tool')), exec(path.join(dir, 'real', 'alias')),
    ]);
    assert.equal(ds.map(allowed), [true, true, false]);
  } finally {
    process.env.PATH = oldPath;
    process.chdir(oldCwd);
    await rm(dir, { recursive: true, force: true });
  }
});

test('http: hosts, schemes, ports, wildcards and literal private hosts', async () => {
  const opts: SandboxOptions = {
    http: { allow: ['api.example.test', 'https://secure.test', 'ports.test:8443', '*.wild.test', 'localhost', 'http://[::1]:8080'] },
  };
  const cases: [string, boolean][] = [
    ['http://api.example.test/x', true],
    ['https://api.example.test/x?y=1#z', true],
    ['HTTPS://API.EXAMPLE.TEST/', true],
    ['http://api.example.test:8080/', false],
    ['http://\u0430pi.example.test/', false],
    ['https://secure.test/', true],
    ['http://secure.test/', false],
    ['https://secure.test:444/', false],
    ['http://ports.test:8443/', true],
    ['https://ports.test:8443/', true],
    ['https://ports.test/', false],
    ['http://localhost/', true],
    ['http://localhost:3000/', false],
    ['http://[::1]:8080/', true],
    ['http://[0:0:0:0:0:0:0:1]:8080/', true],
    ['http://sub.wild.test/', false],
    ['http://wild.test/', false],
    ['not a url', false],
  ];
  const ds = await decide(opts, [...cases.map(([u]) => http(u)), http('http://api.example.test/', 'GET\r\nX: y')]);
  cases.forEach(([u, want], i) => assert.is(ds[i]!.allow, want, `${u}: ${reasonOf(ds[i]!)}`));
  assert.match(reasonOf(ds[15]!), /could not be resolved/);
  assert.match(reasonOf(ds.at(-1)!), /is not an HTTP method/);
});

test('http: "*" allows public names only; private addresses need the host listed', async () => {
  const ds = await decide({ http: { allow: ['*'] } }, [http('http://localhost/'), http('http://127.0.0.1/'), http('http://[::1]/')]);
  assert.equal(ds.map(allowed), [false, false, false]);
  assert.match(reasonOf(ds[0]!), /resolves to 127\.0\.0\.1/);
});

test('smtp: exact host and port; IPv6 brackets optional; case-insensitive host', async () => {
  const ds = await decide({ smtp: { allow: ['Mail.Example.test:587', '[::1]:25'] } }, [
    { kind: 'smtp', host: 'mail.example.test', port: 587 },
    { kind: 'smtp', host: 'mail.example.test', port: 465 },
    { kind: 'smtp', host: '::1', port: 25 },
    { kind: 'smtp', host: '[::1]', port: 25 },
    { kind: 'smtp', host: 'example.test', port: 587 },
  ]);
  assert.equal(ds.map(allowed), [true, false, true, true, false]);
});

test('agent narrowing: lists set narrow, lists left out inherit, deny adds, nothing widens', async () => {
  const agent: TestAgent = { tools: [], sandbox: { files: { read: ['sub'], deny: ['sub/secret.txt'] }, exec: { allow: ['ls'] } } };
  const ds = await decide({ files: { read: ['.'], write: ['.'] }, exec: { allow: [f.bin.argvlog] } }, [
    file('read', 'sub/file.txt'), file('read', 'notes.txt'), file('write', 'notes.txt'), file('read', 'sub/secret.txt'),
    exec('ls'), exec(f.bin.argvlog),
  ], agent);
  assert.equal(ds.map(allowed), [true, false, true, false, false, false]);
  assert.match(reasonOf(ds[1]!), /narrowed by the sandbox: frontmatter of \.oryxos\/agents\/a\/AGENT\.md/);
  assert.match(reasonOf(ds[4]!), /not on the exec allow-list/);
});

test('agent narrowing: an empty sandbox: block narrows nothing; an edit takes effect', async () => {
  const t = await start({ files: { read: ['.'] } }, { a: { tools: [], sandbox: {} } });
  try {
    const box = t.kernel.service('sandbox');
    const def = await t.kernel.agents.load('a');
    assert.ok((await box.enforce(file('read', 'notes.txt'), { agent: def })).allow);
    const edited = { ...def, sandbox: { files: { read: ['sub'] } } };
    assert.not.ok((await box.enforce(file('read', 'notes.txt'), { agent: edited })).allow);
    assert.ok((await box.enforce(file('read', 'notes.txt'), { agent: def })).allow);
  } finally {
    await t.close();
  }
});

test('agent narrowing: malformed frontmatter denies every action and names the file and field', async () => {
  for (const bad of [{ exec: { allow: [{ command: 'ls', args: ['('] }] } }, { network: true }, { http: { allow: ['ftp://x'] } }]) {
    const [d] = await decide({ files: { read: ['.'] } }, [file('read', 'notes.txt')], { tools: [], sandbox: bad });
    assert.is(d!.allow, false);
    assert.match(reasonOf(d!), /^\.oryxos\/agents\/a\/AGENT\.md: sandbox\.\S+ .*every action of agent "a" is denied/);
  }
});

test('never throws: malformed actions are denied', async () => {
  const ds = await decide({ files: { read: ['.'] }, exec: { allow: ['ls'] }, http: { allow: ['*'] }, smtp: { allow: ['a:1'] } }, [
    { kind: 'teleport' } as unknown as SandboxAction,
    null as unknown as SandboxAction,
    { kind: 'file', op: 'delete', path: 'x' } as unknown as SandboxAction,
    { kind: 'file', op: 'read', path: 42 } as unknown as SandboxAction,
    { kind: 'exec', command: 'ls', args: 'x' } as unknown as SandboxAction,
    { kind: 'http', url: 42, method: 'GET' } as unknown as SandboxAction,
    { kind: 'smtp', host: 'a', port: '1' } as unknown as SandboxAction,
  ]);
  assert.equal(ds.map(allowed), [false, false, false, false, false, false, false]);
});

const badOptions: [unknown, RegExp][] = [
  ['everything', /options must be an object/],
  [{ files: { read: 'x' } }, /option files\.read must be an array/],
  [{ files: { read: [''] } }, /option files\.read\.0 must be non-empty/],
  [{ files: { raed: ['.'] } }, /option files\.raed must be removed/],
  [{ network: {} }, /option network must be removed/],
  [{ exec: { allow: [{ command: 'npm', args: ['('] }] } }, /option exec\.allow\.0\.args\.0 .*not a valid regular expression/],
  [{ exec: { allow: [{ command: 'npm', rest: '[' }] } }, /option exec\.allow\.0\.rest .*not a valid regular expression/],
  [{ exec: { allow: [{ cmd: 'npm' }] } }, /option exec\.allow\.0/],
  [{ http: { allow: ['ftp://files.test'] } }, /option http\.allow\.0 .*only http and https/],
  [{ http: { allow: ['https://api.test/v1'] } }, /option http\.allow\.0 .*no path/],
  [{ http: { allow: ['user@api.test'] } }, /option http\.allow\.0/],
  [{ http: { allow: ['a*.test'] } }, /option http\.allow\.0 .*may only stand alone/],
  [{ http: { allow: ['*.10.0.0.1'] } }, /option http\.allow\.0 .*wildcard on an IP/],
  [{ http: { allow: ['api.test:99999'] } }, /option http\.allow\.0 .*not between 1 and 65535/],
  [{ http: { allow: ['api.test.'] } }, /option http\.allow\.0 .*trailing dot/],
  [{ smtp: { allow: ['smtp.test'] } }, /option smtp\.allow\.0 .*must be host:port/],
  [{ smtp: { allow: ['smtp.test:0'] } }, /option smtp\.allow\.0 .*not between 1 and 65535/],
];
for (const [options, message] of badOptions) {
  test(`options rejected at once: ${JSON.stringify(options)}`, () => {
    try {
      sandbox(options as SandboxOptions);
      assert.unreachable('sandbox() accepted bad options');
    } catch (error) {
      assert.ok(isOryxError(error), String(error));
      assert.is(error.code, 'ORYX_E_SANDBOX_OPTIONS');
      assert.match(error.message, message);
      assert.match(error.hint ?? '', /sandbox\(\{/);
    }
  });
}

test('a root that cannot be resolved fails setup with ORYX_E_SANDBOX_ROOT', async () => {
  try {
    await start({ files: { read: ['loop-a/x'] } });
    assert.unreachable('started');
  } catch (error) {
    assert.ok(isOryxError(error), String(error));
    assert.is(error.code, 'ORYX_E_SANDBOX_ROOT');
    assert.match(error.message, /files\.read\.0/);
  }
});

test('setup warns about risky or dead entries', async () => {
  const t = await start({
    files: { read: ['.', 'not-there-yet'], write: ['.'] },
    exec: { allow: ['sh', 'no-such-program-oryx', f.bin.rootLs, { command: 'node', args: ['--version'] }] },
  });
  try {
    const w = t.warnings.join('\n');
    assert.match(w, /files\.read\.1 \("not-there-yet"\) does not exist yet/);
    assert.match(w, /exec entry "sh" has no argument rules, and sh runs whatever its arguments say/);
    assert.match(w, /exec entry "no-such-program-oryx" was not found on PATH/);
    assert.match(w, /is inside the write root \.: an agent could rewrite what it runs/);
    assert.not.match(w, /node runs whatever/);
  } finally {
    await t.close();
  }
});

test('bwrap inside a write root is not used and is warned about, when a program may start; with no exec entry it is not looked for', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-confiners-'));
  const bin = path.join(dir, 'bin');
  await mkdir(bin);
  await writeFile(path.join(bin, 'bwrap'), '#!/bin/sh\nexit 0\n');
  await chmod(path.join(bin, 'bwrap'), 0o755);
  const saved = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${saved}`;
  try {
    const place = { root: dir, workspaceDir: path.join(dir, '.oryxos') };
    const files = { read: ['.'], write: ['.'] };
    const programs = await sandboxWarnings({ files, exec: { allow: [{ command: 'git', args: ['status'] }] } }, place);
    assert.ok(programs.some((w) => /^bwrap \(.*\) is inside the write root \., so it is not used/.test(w)), programs.join('\n'));
    const asked = await sandboxWarnings({ files, exec: { ask: ['git'] } }, place);
    assert.ok(asked.some((w) => /^bwrap \(/.test(w)), 'an exec.ask entry may start a program too');
    const none = await sandboxWarnings({ files }, place);
    assert.not.ok(none.some((w) => /bwrap|socat|prlimit/.test(w)), `no program may start, so none is looked for: ${none.join('; ')}`);
  } finally {
    process.env.PATH = saved;
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
