// --junit output, validated against the schemas CI tools read reports by (Jenkins' xUnit JUnit
// XSD and Apache Ant's, copies in fixtures/ with their sources), by libxml2's xmllint.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateXML } from 'xmllint-wasm';
import { junitXml } from '../src/junit.ts';
import type { CaseReport } from '../src/outcome.ts';
import { brain } from './helpers/brain.ts';
import { testModel } from './helpers/model.ts';
import { evalProject } from './helpers/project.ts';

const SCHEMAS = {
  jenkins: readFileSync(path.join(import.meta.dirname, 'fixtures', 'jenkins-junit-10.xsd'), 'utf8'),
  ant: readFileSync(path.join(import.meta.dirname, 'fixtures', 'ant-junit.xsd'), 'utf8'),
};

async function validate(xml: string, schema: keyof typeof SCHEMAS) {
  return validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [SCHEMAS[schema]] });
}

let reports: CaseReport[];

test.before(async () => {
  const model = await testModel(brain);
  const project = await evalProject({ modelUrl: model.url, agents: {
    assistant: { provider: 'openai', model: 'test-model', tools: ['read_file', 'write_file', 'list_dir'], body: 'You help.' },
    second: { provider: 'openai', model: 'test-model', tools: [], body: 'You greet.' },
  } });
  try {
    await project.cases({ 'a.yaml': `
- name: passes <with> "markup" & more
  input: Read the README
  expect: { answer_contains: hello }
- name: fails
  input: Hello
  expect: { answer_contains: "Goodbye \\u0001 & <bye>" }
- name: errors
  input: Hello
  expect: { answer_contains: x }
- name: skipped
  input: Hello
  skip: later
  expect: {}
` });
    await project.cases({ 'b.yaml': 'name: greets\ninput: Hello\nexpect: { answer_contains: Hello }\n' }, 'second');
    // One case errors: it runs against a model address nobody listens on.
    const errored = await project.run({ filter: 'errors', modelUrl: 'http://127.0.0.1:9/v1' });
    reports = [...(await project.run({})).filter((r) => r.name !== 'errors'), ...errored];
  } finally {
    await model.close();
    await project.remove();
  }
});

test('the report is valid against the Jenkins and the Ant JUnit schemas', async () => {
  assert.equal(reports.map((r) => r.status).sort(), ['error', 'fail', 'pass', 'pass', 'skipped']);
  const xml = junitXml(reports, { at: new Date('2026-12-01T10:20:30.456Z'), host: 'ci-runner' });
  for (const schema of ['jenkins', 'ant'] as const) {
    const result = await validate(xml, schema);
    assert.ok(result.valid, `${schema}: ${result.errors.map((e) => e.message).join('\n')}\n${xml}`);
  }
});

test('it says what CI shows: counts per agent, the failed check with its evidence, the error, the skip', () => {
  const xml = junitXml(reports, { at: new Date('2026-12-01T10:20:30.456Z'), host: 'ci-runner' });
  assert.match(xml, /<testsuite name="oryx eval assistant" package="oryx\.eval\.assistant" id="0" timestamp="2026-12-01T10:20:30" hostname="ci-runner" tests="4" failures="1" errors="1" skipped="1"/);
  assert.match(xml, /<testsuite name="oryx eval second" package="oryx\.eval\.second" id="1" [^>]*tests="1" failures="0" errors="0" skipped="0"/);
  assert.match(xml, /<testcase name="passes &lt;with&gt; &quot;markup&quot; &amp; more" classname="oryx\.eval\.assistant" time="\d+\.\d{3}"\/>/);
  assert.match(xml, /<failure type="assertion" message="answer_contains &quot;Goodbye \\u0001 &amp; &lt;bye&gt;&quot;: the answer does not contain it; answer: &quot;Hello there!&quot;">/);
  assert.match(xml, /<error type="error" message="run: ORYX_E_LLM_UNREACHABLE/);
  assert.match(xml, /<skipped message="later"\/>/);
  assert.match(xml, /case: .*a\.yaml:\d+ \(live\)\nsessions: [0-9a-f-]{36} \(oryx sessions show ID\)/);
});

test('the schemas are strict: a report missing what they require is refused', async () => {
  const xml = junitXml(reports, { host: 'h' });
  const noHost = xml.replace(/ hostname="h"/g, '');
  assert.not.ok((await validate(noHost, 'ant')).valid, 'Ant requires hostname');
  const noName = xml.replace(/<testcase name="[^"]*"/, '<testcase');
  assert.not.ok((await validate(noName, 'jenkins')).valid, 'Jenkins requires a test case name');
  const withControls = junitXml(reports.map((r) => ({ ...r, skipped: r.skipped && 'a\u0001b' })), { host: 'h' });
  assert.not.ok(withControls.includes('\u0001'), 'a control character XML cannot hold is not written');
  assert.ok((await validate(withControls, 'jenkins')).valid);
});

test.run();
