import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeErrorCodes } from '@oryxos/kernel/testing';
import { LLM_ERROR_CODES } from '../src/index.ts';

test('the README lists exactly the codes every provider classifies failures into, with the same "how to fix"', () => {
  assert.equal(readmeErrorCodes(readFileSync(new URL('../README.md', import.meta.url), 'utf8')), { ...LLM_ERROR_CODES });
});

test.run();
