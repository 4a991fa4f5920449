import { escapeControls } from '@oryxos/plugin-kit';

/**
 * Renders rows as aligned columns for people (scripts use --json). Whitespace in a cell becomes
 * one space and other control characters visible escapes, before widths are measured.
 */
export function table(rows: Record<string, unknown>[], columns?: string[]): string {
  if (rows.length === 0) return '';
  const cols = columns ?? Object.keys(rows[0]!);
  const cell = (v: unknown) => escapeControls((v === undefined || v === null ? '' : String(v)).replace(/\s+/g, ' '));
  const widths = cols.map((c) => Math.min(60, Math.max(c.length, ...rows.map((r) => cell(r[c]).length))));
  const fit = (s: string, w: number) => (s.length > w ? s.slice(0, w - 1) + '…' : s.padEnd(w));
  const line = (values: string[]) => values.map((v, i) => fit(v, widths[i]!)).join('  ').trimEnd();
  return [line(cols.map((c) => c.toUpperCase())), ...rows.map((r) => line(cols.map((c) => cell(r[c]))))].join('\n');
}

/**
 * A run's tokens for a footer: input, the part of it the provider served from its prompt cache
 * (and wrote to it) when the provider reports that, and output. A provider that reports no
 * cache figures gets no "cached" part, never "0 cached".
 *
 * @example
 * tokensText({ inputTokens: 1234, outputTokens: 56, cacheReadTokens: 1000 }) // '1234 in (1000 cached) / 56 out tokens'
 */
export function tokensText(usage: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number }): string {
  const cache = [
    ...(usage.cacheReadTokens !== undefined ? [`${usage.cacheReadTokens} cached`] : []),
    ...(usage.cacheWriteTokens ? [`${usage.cacheWriteTokens} written to cache`] : []),
  ];
  return `${usage.inputTokens} in${cache.length ? ` (${cache.join(', ')})` : ''} / ${usage.outputTokens} out tokens`;
}
