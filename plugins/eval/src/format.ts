import type { CaseReport } from './outcome.ts';

/** Milliseconds as people read them: `41 ms`, `1.2 s`, `2 min 5 s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A count with thousands separators. */
export const count = (n: number) => Math.round(n).toLocaleString('en-US');

/** `3/5 (60%)`. */
export const rate = (passed: number, runs: number) => `${passed}/${runs} (${runs ? Math.round((passed / runs) * 100) : 0}%)`;

/** The RESULT cell: the status, with the pass rate when the case ran more than once. */
export const resultCell = (r: CaseReport) => (r.runs > 1 ? `${r.status} ${rate(r.passed, r.runs)}` : r.status);

/** One line of totals: `3 cases: 2 passed, 1 failed`. */
export function totals(reports: CaseReport[]): string {
  const by = (s: string) => reports.filter((r) => r.status === s).length;
  const parts = [`${by('pass')} passed`, `${by('fail')} failed`];
  for (const s of ['error', 'diverged', 'skipped']) if (by(s)) parts.push(`${by(s)} ${s === 'error' ? 'errored' : s}`);
  const modes = [...new Set(reports.filter((r) => r.status !== 'skipped').map((r) => r.mode))];
  return `${reports.length} case${reports.length === 1 ? '' : 's'}: ${parts.join(', ')}${modes.length ? ` (${modes.join(', ')})` : ''}`;
}
