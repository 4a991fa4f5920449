// The session store's contract (the sqlite plugin's own suite) on PostgreSQL.
import { test } from 'uvu';
import { storeContract } from '../../sqlite/test/store-contract.ts';
import { postgresEngine } from './engine.ts';

storeContract(postgresEngine);

test.run();
