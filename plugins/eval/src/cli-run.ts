/**
 * What `oryx eval` does once its flags are read and the project's kernel is up: find and check
 * the cases, run them (or compare two models), print the table, write JUnit. Loaded by the
 * command only when it runs, so `oryx --help` loads none of it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Kernel, type Logger, type ResolvedConfig } from '@oryxos/kernel';
import { OryxError, errorMessage } from '@oryxos/provider-spec';
import { table } from '@oryxos/command-kit';
import { anyFailed, compareRows, isConfigSpec, modelSide, sideReport, type CompareSide, type SideReport } from './compare.ts';
import { discoverCases } from './discover.ts';
import { evalError } from './errors.ts';
import { count, duration, resultCell, totals } from './format.ts';
import { parseJudge, type JudgeSpec } from './judge.ts';
import { junitXml } from './junit.ts';
import { failed, type CaseReport } from './outcome.ts';
import { evalOptionsOf } from './plugin.ts';
import { runEvals, type ModeChoice } from './runner.ts';

/** The flags of `oryx eval`, as parsed. */
export interface EvalFlags {
  target?: string;
  live: boolean;
  replay: boolean;
  record: boolean;
  filter?: string;
  concurrency?: number;
  repeat: number;
  junit?: string;
  compare?: string[];
  provider?: string;
  model?: string;
  judge?: string;
  json: boolean;
}

/** How the command talks: stdout for the report, stderr for progress and warnings. */
export interface EvalIO {
  out(text: string): void;
  err(text: string): void;
  /** Loads another config file (a `--compare` side). */
  loadConfig(file: string): Promise<ResolvedConfig>;
}

/** What `oryx eval --json` prints: the cases, or with `--compare` the two sides. */
export type EvalJson = { items: CaseReport[] } | { items: SideReport[] };

const usage = (message: string, hint: string) => new OryxError('ORYX_E_CLI_USAGE', message, { hint });

function modeOf(flags: EvalFlags): ModeChoice {
  if (flags.record) return 'record';
  if (flags.replay) return 'replay';
  if (flags.live) return 'live';
  return 'auto';
}

/** Warnings of the cases' kernels, each said once however many cases say it. */
function onceLogger(err: (text: string) => void): Logger {
  const said = new Set<string>();
  return { debug() {}, info() {}, warn: (m) => { if (!said.has(m)) { said.add(m); err(`warning: ${m}`); } } };
}

const mark = (r: CaseReport) => (r.status === 'pass' ? '✓' : r.status === 'skipped' ? '-' : '✗');

/** The table people read, the failures under it with their evidence, and the totals. */
function render(reports: CaseReport[]): string {
  const rows = reports.map((r) => ({
    case: r.name, agent: r.agent, result: resultCell(r), mode: r.mode, steps: r.status === 'skipped' ? '' : Math.round(r.steps),
    tokens: r.status === 'skipped' ? '' : count(r.tokens), time: r.status === 'skipped' ? '' : duration(r.durationMs),
    'first failure': r.failure?.assertion ?? (r.skipped ? `skipped: ${r.skipped}` : ''),
  }));
  const details = reports.filter((r) => r.failure).map((r) => [
    `${mark(r)} ${r.name} (${r.file}:${r.line})${r.sessions.length ? ` session ${r.sessions.map((s) => s.slice(0, 8)).join(', ')}` : ''}`,
    `  ${r.failure!.assertion}: ${r.failure!.evidence}`,
  ].join('\n'));
  return [table(rows), ...(details.length ? ['', ...details] : []), '', totals(reports)].join('\n');
}

/** Writes the JUnit report; ORYX_E_EVAL_REPORT_WRITE when it cannot. */
async function writeJunit(file: string, reports: CaseReport[]): Promise<void> {
  try {
    await mkdir(path.dirname(path.resolve(file)), { recursive: true });
    await writeFile(file, junitXml(reports));
  } catch (error) {
    throw evalError('ORYX_E_EVAL_REPORT_WRITE', `Could not write the JUnit report ${file}: ${errorMessage(error)}`, { cause: error });
  }
}

/**
 * Runs `oryx eval` on a started project kernel; returns what `--json` prints and whether any
 * case failed (the exit code).
 */
export async function evalCommand(kernel: Kernel, config: ResolvedConfig, flags: EvalFlags, io: EvalIO): Promise<{ json: EvalJson; failed: boolean }> {
  if (flags.record && flags.repeat > 1) throw usage('--record records each case once; --repeat is for live runs', 'Drop --repeat, or use --live --repeat N.');
  if (flags.compare && flags.compare.length !== 2) throw usage(`--compare takes two models or configs (got ${flags.compare.length})`, 'Give both after the agent: oryx eval assistant --compare gpt-4o-mini gpt-4o');
  const options = evalOptionsOf(config.plugins);
  const judgeSpec = flags.judge ?? options.judge;
  const judge: JudgeSpec | undefined = judgeSpec ? parseJudge(judgeSpec, kernel.providerNames) : undefined;
  const cases = await discoverCases({ target: flags.target, workspaceDir: config.workspaceDir, defaultAgent: config.defaultAgent, filter: flags.filter });
  const logger = onceLogger(io.err);
  const common = {
    cases, repeat: flags.repeat, concurrency: flags.concurrency ?? options.concurrency ?? 1, logger, ...(kernel.host ? { host: kernel.host } : {}),
    ...(judge ? { judge } : {}), evalRun: crypto.randomUUID().slice(0, 8),
  };
  const progress = (r: CaseReport) => { if (!flags.json) io.err(`${mark(r)} ${r.name}${r.failure ? ` — ${r.failure.assertion}` : ''}`); };

  if (flags.compare) {
    const sides: CompareSide[] = [];
    try {
      for (const spec of flags.compare) {
        if (isConfigSpec(spec)) {
          const other = await io.loadConfig(spec);
          sides.push({ label: spec, config: other, kernel: await new Kernel({ config: other, logger, serving: false }).start(), configFile: spec });
        } else {
          sides.push({ label: spec, config, kernel, ...modelSide(spec, kernel.providerNames) });
        }
      }
      const reports: SideReport[] = [];
      for (const side of sides) {
        const cases = await runEvals({ ...common, config: side.config, kernel: side.kernel, mode: 'live', onCase: progress, ...(side.provider ? { provider: side.provider } : {}), ...(side.model ? { model: side.model } : {}) });
        reports.push(sideReport(side, cases));
      }
      if (!flags.json) {
        const { totals: t, cases: c } = compareRows(reports);
        io.out([table(t), '', table(c)].join('\n'));
      }
      if (flags.junit) await writeJunit(flags.junit, reports.flatMap((s) => s.cases.map((c) => ({ ...c, agent: `${c.agent} [${s.label}]` }))));
      return { json: { items: reports }, failed: anyFailed(reports) };
    } finally {
      for (const side of sides) if (side.kernel !== kernel) await side.kernel.close().catch(() => {});
    }
  }

  const reports = await runEvals({ ...common, config, kernel, mode: modeOf(flags), onCase: progress, ...(flags.provider ? { provider: flags.provider } : {}), ...(flags.model ? { model: flags.model } : {}) });
  if (!flags.json) io.out(render(reports));
  if (flags.junit) await writeJunit(flags.junit, reports);
  return { json: { items: reports }, failed: reports.some(failed) };
}
