import path from 'node:path';
import { type } from 'arktype';
import { OryxError, STAGE, errorMessage, matchesToolPattern, validateOptions } from '@oryxos/kernel';
import type { Kernel, Plugin } from '@oryxos/kernel';
import { checkpointItems } from './checkpoint.ts';
import { FileMemoryStore } from './file-store.ts';
import { memorySection } from './inject.ts';
import { recallMemoryTool, saveMemoryTool } from './tools.ts';

/** Options of {@link memory}; every one is optional. */
export interface MemoryOptions {
  /** Characters the whole memory section may take in a prompt; the Archive is cut to fit. Default 4000. */
  budgetChars?: number;
  /**
   * Cap on the Core zone, enforced by `save_memory` and `oryx memory save --core`; at most
   * `budgetChars`. Default 2000, or half of `budgetChars` when that is smaller.
   */
  coreMaxChars?: number;
  /** Write a checkpoint of turns leaving the prompt into the Archive. Default true. */
  checkpoint?: boolean;
  /** How long a save waits for another writer's lock on MEMORY.md. Default 5000. */
  lockTimeoutMs?: number;
  /** A lock older than this is taken over even if its owner process seems alive. Default 30000. */
  staleLockMs?: number;
}

const optionsShape = type({
  'budgetChars?': 'number.integer >= 200',
  'coreMaxChars?': 'number.integer >= 1',
  'checkpoint?': 'boolean',
  'lockTimeoutMs?': 'number.integer >= 0',
  'staleLockMs?': 'number.integer >= 1000',
  '+': 'reject',
});

export const DEFAULT_OPTIONS = Object.freeze({
  budgetChars: 4000, coreMaxChars: 2000, checkpoint: true, lockTimeoutMs: 5000, staleLockMs: 30_000,
});

function validate(options: unknown): Required<MemoryOptions> {
  const out = validateOptions(optionsShape, options, { plugin: 'memory', code: 'ORYX_E_MEMORY_OPTIONS_INVALID', example: 'memory({ budgetChars: 6000 })' });
  const resolved = { ...DEFAULT_OPTIONS, ...out };
  // The default cap shrinks with a small budget, so lowering budgetChars alone is never an error.
  if (out.coreMaxChars === undefined) resolved.coreMaxChars = Math.min(DEFAULT_OPTIONS.coreMaxChars, Math.floor(resolved.budgetChars / 2));
  if (resolved.coreMaxChars > resolved.budgetChars) {
    throw new OryxError('ORYX_E_MEMORY_OPTIONS_INVALID',
      `memory(): coreMaxChars (${resolved.coreMaxChars}) must not exceed budgetChars (${resolved.budgetChars})`, {
        hint: 'Core is always injected whole, so its cap must fit the memory budget: lower coreMaxChars or raise budgetChars.',
        data: { field: 'coreMaxChars' },
      });
  }
  return resolved;
}

/**
 * Long-term memory in MEMORY.md: provides the `memory` service (a {@link FileMemoryStore}),
 * injects Core whole and the newest Archive entries into every prompt (re-reading the file
 * each time), adds the `save_memory` and `recall_memory` tools, and checkpoints turns that
 * leave the prompt into the Archive.
 *
 * @example
 * // oryx.config.ts
 * import { defineConfig } from '@oryxos/kernel';
 * import memory from '@oryxos/plugin-memory';
 * export default defineConfig({ plugins: [memory({ budgetChars: 6000 })] });
 */
export default function memory(options: MemoryOptions = {}): Plugin {
  const opts = validate(options);
  return {
    name: 'memory',
    version: '0.1.0',
    kernel: '^1',
    setup(kernel: Kernel) {
      const store = new FileMemoryStore({
        workspaceDir: kernel.config.workspaceDir,
        coreMaxChars: opts.coreMaxChars,
        lockTimeoutMs: opts.lockTimeoutMs,
        staleLockMs: opts.staleLockMs,
      });
      kernel.provide('memory', store);
      kernel.registerTool(saveMemoryTool(store));
      kernel.registerTool(recallMemoryTool(store));
      const warned = new Set<string>();

      kernel.hooks.beforePrompt.tapPromise({ name: 'memory', stage: STAGE.DEFAULT }, async (prompt, run) => {
        let zones;
        try {
          zones = await store.read(run.agent.name);
        } catch (error) {
          // A memory file that cannot be read must not stop the agent, but it is never silent.
          const reason = `long-term memory not injected: ${errorMessage(error)}`;
          prompt.report.cut.push({ section: 'memory', chars: 0, reason });
          kernel.log.warn(reason);
          return prompt;
        }
        if (!zones.core.length && !zones.archive.length) return prompt;
        const section = memorySection(
          { ...zones, path: path.relative(kernel.config.root, zones.path) || zones.path },
          { budgetChars: opts.budgetChars, recallHint: run.agent.tools.some((p) => matchesToolPattern('recall_memory', p)) },
        );
        prompt.memory.push({ id: 'memory', title: 'Long-term memory', content: section.content });
        prompt.report.cut.push(...section.cut);
        const over = section.cut.find((c) => c.section === 'memory:core');
        if (over && !warned.has(`${zones.path}:${section.coreChars}`)) {
          warned.add(`${zones.path}:${section.coreChars}`);
          kernel.log.warn(`${zones.path}: ${over.reason}`);
        }
        return prompt;
      });

      if (opts.checkpoint) {
        kernel.hooks.trimContext.tapPromise({ name: 'memory', stage: STAGE.DEFAULT }, async (info) => {
          const items = checkpointItems(info);
          try {
            await store.checkpoint(info.run.agent.name, items);
          } catch (error) {
            // Losing the checkpoint must not lose the run; the warning says what was not kept.
            kernel.log.warn(`memory: could not checkpoint ${items.length} turn(s) leaving the prompt (${info.reason}): ${errorMessage(error)}`);
          }
        });
      }
    },
  };
}
