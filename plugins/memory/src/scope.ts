import { OryxError } from '@oryxos/provider-spec';
import type { MemoryScope } from '@oryxos/contracts';
import type { AgentDefinition } from '@oryxos/kernel';

/**
 * Whose long-term memory a run reads and writes besides the agent's:
 * - `agent`: one memory per agent, shared by everyone who talks to it;
 * - `user`: one memory per person (the run's `user`), plus the agent's;
 * - `session`: one memory per conversation, plus the agent's.
 * (The contract's `MemoryScope`.)
 */
export type { MemoryScope };

export const MEMORY_SCOPES: readonly MemoryScope[] = Object.freeze(['agent', 'user', 'session']);

/** One memory file: the agent's, a user's, or a session's. */
export type ScopeTarget = { scope: 'agent' } | { scope: 'user'; user: string } | { scope: 'session'; session: string };

/**
 * What a prompt shows and `recall_memory` searches: always the agent's memory, plus the
 * user's when `user` is set and the session's (its checkpoints) when `session` is set.
 */
export interface MemorySources { user?: string; session?: string }

/** Where a run's memory goes: the scope `save_memory` writes to, and the sources it reads. */
export interface RunMemory { scope: MemoryScope; target: ScopeTarget; sources: MemorySources }

/**
 * The user a run acts for when it names none (the CLI): the operator. Only used when an
 * agent asks for `scope: user` explicitly; by default such runs use the agent scope.
 */
export const OPERATOR_USER = 'operator';

/** Longest user or session id accepted. */
const MAX_ID = 256;

/**
 * Checks a user or session id: a non-empty string of at most 256 characters without
 * control characters. Throws ORYX_E_MEMORY_USER_INVALID naming what is wrong.
 */
export function checkId(kind: 'user' | 'session', id: unknown): string {
  // eslint-disable-next-line no-control-regex
  if (typeof id === 'string' && id.length > 0 && id.length <= MAX_ID && !/[\u0000-\u001f\u007f]/.test(id)) return id;
  throw new OryxError('ORYX_E_MEMORY_USER_INVALID', `${JSON.stringify(id)} is not a valid ${kind} id`, {
    hint: `A ${kind} id is 1 to ${MAX_ID} characters without control characters.`,
  });
}

const SAFE = /^[a-z0-9][a-z0-9_.@+-]{0,99}$/;

/**
 * A folder name for a user or session id that no two ids share, on any file system: plain
 * lower-case ids (`ana`, `ana@example.com`, a UUID) are used as they are; anything else (upper
 * case, which a case-insensitive disk would fold, slashes, dots first, other scripts, long ids)
 * becomes a readable slug and a hash, `ana-lopez~3f2a…`. `~` never occurs in a plain id, so the
 * two forms never meet, and no id can climb out of its folder.
 *
 * @example
 * fileSafeName('ana');       // 'ana'
 * fileSafeName('Ana Lopez'); // 'ana-lopez~9c1b…' (24 hex digits)
 */
export function fileSafeName(id: string): string {
  if (SAFE.test(id)) return id;
  const slug = id.normalize('NFKC').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
  // node:crypto loads on first use, not with the plugin: a read command (`oryx agents`) never needs it.
  return `${slug}~${process.getBuiltinModule('node:crypto').createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
}

/**
 * The memory scope of an agent for a run: its `memory: { scope }` frontmatter, else `user`
 * when the run names a user (every `oryx web` request does) and `agent` when it names none
 * (the CLI). Throws ORYX_E_MEMORY_SCOPE_INVALID for a scope that is not one of the three, so a
 * typo never widens who shares a memory.
 *
 * @example
 * scopeOf(agent, 'ana'); // 'user' unless AGENT.md says otherwise
 */
export function scopeOf(agent: Pick<AgentDefinition, 'name' | 'file' | 'extra'>, user: string | undefined): MemoryScope {
  const setting = agent.extra.memory;
  if (setting === undefined || setting === null) return user ? 'user' : 'agent';
  const scope = typeof setting === 'object' ? (setting as { scope?: unknown }).scope : undefined;
  const extra = typeof setting === 'object' ? Object.keys(setting).filter((k) => k !== 'scope') : [];
  if (MEMORY_SCOPES.includes(scope as MemoryScope) && !extra.length) return scope as MemoryScope;
  throw new OryxError('ORYX_E_MEMORY_SCOPE_INVALID',
    `Agent "${agent.name}" has memory: ${JSON.stringify(setting)} in its frontmatter; expected memory: { scope: agent | user | session }`, {
      hint: `Fix memory: in ${agent.file || `the AGENT.md of ${agent.name}`}: scope agent (shared by everyone), user (one memory per person) or session (one per conversation).`,
      data: { agent: agent.name, field: 'memory' },
    });
}

/**
 * Where a run's memory lives: the scope of its agent, the file `save_memory` writes to, and
 * the sources its prompt shows and `recall_memory` searches (always the session's own
 * checkpoints; the user's memory in the user scope).
 *
 * @example
 * runMemory({ agent, sessionId: 's1', user: 'ana' });
 * // { scope: 'user', target: { scope: 'user', user: 'ana' }, sources: { user: 'ana', session: 's1' } }
 */
export function runMemory(run: { agent: Pick<AgentDefinition, 'name' | 'file' | 'extra'>; sessionId: string; user?: string }): RunMemory {
  const scope = scopeOf(run.agent, run.user);
  if (scope === 'user') {
    const user = run.user ?? OPERATOR_USER;
    return { scope, target: { scope, user }, sources: { user, session: run.sessionId } };
  }
  if (scope === 'session') return { scope, target: { scope, session: run.sessionId }, sources: { session: run.sessionId } };
  return { scope, target: { scope }, sources: { session: run.sessionId } };
}
