/**
 * Resolve once, connect there: a host name is looked up one time per request, the sandbox
 * checks those addresses, and the connection goes to one of them — never to what a second
 * lookup would say (a DNS answer that changes between the check and the connection, "DNS
 * rebinding", cannot reach an address the sandbox refused). TLS still checks the certificate
 * against the host name.
 */
import { isIP } from 'node:net';
import type { LookupAddress } from 'node:dns';

/** The addresses of a host name (undefined for an IP address, which needs no lookup). Throws the resolver's error. */
export async function resolveOnce(hostname: string): Promise<string[] | undefined> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return undefined;
  const { lookup } = await import('node:dns/promises'); // loaded by the first request by name
  const found = await lookup(bare, { all: true, verbatim: true });
  if (!found.length) throw Object.assign(new Error(`${bare} resolved to no address`), { code: 'ENODATA' });
  return found.map((a) => a.address);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A response, and how to free its connection once its body is read or dropped. */
export interface PinnedResponse { response: Response; close(): void }

/**
 * `fetch` (undici's, the implementation Node's own `fetch` is built on) whose connections go
 * to `addresses` whatever the host name resolves to now; plain `fetch` semantics otherwise.
 * Without addresses (an IP address in the URL) it connects to the URL's host as given. Call
 * `close()` once done with the response.
 *
 * @example
 * const { response, close } = await pinnedFetch('https://api.example.com/x', { redirect: 'manual' }, ['93.184.216.34']);
 */
export async function pinnedFetch(url: string, init: RequestInit, addresses: string[] | undefined): Promise<PinnedResponse> {
  const undici = await import('undici'); // loaded by the first http_request, not with the plugin
  const pinned = addresses?.map((address) => ({ address, family: isIP(address) }));
  const dispatcher = new undici.Agent({
    connect: pinned ? {
      lookup(_hostname: string, options: { all?: boolean }, callback: LookupCallback) {
        if (options?.all) callback(null, pinned);
        else callback(null, pinned[0]!.address, pinned[0]!.family);
      },
    } : {},
  });
  const close = () => { void dispatcher.close().catch(() => {}); };
  try {
    const response = await undici.fetch(url, { ...init, dispatcher } as Parameters<typeof undici.fetch>[1]);
    return { response: response as unknown as Response, close };
  } catch (error) {
    close();
    throw error;
  }
}
