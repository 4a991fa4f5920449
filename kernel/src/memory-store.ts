import { isoNow } from './clock.ts';
import type { Message, Page, SessionInfo, SessionStore, StoredMessage } from './types.ts';

/**
 * The kernel's default session store: in memory, gone when the process ends. The sqlite
 * plugin provides a durable one with the same interface.
 */
export class InMemorySessionStore implements SessionStore {
  private sessions = new Map<string, { info: SessionInfo; messages: StoredMessage[] }>();

  async create(input: { agent: string; title?: string; id?: string; parentSessionId?: string }): Promise<SessionInfo> {
    const now = isoNow();
    const info: SessionInfo = { id: input.id ?? crypto.randomUUID(), agent: input.agent, title: input.title ?? '', createdAt: now, updatedAt: now, messageCount: 0 };
    if (input.parentSessionId) info.parentSessionId = input.parentSessionId;
    this.sessions.set(info.id, { info, messages: [] });
    return { ...info };
  }

  async get(id: string): Promise<SessionInfo | undefined> {
    const s = this.sessions.get(id);
    return s && { ...s.info };
  }

  async list(query: { agent?: string; parentSessionId?: string; limit?: number; cursor?: string } = {}): Promise<Page<SessionInfo>> {
    const all = [...this.sessions.values()].map((s) => s.info)
      .filter((i) => (!query.agent || i.agent === query.agent) && (!query.parentSessionId || i.parentSessionId === query.parentSessionId))
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.id.localeCompare(a.id));
    const start = query.cursor ? Number(query.cursor) : 0;
    const limit = query.limit ?? 50;
    const items = all.slice(start, start + limit).map((i) => ({ ...i }));
    return { items, nextCursor: start + limit < all.length ? String(start + limit) : undefined };
  }

  async messages(id: string, query: { limit?: number } = {}): Promise<StoredMessage[]> {
    const all = this.sessions.get(id)?.messages ?? [];
    return query.limit === undefined ? [...all] : all.slice(Math.max(0, all.length - query.limit));
  }

  async history(id: string, turns: number): Promise<StoredMessage[]> {
    const all = this.sessions.get(id)?.messages ?? [];
    let seen = 0;
    for (let i = all.length - 1; i >= 0; i--) {
      if (all[i]!.message.role === 'user' && ++seen === turns) return all.slice(i);
    }
    return [...all];
  }

  async append(id: string, messages: Message[]): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) throw new Error(`unknown session ${id}`);
    const now = isoNow();
    for (const message of messages) {
      s.messages.push({ seq: s.messages.length + 1, message: copyMessage(message), createdAt: now });
      if (!s.info.title && message.role === 'user') s.info.title = message.content.slice(0, 80);
    }
    s.info.messageCount = s.messages.length;
    s.info.updatedAt = now;
  }

  async delete(id: string): Promise<boolean> {
    return this.sessions.delete(id);
  }
}

/** A message's own copy: a shallow clone, then its nested values (tool calls) copied in place. */
function copyMessage(message: Message): Message {
  const out = { ...message } as Record<string, unknown>;
  for (const key in out) {
    const value = out[key];
    if (typeof value === 'object' && value !== null) out[key] = copy(value);
  }
  return out as unknown as Message;
}

/**
 * A deep copy of JSON data (what a message is: the durable stores keep it as JSON), so a later
 * change by the caller does not reach the stored message; several times quicker than
 * `structuredClone` for a message.
 */
function copy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = copy((value as Record<string, unknown>)[key]);
  return out as T;
}
