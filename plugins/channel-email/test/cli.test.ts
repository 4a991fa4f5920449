// The email channel as a user gets it: the package copied out of the repository and installed
// with `oryx plugins install ./channel-email` (its lifecycle scripts never run), enabled in an
// oryx.config.ts of a project outside the repository, shown by `oryx plugins` and `oryx doctor`,
// and served by `oryx serve` against a private Dovecot and a loopback SMTP server: a mail
// answered; the process SIGKILLed mid-run and started again answers that mail once; two
// processes on one PostgreSQL database answer each mail once. Build first (`npm test` does).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx } from '@oryxos/kernel/testing';
import { freshDatabase } from '../../postgres/test/pg.ts';
import { startSmtp, type TestSmtp } from '../../notify/test/smtp-server.ts';
import { startDovecot, type TestDovecot } from './dovecot.ts';
import { mail, until } from './helpers.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
let base = '', project = '';
let imap: TestDovecot, smtp: TestSmtp;
let env: Record<string, string | undefined> = {};

const oryx = (args: string[], extra: Record<string, string | undefined> = {}) => runOryx(args, { cwd: project, env: { ...env, ...extra }, timeoutMs: 120_000 });

/** `oryx serve` in the background; `lines` collects what it prints. */
function serve(extra: Record<string, string | undefined> = {}): { child: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const merged: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...env, ...extra };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  const child = spawn(process.execPath, [path.join(repo, 'bin', 'run.js'), 'serve'], { cwd: project, env: merged as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d) => { out += d; });
  child.stderr!.setEncoding('utf8').on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, exited };
}

/** The email rows of the project's SQLite database, read with libsql (the sqlite plugin's driver). */
async function rows(): Promise<{ message_id: string; status: string; attempts: number; owner: string; session_id: string | null }[]> {
  const { default: Database } = await import('libsql');
  const db = new Database(path.join(project, '.oryxos', 'oryx.db'), { readonly: true });
  try { return db.prepare('SELECT message_id, status, attempts, owner, session_id FROM email_messages ORDER BY received_at').all() as never; } catch { return []; } finally { db.close(); }
}

test.before(async () => { try { await setup(); } catch (e) { console.error("setup failed:", e); throw e; } });
async function setup() {
  assert.ok(existsSync(path.join(repo, 'plugins', 'channel-email', 'dist', 'index.js')), 'build first (npm run build)');
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'oryx-email-cli-')));
  imap = await startDovecot();
  smtp = await startSmtp();
  // The package as someone would get it, with lifecycle scripts that must never run.
  const pkgDir = path.join(base, 'channel-email');
  await mkdir(pkgDir);
  for (const f of ['dist', 'README.md', 'CHANGELOG.md']) await cp(path.join(repo, 'plugins', 'channel-email', f), path.join(pkgDir, f), { recursive: true });
  const pkg = JSON.parse(await readFile(path.join(repo, 'plugins', 'channel-email', 'package.json'), 'utf8'));
  const mark = (what: string) => `node -e "require('fs').writeFileSync('${path.join(base, `${what}-RAN`)}', '')"`;
  await writeFile(path.join(pkgDir, 'package.json'), JSON.stringify({ ...pkg, scripts: { preinstall: mark('preinstall'), install: mark('install'), postinstall: mark('postinstall') } }, null, 2));
  project = path.join(base, 'project');
  await mkdir(path.join(project, '.oryxos', 'agents', 'assistant'), { recursive: true });
  await writeFile(path.join(project, '.oryxos', 'agents', 'assistant', 'AGENT.md'), '---\ndescription: answers mail\n---\nYou answer mail.\n');
  await writeFile(path.join(project, 'oryx.config.ts'), `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import postgres, { env } from '@oryxos/plugin-postgres';
import audit from '@oryxos/plugin-audit';
import sandbox from '@oryxos/plugin-sandbox';
import notify from '@oryxos/plugin-notify';
import email from '@oryxos/channel-email';

const delayMs = Number(process.env.ORYX_TEST_MODEL_DELAY ?? 0);
const answer = (req) => ({ delayMs, text: 'Answer to: ' + req.messages.filter((m) => m.role === 'user').at(-1).content.split('\\n')[2] });
export default defineConfig({
  plugins: [
    scripted(Array.from({ length: 50 }, () => answer)),
    process.env.ORYX_TEST_DB_URL ? postgres({ url: env('ORYX_TEST_DB_URL') }) : sqlite(),
    audit(),
    sandbox({ smtp: { allow: ['127.0.0.1:${smtp.port}'] } }),
    notify({ channels: [{ name: 'bot', host: '127.0.0.1', port: ${smtp.port}, from: 'OryxOS <bot@oryx.test>', to: ['bot@oryx.test'] }] }),
    email({
      imap: { host: '127.0.0.1', port: ${imap.port}, tls: 'none', user: '${imap.user}', passEnv: 'ORYX_TEST_IMAP_PASS' },
      smtp: 'bot', allow: ['*@example.com'], pollMs: 500, leaseMs: 3000,
    }),
  ],
});
`);
  env = { XDG_DATA_HOME: path.join(base, 'data'), ORYX_TEST_IMAP_PASS: imap.pass, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
}

test.after(async () => {
  await imap?.close();
  await smtp?.close();
  if (base) await rm(base, { recursive: true, force: true });
});

test('installed from a folder (no lifecycle script runs), listed by oryx plugins, checked by oryx doctor without printing the password', async () => {
  const installed = await runOryx(['plugins', 'install', './channel-email'], { cwd: base, env, timeoutMs: 180_000 });
  assert.is(installed.code, 0, installed.stderr);
  assert.match(installed.stdout, 'installed @oryxos/channel-email@0.1.0: an OryxOS plugin for kernel ^1');
  assert.match(installed.stdout, 'permissions it declares: imap, smtp');
  for (const what of ['preinstall', 'install', 'postinstall']) assert.not.ok(existsSync(path.join(base, `${what}-RAN`)), `its ${what} script ran`);

  const listed = JSON.parse((await oryx(['plugins', '--json'])).stdout).items.find((p: { package: string }) => p.package === '@oryxos/channel-email');
  assert.equal([listed.from, listed.enabled, listed.kernelOk, listed.declaredPermissions], ['installed', true, true, ['imap', 'smtp']]);

  const doctor = await oryx(['doctor', '--json']);
  const items = JSON.parse(doctor.stdout).items as { check: string; status: string; detail: string }[];
  const line = (check: string) => items.find((i) => i.check === check);
  assert.is(line('email imap')?.status, 'ok', JSON.stringify(items));
  assert.match(line('email imap')!.detail, `logged in as ${imap.user} at 127.0.0.1:${imap.port} (tls none), password from env ORYX_TEST_IMAP_PASS`);
  assert.is(line('email smtp')?.status, 'ok');
  assert.match(line('email allow')!.detail, 'mail is answered from *@example.com');
  assert.not.match(doctor.stdout + doctor.stderr, imap.pass);
  // A wrong password: the line fails with the auth code, and still names only the variable.
  const wrong = await oryx(['doctor', '--json'], { ORYX_TEST_IMAP_PASS: 'not-the-password-123' });
  const failed = (JSON.parse(wrong.stdout).items as { check: string; status: string; code?: string; detail: string }[]).find((i) => i.check === 'email imap')!;
  assert.equal([failed.status, failed.code], ['fail', 'ORYX_E_EMAIL_AUTH']);
  assert.not.match(wrong.stdout, 'not-the-password-123');
  assert.is(wrong.code, 1);
});

test('oryx serve answers a mail; SIGKILLed mid-run and started again, it answers that mail once', async () => {
  const first = serve();
  await until(() => first.out().includes('doors started: email'), 60_000, `oryx serve to start: ${first.out()}`);
  await imap.deliver(mail({ id: '<cli-1@example.com>', body: 'First question' }));
  const [reply] = await smtp.received(1, 30_000).catch((e) => { throw new Error(`${(e as Error).message}; oryx serve said:\n${first.out()}`); });
  assert.match(reply!.text!, /^Answer to: First question/);
  first.child.kill('SIGTERM');
  assert.is(await first.exited, 0, first.out());
  assert.match(first.out(), 'SIGTERM: stopping the doors');

  // A slow model: the run is going on when the process is killed.
  const doomed = serve({ ORYX_TEST_MODEL_DELAY: '60000' });
  await until(() => doomed.out().includes('doors started: email'), 60_000, 'oryx serve to start again');
  await imap.deliver(mail({ id: '<cli-2@example.com>', body: 'Second question' }));
  await until(async () => (await rows()).find((r) => r.message_id === '<cli-2@example.com>' && r.session_id), 20_000, 'the mail claimed and its run started');
  await new Promise((r) => setTimeout(r, 300));
  doomed.child.kill('SIGKILL');
  await doomed.exited;
  assert.is(smtp.mails.length, 1, 'nothing was sent for the second mail');
  assert.equal((await rows()).find((r) => r.message_id === '<cli-2@example.com>')!.status, 'claimed');

  const again = serve();
  try {
    const mails = await smtp.received(2, 30_000);
    assert.match(mails[1]!.text!, /^Answer to: Second question/);
    assert.is(mails[1]!.inReplyTo, '<cli-2@example.com>');
    await new Promise((r) => setTimeout(r, 1500));
    assert.is(smtp.mails.length, 2, 'answered once');
    const row = (await rows()).find((r) => r.message_id === '<cli-2@example.com>')!;
    assert.equal([row.status, row.attempts], ['answered', 2]);
  } finally {
    again.child.kill('SIGTERM');
    await again.exited;
  }
});

test('two oryx serve processes on one PostgreSQL database: each mail is answered once', async () => {
  const db = await freshDatabase('oryx_email');
  const before = smtp.mails.length;
  const logins = await imap.logins();
  const a = serve({ ORYX_TEST_DB_URL: db.url });
  const b = serve({ ORYX_TEST_DB_URL: db.url });
  try {
    await until(() => a.out().includes('doors started: email') && b.out().includes('doors started: email'), 60_000, `both to start:\n${a.out()}\n${b.out()}`);
    await until(async () => (await imap.logins()) >= logins + 2, 10_000, 'both logged in');
    const ids = Array.from({ length: 6 }, (_, i) => `<pair-${i}@example.com>`);
    for (const [i, id] of ids.entries()) await imap.deliver(mail({ id, body: `Question ${i}` }));
    await smtp.received(before + ids.length, 40_000);
    await new Promise((r) => setTimeout(r, 1500));
    const replies = smtp.mails.slice(before);
    assert.is(replies.length, ids.length, 'no mail answered twice');
    assert.equal(replies.map((m) => m.inReplyTo).sort(), [...ids].sort());
    for (const m of replies) assert.match(m.text!, /^Answer to: Question \d/);
  } finally {
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    assert.equal([await a.exited, await b.exited], [0, 0], `${a.out()}\n${b.out()}`);
    await db.drop();
  }
});

test.run();
