// The approvals store's contract (in the store kit until the approvals plugin takes it) on PostgreSQL.
import { test } from 'uvu';
import { approvalsContract } from '../../../kits/sql-store/test/approvals-contract.ts';
import { postgresEngine } from './engine.ts';

approvalsContract(postgresEngine);

test.run();
