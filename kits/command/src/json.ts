/**
 * The one `--json` convention of every `oryx` command, and of the REST API: a list is
 * `{"items": [...], "nextCursor"?: "..."}` (beside `items`, only what the list is of, such as
 * `agent` or `server`); a single thing is the object itself; keys are camelCase everywhere.
 */

/** A page of a list, the one list shape. */
export interface ListJson<T> { items: T[]; nextCursor?: string }

/**
 * The list shape for `items`, with `nextCursor` only when there is another page.
 *
 * @example
 * return listJson(rows);                    // {"items": [...]}
 * return listJson(page.items, page.nextCursor, { agent: 'assistant' });
 */
export function listJson<T, E extends Record<string, unknown> = Record<never, never>>(items: T[], nextCursor?: string, extra?: E): ListJson<T> & E {
  return { ...(extra as E), items, ...(nextCursor ? { nextCursor } : {}) };
}

/** `session_id` → `sessionId`. */
export function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The camelCase form of a snake_case type's keys. */
export type CamelKeys<T> = { [K in keyof T as K extends string ? CamelKey<K> : K]: T[K] };
type CamelKey<S extends string> = S extends `${infer H}_${infer R}` ? `${H}${Capitalize<CamelKey<R>>}` : S;

/**
 * A database row with camelCase keys, for `--json` and the REST API (rows stay snake_case in SQL).
 *
 * @example
 * camelKeys({ session_id: 'a', input_tokens: 3 }) // { sessionId: 'a', inputTokens: 3 }
 */
export function camelKeys<T extends object>(row: T): CamelKeys<T> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [camelCase(k), v])) as CamelKeys<T>;
}
