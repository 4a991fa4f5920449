// Confinement, attacked from inside: with exec allowing a shell (sh -c …) and a language runtime
// (node -e …), the file and network allow-lists still hold inside the child, because it runs
// under bubblewrap built from the same policy. Real processes, a real loopback server, the real
// proxy, real audit rows.
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, testKernel, type TestAgent, type TestKernel } from '@oryxos/kernel/testing';
import audit from '@oryxos/plugin-audit';
import sqlite from '@oryxos/plugin-sqlite';
import tools from '@oryxos/plugin-tools';
import subagents from '@oryxos/plugin-subagents';
import sandbox, { type SandboxOptions } from '../src/index.ts';
import { afterToolProbe } from './fixture.ts';

const NODE = process.execPath;
/** Any argument, line breaks included (a pattern's `.` stops at a line break). */
const ANY = '[\\s\\S]*';
const run = promisify(execFile);

interface Hit { port: number; connections: number; requests: string[]; close(): Promise<void> }

/** A loopback HTTP server that counts every TCP connection and request it sees. */
async function hitServer(): Promise<Hit> {
  const self = { connections: 0, requests: [] as string[] } as Hit;
  const server = http.createServer((req, res) => { self.requests.push(`${req.method} ${req.url}`); res.end('hello from the hit server'); });
  server.on('connection', () => { self.connections++; });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  self.port = (server.address() as AddressInfo).port;
  self.close = async () => { server.closeAllConnections(); server.close(); await once(server, 'close').catch(() => {}); };
  return self;
}

let base: string;
let root: string;
let outside: string;
let allowed: Hit;
let blocked: Hit;

test.before(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'oryx-confine-'));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'docs'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, 'notes.txt'), 'inside notes\n');
  await writeFile(path.join(root, 'docs', 'guide.md'), 'guide\n');
  await writeFile(path.join(root, 'oryx.config.mjs'), 'export default { plugins: [] };\n');
  await writeFile(path.join(outside, 'secret.txt'), 'OUTSIDE-SECRET');
  await run('git', ['init', '-q'], { cwd: root });
  allowed = await hitServer();
  blocked = await hitServer();
});

test.after(async () => {
  await Promise.all([allowed?.close(), blocked?.close()]);
  await rm(base, { recursive: true, force: true });
});

const policy = (extra: Partial<SandboxOptions> = {}): SandboxOptions => ({
  files: { read: ['.'], write: ['.'] },
  exec: { allow: [{ command: 'sh', args: ['-c'], rest: ANY }, { command: NODE, args: ['-e'], rest: ANY }, 'git'] },
  ...extra,
});

type Call = { name: string; args: Record<string, unknown> };
const sh = (script: string): Call => ({ name: 'shell', args: { command: 'sh', args: ['-c', script] } });
const node = (code: string): Call => ({ name: 'shell', args: { command: NODE, args: ['-e', code] } });

/** Runs the calls in one turn on the project (with sqlite and audit), returns what afterTool saw and the kernel (open). */
async function turn(calls: Call[], options: SandboxOptions = policy(), agent: TestAgent = { tools: ['*'] }): Promise<{ seen: { status: string; content: string }[]; t: TestKernel }> {
  const seen: Parameters<typeof afterToolProbe>[0] = [];
  const llm = scripted([{ toolCalls: calls.map((c, i) => ({ id: `c${i + 1}`, ...c })) }, { text: 'done' }]);
  const t = await testKernel({
    dir: root, configFile: path.join(root, 'oryx.config.mjs'), agents: { assistant: agent },
    plugins: [llm, sqlite(), audit(), sandbox(options), tools(), afterToolProbe(seen)],
  });
  await t.service.process({ agent: 'assistant', message: 'go' });
  return { seen: seen.map((s) => ({ status: s.status, content: s.result.content })), t };
}

async function once1(call: Call, options?: SandboxOptions, agent?: TestAgent) {
  const { seen, t } = await turn([call], options, agent);
  await t.close({ keep: true });
  return seen[0]!;
}

test('reading outside the read roots fails inside the child: another folder, /etc secrets, home', async () => {
  const secret = path.join(outside, 'secret.txt');
  const shell = await once1(sh(`cat ${secret}`));
  assert.is(shell.status, 'error');
  assert.match(shell.content, /No such file or directory/);
  const js = await once1(node(`try { console.log(require('fs').readFileSync(${JSON.stringify(secret)}, 'utf8')) } catch (e) { console.log('refused', e.code) }`));
  assert.match(js.content, /refused ENOENT/);
  assert.not.match(shell.content + js.content, /OUTSIDE-SECRET/);
  // /etc is there (programs need it) but its secrets are masked
  const shadow = await once1(sh('cat /etc/shadow; test -r /etc/passwd && echo passwd-readable'));
  assert.match(shadow.content, /cat: \/etc\/shadow: Permission denied/);
  assert.not.match(shadow.content, /^root:/m);
  assert.match(shadow.content, /passwd-readable/);
  const home = await once1(node(`try { require('fs').readdirSync(require('os').homedir()); console.log('home visible') } catch (e) { console.log('home', e.code) }`));
  assert.match(home.content, /home ENOENT/);
});

test('writing outside the write roots or to a control file fails and leaves the target byte-identical', async () => {
  const secret = path.join(outside, 'secret.txt');
  const config = path.join(root, 'oryx.config.mjs');
  const before = [await readFile(secret), await readFile(config), await readFile(path.join(root, '.git', 'config'))];
  const calls = [
    sh(`echo pwned >> ${secret}`),
    sh('echo "globalThis.pwned = 1" >> oryx.config.mjs'),
    sh('rm -f oryx.config.mjs'),
    sh('mv .git .git-moved'),
    sh('printf "[core]\\n\\tfsmonitor = touch /tmp/x\\n" >> .git/config'),
    sh('touch .git/hooks/pre-commit'),
    node(`require('fs').writeFileSync('.oryxos/agents/assistant/AGENT.md', '---\\ntools: ["*"]\\n---\\n')`),
  ];
  const { seen, t } = await turn(calls);
  await t.close({ keep: true });
  for (const [i, s] of seen.entries()) assert.is(s.status, 'error', `call ${i + 1} succeeded: ${s.content}`);
  assert.match(seen[1]!.content, /Read-only file system/);
  assert.match(seen[3]!.content, /Device or resource busy|Read-only file system/);
  assert.equal([await readFile(secret), await readFile(config), await readFile(path.join(root, '.git', 'config'))], before);
  assert.not.ok(existsSync(path.join(root, '.git', 'hooks', 'pre-commit')));
  assert.match(await readFile(path.join(root, '.oryxos', 'agents', 'assistant', 'AGENT.md'), 'utf8'), /test agent assistant/);
});

test('an opted-in control folder is writable inside the child; the rest of the workspace is not', async () => {
  await mkdir(path.join(root, '.oryxos', 'agents', 'notes'), { recursive: true });
  const options = policy({ files: { read: ['.'], write: ['.'], allowControlWrites: ['.oryxos/agents/notes/**'] } });
  const { seen, t } = await turn([sh('echo kept > .oryxos/agents/notes/AGENT.md'), sh('echo lost > .oryxos/agents/evil.md')], options);
  await t.close({ keep: true });
  assert.is(seen[0]!.status, 'ok', seen[0]!.content);
  assert.is(await readFile(path.join(root, '.oryxos', 'agents', 'notes', 'AGENT.md'), 'utf8'), 'kept\n');
  assert.is(seen[1]!.status, 'error');
  assert.match(seen[1]!.content, /Read-only file system/);
  assert.not.ok(existsSync(path.join(root, '.oryxos', 'agents', 'evil.md')));
  await rm(path.join(root, '.oryxos', 'agents', 'notes'), { recursive: true });
});

test('positive controls: reading and writing inside the roots and git status work', async () => {
  // roots that do not exist yet are simply not there inside
  const options = policy({ files: { read: ['.', 'not-yet', '../nowhere'], write: ['.', 'not-yet'] } });
  const { seen, t } = await turn([sh('cat notes.txt && echo made > made.txt'), { name: 'shell', args: { command: 'git', args: ['status', '--porcelain'] } }], options);
  await t.close({ keep: true });
  assert.is(seen[0]!.status, 'ok', seen[0]!.content);
  assert.match(seen[0]!.content, /inside notes/);
  assert.is(await readFile(path.join(root, 'made.txt'), 'utf8'), 'made\n');
  assert.is(seen[1]!.status, 'ok', seen[1]!.content);
  assert.match(seen[1]!.content, /\?\? made\.txt/);
  await rm(path.join(root, 'made.txt'));
});

test('the child gets no new privileges, its own PID namespace, a private /tmp and the minimal environment', async () => {
  await writeFile(path.join(tmpdir(), `oryx-confine-visible-${process.pid}`), 'x');
  process.env.ORYX_CONFINE_SECRET = 'do-not-pass';
  try {
    const r = await once1(sh(`grep -E "^(NoNewPrivs|CapEff)" /proc/self/status; echo "pid=$$"; test -e ${tmpdir()}/oryx-confine-visible-${process.pid} || echo tmp=private; env | sort`));
    assert.is(r.status, 'ok', r.content);
    assert.match(r.content, /NoNewPrivs:\s+1/);
    assert.match(r.content, /CapEff:\s+0+\n/);
    assert.match(r.content, /pid=[1-9]\n/);
    assert.match(r.content, /tmp=private\n/);
    assert.match(r.content, /^TMPDIR=\/tmp$/m);
    assert.not.match(r.content, /ORYX_CONFINE_SECRET|^npm_/m);
  } finally {
    delete process.env.ORYX_CONFINE_SECRET;
    await rm(path.join(tmpdir(), `oryx-confine-visible-${process.pid}`), { force: true });
  }
});

const get = (target: string, viaProxy: boolean) => node(`
  const http = require('http');
  const proxy = process.env.HTTP_PROXY ? new URL(process.env.HTTP_PROXY) : undefined;
  const options = ${viaProxy} && proxy ? { host: proxy.hostname, port: proxy.port, path: ${JSON.stringify(target)} } : ${JSON.stringify(target)};
  http.get(options, (r) => { let b = ''; r.on('data', (d) => b += d); r.on('end', () => console.log('status', r.statusCode, b.trim())); })
    .on('error', (e) => { console.log('error', e.code); process.exitCode = 1; });
`);

test('network: none without an http allow-list; the server sees no connection', async () => {
  const before = blocked.connections;
  const r = await once1(get(`http://127.0.0.1:${blocked.port}/direct`, false));
  assert.is(r.status, 'error');
  assert.match(r.content, /error ECONNREFUSED/);
  assert.is(blocked.connections, before, 'a connection reached the server');
});

test('network: only through the OryxOS proxy, which applies the allow-list and audits every connection with its process', async () => {
  const options = policy({ http: { allow: [`http://127.0.0.1:${allowed.port}`] } });
  const [a, b] = [allowed.connections, blocked.connections];
  const { seen, t } = await turn([
    get(`http://127.0.0.1:${allowed.port}/through-proxy`, true),
    get(`http://127.0.0.1:${blocked.port}/through-proxy`, true),
    get(`http://127.0.0.1:${blocked.port}/direct`, false),
    node(`
      const s = require('net').connect(3128, '127.0.0.1', () => s.write('CONNECT 127.0.0.1:${blocked.port} HTTP/1.1\\r\\nHost: 127.0.0.1:${blocked.port}\\r\\n\\r\\n'));
      s.on('data', (d) => { console.log('tunnel', String(d).split('\\r\\n')[0]); s.destroy(); });
    `),
  ], options);
  try {
    assert.is(seen[0]!.status, 'ok', seen[0]!.content);
    assert.match(seen[0]!.content, /status 200 hello from the hit server/);
    assert.ok(allowed.requests.includes('GET /through-proxy'));
    assert.is(allowed.connections, a + 1);
    assert.match(seen[1]!.content, /status 403 Denied by the OryxOS sandbox: .*127\.0\.0\.1 is allowed only as http:\/\/127\.0\.0\.1:\d+/);
    assert.match(seen[2]!.content, /error ECONNREFUSED/);
    assert.match(seen[3]!.content, /tunnel HTTP\/1\.1 403 Forbidden/);
    assert.is(blocked.connections, b, 'a connection reached the server that is not allowed');
    const rows = await t.kernel.service('database').query<{ decision: string; kind: string; target: string; origin: string; pid: number | null; process: string; tool_call_id: string }>(
      'SELECT decision, kind, target, origin, pid, process, tool_call_id FROM sandbox_events WHERE origin LIKE \'proxy for %\' ORDER BY id');
    assert.equal(rows.map((r) => [r.decision, r.kind, r.tool_call_id]), [['allow', 'http', 'c1'], ['deny', 'http', 'c2'], ['deny', 'connect', 'c4']]);
    assert.match(rows[0]!.target, new RegExp(`GET http://127\\.0\\.0\\.1:${allowed.port}/through-proxy`));
    assert.is(rows[2]!.target, `127.0.0.1:${blocked.port}`);
    for (const row of rows) {
      assert.is(row.origin, 'proxy for tool shell');
      assert.ok(row.pid && row.pid > 0, 'no process id');
      assert.match(row.process, new RegExp(`^\\["${NODE.replace(/[/.]/g, '\\$&')}","-e"`));
    }
  } finally {
    await t.close({ keep: true });
  }
});

test('an agent narrowing applies inside the child too', async () => {
  const r = await once1(sh('cat docs/guide.md; cat notes.txt'), policy(), { tools: ['*'], sandbox: { files: { read: ['docs'] } } });
  // cwd is the project folder, which this agent may not read: the call is refused before it runs
  assert.is(r.status, 'denied');
  const inside = await once1({ name: 'shell', args: { command: 'sh', args: ['-c', 'cat guide.md; cat ../notes.txt'], cwd: 'docs' } }, policy(), { tools: ['*'], sandbox: { files: { read: ['docs'] } } });
  assert.match(inside.content, /guide/);
  assert.match(inside.content, /No such file or directory/);
  assert.not.match(inside.content, /inside notes/);
});

test('a caller\'s narrowing applies inside its sub-agent\'s child too (the sub-agent has no sandbox: of its own)', async () => {
  const seen: Parameters<typeof afterToolProbe>[0] = [];
  const llm = scripted([
    { toolCalls: [{ id: 'd1', name: 'agent__runner', args: { task: 'read' } }] },
    { toolCalls: [{ id: 'c1', name: 'shell', args: { command: 'sh', args: ['-c', 'cat guide.md; cat ../notes.txt'], cwd: 'docs' } }] },
    { text: 'runner done' }, { text: 'lead done' },
  ]);
  const t = await testKernel({
    dir: root, configFile: path.join(root, 'oryx.config.mjs'),
    agents: { assistant: { agents: ['runner'], tools: [], sandbox: { files: { read: ['docs'] } } }, runner: { tools: ['*'] } },
    plugins: [llm, sqlite(), audit(), sandbox(policy()), tools(), subagents(), afterToolProbe(seen)],
  });
  try {
    await t.service.process({ agent: 'assistant', message: 'go' });
    const shell = seen.find((s) => s.result.content.includes('guide'));
    assert.ok(shell, JSON.stringify(seen.map((s) => s.result.content)));
    assert.match(shell!.result.content, /No such file or directory/, 'the project folder above docs/ is not mounted for the sub-agent');
    assert.not.match(shell!.result.content, /inside notes/);
  } finally {
    await t.close({ keep: true });
  }
});

test('resource limits per rule: CPU time and memory are enforced, and set as asked', async () => {
  const limited = policy({ exec: { allow: [{ command: NODE, args: ['-e'], rest: ANY, limits: { cpuSeconds: 1, memoryMb: 256 } }, { command: 'sh', args: ['-c'], rest: ANY }], limits: { processes: 64 } } });
  const spin = await once1(node('for (;;) {}'), limited);
  assert.is(spin.status, 'error');
  assert.match(spin.content, /exit code: 1[35]\d|killed by signal/);
  const big = await once1(node('const a = []; for (let i = 0; i < 64; i++) a.push(Buffer.alloc(16 * 1024 * 1024, 1)); console.log("allocated")'), limited);
  assert.is(big.status, 'error');
  assert.match(big.content, /--- stdout \(empty\) ---/, big.content);
  const table = await once1(sh('cat /proc/self/limits'), limited);
  assert.match(table.content, /Max processes\s+64\s+64/);
  const small = await once1(node('console.log("fine")'), limited);
  assert.is(small.status, 'ok', small.content);
});

test('no confinement available: exec is refused with how to install bubblewrap, unless confine: false', async () => {
  const saved = process.env.PATH;
  process.env.PATH = '/nonexistent';
  try {
    const opts = policy({ exec: { allow: ['/bin/sh'] } });
    const { seen, t } = await turn([{ name: 'shell', args: { command: '/bin/sh', args: ['-c', 'echo ran'] } }], opts);
    await t.close({ keep: true });
    assert.is(seen[0]!.status, 'denied');
    assert.match(seen[0]!.content, /bubblewrap \(bwrap\) was not found on PATH\. .*install bubblewrap \(apt-get install bubblewrap\), or set sandbox\(\{ confine: false \}\)/);
    assert.ok(t.warnings.some((w) => /bubblewrap \(bwrap\) was not found: every program start is refused/.test(w)), t.warnings.join('\n'));
    const open = await turn([{ name: 'shell', args: { command: '/bin/sh', args: ['-c', 'echo ran'] } }], { ...opts, confine: false });
    await open.t.close({ keep: true });
    assert.is(open.seen[0]!.status, 'ok', open.seen[0]!.content);
    assert.ok(open.t.warnings.some((w) => /confine: false — programs on the exec allow-list run with your full rights/.test(w)));
  } finally {
    process.env.PATH = saved;
  }
});

test.run();
