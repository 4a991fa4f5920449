/**
 * The operator's files in the workspace: what OryxOS keeps for the person who runs it, never
 * for an agent. Tools cannot read or write them whatever the roots say, and confined programs
 * do not see them (workspace-view.ts): the REST API token, the database, what servers print,
 * the sandbox's own records, and every user's and every conversation's memory (a run reads its
 * own user's memory through the memory tools, which choose the file themselves).
 */
import path from 'node:path';
import type { OperatorDeny } from './policy.ts';

/** Entries of the workspace (relative), with why they are the operator's. */
const PATHS: [string, string][] = [
  ['logs', 'what servers print: their arguments and tokens'],
  ['web-token', "the REST API's token"],
  ['sandbox', "the sandbox's own records: deny identities and quarantined files"],
  ['memory/users', "users' memories: a run reads its own user's through the memory tools"],
  ['memory/sessions', "conversations' memories and checkpoints: a run reads its own through the memory tools"],
  ['memory/migrated-checkpoints.md', 'checkpoints of conversations'],
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Names of database files (SQLite, its journals, and the high-water mark the sqlite plugin keeps beside it). */
export const DATABASE_FILE = /\.(?:db|sqlite3?)(?:-wal|-shm|-journal|\.seen\.json)?$/;

/** Where the sandbox keeps its records: deny identities and quarantined files. */
export const sandboxStateDir = (workspaceDir: string) => path.join(workspaceDir, 'sandbox');

/**
 * The operator's files of a workspace (a real path), shown relative to `root`.
 *
 * @example
 * operatorFiles('/proj/.oryxos', '/proj').paths[1] // { source: '.oryxos/web-token', path: '/proj/.oryxos/web-token', why: "the REST API's token" }
 */
export function operatorFiles(workspaceDir: string, root: string): OperatorDeny {
  const rel = path.relative(root, workspaceDir);
  const shown = (p: string) => (rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? path.join(rel, p) : path.join(workspaceDir, p));
  const ws = escape(workspaceDir);
  return {
    paths: PATHS.map(([p, why]) => ({ source: shown(p), path: path.join(workspaceDir, p), why })),
    patterns: [
      { source: shown('*.db*'), re: new RegExp(`^${ws}/[^/]+${DATABASE_FILE.source}`), why: 'the database: sessions and the audit trail' },
      { source: shown('agents/*/users'), re: new RegExp(`^${ws}/agents/[^/]+/users(?:/.*)?$`), why: "users' memories: a run reads its own user's through the memory tools" },
      { source: shown('agents/*/migrated-checkpoints.md'), re: new RegExp(`^${ws}/agents/[^/]+/migrated-checkpoints\\.md$`), why: 'checkpoints of conversations' },
    ],
  };
}
