// The `approvals` service (the approvals plugin) on a real SQLite file and on PostgreSQL.
import { test } from 'uvu';
import { approvalsContract } from './approvals-contract.ts';
import { sqliteEngine } from '../plugins/sqlite/test/store-contract.ts';
import { postgresEngine } from '../plugins/postgres/test/engine.ts';

approvalsContract(sqliteEngine('libsql', () => import('../plugins/sqlite/src/index.ts')));
approvalsContract(postgresEngine);

test.run();
