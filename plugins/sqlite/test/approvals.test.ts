// The `approvals` table and service on a real SQLite file (the same contract runs on PostgreSQL in plugins/postgres).
import { test } from 'uvu';
import { approvalsContract } from '../../../kits/sql-store/test/approvals-contract.ts';
import { sqliteEngine } from './engine.ts';

approvalsContract(sqliteEngine('libsql'));

test.run();
