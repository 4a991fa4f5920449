/** One parsed `smtp.allow` entry: an exact host and port. */
export interface SmtpEntry { source: string; host: string; port: number }

/** Lower-cases and drops IPv6 brackets; nothing else, because the match is exact. */
const normalize = (host: string) => host.toLowerCase().replace(/^\[(.*)\]$/, '$1');

/** Parses `host:port` (`[::1]:25` for IPv6). Returns the entry or what is wrong with it. */
export function parseSmtpEntry(source: string): SmtpEntry | string {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/@]+):(\d{1,5})$/.exec(source);
  if (!m) return 'must be host:port, e.g. smtp.example.com:587 or [::1]:25';
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return `has port ${m[2]}, which is not between 1 and 65535`;
  return { source, host: normalize(m[1]!), port };
}

/** Returns the reason for a denial, or undefined when an entry names exactly this host and port. */
export function checkSmtp(entries: SmtpEntry[], host: unknown, port: unknown): string | undefined {
  if (typeof host !== 'string' || !host || typeof port !== 'number' || !Number.isInteger(port)) {
    return 'the smtp action needs a host string and an integer port';
  }
  const h = normalize(host);
  if (entries.some((e) => e.host === h && e.port === port)) return undefined;
  const ports = entries.filter((e) => e.host === h).map((e) => e.port);
  if (ports.length) return `SMTP port ${port} is not allowed for ${host} (allowed: ${ports.join(', ')})`;
  return `SMTP server ${JSON.stringify(host)}:${port} is not on the smtp allow-list`;
}
