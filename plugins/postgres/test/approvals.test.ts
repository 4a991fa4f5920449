// The `approvals` contract of plugins/sqlite on PostgreSQL.
import { test } from 'uvu';
import { approvalsContract } from '../../sqlite/test/approvals-contract.ts';
import { postgresEngine } from './engine.ts';

approvalsContract(postgresEngine);

test.run();
