/**
 * @oryxos/contracts: the services OryxOS plugins provide to each other, declared once — the
 * session store, the SQL database, run records, the audit trail, the sandbox, approvals,
 * long-term memory, the scheduler and notifications — so a plugin reaches another plugin's
 * service by name (`ctx.service('database')`) with its type, never by importing that plugin
 * and never by a cast. Types only.
 *
 * @example
 * import type { Database, Migration } from '@oryxos/contracts';
 */
export type * from './sessions.ts';
export type * from './sandbox.ts';
export type * from './audit.ts';
export type * from './database.ts';
export type * from './runs.ts';
export type * from './approvals.ts';
export type * from './memory.ts';
export type * from './resources.ts';
export type * from './services.ts';
