import { existsSync } from 'node:fs';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { OryxError } from '@oryxos/provider-spec';
import type { Kernel } from '@oryxos/kernel';
import type { LongTermMemoryStore } from '@oryxos/contracts';
import { FileMemoryStore } from './file-store.ts';
import { formatEntry } from './format.ts';
import { LazyMemoryStore } from './lazy-store.ts';
import type { ScopeTarget } from './scope.ts';

/** The `--user` flag of the `oryx memory` commands. */
export const userFlag = (summary = "A user's memory (of this agent) instead of the agent's.") => Flags.string({ char: 'u', summary });

/** The `--session` flag of `oryx memory show`. */
export const sessionFlag = () => Flags.string({ summary: "A session's memory (its checkpoints and session-scope entries) instead of the agent's.", exclusive: ['user'] });

/** The memory file the flags name: the agent's by default. */
export function targetOf(flags: { user?: string; session?: string }): ScopeTarget {
  if (flags.user !== undefined) return { scope: 'user', user: flags.user };
  if (flags.session !== undefined) return { scope: 'session', session: flags.session };
  return { scope: 'agent' };
}

/**
 * The store as a {@link FileMemoryStore}, which knows scopes; a memory service from another
 * plugin is refused when a user or session memory is asked for, rather than answering with the
 * agent's memory.
 */
export function scopedStore(store: LongTermMemoryStore, target: ScopeTarget): FileMemoryStore | LazyMemoryStore | undefined {
  if (store instanceof FileMemoryStore || store instanceof LazyMemoryStore) return store;
  if (target.scope === 'agent') return undefined;
  throw new OryxError('ORYX_E_CLI_USAGE', `The memory service of this project (not @oryxos/plugin-memory) has no ${target.scope} memories`, {
    hint: 'Drop --user/--session to see the agent memory, or enable memory() from @oryxos/plugin-memory.',
  });
}

/**
 * The memory store the `oryx memory` commands use: the `memory` service when a plugin
 * provides it, else the MEMORY.md files read directly (with a warning), so the commands
 * still work in a project that has not enabled the plugin.
 */
export function storeFor(kernel: Kernel): LongTermMemoryStore {
  if (kernel.hasService('memory')) return kernel.service('memory');
  // Straight to stderr: oclif silences its own log methods under --json, and this matters then too.
  process.stderr.write('warning: the memory plugin is not enabled in oryx.config.ts; using the MEMORY.md files directly\n');
  return new FileMemoryStore({ workspaceDir: kernel.config.workspaceDir });
}

/** A path relative to the working directory when that is shorter, for people to read. */
export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') ? rel : file;
}

/** The zones as people read them in the terminal. */
export function renderZones(zones: { path: string; user?: string; session?: string; core: { date: string; text: string }[]; archive: { date: string; text: string }[] }): string {
  const zone = (title: string, entries: { date: string; text: string }[]) =>
    `${title} (${entries.length} ${entries.length === 1 ? 'entry' : 'entries'})\n${entries.length ? entries.map(formatEntry).join('\n') : '(empty)'}`;
  const whose = zones.user !== undefined ? `Memory of user ${zones.user}: ` : zones.session !== undefined ? `Memory of session ${zones.session}: ` : '';
  const where = `${whose}${displayPath(zones.path)}${existsSync(zones.path) ? '' : ' (does not exist yet; the first save creates it)'}`;
  return `${where}\n\n${zone('Core', zones.core)}\n\n${zone('Archive', zones.archive)}`;
}
