/**
 * A project for eval tests, with real parts: the openai plugin pointed at the test model,
 * SQLite sessions and audit, the sandbox and the built-in tools; cases as YAML files beside
 * the agent, as users write them.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Kernel, resolveConfig, type Plugin, type ResolvedConfig } from '@oryxos/kernel';
import { tempProject, writeAgents, type TestAgent } from '@oryxos/kernel/testing';
import openai from '@oryxos/plugin-openai';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';
import { discoverCases } from '../../src/discover.ts';
import { runEvals, type RunEvalsOptions } from '../../src/runner.ts';
import type { CaseReport } from '../../src/outcome.ts';

export interface EvalProject {
  dir: string;
  config: ResolvedConfig;
  /** `.oryxos/agents/<agent>/evals`. */
  evals(agent?: string): string;
  /** Writes case files (name → YAML) beside the agent. */
  cases(files: Record<string, string>, agent?: string): Promise<void>;
  /** Starts a kernel on the project, runs `oryx eval` on its cases as the command would, closes it. */
  run(options?: Partial<Omit<RunEvalsOptions, 'cases' | 'config' | 'kernel'>> & { target?: string; filter?: string; modelUrl?: string }): Promise<CaseReport[]>;
  /** A started kernel on the project (close it). */
  kernel(modelUrl?: string): Promise<Kernel>;
  remove(): Promise<void>;
}

export const DEFAULT_AGENT: TestAgent = { provider: 'openai', model: 'test-model', tools: ['read_file', 'write_file', 'list_dir'], body: 'You are a careful assistant. Use tools.' };

/** The project's plugins, the model at `modelUrl`. */
export function plugins(modelUrl: string, extra: Plugin[] = []): Plugin[] {
  return [
    openai({ baseURL: modelUrl, apiKey: 'sk-test', defaultModel: 'test-model', maxRetries: 0 }),
    sqlite(), audit(),
    sandbox({ files: { read: ['.'], write: ['out'] } }),
    tools(),
    ...extra,
  ];
}

/**
 * A temp project with `files` (relative path → text), agents (default: `assistant`) and the
 * model at `modelUrl` (the test model's URL; the config is rebuilt per kernel, so a test can stop
 * the model and run again).
 */
export async function evalProject(input: { modelUrl: string; agents?: Record<string, TestAgent>; files?: Record<string, string>; extra?: () => Plugin[] }): Promise<EvalProject> {
  const dir = await tempProject('eval-');
  const agents = input.agents ?? { assistant: DEFAULT_AGENT };
  await writeAgents(path.join(dir, '.oryxos'), agents);
  for (const [rel, text] of Object.entries({ 'README.md': '# Demo\nThe demo project says hello.\n', ...input.files })) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  const configFor = (url: string) => resolveConfig({ plugins: plugins(url, input.extra?.() ?? []), defaultAgent: Object.keys(agents)[0] }, dir);
  const evals = (agent = Object.keys(agents)[0]!) => path.join(dir, '.oryxos', 'agents', agent, 'evals');
  const kernel = (url = input.modelUrl) => new Kernel({ config: configFor(url), serving: false }).start();
  return {
    dir,
    config: configFor(input.modelUrl),
    evals,
    async cases(files, agent) {
      await mkdir(evals(agent), { recursive: true });
      for (const [name, text] of Object.entries(files)) await writeFile(path.join(evals(agent), name), text);
    },
    async run(options = {}) {
      const k = await kernel(options.modelUrl);
      try {
        const cases = await discoverCases({ target: options.target, workspaceDir: k.config.workspaceDir, defaultAgent: k.config.defaultAgent, filter: options.filter });
        return await runEvals({ mode: 'auto', ...options, cases, config: k.config, kernel: k });
      } finally {
        await k.close();
      }
    },
    kernel,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A report without what changes from run to run (times, sessions), for comparing two runs. */
export function stable(reports: CaseReport[]) {
  return reports.map(({ durationMs: _d, sessions: _s, mode: _m, ...rest }) => ({
    ...rest,
    assertions: rest.assertions.filter((a) => !a.assertion.startsWith('max_duration_ms')),
  }));
}
