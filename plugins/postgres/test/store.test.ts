// The store kit's contract (the same suite the sqlite plugin runs) on PostgreSQL.
import { test } from 'uvu';
import { storeContract } from '../../../kits/sql-store/test/store-contract.ts';
import { postgresEngine } from './engine.ts';

storeContract(postgresEngine);

test.run();
