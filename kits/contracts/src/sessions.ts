import type { Message } from '@oryxos/provider-spec';

export interface SessionInfo {
  id: string;
  agent: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  /** How many user turns it holds (user messages): what the history strategy cuts by. */
  turns: number;
  /** The session of the run that started this one as a sub-agent (`agent__<name>`), when there is one. */
  parentSessionId?: string;
  /** The door and outside id the session was opened for (`telegram` chat 42, an email thread), when a door opened it. */
  external?: ExternalRef;
  /** Free labels (`eval:smoke`), set at creation, for filtering. */
  tags?: string[];
}

/** Who outside OryxOS a session belongs to: a door's name and its own id for the conversation. */
export interface ExternalRef {
  /** The door that opened it (`web`, `telegram`, `email`, `mcp`). */
  door: string;
  /** The door's id of the conversation: a chat id, a thread's first Message-ID. */
  id: string;
}

/** A message as stored, with its position in the session. */
export interface StoredMessage { seq: number; message: Message; createdAt: string }

/** A stored message that cannot be read (a damaged row), in its place in {@link SessionStore.scan}. */
export interface DamagedMessage {
  seq: number;
  /** Why, with a code (`ORYX_E_SQLITE_CORRUPT_ROW`), the column in `data.column` and the repair in `hint`. */
  damaged: { code: string; message: string; hint?: string; data?: Record<string, unknown> };
}

/** What {@link SessionStore.repair} moved out of a session. */
export interface SessionRepair {
  /** The messages moved aside (to the store's quarantine), each with why it could not be read. */
  quarantined: { seq: number; reason: string }[];
  /** Messages left in the session. */
  kept: number;
}

export interface Page<T> { items: T[]; nextCursor?: string }

/**
 * A tool call about to run, committed before it does, so that a crash between its effect and
 * its result can never make it run a second time: a call with a mark and no result gets an
 * "interrupted" result when its run is continued.
 */
export interface CallStart {
  runId: string;
  sessionId: string;
  toolCallId: string;
  tool: string;
  /** SHA-256 (hex) of the call's canonical arguments. */
  argsHash: string;
  startedAt: string;
}

/**
 * The session store service (`kernel.service('sessions')`). The kernel ships an in-memory
 * one; the sqlite and postgres plugins provide durable ones.
 *
 * @example
 * const session = await store.create({ agent: 'assistant' });
 * await store.append(session.id, [{ role: 'user', content: 'hi' }]);
 */
export interface SessionStore {
  create(input: { agent: string; title?: string; id?: string; parentSessionId?: string; external?: ExternalRef; tags?: string[] }): Promise<SessionInfo>;
  get(id: string): Promise<SessionInfo | undefined>;
  /** Sessions whose id starts with `prefix` (at most `limit`), for the short ids the CLI shows. */
  withPrefix?(prefix: string, limit: number): Promise<SessionInfo[]>;
  /**
   * The session a door opened for an outside conversation, created for `agent` when there is
   * none yet. Two callers racing for the same outside id get the same session.
   */
  findOrCreate(input: { agent: string; external: ExternalRef; title?: string }): Promise<SessionInfo>;
  /** Newest first; `parentSessionId` lists the sub-agent sessions a session started. */
  list(query?: { agent?: string; parentSessionId?: string; tag?: string; limit?: number; cursor?: string }): Promise<Page<SessionInfo>>;
  /** The last `limit` messages (all when omitted), oldest first. */
  messages(id: string, query?: { limit?: number }): Promise<StoredMessage[]>;
  /** The messages from the start of the `turns`-th last user turn on, oldest first. */
  history(id: string, turns: number): Promise<StoredMessage[]>;
  /** Appends and commits, in order. */
  append(id: string, messages: Message[]): Promise<void>;
  /**
   * Deletes the session and everything that is its (messages, marks, child sessions). A
   * session with a run going on is refused unless `force`.
   */
  delete(id: string, options?: { force?: boolean }): Promise<boolean>;
  /**
   * Exclusive lock on a session across processes. Returns the release function. The kernel
   * already serializes runs on one session inside a process.
   */
  lock?(id: string, signal?: AbortSignal): Promise<() => Promise<void>>;
  /** Commits a {@link CallStart} (durable when it resolves). */
  markStarted(mark: CallStart): Promise<void>;
  /**
   * The marks of the session's calls that have no tool result stored, oldest first. Without a
   * session: every session's, but those of runs still going on (a run record that says
   * `running`), for what a start reports about the previous process (the audit trail's
   * `interrupted` rows).
   */
  startedWithoutResult(sessionId?: string): Promise<CallStart[]>;
  /** Up to `limit` sessions whose id starts with `prefix`, by id: what short ids resolve through. */
  withPrefix?(prefix: string, limit: number): Promise<SessionInfo[]>;
  /** Like {@link messages}, but a message that cannot be read is in its place as a {@link DamagedMessage}. */
  scan?(id: string, query?: { limit?: number }): Promise<(StoredMessage | DamagedMessage)[]>;
  /** Moves the session's messages that cannot be read aside (nothing is deleted), so it can run again. */
  repair?(id: string, signal?: AbortSignal): Promise<SessionRepair>;
}
