import type { Page, SessionInfo, SessionStore } from '@oryxos/contracts';

/** How many sessions one search request reads from the store at most before it answers. */
export const SEARCH_SCAN_LIMIT = 2_000;

/**
 * Sessions whose title contains `q` (case-insensitive), most recently updated first, paged
 * like `list`. The session store's interface has no title filter, so this reads the store's
 * pages in order (100 sessions each) and keeps the matches. When a page holds more matches
 * than are still wanted, the page is read again up to the last one kept, so the store's own
 * `nextCursor` marks where to go on and no match is skipped. A search stops after `scanLimit`
 * sessions and returns the cursor to go on from: such a page may hold fewer than `limit`
 * matches, or none.
 *
 * @example
 * const page = await searchSessions(kernel.service('sessions'), { q: 'invoice', limit: 20 });
 */
export async function searchSessions(
  store: SessionStore,
  query: { q: string; agent?: string; limit: number; cursor?: string },
  scanLimit = SEARCH_SCAN_LIMIT,
): Promise<Page<SessionInfo>> {
  const needle = query.q.toLocaleLowerCase();
  const agent = query.agent ? { agent: query.agent } : {};
  const items: SessionInfo[] = [];
  let cursor = query.cursor;
  let scanned = 0;
  while (scanned < scanLimit) {
    const from = cursor ? { cursor } : {};
    const page = await store.list({ ...agent, ...from, limit: Math.min(PAGE, scanLimit - scanned) });
    scanned += page.items.length;
    const matches = page.items.filter((s) => s.title.toLocaleLowerCase().includes(needle));
    const room = query.limit - items.length;
    if (matches.length > room) {
      const kept = matches.slice(0, room);
      items.push(...kept);
      const upTo = page.items.indexOf(kept[kept.length - 1]!) + 1;
      return { items, nextCursor: (await store.list({ ...agent, ...from, limit: upTo })).nextCursor };
    }
    items.push(...matches);
    cursor = page.nextCursor;
    if (!cursor || items.length === query.limit) break;
  }
  return { items, ...(cursor ? { nextCursor: cursor } : {}) };
}

const PAGE = 100;
