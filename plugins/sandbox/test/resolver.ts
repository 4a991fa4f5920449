// A resolver the test controls, standing for a DNS server an attacker runs (TTL 0): `dns.lookup`
// and `dns.promises.lookup` of this process answer from a script for the names it knows and
// count every question, so every lookup the code makes — the sandbox's, the proxy's, fetch's
// (undici connects through `dns.lookup`) — is seen. Other names go to the real resolver.
// Not a test file.
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';

export interface ScriptedResolver {
  /** Questions asked for each scripted name. */
  asked: Record<string, number>;
  restore(): void;
}

/**
 * Answers the n-th question for `name` with `answers[name][n]` (the last one once past the end).
 *
 * @example
 * const dnsServer = scriptedResolver({ 'a.wild.test': ['9.9.9.9', '127.0.0.1'] });
 */
export function scriptedResolver(answers: Record<string, string[]>): ScriptedResolver {
  const asked: Record<string, number> = {};
  const real = { lookup: dns.lookup, promised: dns.promises.lookup };
  const answer = (host: string) => {
    const list = answers[host]!;
    const n = (asked[host] = (asked[host] ?? 0) + 1);
    const address = list[Math.min(n, list.length) - 1]!;
    return { address, family: address.includes(':') ? 6 : 4 };
  };
  const lookup = ((host: string, options: unknown, callback?: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (e: Error | null, a: unknown, f?: number) => void;
    const opts = (typeof options === 'object' && options ? options : {}) as { all?: boolean };
    if (!(host in answers)) return (real.lookup as (...a: unknown[]) => void)(host, options, callback);
    const a = answer(host);
    process.nextTick(() => (opts.all ? cb(null, [a]) : cb(null, a.address, a.family)));
  }) as typeof dns.lookup;
  const promised = (async (host: string, options?: { all?: boolean }) => {
    if (!(host in answers)) return real.promised(host, options as dns.LookupAllOptions);
    const a = answer(host);
    return options?.all ? [a] : a;
  }) as typeof dns.promises.lookup;
  dns.lookup = lookup;
  dns.promises.lookup = promised;
  syncBuiltinESMExports();
  return {
    asked,
    restore() {
      dns.lookup = real.lookup;
      dns.promises.lookup = real.promised;
      syncBuiltinESMExports();
    },
  };
}
