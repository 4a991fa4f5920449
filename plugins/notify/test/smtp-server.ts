// A real SMTP server on loopback for tests (smtp-server from npm), with or without auth, that
// parses what arrives with mailparser and counts connections and login attempts.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface TestSmtp {
  port: number;
  /** `127.0.0.1:<port>`, as the sandbox's smtp.allow lists it. */
  hostPort: string;
  mails: ParsedMail[];
  connections: number;
  logins: { user: string; ok: boolean }[];
  /** Resolves when `n` mails have arrived. */
  received(n: number, timeoutMs?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

export async function startSmtp(options: { user?: string; pass?: string; rejectTo?: RegExp } = {}): Promise<TestSmtp> {
  const mails: ParsedMail[] = [];
  const logins: TestSmtp['logins'] = [];
  let connections = 0;
  const waiting: (() => void)[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: options.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: true,
    authOptional: !options.user,
    logger: false,
    onConnect(_session, callback) { connections++; callback(); },
    onAuth(auth, _session, callback) {
      const ok = auth.username === options.user && auth.password === options.pass;
      logins.push({ user: auth.username ?? '', ok });
      if (ok) callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (options.rejectTo?.test(address.address)) return callback(Object.assign(new Error(`no mailbox ${address.address}`), { responseCode: 550 }));
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then((mail) => {
        mails.push(mail);
        for (const wake of waiting.splice(0)) wake();
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port, hostPort: `127.0.0.1:${port}`, mails, logins,
    get connections() { return connections; },
    async received(n, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (mails.length < n) {
        if (Date.now() > until) throw new Error(`only ${mails.length} of ${n} mails arrived`);
        await new Promise<void>((resolve) => { waiting.push(resolve); setTimeout(resolve, 200); });
      }
      return mails;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port nothing listens on (a server that is down). */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
