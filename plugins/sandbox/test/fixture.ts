// Shared by the sandbox suites: a real folder tree with symlinks, scripts and servers.
// Not a test file (uvu runs only *.test.ts).
import { once } from 'node:events';
import { chmod, link, lstat, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { STAGE, type Plugin, type ToolResult, type ToolResultInfo } from '@oryxos/kernel';

export const SECRET = 'TOP-SECRET-OUTSIDE';

export interface Fixture {
  base: string;
  root: string;
  outside: string;
  markers: string;
  argvFile: string;
  bin: { argvlog: string; argvstrict: string; fakeLs: string; rootLs: string };
  cleanup(): Promise<void>;
}

/**
 * base/
 *   root/            the project (kernel.config.root): notes.txt, sub/, secrets/, .oryxos/oryx.db…,
 *                    symlinks pointing out, a dangling one, a loop, a hard link to the db, a fake ls
 *   root-evil/       sibling whose name starts with "root"
 *   outside/         secret.txt
 *   readonly/        readable, not writable
 *   bin/             argvlog (writes its argv to base/argv/argv.bin), argvstrict (same, with argument rules)
 *   argv/            where they write it (a write root of the suites, so it works confined too)
 *   fake/ls          a fake ls outside the root
 *   markers/         where fake programs leave a mark if they ever run
 */
export async function makeFixture(): Promise<Fixture> {
  const base = await mkdtemp(path.join(tmpdir(), 'oryx-sandbox-'));
  const p = (...s: string[]) => path.join(base, ...s);
  for (const d of ['root/sub', 'root/secrets', 'root/.oryxos', 'root-evil', 'outside', 'readonly', 'bin', 'fake', 'markers', 'argv']) {
    await mkdir(p(d), { recursive: true });
  }
  await writeFile(p('root/notes.txt'), 'notes inside the root\n');
  await writeFile(p('root/sub/file.txt'), 'sub file\n');
  await writeFile(p('root/secrets/token.txt'), 'token\n');
  await writeFile(p('root/.oryxos/oryx.db'), 'SQLite format 3\0fake');
  await writeFile(p('root/.oryxos/oryx.db-wal'), 'wal');
  await writeFile(p('root-evil/secret.txt'), SECRET);
  await writeFile(p('outside/secret.txt'), SECRET);
  await writeFile(p('readonly/data.txt'), 'read only data\n');
  await symlink('../outside', p('root/link-out'));
  await symlink('../outside/secret.txt', p('root/secret-link'));
  await symlink('chain2', p('root/chain1'));
  await symlink('../outside/secret.txt', p('root/chain2'));
  await symlink('../outside/created-by-dangling.txt', p('root/dangling'));
  await symlink('.oryxos/oryx.db', p('root/db-link'));
  await symlink('loop-b', p('root/loop-a'));
  await symlink('loop-a', p('root/loop-b'));
  await link(p('root/.oryxos/oryx.db'), p('root/hard-db'));
  const argvFile = p('argv', 'argv.bin');
  const script = (body: string) => `#!/bin/sh\n${body}\n`;
  const argvBody = `printf '%s\\0' "$@" > '${argvFile}'`;
  const bin = {
    argvlog: p('bin/argvlog'),
    argvstrict: p('bin/argvstrict'),
    fakeLs: p('fake/ls'),
    rootLs: p('root/ls'),
  };
  await writeFile(bin.argvlog, script(argvBody));
  await writeFile(bin.argvstrict, script(argvBody));
  await writeFile(bin.fakeLs, script(`touch '${p('markers/fake-ls')}'`));
  await writeFile(bin.rootLs, script(`touch '${p('markers/root-ls')}'`));
  for (const f of Object.values(bin)) await chmod(f, 0o755);
  return {
    base, root: p('root'), outside: p('outside'), markers: p('markers'), argvFile, bin,
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/** Every path below `dir` (symlinks not followed) with its type, size and mtime. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const name of await readdir(d)) {
      const full = path.join(d, name);
      const s = await lstat(full);
      const kind = s.isSymbolicLink() ? 'link' : s.isDirectory() ? 'dir' : 'file';
      out[path.relative(dir, full)] = `${kind}:${s.isDirectory() ? '' : s.size}:${s.mtimeMs}`;
      if (kind === 'dir') await walk(full);
    }
  };
  await walk(dir);
  return out;
}

/** A loopback HTTP server that counts requests. */
export interface CountingServer { port: number; url: string; hits: string[]; close(): Promise<void> }

export async function httpServer(handler: (req: http.IncomingMessage, res: http.ServerResponse, self: CountingServer) => void): Promise<CountingServer> {
  const hits: string[] = [];
  const self = { hits } as CountingServer;
  const server = http.createServer((req, res) => { hits.push(`${req.method} ${req.url}`); handler(req, res, self); });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  self.port = (server.address() as net.AddressInfo).port;
  self.url = `http://127.0.0.1:${self.port}`;
  self.close = async () => { server.closeAllConnections(); server.close(); await once(server, 'close').catch(() => {}); };
  return self;
}

/** A loopback TCP server that greets like SMTP and counts connections. */
export interface CountingTcp { port: number; connections: number; close(): Promise<void> }

export async function smtpServer(): Promise<CountingTcp> {
  const sockets = new Set<net.Socket>();
  const self = { connections: 0 } as CountingTcp;
  const server = net.createServer((socket) => {
    self.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.end('220 test ESMTP ready\r\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  self.port = (server.address() as net.AddressInfo).port;
  self.close = async () => { for (const s of sockets) s.destroy(); server.close(); await once(server, 'close').catch(() => {}); };
  return self;
}

/**
 * A tool that talks to an SMTP server (reads its greeting), so SMTP rules are tested through
 * the kernel like the others: `actions()` maps the call, `enforce` guards the connect.
 */
export function smtpProbe(): Plugin {
  return {
    name: 'smtp-probe', version: '1.0.0', kernel: '^1',
    setup(kernel) {
      kernel.registerTool({
        name: 'smtp_probe', source: 'plugin', description: 'Connect to an SMTP server and return its greeting',
        inputSchema: { type: 'object', properties: { host: { type: 'string' }, port: { type: 'integer' } }, required: ['host', 'port'], additionalProperties: false },
        actions: (a) => [{ kind: 'smtp', host: a.host as string, port: a.port as number }],
        async execute(a, ctx) {
          const host = a.host as string;
          const port = a.port as number;
          await ctx.enforce({ kind: 'smtp', host, port });
          const socket = net.connect({ host: host.replace(/^\[|\]$/g, ''), port });
          let greeting = '';
          socket.on('data', (d) => { greeting += d; });
          await once(socket, 'end');
          socket.destroy();
          return greeting.trim();
        },
      });
    },
  };
}

/** Records what `afterTool` saw. */
export function afterToolProbe(seen: { status: ToolResultInfo['status']; name: string; result: ToolResult }[]): Plugin {
  return {
    name: 'probe', version: '1.0.0', kernel: '^1',
    setup(kernel) {
      kernel.hooks.afterTool.tapPromise({ stage: STAGE.OBSERVE }, async (result, info) => {
        seen.push({ status: info.status, name: info.call.name, result });
        return result;
      });
    },
  };
}
