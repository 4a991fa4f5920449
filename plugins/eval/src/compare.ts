/**
 * `oryx eval --compare A B`: the same cases run live on two models (or two providers, or two
 * configs), side by side: pass rate, tokens and time.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Kernel, ResolvedConfig } from '@oryxos/kernel';
import { count, duration, rate } from './format.ts';
import type { CaseReport } from './outcome.ts';
import { failed } from './outcome.ts';

/** One side of a comparison, ready to run. */
export interface CompareSide {
  /** As given on the command line. */
  label: string;
  config: ResolvedConfig;
  kernel: Kernel;
  provider?: string;
  model?: string;
  /** The config file, for a side that is one. */
  configFile?: string;
}

/** One side's results: its totals and its cases. */
export interface SideReport {
  label: string;
  provider?: string;
  model?: string;
  config?: string;
  runs: number;
  passed: number;
  passRate: number;
  tokens: number;
  durationMs: number;
  cases: CaseReport[];
}

const CONFIG_FILE = /\.(c|m)?[jt]s$/;

/** Whether a `--compare` value names a config file rather than a model. */
export const isConfigSpec = (spec: string) => CONFIG_FILE.test(spec) && existsSync(path.resolve(spec));

/**
 * A model side: `MODEL` on the agent's provider, or `PROVIDER:MODEL` when PROVIDER is an
 * enabled provider (`ollama:qwen2.5:7b`); a model name with a colon of its own stays whole.
 */
export function modelSide(spec: string, providers: readonly string[]): { provider?: string; model: string } {
  const colon = spec.indexOf(':');
  if (colon > 0 && providers.includes(spec.slice(0, colon)) && spec.length > colon + 1) return { provider: spec.slice(0, colon), model: spec.slice(colon + 1) };
  return { model: spec };
}

/** A side's totals from its case reports (runs of skipped cases are none). */
export function sideReport(side: CompareSide, cases: CaseReport[]): SideReport {
  const ran = cases.filter((c) => c.status !== 'skipped');
  const runs = ran.reduce((n, c) => n + c.runs, 0);
  const passed = ran.reduce((n, c) => n + c.passed, 0);
  return {
    label: side.label, ...(side.provider ? { provider: side.provider } : {}), ...(side.model ? { model: side.model } : {}),
    ...(side.configFile ? { config: side.configFile } : {}),
    runs, passed, passRate: runs ? passed / runs : 0,
    tokens: ran.reduce((n, c) => n + c.tokens * c.runs, 0),
    durationMs: ran.reduce((n, c) => n + c.durationMs * c.runs, 0),
    cases,
  };
}

/** The two sides as rows for people: totals first, then each case. */
export function compareRows(sides: SideReport[]): { totals: Record<string, string>[]; cases: Record<string, string>[] } {
  const labels = sides.map((s) => s.label);
  const row = (name: string, cell: (s: SideReport) => string) => ({ '': name, ...Object.fromEntries(sides.map((s, i) => [labels[i]!, cell(s)])) });
  const totals = [
    row('pass rate', (s) => rate(s.passed, s.runs)),
    row('tokens', (s) => count(s.tokens)),
    row('time', (s) => duration(s.durationMs)),
  ];
  const names = sides[0]?.cases.map((c) => c.name) ?? [];
  const cases = names.map((name) => ({
    case: name,
    ...Object.fromEntries(sides.map((s, i) => {
      const c = s.cases.find((x) => x.name === name);
      return [labels[i]!, c ? `${c.runs > 1 ? rate(c.passed, c.runs) : c.status} · ${count(c.tokens)} tok · ${duration(c.durationMs)}` : '-'];
    })),
  }));
  return { totals, cases };
}

/** True when any case of any side failed. */
export const anyFailed = (sides: SideReport[]) => sides.some((s) => s.cases.some(failed));
