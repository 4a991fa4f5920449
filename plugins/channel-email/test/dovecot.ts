// A private Dovecot (Debian's dovecot-imapd) on loopback for the tests: its own config, state,
// log and mail folders in a temp folder, one passwd-file user, no change to the system's
// config. Started with `dovecot -F -c <config>`, stopped by killing that process.
// Mail "arrives" by IMAP APPEND into the user's INBOX (what an MTA's delivery leaves there).
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';

export const DOVECOT = process.env.ORYX_DOVECOT ?? '/usr/sbin/dovecot';

export interface TestDovecot {
  host: string;
  port: number;
  user: string;
  pass: string;
  dir: string;
  /** Appends a raw RFC 5322 message to the user's INBOX, as a delivery would. */
  deliver(raw: string): Promise<void>;
  /** How many logins of the user the server's log records. */
  logins(): Promise<number>;
  /** The UIDs of INBOX and their flags. */
  flags(): Promise<{ uid: number; flags: string[] }[]>;
  /** Kills the server and its imap processes (the tests' "IMAP down"); `start` again on the same port and mail. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Uid and gid the mail user runs as: Debian's `dovecot` user under root (Dovecot refuses uid 0 for mail), else ours. */
function mailOwner(): { uid: number; gid: number; internal: string; login: string } {
  if (process.getuid?.() !== 0) {
    const name = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
    return { uid: process.getuid!(), gid: process.getgid!(), internal: name, login: name };
  }
  const uid = Number(execFileSync('id', ['-u', 'dovecot'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'dovecot'], { encoding: 'utf8' }));
  return { uid, gid, internal: 'dovecot', login: 'dovenull' };
}

function config(dir: string, port: number, owner: ReturnType<typeof mailOwner>): string {
  return `# written by the channel-email tests
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
info_log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = ${owner.internal}
default_internal_group = ${owner.internal}
default_login_user = ${owner.login}
first_valid_uid = ${owner.uid}
last_valid_uid = ${owner.uid}
mail_location = maildir:~/Maildir
protocol imap {
  mail_max_userip_connections = 50
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service stats {
  unix_listener stats-reader {
    mode = 0666
  }
  unix_listener stats-writer {
    mode = 0666
  }
}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${owner.uid} gid=${owner.gid} home=${dir}/home/%u
}
`;
}

async function waitForPort(port: number, child: ChildProcess, log: string): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dovecot exited with ${child.exitCode}: ${await readFile(log, 'utf8').catch(() => '')}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('data', () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`dovecot did not listen on ${port}: ${await readFile(log, 'utf8').catch(() => '')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts a private Dovecot with user `bot@oryx.test`.
 *
 * @example
 * const imap = await startDovecot();
 * await imap.deliver('From: a@b\r\nSubject: hi\r\n\r\nbody');
 */
export async function startDovecot(): Promise<TestDovecot> {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-dovecot-'));
  await chmod(dir, 0o755);
  const owner = mailOwner();
  const port = await freePort();
  const user = 'bot@oryx.test';
  const pass = 'imap-test-password-31337';
  await writeFile(path.join(dir, 'passwd'), `${user}:{PLAIN}${pass}::::::\n`);
  const home = path.join(dir, 'home', user);
  await mkdir(home, { recursive: true });
  for (const d of [path.join(dir, 'home'), home]) await chown(d, owner.uid, owner.gid).catch(() => {});
  const file = path.join(dir, 'dovecot.conf');
  await writeFile(file, config(dir, port, owner));
  const log = path.join(dir, 'dovecot.log');
  let child: ChildProcess | undefined;

  const start = async () => {
    // Its own process group: stopping it ends its imap processes too, at once, as a crash would.
    child = spawn(DOVECOT, ['-F', '-c', file], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let err = '';
    child.stderr!.on('data', (d) => { err += d; });
    child.on('error', (e) => { err += String(e); });
    try {
      await waitForPort(port, child, log);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${err}`);
    }
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const gone = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    try { process.kill(-c.pid!, 'SIGKILL'); } catch { c.kill('SIGKILL'); }
    await gone;
  };
  const client = () => new ImapFlow({ host: '127.0.0.1', port, secure: false, doSTARTTLS: false, auth: { user, pass }, logger: false });
  await start();
  return {
    host: '127.0.0.1', port, user, pass, dir, start, stop,
    async deliver(raw) {
      const c = client();
      await c.connect();
      try { await c.append('INBOX', raw.replace(/\r?\n/g, '\r\n')); } finally { await c.logout(); }
    },
    async logins() {
      return ((await readFile(log, 'utf8').catch(() => '')).match(/imap-login: Info: Login: user=<bot@oryx\.test>/g) ?? []).length;
    },
    async flags() {
      const c = client();
      await c.connect();
      try {
        await c.mailboxOpen('INBOX');
        const out: { uid: number; flags: string[] }[] = [];
        for await (const m of c.fetch('1:*', { uid: true, flags: true })) out.push({ uid: m.uid, flags: [...(m.flags ?? [])] });
        return out;
      } catch { return []; } finally { await c.logout(); }
    },
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
