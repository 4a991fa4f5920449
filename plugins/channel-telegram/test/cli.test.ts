// The Telegram channel as a user gets it: the package copied out of the repository, installed
// with `oryx plugins install ./channel-telegram` (no lifecycle script runs), enabled in the
// oryx.config.ts of a project outside the repository, checked by `oryx doctor` (the token
// named, never printed) and served by `oryx serve` against the loopback Bot API server, with
// the offset kept from one `oryx serve` to the next. Build first (`npm test` does).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx } from '@oryxos/kernel/testing';
import { startBotApi, type BotApi } from './bot-api.ts';
import { ALICE, MALLORY, until } from './helpers.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
let base = '', project = '';
let api: BotApi;
let env: Record<string, string | undefined> = {};

function serve() {
  const merged: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  const child = spawn(process.execPath, [path.join(repo, 'bin', 'run.js'), 'serve'], { cwd: project, env: merged as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d) => { out += d; });
  child.stderr!.setEncoding('utf8').on('data', (d) => { out += d; });
  return { child, out: () => out, exited: new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code))) };
}

test.before(async () => {
  assert.ok(existsSync(path.join(repo, 'plugins', 'channel-telegram', 'dist', 'index.js')), 'build first (npm run build)');
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'oryx-telegram-cli-')));
  api = await startBotApi();
  const pkgDir = path.join(base, 'channel-telegram');
  await mkdir(pkgDir);
  for (const f of ['dist', 'README.md', 'CHANGELOG.md']) await cp(path.join(repo, 'plugins', 'channel-telegram', f), path.join(pkgDir, f), { recursive: true });
  const pkg = JSON.parse(await readFile(path.join(repo, 'plugins', 'channel-telegram', 'package.json'), 'utf8'));
  await writeFile(path.join(pkgDir, 'package.json'), JSON.stringify({ ...pkg, scripts: { postinstall: `node -e "require('fs').writeFileSync('${path.join(base, 'SCRIPT-RAN')}', '')"` } }, null, 2));
  project = path.join(base, 'project');
  await mkdir(path.join(project, '.oryxos', 'agents', 'assistant'), { recursive: true });
  await writeFile(path.join(project, '.oryxos', 'agents', 'assistant', 'AGENT.md'), '---\ndescription: chats\n---\nYou chat.\n');
  await writeFile(path.join(project, 'oryx.config.ts'), `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import telegram from '@oryxos/channel-telegram';

const echo = (req) => ({ text: 'Echo: ' + req.messages.filter((m) => m.role === 'user').at(-1).content });
export default defineConfig({
  plugins: [
    scripted(Array.from({ length: 20 }, () => echo)), sqlite(), audit(),
    telegram({ apiRoot: '${api.url}', allow: { users: [${ALICE}] }, pollTimeoutSec: 1, editIntervalMs: 200 }),
  ],
});
`);
  env = { XDG_DATA_HOME: path.join(base, 'data'), TELEGRAM_BOT_TOKEN: api.token, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
});

test.after(async () => {
  await api?.close();
  if (base) await rm(base, { recursive: true, force: true });
});

test('installed from a folder (no lifecycle script runs), checked by oryx doctor, served by oryx serve; the offset carries over to the next serve', async () => {
  const installed = await runOryx(['plugins', 'install', './channel-telegram'], { cwd: base, env, timeoutMs: 180_000 });
  assert.is(installed.code, 0, installed.stderr);
  assert.match(installed.stdout, 'installed @oryxos/channel-telegram@0.1.0: an OryxOS plugin for kernel ^1');
  assert.not.ok(existsSync(path.join(base, 'SCRIPT-RAN')), 'its postinstall script ran');

  const doctor = await runOryx(['doctor', '--json'], { cwd: project, env });
  const items = JSON.parse(doctor.stdout).items as { check: string; status: string; detail: string }[];
  const bot = items.find((i) => i.check === 'telegram bot');
  assert.is(bot?.status, 'ok', JSON.stringify(items));
  assert.match(bot!.detail, `@oryx_test_bot (4242) at ${api.url}, token from env TELEGRAM_BOT_TOKEN`);
  assert.not.match(doctor.stdout + doctor.stderr, api.token);
  const bad = await runOryx(['doctor', '--json'], { cwd: project, env: { ...env, TELEGRAM_BOT_TOKEN: '4242:wrong-token' } });
  const refused = (JSON.parse(bad.stdout).items as { check: string; status: string; code?: string }[]).find((i) => i.check === 'telegram bot')!;
  assert.equal([refused.status, refused.code, bad.code], ['fail', 'ORYX_E_TELEGRAM_AUTH', 1]);

  const first = serve();
  await until(() => first.out().includes('doors started: telegram'), 60_000, `oryx serve to start: ${first.out()}`);
  const one = api.text(ALICE, 'hello from the CLI');
  api.text(MALLORY, 'let me in');
  await until(() => api.chat(ALICE).some((m) => m.text === 'Echo: hello from the CLI'), 20_000, `the answer: ${first.out()}`);
  first.child.kill('SIGTERM');
  assert.is(await first.exited, 0, first.out());
  assert.equal(api.chat(MALLORY), [], 'the stranger got nothing');

  const polled = api.offsets().length;
  const second = serve();
  try {
    await until(() => api.offsets().length > polled, 60_000, 'the second serve polling');
    assert.is(api.offsets()[polled], one + 2, 'it polls from the offset the first one stored');
    api.text(ALICE, 'and again');
    await until(() => api.chat(ALICE).some((m) => m.text === 'Echo: and again'), 20_000, 'the second answer');
    assert.equal(api.chat(ALICE).map((m) => m.text), ['Echo: hello from the CLI', 'Echo: and again'], 'each once');
  } finally {
    second.child.kill('SIGTERM');
    assert.is(await second.exited, 0, second.out());
  }
});

test.run();
