// The `approvals` service (the approvals plugin) on a real SQLite file and on PostgreSQL.
import { test } from 'uvu';
import { approvalsContract } from './approvals-contract.ts';
import { sqliteEngine } from '../plugins/sqlite/test/engine.ts';
import { postgresEngine } from '../plugins/postgres/test/engine.ts';

approvalsContract(sqliteEngine('libsql'));
approvalsContract(postgresEngine);

test.run();
