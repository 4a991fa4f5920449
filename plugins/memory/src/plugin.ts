import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OryxError, errorMessage } from '@oryxos/provider-spec';
import { STAGE, pluginPackage } from '@oryxos/kernel';
import { shape as s, validateOptions } from '@oryxos/schema-kit';
import type { PluginContext, Plugin, PromptReport, PromptSection } from '@oryxos/kernel';
import { LazyMemoryStore } from './lazy-store.ts';
import { DEFAULT_ROTATE_BYTES } from './paths.ts';
import { runMemory } from './scope.ts';
import { recallMemoryTool, saveMemoryTool, type RunMemoryOf } from './tools.ts';

/** The code that does the work (prompt section, checkpoints, migration, sweeps): loaded on first use, then kept. */
type Runtime = typeof import('./runtime.ts');
let runtime: Runtime | undefined;
let loading: Promise<Runtime> | undefined;
const loadRuntime = () => (loading ??= import('./runtime.ts').then((loaded) => (runtime = loaded)));

/** Options of {@link memory}; every one is optional. */
export interface MemoryOptions {
  /** Characters the whole memory section may take in a prompt; the Archive is cut to fit. Default 4000. */
  budgetChars?: number;
  /**
   * Cap on the Core zone, enforced by `save_memory` and `oryx memory save --core`; at most
   * `budgetChars`. Default 2000, or half of `budgetChars` when that is smaller.
   */
  coreMaxChars?: number;
  /** Write a checkpoint of turns leaving the prompt into the session's memory. Default true. */
  checkpoint?: boolean;
  /** A memory file past this many bytes has its oldest Archive entries rotated into `memory-archive/`. Default 256 KiB. */
  rotateBytes?: number;
  /** How long a save waits for another writer's lock on MEMORY.md. Default 5000. */
  lockTimeoutMs?: number;
  /** A lock older than this is taken over even if its owner process seems alive. Default 30000. */
  staleLockMs?: number;
}

const optionsShape = s.object({
  budgetChars: s.integer({ min: 200 }).optional(),
  coreMaxChars: s.integer({ min: 1 }).optional(),
  checkpoint: s.boolean().optional(),
  rotateBytes: s.integer({ min: 4096 }).optional(),
  lockTimeoutMs: s.integer({ min: 0 }).optional(),
  staleLockMs: s.integer({ min: 1000 }).optional(),
});

export const DEFAULT_OPTIONS = Object.freeze({
  budgetChars: 4000, coreMaxChars: 2000, checkpoint: true, rotateBytes: DEFAULT_ROTATE_BYTES, lockTimeoutMs: 5000, staleLockMs: 30_000,
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

/** How often, at most, the memories of deleted sessions are swept (across processes, by a marker file). */
export const SWEEP_INTERVAL_MS = 60 * 60 * 1000;


/**
 * Long-term memory in MEMORY.md files, scoped per agent, user or session: provides the
 * `memory` service (a {@link FileMemoryStore}); injects Core whole and the newest Archive
 * entries of the run's memory into every prompt (from a cache that re-reads a file only when
 * it changed); adds the `save_memory` and `recall_memory` tools, which write to and search the
 * run's scope; checkpoints turns leaving the prompt into their session's own memory; moves
 * checkpoints left in an agent's MEMORY.md by earlier versions to their sessions; and deletes
 * the memory of sessions that no longer exist.
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
    ...pluginPackage(import.meta.url),
    name: 'memory',
    agentKeys: ['memory'],
    provides: ['memory'],
    options: opts,
    setup(ctx: PluginContext) {
      // The store's code loads on its first read or write (lazy-store.ts), the rest of the
      // plugin's work on the first prompt: listing agents or tools compiles neither.
      const store = new LazyMemoryStore({
        workspaceDir: ctx.config.workspaceDir,
        coreMaxChars: opts.coreMaxChars,
        rotateBytes: opts.rotateBytes,
        lockTimeoutMs: opts.lockTimeoutMs,
        staleLockMs: opts.staleLockMs,
      });
      ctx.provide('memory', store);
      /** The plugin's working code and the loaded store, for the work a run needs. */
      const working = () => Promise.all([loadRuntime(), store.loaded()]);
      const sessionExists = async (id: string) => (await ctx.service('sessions').get(id)) !== undefined;

      // A memory tool's call knows its run: whose memory it reads and writes is the run's.
      const memoryOf: RunMemoryOf = (tool) => runMemory(tool.run);
      ctx.registerTool(saveMemoryTool(store, memoryOf));
      ctx.registerTool(recallMemoryTool(store, memoryOf));

      // Checkpoints that an earlier version wrote into an agent's MEMORY.md move to their
      // sessions once; until then the prompt leaves them out anyway.
      // A failed migration is not retried in this process (it is logged once).
      const migrating = new Map<string, Promise<void>>();
      const failed = new Set<string>();
      const migrate = (agent: string) => {
        let pending = migrating.get(agent);
        if (!pending && !failed.has(agent)) {
          pending = working().then(([rt, files]) => rt.migrateCheckpoints(files, agent, sessionExists)).then((m) => {
            if (m.moved) {
              ctx.log.info(`moved ${m.moved} checkpoint(s) of conversations out of the MEMORY.md of agent ${agent}`
                + ` (to ${m.sessions} session(s)${m.keptPath ? `; ${m.kept} of deleted sessions kept in ${m.keptPath}` : ''})`);
            }
          }, (error) => {
            failed.add(agent);
            ctx.log.warn(`could not move the checkpoints out of the MEMORY.md of agent ${agent} (prompts leave them out): ${errorMessage(error)}`);
          }).finally(() => migrating.delete(agent));
          migrating.set(agent, pending);
        }
        return pending ?? Promise.resolve();
      };

      let prompt: ReturnType<Runtime['memoryPrompt']> | undefined;
      const firstPrompt = async () => {
        const [rt, files] = await working();
        return (prompt ??= rt.memoryPrompt(ctx, files, { budgetChars: opts.budgetChars }));
      };
      // Memory is read once per run: a save during the run is for the next one, so every step of
      // this run starts with the same bytes (a provider serves them from its prompt cache).
      const snapshots = new Map<string, { memory: PromptSection[]; cut: PromptReport['cut'] }>();
      ctx.hooks.prepareStep.tapPromise({ stage: STAGE.DEFAULT }, async (p, run) => {
        const kept = snapshots.get(run.runId);
        if (kept) {
          p.memory.push(...kept.memory);
          p.report.cut.push(...kept.cut);
          return p;
        }
        const [memory, cut] = [p.memory.length, p.report.cut.length];
        const out = await (prompt ?? await firstPrompt())(p, run, runMemory(run).sources, () => migrate(run.agent.name));
        snapshots.set(run.runId, { memory: out.memory.slice(memory), cut: out.report.cut.slice(cut) });
        return out;
      });
      ctx.hooks.afterRun.tapPromise({ stage: STAGE.OBSERVE }, async (_result, run) => { snapshots.delete(run.runId); });

      if (opts.checkpoint) {
        ctx.hooks.trimContext.tapPromise({ stage: STAGE.DEFAULT }, async (info) => {
          const items = (runtime ?? await loadRuntime()).checkpointItems(info);
          try {
            await store.checkpoint(info.run.sessionId, items);
          } catch (error) {
            // Losing the checkpoint must not lose the run; the warning says what was not kept.
            ctx.log.warn(`could not checkpoint ${items.length} turn(s) leaving the prompt (${info.reason}): ${errorMessage(error)}`);
          }
        });
      }

      // Session memories hold conversation text, so they must not outlive their sessions.
      // Sessions kept in memory die with the process: theirs go to a temp folder removed at
      // close. Durable ones are swept: at most hourly, after a run, in the background (close
      // waits for it, so a short-lived CLI run finishes the sweep it started).
      let ephemeral = false;
      let lastSweep = 0;
      let sweeping: Promise<void> | undefined;
      ctx.hooks.init.tapPromise({ stage: STAGE.DEFAULT }, async () => {
        if (ctx.serviceOwner('sessions') !== 'kernel') return;
        ephemeral = true;
        // node:crypto loads on first use, not with the plugin: a read command (`oryx agents`) never needs it.
        store.sessionsDir = path.join(tmpdir(), `oryx-memory-sessions-${process.pid}-${process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex')}`);
      });
      ctx.hooks.afterRun.tapPromise({ stage: STAGE.OBSERVE }, async () => {
        if (ephemeral || sweeping || Date.now() - lastSweep < SWEEP_INTERVAL_MS) return;
        lastSweep = Date.now();
        sweeping = working().then(([rt, files]) => rt.sweepIfDue(files, sessionExists, SWEEP_INTERVAL_MS)).then((removed) => {
          if (removed.length) ctx.log.info(`removed the memory of ${removed.length} deleted session(s)`);
        }, (error) => ctx.log.warn(`could not sweep the memory of deleted sessions: ${errorMessage(error)}`))
          .finally(() => { sweeping = undefined; });
      });
      ctx.hooks.close.tapPromise({ stage: STAGE.DEFAULT }, async () => {
        await sweeping;
        await Promise.allSettled(migrating.values());
        if (ephemeral) {
          await rm(store.sessionsDir, { recursive: true, force: true })
            .catch((error) => ctx.log.warn(`could not remove the session memories in ${store.sessionsDir}: ${errorMessage(error)}`));
        }
      });
    },
  };
}
