import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeErrorCodes } from '@oryxos/kernel/testing';
import { STORE_ERROR_CODES } from '@oryxos/sql-store';

test('README lists exactly the codes of STORE_ERROR_CODES, once each, with the same "how to fix"', () => {
  assert.equal(readmeErrorCodes(readFileSync(new URL('../README.md', import.meta.url), 'utf8')), { ...STORE_ERROR_CODES });
});

test.run();
