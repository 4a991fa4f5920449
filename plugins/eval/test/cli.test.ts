// `oryx eval` through the built CLI (`npm run build` first): what it prints and exits with for
// a case file with a typo, usage errors, a report it cannot write; and that its help loads no
// plugin code (the command imports its runner only when it runs).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx } from '@oryxos/kernel/testing';
import { oryxTrace, traceProject } from '../../../test/fixtures/trace-oryx.ts';

const CONFIG = `import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
export default defineConfig({ plugins: [scripted(Array.from({ length: 20 }, () => ({ text: 'Hello there!' }))), sqlite()] });
`;

let dir: string;
const evals = () => path.join(dir, '.oryxos', 'agents', 'assistant', 'evals');

test.before(async () => {
  dir = await traceProject('eval-cli-', CONFIG, { assistant: { tools: [] } });
  await mkdir(evals(), { recursive: true });
});
test.after(async () => { await rm(dir, { recursive: true, force: true }); });

test('oryx eval --help and oryx --help load none of the eval plugin\'s code beyond the command, nor yaml', () => {
  for (const args of [['eval', '--help'], ['--help']]) {
    const r = oryxTrace(dir, args);
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /eval/);
    const offenders = r.loaded.filter((u) => /plugins\/eval\/dist\/(?!commands\/eval\.js$)/.test(u) || /node_modules\/yaml\//.test(u));
    assert.equal(offenders, [], `oryx ${args.join(' ')}`);
  }
});

test('a passing case exits 0 and a failing one 1, with the first failed check and its evidence', async () => {
  await writeFile(path.join(evals(), 'a.yaml'), '- name: greets\n  input: hi\n  expect: { answer_contains: Hello }\n- name: says bye\n  input: hi\n  expect: { answer_contains: Bye }\n');
  const ok = await runOryx(['eval', 'assistant', '--filter', 'greets'], { cwd: dir });
  assert.is(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^CASE\s+AGENT\s+RESULT\s+MODE\s+STEPS\s+TOKENS\s+TIME\s+FIRST FAILURE$/m);
  assert.match(ok.stdout, /^greets\s+assistant\s+pass\s+live\s+1\s+\d+\s+\d+ ms$/m);
  assert.match(ok.stderr, /^✓ greets$/m, 'one line per case as it ends');
  const bad = await runOryx(['eval'], { cwd: dir });
  assert.is(bad.code, 1, bad.stderr);
  assert.match(bad.stdout, /^says bye\s+assistant\s+fail\s+live\s+1\s+\d+\s+\d+ ms\s+answer_contains "Bye"$/m);
  assert.match(bad.stdout, /^✗ says bye \(.*a\.yaml:4\) session [0-9a-f]{8}\n {2}answer_contains "Bye": the answer does not contain it; answer: "Hello there!"$/m);
  assert.match(bad.stdout, /^2 cases: 1 passed, 1 failed \(live\)$/m);
});

test('a case file with a typo stops before anything runs, naming file, line and key', async () => {
  await writeFile(path.join(evals(), 'b.yaml'), 'name: typo\ninput: hi\nexpect:\n  answer_contains: Hello\n  tool_called: [x]\n');
  const r = await runOryx(['eval', 'assistant'], { cwd: dir });
  assert.is(r.code, 1);
  assert.match(r.stderr, /^error ORYX_E_EVAL_CASE_INVALID: .*b\.yaml:5: expect\.tool_called is not a key of a case \(did you mean "tools_called"\?\)$/m);
  assert.match(r.stderr, /^ {2}hint: Known keys here: /m);
  const json = await runOryx(['eval', 'assistant', '--json'], { cwd: dir });
  assert.is(JSON.parse(json.stdout).error.code, 'ORYX_E_EVAL_CASE_INVALID');
  await rm(path.join(evals(), 'b.yaml'));
});

test('usage errors exit 2; a report that cannot be written is named', async () => {
  for (const args of [['--replay', '--live'], ['--record', '--repeat', '2'], ['--compare', 'only-one']]) {
    const r = await runOryx(['eval', 'assistant', ...args], { cwd: dir });
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
  }
  await writeFile(path.join(dir, 'not-a-folder'), '');
  const r = await runOryx(['eval', 'assistant', '--filter', 'greets', '--junit', 'not-a-folder/out.xml'], { cwd: dir });
  assert.is(r.code, 1);
  assert.match(r.stderr, /error ORYX_E_EVAL_REPORT_WRITE: Could not write the JUnit report not-a-folder\/out\.xml/);
});

test.run();
