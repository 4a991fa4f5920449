import { OryxError } from '@oryxos/provider-spec';
import type { SessionInfo } from '@oryxos/contracts';

/** The shortest prefix looked up; the tables show 8 characters. */
export const MIN_PREFIX = 4;
/** How many matches an ambiguous prefix lists. */
const SHOWN = 5;

/** What resolving needs of a session store: `get`, and `withPrefix` where the store has it (the SQL stores do). */
interface Lookup<S extends SessionInfo> {
  get(id: string): Promise<S | undefined>;
  withPrefix?(prefix: string, limit: number): Promise<S[]>;
}

/**
 * The session a person named on the command line: its full id or a unique prefix of it (the
 * 8 characters `oryx sessions` shows). No match is ORYX_E_SESSION_NOT_FOUND; a prefix that
 * several ids start with is ORYX_E_CLI_AMBIGUOUS_ID listing them. REST paths take full ids only.
 *
 * @example
 * const session = await resolveSessionId(kernel.service('sessions'), '3f2a9c1e');
 */
export async function resolveSessionId<S extends SessionInfo>(store: Lookup<S>, idOrPrefix: string): Promise<S> {
  const exact = await store.get(idOrPrefix);
  if (exact) return exact;
  const finder = store.withPrefix?.bind(store);
  const matches = finder && idOrPrefix.length >= MIN_PREFIX ? await finder(idOrPrefix, SHOWN + 1) : [];
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    const listed = matches.slice(0, SHOWN).map((s) => `${s.id} (${s.agent}, ${s.updatedAt.replace('T', ' ').slice(0, 16)}: ${s.title.slice(0, 40)})`);
    throw new OryxError('ORYX_E_CLI_AMBIGUOUS_ID', `Session prefix "${idOrPrefix}" matches ${matches.length > SHOWN ? `more than ${SHOWN}` : matches.length} sessions: ${listed.join('; ')}`, {
      hint: 'Give more characters of the id (or the whole id).',
      data: { prefix: idOrPrefix, matches: matches.map((s) => s.id) },
    });
  }
  throw new OryxError('ORYX_E_SESSION_NOT_FOUND', `No session "${idOrPrefix}"`, {
    hint: finder
      ? `List sessions with \`oryx sessions\`; an id prefix of at least ${MIN_PREFIX} characters works when it matches one session.`
      : 'List sessions with `oryx sessions`, or omit --session to start a new one.',
  });
}
