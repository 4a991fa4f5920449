/**
 * The filtering HTTP(S) proxy of confined processes. A confined process has no network of its
 * own; when the http allow-list is not empty, its HTTP_PROXY/HTTPS_PROXY point at a loopback
 * port inside the sandbox that socat forwards to this proxy's Unix socket (one socket per
 * launch, so every connection is known to come from that process). Each request (absolute
 * URL) and each CONNECT tunnel (TLS) is checked against the same allow-list as the tools and
 * audited, allowed or denied.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SandboxEvent } from '@oryxos/contracts';
import { resolveHost } from './http-rule.ts';
import { proxyPrefix } from './state-dir.ts';

/**
 * Decides one connection: undefined to allow, or the reason it is denied. `addresses` are what
 * the host resolved to, which the proxy connects to if allowed.
 */
export type ProxyDecide = (url: string, method: string, addresses?: string[]) => Promise<string | undefined>;

export interface ProxyOptions {
  decide: ProxyDecide;
  /** Records an allowed or denied connection (the audit service). */
  record(event: Pick<SandboxEvent, 'decision' | 'kind' | 'target' | 'reason'>): void;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/** `host:port` of a CONNECT request (`[::1]:443` for IPv6), or undefined. */
function splitAuthority(authority: string | undefined): { host: string; port: number } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:/@[\]]+):(\d{1,5})$/.exec(authority ?? '');
  const port = Number(m?.[2]);
  return m && port >= 1 && port <= 65535 ? { host: m[1]!, port } : undefined;
}

/**
 * Resolves a host name once (an IP address needs no lookup): the addresses the sandbox checks
 * are the ones connected to, so a DNS answer that changes in between reaches nothing refused.
 */
async function resolveOnce(host: string): Promise<{ addresses?: string[]; error?: string }> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (net.isIP(bare)) return {};
  try {
    const addresses = await resolveHost(bare);
    return addresses.length ? { addresses } : { error: `${bare} resolved to no address` };
  } catch (error) {
    return { error: `${bare} could not be resolved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}

/** The `lookup` option that makes a connection go to the checked addresses, whatever DNS says now. */
function pinnedLookup(addresses: string[] | undefined): { lookup?: net.LookupFunction } {
  if (!addresses?.length) return {};
  const all = addresses.map((address) => ({ address, family: net.isIP(address) }));
  const lookup = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, all);
    else callback(null, all[0]!.address, all[0]!.family);
  }) as unknown as net.LookupFunction;
  return { lookup };
}

function refuse(socket: net.Socket, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${text}\n`);
}

/**
 * One proxy for one launch, listening on a Unix socket in a fresh private folder.
 *
 * @example
 * const proxy = await LaunchProxy.open({ decide: async () => undefined, record: console.log });
 * // bind proxy.socket into the sandbox; when the process has ended:
 * await proxy.close();
 */
export class LaunchProxy {
  private constructor(readonly socket: string, private readonly server: http.Server, private readonly dir: string) {}

  static async open(options: ProxyOptions): Promise<LaunchProxy> {
    // The pid in the name lets the next start remove the folder of a process that was killed.
    const dir = await mkdtemp(path.join(tmpdir(), proxyPrefix()));
    const server = http.createServer((req, res) => { void forward(req, res, options); });
    server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => { void tunnel(req, client, head, options); });
    server.on('clientError', (_error, socket) => { if (socket.writable) refuse(socket as net.Socket, 400, 'bad proxy request'); else socket.destroy(); });
    const socket = path.join(dir, 'proxy.sock');
    server.listen(socket);
    await once(server, 'listening');
    return new LaunchProxy(socket, server, dir);
  }

  /** Stops listening, ends open connections and removes the socket folder. */
  async close(): Promise<void> {
    if (!this.server.listening) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** CONNECT host:port: allowed when the allow-list allows https or http to that host and port. */
async function tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer, o: ProxyOptions): Promise<void> {
  client.on('error', () => {});
  const target = splitAuthority(req.url);
  if (!target) {
    o.record({ decision: 'deny', kind: 'connect', target: String(req.url), reason: 'not a host:port' });
    refuse(client, 400, `CONNECT needs host:port, not ${JSON.stringify(req.url)}`);
    return;
  }
  const authority = `${target.host}:${target.port}`;
  const resolved = await resolveOnce(target.host);
  const reason = await o.decide(`https://${authority}/`, 'CONNECT', resolved.addresses);
  const denied = reason && (await o.decide(`http://${authority}/`, 'CONNECT', resolved.addresses)) ? reason : undefined;
  if (denied) {
    o.record({ decision: 'deny', kind: 'connect', target: authority, reason: denied });
    refuse(client, 403, `Denied by the OryxOS sandbox: ${denied}`);
    return;
  }
  if (resolved.error) {
    o.record({ decision: 'deny', kind: 'connect', target: authority, reason: resolved.error });
    refuse(client, 502, resolved.error);
    return;
  }
  o.record({ decision: 'allow', kind: 'connect', target: authority });
  const upstream = net.connect({ host: target.host.replace(/^\[|\]$/g, ''), port: target.port, ...pinnedLookup(resolved.addresses) });
  upstream.on('error', (error) => { if (!client.destroyed) refuse(client, 502, `could not reach ${authority}: ${error.message}`); });
  upstream.once('connect', () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  client.once('close', () => upstream.destroy());
}

/** A plain-HTTP request in absolute form (`GET http://host/path`): checked, then forwarded. */
async function forward(req: http.IncomingMessage, res: http.ServerResponse, o: ProxyOptions): Promise<void> {
  const method = req.method ?? 'GET';
  let url: URL | undefined;
  try { url = new URL(req.url ?? ''); } catch { /* not absolute */ }
  if (!url || url.protocol !== 'http:') {
    o.record({ decision: 'deny', kind: 'http', target: `${method} ${req.url}`, reason: 'the proxy takes absolute http:// URLs, and CONNECT for https' });
    res.writeHead(400, { 'content-type': 'text/plain' }).end('The OryxOS proxy takes absolute http:// URLs (and CONNECT for https).\n');
    return;
  }
  const resolved = await resolveOnce(url.hostname);
  const reason = await o.decide(url.href, method, resolved.addresses);
  if (reason || resolved.error) {
    o.record({ decision: 'deny', kind: 'http', target: `${method} ${url.href}`, reason: reason ?? resolved.error });
    res.writeHead(reason ? 403 : 502, { 'content-type': 'text/plain; charset=utf-8' }).end(reason ? `Denied by the OryxOS sandbox: ${reason}\n` : `${resolved.error}\n`);
    return;
  }
  o.record({ decision: 'allow', kind: 'http', target: `${method} ${url.href}` });
  const headers = { ...req.headers };
  for (const h of HOP_BY_HOP) delete headers[h];
  headers.host = url.host;
  const upstream = http.request({ host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || 80, method, path: `${url.pathname}${url.search}`, headers, ...pinnedLookup(resolved.addresses) }, (answer) => {
    const out = { ...answer.headers };
    for (const h of HOP_BY_HOP) delete out[h];
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
    answer.pipe(res);
  });
  upstream.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`could not reach ${url!.host}: ${error.message}\n`);
    else res.destroy();
  });
  req.pipe(upstream);
}
