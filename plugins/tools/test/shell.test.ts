import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allowAll } from '@oryxos/kernel/testing';
import { one, tempDir } from './harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
test.before.each(async () => { ({ dir, cleanup } = await tempDir()); });
test.after.each(async () => {
  for (const pid of started) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  started.length = 0;
  await cleanup();
});

const started: number[] = [];

async function script(name: string, body: string): Promise<string> {
  await mkdir(path.join(dir, 'bin'), { recursive: true });
  const file = path.join(dir, 'bin', name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

/** Alive and not a zombie (an unreaped orphan counts as gone). */
async function running(pid: number): Promise<boolean> {
  try { process.kill(pid, 0); } catch { return false; }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return !/^\d+ \(.*\) Z/.test(stat);
}

/** Whether the process is still running once a signal sent to it has had time to land (2 s). */
async function alive(pid: number): Promise<boolean> {
  for (let i = 0; i < 40 && await running(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return running(pid);
}

async function pidsFrom(file: string): Promise<number> {
  const pid = Number((await readFile(file, 'utf8')).trim());
  started.push(pid);
  return pid;
}

const allow = (...commands: string[]) => ({ sandbox: { files: { read: ['.'] }, exec: { allow: commands } } });
// The process-tree tests read process ids the program writes, which only mean something on
// this side of a PID namespace: they run unconfined (confined runs are tested below).
const unconfined = (...commands: string[]) => ({ sandbox: { files: { read: ['.'] }, exec: { allow: commands }, confine: false } });

/** Host processes whose command line contains `token` and are still running. */
async function processesWith(token: string): Promise<number[]> {
  const { readdir } = await import('node:fs/promises');
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(token) && await running(Number(name))) found.push(Number(name));
  }
  return found;
}

test('exit 0: stdout and stderr with their lengths', async () => {
  const file = await script('ok.sh', 'echo hello; echo warn >&2');
  const r = await one(dir, { name: 'shell', args: { command: file, args: [] } }, allow(file));
  assert.is(r.status, 'ok');
  assert.is(r.content, [
    `command: ${JSON.stringify([file])}`, 'exit code: 0', '--- stdout (6 bytes) ---', 'hello\n', '--- stderr (5 bytes) ---', 'warn\n',
  ].join('\n'));
});

test('binary output is reported by size and type, not decoded into mangled text', async () => {
  await writeFile(path.join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0xff, 0xfe]));
  const file = await script('bin.sh', `cat "${path.join(dir, 'logo.png')}"; printf 'a\\000b' >&2`);
  const r = await one(dir, { name: 'shell', args: { command: file, args: [] } }, allow(file));
  assert.is(r.status, 'ok');
  assert.match(r.content, '--- stdout (binary, 14 bytes, image/png: not shown) ---');
  assert.match(r.content, '--- stderr (binary, 3 bytes, application/octet-stream: not shown) ---');
  assert.not.match(r.content, '\uFFFD');
});

test('a non-zero exit is a normal result the model sees, marked as an error', async () => {
  const file = await script('fail.sh', 'echo partial; exit 3');
  const r = await one(dir, { name: 'shell', args: { command: file, args: [] } }, allow(file));
  assert.is(r.status, 'error');
  assert.is(r.result.isError, true);
  assert.match(r.content, /^exit code: 3$/m);
  assert.match(r.content, /partial/);
  assert.match(r.content, /--- stderr \(empty\) ---/);
});

test('a name is looked up on PATH and cwd is honoured', async () => {
  await mkdir(path.join(dir, 'sub'));
  await writeFile(path.join(dir, 'sub', 'inside.txt'), '');
  const r = await one(dir, { name: 'shell', args: { command: 'ls', args: ['-1'], cwd: 'sub' } }, allow('ls'));
  assert.is(r.status, 'ok', r.content);
  assert.match(r.content, /"\/[^"]*\/ls"/);
  assert.match(r.content, /--- stdout \(11 bytes\) ---\ninside\.txt\n/);
});

test('stdin is empty: a program reading it ends at once', async () => {
  const r = await one(dir, { name: 'shell', args: { command: 'cat', args: [] } }, allow('cat'));
  assert.is(r.status, 'ok');
  assert.match(r.content, /--- stdout \(empty\) ---/);
});

// maxShellTimeoutMs keeps the kernel's own time limit short, so a tool that waited for the
// child instead of stopping it fails with the kernel's message rather than hanging.
const short = { maxShellTimeoutMs: 1000, killGraceMs: 200 };

test('timeout: the process and the children it started are stopped', async () => {
  const file = await script('slow.sh', `echo $$ > "${dir}/main.pid"; sleep 1000 & echo $! > "${dir}/child.pid"; wait`);
  const r = await one(dir, { name: 'shell', args: { command: file, args: [], timeoutMs: 300 } }, { ...unconfined(file), tools: short });
  const [main, child] = [await pidsFrom(path.join(dir, 'main.pid')), await pidsFrom(path.join(dir, 'child.pid'))];
  assert.is(r.status, 'error');
  assert.match(r.content, /^timed out after 300 ms: the process and its children were stopped/m);
  assert.match(r.content, /killed by signal SIGTERM/);
  assert.is(await alive(main), false, 'the program still runs');
  assert.is(await alive(child), false, 'its child still runs');
});

test('a background process left behind by a program that exited is stopped with it', async () => {
  const file = await script('daemon.sh', `sleep 1000 >/dev/null 2>&1 & echo $! > "${dir}/child.pid"; echo started`);
  const r = await one(dir, { name: 'shell', args: { command: file, args: [] } }, { ...unconfined(file), tools: short });
  const child = await pidsFrom(path.join(dir, 'child.pid'));
  assert.is(r.status, 'ok', r.content);
  assert.is(await alive(child), false, 'the background process still runs');
});

test('timeout: a program that ignores SIGTERM gets SIGKILL after killGraceMs', async () => {
  const file = await script('stubborn.sh', `trap '' TERM; echo $$ > "${dir}/main.pid"; sleep 1000 & echo $! > "${dir}/child.pid"; wait`);
  const r = await one(dir, { name: 'shell', args: { command: file, args: [], timeoutMs: 200 } }, { ...unconfined(file), tools: short });
  const [main, child] = [await pidsFrom(path.join(dir, 'main.pid')), await pidsFrom(path.join(dir, 'child.pid'))];
  assert.is(r.status, 'error');
  assert.match(r.content, /killed by signal SIGKILL/);
  assert.is(await alive(main), false);
  assert.is(await alive(child), false);
});

test('the default timeout comes from shellTimeoutMs; timeoutMs above the maximum is rejected', async () => {
  const file = await script('sleepy.sh', `echo $$ > "${dir}/main.pid"; exec sleep 1000`);
  const opts = { ...unconfined(file), tools: { ...short, shellTimeoutMs: 200 } };
  const r = await one(dir, { name: 'shell', args: { command: file, args: [] } }, opts);
  await pidsFrom(path.join(dir, 'main.pid'));
  assert.match(r.content, /timed out after 200 ms/);
  const big = await one(dir, { name: 'shell', args: { command: file, args: [], timeoutMs: 5000 } }, opts);
  assert.is(big.status, 'error');
  assert.match(big.content, /Invalid arguments for shell: timeoutMs must be at most 1000/);
});

test('oversized output is capped, with the full length reported', async () => {
  const file = await script('loud.sh', "head -c 1000000 /dev/zero | tr '\\0' 'a'; head -c 300000 /dev/zero | tr '\\0' 'e' >&2");
  const r = await one(dir, { name: 'shell', args: { command: file, args: [] } }, { ...allow(file), tools: { maxOutputChars: 100 } });
  assert.is(r.status, 'ok');
  assert.match(r.content, new RegExp(`--- stdout \\(1000000 bytes; only the first 100 characters are shown\\) ---\\n${'a'.repeat(100)}\\n--- stderr`));
  assert.match(r.content, new RegExp(`--- stderr \\(300000 bytes; only the first 100 characters are shown\\) ---\\n${'e'.repeat(100)}$`));
});

test('environment: the minimal one, plus the variables the sandbox exec.env allows', async () => {
  process.env.ORYX_TEST_SECRET = 'sk-secret-value';
  try {
    const file = await script('env.sh', 'echo "secret=[$ORYX_TEST_SECRET] path=[${PATH:+set}]"');
    const call = { name: 'shell', args: { command: file, args: [] } };
    const minimal = await one(dir, call, allow(file));
    assert.match(minimal.content, /secret=\[\] path=\[set\]/);
    const listed = await one(dir, call, { sandbox: { files: { read: ['.'] }, exec: { allow: [file], env: ['ORYX_TEST_SECRET'] } } });
    assert.match(listed.content, /secret=\[sk-secret-value\]/);
    const perProgram = await one(dir, call, { sandbox: { files: { read: ['.'] }, exec: { allow: [{ command: file, env: ['ORYX_*'] }] } } });
    assert.match(perProgram.content, /secret=\[sk-secret-value\]/);
  } finally {
    delete process.env.ORYX_TEST_SECRET;
  }
});

test('confined: on timeout the whole sandbox ends, background children included', async () => {
  const token = `1000.${Date.now() % 100000}`;
  const file = await script('confined-slow.sh', `sleep ${token} & echo started; wait`);
  const r = await one(dir, { name: 'shell', args: { command: file, args: [], timeoutMs: 500 } }, { ...allow(file), tools: short });
  assert.is(r.status, 'error');
  assert.match(r.content, /^timed out after 500 ms/m);
  assert.equal(await waitGone(token), [], 'a process of the sandbox still runs');
});

test('confined: a background process left behind ends with the call', async () => {
  const token = `1000.${(Date.now() + 1) % 100000}`;
  const file = await script('confined-daemon.sh', `sleep ${token} >/dev/null 2>&1 & echo started`);
  const r = await one(dir, { name: 'shell', args: { command: file, args: [] } }, { ...allow(file), tools: short });
  assert.is(r.status, 'ok', r.content);
  assert.equal(await waitGone(token), [], 'the background process still runs');
});

/** Polls (up to 5 s) until no process has `token` on its command line; returns those left. */
async function waitGone(token: string): Promise<number[]> {
  let left = await processesWith(token);
  for (let i = 0; i < 100 && left.length; i++) {
    await new Promise((r) => setTimeout(r, 50));
    left = await processesWith(token);
  }
  return left;
}

test('a command that does not exist is an error result (sandbox allowing everything)', async () => {
  const r = await one(dir, { name: 'shell', args: { command: 'no-such-program-oryx', args: [] } }, { plugins: [allowAll()] });
  assert.is(r.status, 'error');
  assert.match(r.content, /command "no-such-program-oryx" not found on PATH/);
});

test('a cwd that is a file is an error result', async () => {
  await writeFile(path.join(dir, 'plain.txt'), '');
  const r = await one(dir, { name: 'shell', args: { command: 'ls', args: [], cwd: 'plain.txt' } }, allow('ls'));
  assert.is(r.status, 'error');
  assert.match(r.content, /cwd plain\.txt is not a folder/);
});

test.run();
