// Esc in `oryx chat` interrupts the agent while it works, as Claude Code and Codex do, and the
// chat comes back to its prompt (a pseudo-terminal from util-linux `script`, as in
// approval-tty.test.ts; readline decodes Esc as a key in raw mode).
import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempProject, writeAgents } from '@oryxos/kernel/testing';

let dir: string;
test.before.each(async () => {
  dir = await tempProject('cli-chat-keys-');
  // The first answer takes 30 s (the test would time out waiting for it); the second is at once.
  await writeFile(path.join(dir, 'oryx.config.ts'), `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
export default defineConfig({ plugins: [scripted([{ text: 'too late', delayMs: 30000 }, { text: 'second answer' }]), sqlite()] });
`);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: {} });
});
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

// eslint-disable-next-line no-control-regex
const strip = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

/** Drives `oryx chat` on a pseudo-terminal: each step waits for the screen to match, then types. */
function chatOnTerminal(steps: { when: RegExp; send: string }[]): Promise<{ code: number; screen: string; ms: number }> {
  const bin = path.join(process.cwd(), 'bin', 'run.js');
  const command = [process.execPath, bin, 'chat'].map((s) => `'${s}'`).join(' ');
  const env: Record<string, string | undefined> = { ...process.env, TERM: 'xterm-256color', CI: undefined, NO_COLOR: '1' };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: dir, env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let next = 0;
    const onData = (d: string) => {
      screen += d;
      while (next < steps.length && steps[next]!.when.test(strip(screen))) child.stdin.write(steps[next++]!.send);
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(timer); child.stdin.destroy(); resolve({ code: code ?? 1, screen: strip(screen), ms: Date.now() - started }); });
  });
}

test('Esc while the model works cancels that run; the chat comes back to its prompt and goes on', async () => {
  const r = await chatOnTerminal([
    { when: /you> $/, send: 'first question\r' },
    { when: /thinking/, send: '\x1b' },
    { when: /\(cancelled\)\n(?:.*\n)*?you> $/, send: 'second question\r' },
    { when: /second answer[\s\S]*you> $/, send: '/exit\r' },
  ]);
  assert.is(r.code, 0, r.screen);
  assert.match(r.screen, /\(cancelled\)/);
  assert.match(r.screen, /assistant> second answer/);
  assert.not.match(r.screen, /too late/);
  assert.ok(r.ms < 20_000, `it did not wait for the slow answer (${r.ms} ms)`);
});

test.run();
