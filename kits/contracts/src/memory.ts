export interface MemoryEntry { date: string; text: string }
/** Whose memory: the agent's own, one user's, or one session's. */
export type MemoryScope = 'agent' | 'user' | 'session';

/** Which memory to read. */
export type MemoryTarget = { scope: 'agent' } | { scope: 'user'; user: string } | { scope: 'session'; session: string };

export interface MemoryZones { path: string; core: MemoryEntry[]; archive: MemoryEntry[] }

/**
 * Long-term memory behind an interface, so a store other than MEMORY.md can replace it.
 */
export interface LongTermMemoryStore {
  /**
   * The zones of an agent's memory, or of one user's (`{ scope: 'user', user }`), or of one
   * session's; the answer says which scope it read (a store that keeps no per-user memory
   * answers with the agent's, and says so).
   */
  read(agent: string, target?: MemoryTarget): Promise<MemoryZones & { scope?: MemoryScope; user?: string; session?: string }>;
  save(agent: string, text: string, zone?: 'core' | 'archive'): Promise<MemoryEntry>;
  recall(agent: string, query: string, limit?: number): Promise<(MemoryEntry & { score: number })[]>;
}
