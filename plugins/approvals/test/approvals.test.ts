// The `approvals` table and service on a real SQLite file (the same contract runs on PostgreSQL in plugins/postgres).
import { test } from 'uvu';
import { approvalsContract } from './approvals-contract.ts';
import { sqliteEngine } from './store-contract.ts';

approvalsContract(sqliteEngine('libsql', () => import('../src/index.ts')));

test.run();
