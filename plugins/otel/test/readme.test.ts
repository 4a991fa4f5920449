// The README is the reference: every error code with its fix (the same text as ERROR_CODES), and
// every attribute, event and span name the plugin writes.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeErrorCodes } from '@oryxos/kernel/testing';
import { ERROR_CODES } from '../src/index.ts';
import { ERROR_TYPE, EVENTS, GEN_AI, ORYX, SEMCONV_VERSION } from '../src/attributes.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

test('README lists exactly the codes of ERROR_CODES, once each, with the same "how to fix"', () => {
  assert.equal(readmeErrorCodes(readme), { ...ERROR_CODES });
});

test('README names every attribute and event the spans carry, and the conventions\' version', () => {
  const names = [...Object.values(GEN_AI), ...Object.values(ORYX), ...Object.values(EVENTS), ERROR_TYPE];
  const missing = names.filter((n) => !readme.includes(`\`${n}\``));
  assert.equal(missing, []);
  for (const span of ['invoke_agent {agent}', 'chat {model}', 'execute_tool {tool}']) assert.ok(readme.includes(`\`${span}\``), span);
  assert.ok(readme.includes(`semantic-conventions v${SEMCONV_VERSION}`));
});

test('README lists every OTEL_* variable the plugin reads', () => {
  const source = ['settings.ts', 'runtime.ts'].map((f) => readFileSync(new URL(`../src/${f}`, import.meta.url), 'utf8')).join('\n');
  const read = [...new Set(source.match(/OTEL_[A-Z_]+/g))];
  assert.ok(read.length >= 12, read.join(', '));
  assert.equal(read.filter((v) => !readme.includes(v)), []);
});

test.run();
