// Numbers and times as the console shows them. Pure: the tests run it in Node.

/** `840 ms`, `2.4 s`, `3 min 5 s`. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** `950`, `1.2k`, `34k`, `1.5M`: token counts. */
export function count(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** When, relative to `now` for the last day (`5 min ago`), else the date. */
export function when(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const ago = now - t;
  if (ago < 60_000) return 'just now';
  if (ago < 3_600_000) return `${Math.floor(ago / 60_000)} min ago`;
  if (ago < 86_400_000) return `${Math.floor(ago / 3_600_000)} h ago`;
  return new Date(t).toISOString().slice(0, 10);
}

/** Text that holds a JSON object or array, pretty-printed; undefined for any other text. */
export function prettyJson(text: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? JSON.stringify(parsed, null, 2) : undefined;
  } catch {
    return undefined;
  }
}

/** A tool's arguments for a card: JSON pretty-printed, text as it is. */
export function pretty(value: unknown): string {
  if (typeof value === 'string') return prettyJson(value) ?? value;
  return JSON.stringify(value, null, 2) ?? String(value);
}
