import { Flags } from '@oclif/core';

/** Flags the `oryx audit` commands share. */
export const filterFlags = {
  session: Flags.string({ char: 's', summary: 'Only this session (an id or a prefix of one).' }),
  agent: Flags.string({ char: 'a', summary: 'Only this agent.' }),
  limit: Flags.integer({ char: 'n', summary: 'At most this many rows, newest first.', default: 50, min: 1, max: 10_000 }),
};

/** `2024-05-01T12:00:00.000Z` → `2024-05-01 12:00:00`, for tables. */
export function shortTime(iso: string | null | undefined): string {
  return iso ? iso.replace('T', ' ').slice(0, 19) : '';
}

/** The first 8 characters of an id, for tables. */
export function shortId(id: string | null | undefined): string {
  return id ? id.slice(0, 8) : '';
}
