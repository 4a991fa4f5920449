// docs/evals.md, followed step by step through the built CLI (`npm run build` first) in a copy
// of this repository's quickstart project: its three case files and its config as written
// there, recorded against the loopback model standing in for a real one (OPENAI_BASE_URL),
// replayed with that model stopped, run as CI runs them (JUnit validated), then the failure the
// last step describes.
import { readFileSync } from 'node:fs';
import { appendFile, cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateXML } from 'xmllint-wasm';
import { runOryx, tempProject } from '@oryxos/kernel/testing';
import { testModel, type Brain, type TestModel } from './helpers/model.ts';

const repo = path.resolve(import.meta.dirname, '../../..');
const doc = readFileSync(path.join(repo, 'docs', 'evals.md'), 'utf8');

/** The fenced blocks of the doc in a language, each with the path its first comment line names. */
function blocks(lang: string): { file?: string; text: string }[] {
  return [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => {
    const text = m[1]!;
    const file = /^(?:#|\/\/) (\S+\.(?:ya?ml|ts))\n/.exec(text)?.[1];
    return { file, text };
  });
}

/** The doc's commands, as written (`npx oryx …`, `echo … >> …`), in order. */
const commands = blocks('sh').flatMap((b) => b.text.split('\n')).filter((l) => /^(\S+=\S+ )*npx oryx |^echo /.test(l));

/** A command of the doc run here: `npx oryx` is the built CLI, environment assignments go to its environment. */
async function run(line: string, dir: string, env: Record<string, string | undefined> = {}) {
  const words = line.split(' ');
  const assigned: Record<string, string> = {};
  // A placeholder of the doc (`sk-…`) gets a key the test model takes.
  while (/^\w+=/.test(words[0]!)) { const [k, v] = words.shift()!.split('='); assigned[k!] = v!.includes('…') ? 'sk-test' : v!; }
  assert.equal(words.slice(0, 2), ['npx', 'oryx'], line);
  return runOryx(words.slice(2), { cwd: dir, env: { ...assigned, ...env }, timeoutMs: 120_000 });
}

// What a real model would do with the three questions (and the quickstart's own), with the tools the agent has.
const brain: Brain = ({ user, step, toolResults }) => {
  const last = toolResults.at(-1)?.content ?? '';
  if (user.startsWith('What is this project?')) {
    return step === 0 ? { calls: [{ name: 'read_file', args: { path: 'README.md' } }], usage: [400, 20] }
      : { text: last.includes('OryxOS') ? 'OryxOS is a small TypeScript runtime for LLM agents.' : 'I could not tell.', usage: [2900, 15] };
  }
  if (user.startsWith('Which agents')) {
    return step === 0 ? { calls: [{ name: 'list_dir', args: { path: '.oryxos/agents' } }], usage: [380, 18] }
      : { text: `The project has these agents: ${last.includes('assistant') ? 'assistant' : '(none found)'}.`, usage: [420, 12] };
  }
  if (user.startsWith('Read .oryxos/oryx.db')) {
    return step === 0 ? { calls: [{ name: 'read_file', args: { path: '.oryxos/oryx.db' } }], usage: [390, 19] }
      : { text: /denied|not allowed/i.test(last) ? 'I cannot read .oryxos/oryx.db: the sandbox does not allow it.' : last.slice(0, 40), usage: [450, 16] };
  }
  return undefined;
};

let dir: string;
let model: TestModel;

test.before(async () => {
  dir = await tempProject('eval-tutorial-');
  for (const f of ['README.md', '.oryxos/agents', '.oryxos/cassettes', '.oryxos/memory', '.oryxos/AGENTS.md', '.oryxos/SOUL.md', '.oryxos/USER.md', '.oryxos/mcp_servers.yaml']) {
    await cp(path.join(repo, f), path.join(dir, f), { recursive: true });
  }
  model = await testModel(brain);
});
test.after(async () => {
  await model.close().catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

test('1. the three case files and 2. the config of the doc, written as it shows them', async () => {
  const cases = blocks('yaml').filter((b) => b.file?.startsWith('.oryxos/agents/assistant/evals/'));
  assert.equal(cases.map((b) => b.file), [
    '.oryxos/agents/assistant/evals/what-is-it.yaml',
    '.oryxos/agents/assistant/evals/lists-agents.yaml',
    '.oryxos/agents/assistant/evals/keeps-out-of-the-database.yaml',
  ]);
  for (const c of cases) {
    await mkdir(path.dirname(path.join(dir, c.file!)), { recursive: true });
    await writeFile(path.join(dir, c.file!), c.text);
  }
  const [config] = blocks('ts').filter((b) => b.file === 'oryx.config.ts');
  assert.ok(config, 'the doc shows the config');
  await writeFile(path.join(dir, 'oryx.config.ts'), config!.text);
  assert.equal(commands, [
    'OPENAI_API_KEY=sk-… npx oryx eval assistant --record --provider openai',
    'npx oryx eval assistant',
    'npx oryx eval assistant --replay --junit eval-results.xml',
    'echo "Always answer in French." >> .oryxos/agents/assistant/AGENT.md',
    'npx oryx eval assistant',
  ]);
});

test('2. record: every case passes against the model and gets its cassette; oryx run still replays the quickstart', async () => {
  const r = await run(commands[0]!, dir, { OPENAI_BASE_URL: model.url });
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /what is this project\s+assistant\s+pass\s+record/);
  assert.match(r.stdout, /3 cases: 3 passed, 0 failed \(record\)/);
  assert.ok(model.asks.length >= 6, 'the model answered each step');
  for (const name of ['what-is-this-project', 'lists-the-agents', 'keeps-out-of-the-database']) {
    const lines = (await readFile(path.join(dir, '.oryxos/agents/assistant/evals/cassettes', `${name}.jsonl`), 'utf8')).trim().split('\n');
    assert.is(lines.length, 2, name);
  }
  const sessions = JSON.parse((await runOryx(['sessions', '--json'], { cwd: dir })).stdout).items as { id: string; title: string }[];
  assert.equal(sessions.map((s) => s.title).sort(), ['eval assistant/keeps out of the database', 'eval assistant/lists the agents', 'eval assistant/what is this project']);
  const show = await runOryx(['sessions', 'show', sessions[0]!.id.slice(0, 8), '--json'], { cwd: dir });
  assert.is(show.code, 0, show.stderr);
  const shown = JSON.parse(show.stdout);
  assert.ok(shown.messages.length >= 4, 'the case\'s whole run is a normal session');
  if (shown.tags) assert.ok(shown.tags.includes('eval'), 'tagged with the eval');
  const quickstart = await runOryx(['run', 'What is this project? Read README.md and answer in one line.'], { cwd: dir });
  assert.is(quickstart.code, 0, quickstart.stderr);
});

test('3. replay: offline, with the model stopped, the same results', async () => {
  await model.close();
  const asked = model.asks.length;
  const r = await run(commands[1]!, dir, { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined });
  assert.is(r.code, 0, r.stdout + r.stderr);
  for (const name of ['what is this project', 'lists the agents', 'keeps out of the database']) {
    assert.match(r.stdout, new RegExp(`${name}\\s+assistant\\s+pass\\s+replay\\s+2\\s+\\d`));
  }
  assert.match(r.stdout, /3 cases: 3 passed, 0 failed \(replay\)/);
  assert.is(model.asks.length, asked, 'no model call');
});

test('4. CI: --replay --junit exits 0 and writes a report CI tools accept', async () => {
  const r = await run(commands[2]!, dir, { OPENAI_API_KEY: undefined });
  assert.is(r.code, 0, r.stdout + r.stderr);
  const xml = await readFile(path.join(dir, 'eval-results.xml'), 'utf8');
  assert.match(xml, /<testsuite name="oryx eval assistant" [^>]*tests="3" failures="0" errors="0"/);
  for (const schema of ['jenkins-junit-10.xsd', 'ant-junit.xsd']) {
    const result = await validateXML({ xml: [{ fileName: 'eval-results.xml', contents: xml }], schema: [readFileSync(path.join(import.meta.dirname, 'fixtures', schema), 'utf8')] });
    assert.ok(result.valid, `${schema}: ${result.errors.map((e) => e.message).join('\n')}`);
  }
});

test('5. a changed prompt: the case diverges at step 1, saying what changed, and CI fails', async () => {
  const echo = /^echo "(.*)" >> (\S+)$/.exec(commands[3]!)!;
  await appendFile(path.join(dir, echo[2]!), `${echo[1]}\n`);
  const r = await run(commands[4]!, dir, { OPENAI_API_KEY: undefined });
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /what is this project\s+assistant\s+diverged\s+replay/);
  assert.match(r.stdout, /replay: diverged at step 1: .*the prompt differs from the recording \(.*what-is-this-project\.jsonl:1\): the agent's instructions \(the body of AGENT\.md\) changed/);
  assert.match(r.stdout, /3 cases: 0 passed, 0 failed, 3 diverged \(replay\)/);
  const json = await runOryx(['eval', 'assistant', '--replay', '--json'], { cwd: dir });
  assert.is(json.code, 1);
  assert.equal(JSON.parse(json.stdout).items.map((c: { status: string }) => c.status), ['diverged', 'diverged', 'diverged']);
});

test.run();
