import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code the store raises, on every engine, with how to fix it. The session store's
 * conditions keep the codes they had when the store lived in the sqlite plugin
 * (`ORYX_E_SQLITE_SESSION_BUSY`, …), so a client handles one code per condition whichever engine
 * runs it. `test/error-codes.test.ts` checks this table against README.md.
 *
 * @example
 * if (isOryxError(e) && e.code in STORE_ERROR_CODES) console.error(STORE_ERROR_CODES[e.code as StoreErrorCode]);
 */
export const STORE_ERROR_CODES = {
  ORYX_E_SQLITE_BAD_CURSOR: 'Pass the nextCursor of a previous page unchanged, or omit the cursor to start from the newest session.',
  ORYX_E_SQLITE_CORRUPT_ROW: 'Run `oryx sessions repair ID` with the session the message names: the unreadable messages move to the messages_quarantine table and the session works again.',
  ORYX_E_SQLITE_SESSION_EXISTS: 'A session with that id already exists; omit the id to get a fresh one.',
  ORYX_E_SQLITE_SESSION_NOT_FOUND: 'The session was deleted (or never existed) while a run was writing to it; start a new session.',
  ORYX_E_SQLITE_APPEND_CONFLICT: 'Another writer kept taking the same message positions; make sure every writer goes through AgentService (which locks the session).',
  ORYX_E_SQLITE_SESSION_BUSY: 'Another process is running this session; wait for it to finish, or raise lockTimeoutMs (`oryx sessions delete --force` stops it first).',
  ORYX_E_DB_COPY: 'Read the message: the copy names the table and what is wrong (a target that already holds rows, a table or column the target lacks: run `oryx db migrate` against it first). Nothing was written to the target.',
  ORYX_E_STORE_INVALID: 'Fix the value the message names: tags and a door\'s outside id are non-empty strings of at most 200 characters, a call mark names its run, session, call, tool and arguments hash.',
} as const;

export type StoreErrorCode = keyof typeof STORE_ERROR_CODES;

/** An OryxError with one of the store's codes; the hint defaults to the table's. */
export function storeError(
  code: StoreErrorCode, message: string, options: { hint?: string; cause?: unknown; retryable?: boolean; data?: Record<string, unknown> } = {},
): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? STORE_ERROR_CODES[code] });
}
