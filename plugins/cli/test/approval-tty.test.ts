// A person at a terminal decides tool calls that need approval (a pseudo-terminal from
// util-linux `script`): the call and a unified diff are shown, y runs it, n gives the model a
// denial, a always stops asking for that tool for the rest of the run; off a terminal the
// call is denied and the output says so; --approval wait stores it for `oryx approvals`.
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kernel } from '@oryxos/kernel';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';
import { loadConfig } from '@oryxos/plugin-cli';

let dir: string;

// Writes src/a.txt, then src/b.txt, then answers with what the two results said.
const config = `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';
import sqlite from '@oryxos/plugin-sqlite';
import approvals from '@oryxos/plugin-approvals';
// Decided from the conversation, not by position: a resumed run starts in another process.
const step = (req) => {
  const results = req.messages.filter((m) => m.role === 'tool').map((m) => m.content);
  if (results.length === 0) return { toolCalls: [{ id: 'write-a', name: 'write_file', args: { path: 'src/a.txt', content: 'one\\nTWO\\n' } }] };
  if (results.length === 1) return { toolCalls: [{ id: 'write-b', name: 'write_file', args: { path: 'src/b.txt', content: 'new file\\n' } }] };
  return { text: 'results: ' + results.join(' | ') };
};
export default defineConfig({
  plugins: [
    scripted(Array.from({ length: 10 }, () => step)),
    sandbox({ files: { read: ['.'], write: ['.'], ask: { write: ['src'] } } }),
    tools({ include: ['write_file'] }),
    sqlite(),
    approvals(),
  ],
});
`;

test.before.each(async () => {
  dir = await tempProject('cli-approval-');
  await writeFile(path.join(dir, 'oryx.config.ts'), config);
  await mkdir(path.join(dir, 'src'));
  await writeFile(path.join(dir, 'src', 'a.txt'), 'one\ntwo\n');
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['write_file'] } });
});
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

/** Ctrl-C as the terminal sends it (readline reads it as a key in raw mode). */
const CTRL_C = '\x03';
/** Esc as the terminal sends it: readline takes a lone ESC as the key once no sequence follows it. */
const ESC = '\x1b';

// eslint-disable-next-line no-control-regex
const strip = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

/**
 * Runs the built CLI under a pseudo-terminal, typing each answer when the question shows up;
 * `lines` are typed first, and `last` once the screen matches `last.when` (then input ends).
 */
function onTerminal(args: string[], answers: string[], chat?: { lines: string[]; last: { when: RegExp; send: string } }): Promise<{ code: number; screen: string; asked: number }> {
  const bin = path.join(process.cwd(), 'bin', 'run.js');
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, bin, ...args].map(quote).join(' ');
  const env: Record<string, string | undefined> = { ...process.env, TERM: 'xterm-256color', CI: undefined, NO_COLOR: '1' };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: dir, env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let asked = 0;
    let ended = false;
    for (const line of chat?.lines ?? []) child.stdin.write(`${line}\n`);
    const onData = (d: string) => {
      screen += d;
      if (chat && !ended && chat.last.when.test(strip(screen))) {
        ended = true;
        child.stdin.end(`${chat.last.send}\n`);
        return;
      }
      // Answer each question once, when it has been shown.
      const questions = strip(screen).split('Allow? [y]es / [n]o / [a]lways for this run:').length - 1;
      while (asked < questions) {
        const answer = answers[asked++];
        if (answer === undefined) { if (!chat) child.stdin.end(); break; }
        child.stdin.write(answer === CTRL_C || answer === ESC ? answer : `${answer}\n`); // a key, not a line
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    // A question nobody can leave (a key that does nothing) fails the test instead of hanging it.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(timer); child.stdin.destroy(); resolve({ code: code ?? 1, screen: strip(screen), asked }); });
  });
}

test('y runs the call, n gives the model a denial; the question shows a unified diff of the write', async () => {
  const r = await onTerminal(['run', 'write', 'them'], ['y', 'n']);
  assert.is(r.code, 0, r.screen);
  assert.is(r.asked, 2);
  assert.match(r.screen, /\? write_file needs your approval\n {2}write of "[^"]*src\/a\.txt".* needs approval: it is inside "src" on files\.ask\.write/);
  assert.match(r.screen, /--- a\/src\/a\.txt\n {2}\+\+\+ b\/src\/a\.txt\n {2}@@ -1,2 \+1,2 @@\n {2} one\n {2}-two\n {2}\+TWO/);
  assert.match(r.screen, /--- \/dev\/null\n {2}\+\+\+ b\/src\/b\.txt/);
  assert.is(await readFile(path.join(dir, 'src', 'a.txt'), 'utf8'), 'one\nTWO\n', 'yes: the write happened');
  assert.is(await readFile(path.join(dir, 'src', 'b.txt'), 'utf8').catch(() => 'absent'), 'absent', 'no: it did not');
  assert.match(r.screen, /results: Wrote .*src\/a\.txt.* \| Not run: this call needed a person's approval, and it was denied by cli/);
});

test('a approves that tool for the rest of the run: the second write is not asked', async () => {
  const r = await onTerminal(['run', 'write', 'them'], ['a']);
  assert.is(r.code, 0, r.screen);
  assert.is(r.asked, 1);
  assert.is(await readFile(path.join(dir, 'src', 'b.txt'), 'utf8'), 'new file\n');
  assert.match(r.screen, /approved for every write_file call of this run/);
});

test('oryx chat asks through its own line reader: y runs the call, n denies it, and the chat goes on', async () => {
  const r = await onTerminal(['chat', '--no-stream'], ['y', 'n'], { lines: ['write them'], last: { when: /results: .*\n/, send: '/exit' } });
  assert.is(r.code, 0, r.screen);
  assert.is(r.asked, 2);
  assert.match(r.screen, /assistant> results: Wrote .*src\/a\.txt.* \| Not run: this call needed a person's approval, and it was denied by cli/);
  assert.is(await readFile(path.join(dir, 'src', 'a.txt'), 'utf8'), 'one\nTWO\n');
});

test('Ctrl-C at the question in oryx run stops the run: exit 130, the call not run, the session kept', async () => {
  const r = await onTerminal(['run', 'write', 'them'], [CTRL_C]);
  assert.is(r.code, 130, r.screen);
  assert.is(r.asked, 1);
  assert.match(r.screen, /→ interrupted \(Ctrl-C\): the call is not run and the run stops/);
  assert.is(await readFile(path.join(dir, 'src', 'a.txt'), 'utf8'), 'one\ntwo\n', 'nothing was written');
  assert.not.match(r.screen, /results:/, 'the model was not called again');
});

test('Ctrl-C at the question in oryx chat cancels that run and comes back to the prompt', async () => {
  const r = await onTerminal(['chat', '--no-stream'], [CTRL_C], { lines: ['write them'], last: { when: /\(cancelled\)\n(?:.*\n)*?you> /, send: '/exit' } });
  assert.is(r.code, 0, r.screen);
  assert.is(r.asked, 1);
  assert.match(r.screen, /→ interrupted \(Ctrl-C\)/);
  assert.is(await readFile(path.join(dir, 'src', 'a.txt'), 'utf8'), 'one\ntwo\n', 'nothing was written');
});

test('Esc at the question in oryx chat does what Ctrl-C does: the run is cancelled, the call gets its interrupted result, back to the prompt', async () => {
  const r = await onTerminal(['chat', '--no-stream'], [ESC], { lines: ['write them'], last: { when: /\(cancelled\)\n(?:.*\n)*?you> /, send: '/exit' } });
  assert.is(r.code, 0, r.screen);
  assert.is(r.asked, 1);
  assert.match(r.screen, /→ interrupted \(Esc\): the call is not run and the run stops/);
  assert.is(await readFile(path.join(dir, 'src', 'a.txt'), 'utf8'), 'one\ntwo\n', 'nothing was written');
  assert.not.match(r.screen, /results:/, 'the model was not called again');
  // The waiting call has its result in the session: the run was interrupted, the call not run.
  const config = await loadConfig({ file: path.join(dir, 'oryx.config.ts') });
  const kernel = await new Kernel({ config: config! }).start();
  try {
    const sessions = kernel.service('sessions');
    const [session] = (await sessions.list({ limit: 1 })).items;
    const messages = (await sessions.messages(session!.id)).map((m) => m.message);
    assert.equal(messages.map((m) => m.role), ['user', 'assistant', 'tool']);
    const result = messages[2] as { toolCallId: string; isError?: boolean; content: string };
    assert.is(result.toolCallId, 'write-a');
    assert.is(result.isError, true);
    assert.match(result.content, /^Not run: .*the run was interrupted \(Esc\) at the approval question/);
  } finally {
    await kernel.close();
  }
});

test('off a terminal the call is denied by default, and the output says so; --approval wait stores it', async () => {
  const r = await runOryx(['run', 'write', 'them'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /approval needed write_file: write of "[^"]*src\/a\.txt".*\n {2}→ denied: not on a terminal/);
  assert.is(await readFile(path.join(dir, 'src', 'a.txt'), 'utf8'), 'one\ntwo\n', 'nothing was written');
  assert.match(r.stdout, /results: Not run: this call needed a person's approval, and it was denied by cli: no terminal/);

  const waited = await runOryx(['run', 'write', 'them', '--approval', 'wait', '--json'], { cwd: dir });
  assert.is(waited.code, 4, waited.stderr);
  const paused = JSON.parse(waited.stdout);
  assert.is(paused.stopReason, 'suspended');
  const listed = JSON.parse((await runOryx(['approvals', '--json'], { cwd: dir })).stdout);
  assert.equal(listed.items.map((a: { id: string }) => a.id), [paused.approval.id]);
  const approved = await runOryx(['approvals', 'approve', paused.approval.id.slice(0, 8)], { cwd: dir });
  assert.is(approved.code, 0, approved.stderr);
  assert.is(await readFile(path.join(dir, 'src', 'a.txt'), 'utf8'), 'one\nTWO\n', 'approving resumed the run: the call ran');
  // It goes on to the second write, which waits in turn (nobody at this process's terminal).
  const next = /waits for another approval: ([0-9a-f]{8}) write_file/.exec(approved.stderr);
  assert.ok(next, approved.stderr);

  // Decided where the run could not go on (a process that stopped at once): `approvals resume` finishes it.
  const config = await loadConfig({ file: path.join(dir, 'oryx.config.ts') });
  const kernel = await new Kernel({ config: config! }).start();
  try {
    const [second] = await kernel.service('approvals').withPrefix(next![1]!, 2);
    await kernel.service('approvals').decide(second!.id, { decision: 'approve', by: 'cli' });
  } finally {
    await kernel.close();
  }
  const resumed = await runOryx(['approvals', 'resume', next![1]!], { cwd: dir });
  assert.is(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /^results: Wrote .*src\/a\.txt.* \| Wrote .*src\/b\.txt/);
  assert.is(await readFile(path.join(dir, 'src', 'b.txt'), 'utf8'), 'new file\n');
  const again = await runOryx(['approvals', 'resume', next![1]!], { cwd: dir });
  assert.is(again.code, 1);
  assert.match(again.stderr, /ORYX_E_RUN_NOT_CONTINUABLE: Run \S+ cannot be continued: (it ended with stop reason final|its calls already have results)/);
});

test.run();
