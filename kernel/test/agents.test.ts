import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_SETTINGS } from '@oryxos/kernel';
import { AgentLoader } from '../src/agents.ts';
import type { OryxError } from '@oryxos/provider-spec';
import { parseFrontmatter } from '@oryxos/agent-files';
import { echoTool, scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';

let ws: string;
test.before.each(async () => { ws = await mkdtemp(path.join(tmpdir(), 'oryx-agents-')); });
test.after.each(async () => { await rm(ws, { recursive: true, force: true }); });

async function put(rel: string, text: string) {
  await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
  await writeFile(path.join(ws, rel), text);
}
async function loadError(name: string): Promise<OryxError> {
  try { await new AgentLoader(ws).load(name); } catch (e) { return e as OryxError; }
  throw new Error('expected an error');
}

test('typos in the frontmatter are errors naming the file, the line and the closest key', async () => {
  await put('agents/a/AGENT.md', '---\ndescripton: Helps\ntools: []\n---\nBody\n');
  let e = await loadError('a');
  assert.is(e.code, 'ORYX_E_AGENT_INVALID');
  assert.match(e.message, /agents\/a\/AGENT\.md:2: unknown key "descripton" \(did you mean "description"\?\)/);
  assert.match(e.message, 'known keys: description, provider, model, tools');
  assert.equal(e.data, { file: path.join(ws, 'agents/a/AGENT.md'), field: 'descripton', line: 2 });

  await put('agents/b/AGENT.md', '---\ndescription: x\nsettings:\n  max_iteration: 3\n---\nBody\n');
  e = await loadError('b');
  assert.match(e.message, /AGENT\.md:4: unknown key "max_iteration" in settings \(did you mean "max_iterations"\?\)/);
  assert.match(e.message, 'known keys: context_tokens, loop_detection, max_duration_ms, max_history_turns, max_iterations');

  await put('agents/c/AGENT.md', '---\nmemory: { scope: user }\n---\nBody\n');
  e = await loadError('c');
  assert.match(e.message, 'unknown key "memory"');
  assert.match(e.hint ?? '', 'plugin enabled');
  const loaded = await new AgentLoader(ws, { agentKeys: () => ['memory'] }).load('c');
  assert.equal(loaded.extra, { memory: { scope: 'user' } }, 'with the plugin that reads it enabled, the key is its');
});

test('frontmatter and body are parsed; defaults fill settings', async () => {
  await put('agents/helper/AGENT.md', '---\ndescription: Helps\nprovider: openai\nmodel: gpt-x\ntools: [read_file, "fs__*"]\nsettings:\n  max_iterations: 3\ncolor: blue\n---\n\nBe brief.\n');
  const a = await new AgentLoader(ws, { agentKeys: () => ['color'] }).load('helper');
  assert.is(a.description, 'Helps');
  assert.equal(a.extra, { color: 'blue' }, 'a key a plugin reads is kept for it');
  assert.is(a.provider, 'openai');
  assert.is(a.model, 'gpt-x');
  assert.equal(a.tools, ['read_file', 'fs__*']);
  assert.equal(a.settings, { ...DEFAULT_SETTINGS, max_iterations: 3 });
  assert.is(a.settings.max_history_turns, 20);
  assert.is(a.instructions, 'Be brief.');
  assert.equal(a.extra, { color: 'blue' });
});

test('an AGENT.md without frontmatter is an agent with no tools', async () => {
  await put('agents/plain/AGENT.md', 'Just a prompt.');
  const a = await new AgentLoader(ws).load('plain');
  assert.equal(a.tools, []);
  assert.is(a.instructions, 'Just a prompt.');
});

test('malformed AGENT.md: the error names the file and the field', async () => {
  await put('agents/a/AGENT.md', '---\ntools: read_file\n---\nx');
  let e = await loadError('a');
  assert.is(e.code, 'ORYX_E_AGENT_INVALID');
  assert.match(e.message, path.join('agents', 'a', 'AGENT.md'));
  assert.match(e.message, 'field "tools"');

  await put('agents/b/AGENT.md', '---\nsettings:\n  max_iterations: 0\n---\nx');
  e = await loadError('b');
  assert.match(e.message, 'field "settings.max_iterations"');

  await put('agents/c/AGENT.md', '---\nsettings:\n  max_history_turns: "lots"\n---\nx');
  e = await loadError('c');
  assert.match(e.message, 'settings.max_history_turns');

  await put('agents/d/AGENT.md', '---\ntools: [a\n  b: c\n---\nx');
  e = await loadError('d');
  assert.is(e.code, 'ORYX_E_AGENT_INVALID');
  assert.match(e.message, 'not valid YAML');
});

test('unknown agents list the known ones', async () => {
  await put('agents/one/AGENT.md', 'x');
  const e = await loadError('two');
  assert.is(e.code, 'ORYX_E_AGENT_NOT_FOUND');
  assert.match(e.hint!, 'Known agents: one');
  assert.is((await loadError('../etc')).code, 'ORYX_E_AGENT_NOT_FOUND');
});

test('bootstrap files: the agent folder first, then the workspace', async () => {
  await put('agents/x/AGENT.md', 'x');
  await put('agents/x/SOUL.md', 'agent soul');
  await put('SOUL.md', 'shared soul');
  await put('AGENTS.md', 'shared rules');
  const a = await new AgentLoader(ws).load('x');
  assert.equal(a.bootstrap.map((b) => [b.name, b.content]), [['AGENTS.md', 'shared rules'], ['SOUL.md', 'agent soul']]);
});

test('skills: only name, description and path are injected', async () => {
  await put('agents/x/AGENT.md', '---\nskills: [deploy, "rev*"]\n---\nx');
  await put('agents/x/skills/deploy.md', '---\ndescription: Ship a release\n---\nSTEP ONE: secret body text');
  await put('skills/review.md', '# Review\nCheck diffs line by line.\n\nbody body');
  await put('skills/other.md', '---\ndescription: not listed\n---\n');
  const a = await new AgentLoader(ws).load('x');
  assert.equal(a.skills.map((s) => [s.name, s.description]), [['deploy', 'Ship a release'], ['review', 'Check diffs line by line.']]);
});

test('the prompt carries skills as an index, never their bodies', async () => {
  const llm = scripted([{ text: 'ok' }]);
  const t = await testKernel({ plugins: [llm], agents: { assistant: { body: 'Main prompt.' } } });
  await mkdir(path.join(t.kernel.config.workspaceDir, 'agents/assistant/skills'), { recursive: true });
  await writeFile(path.join(t.kernel.config.workspaceDir, 'agents/assistant/skills/deploy.md'), '---\ndescription: Ship it\n---\nSECRET BODY');
  await writeFile(path.join(t.kernel.config.workspaceDir, 'USER.md'), 'The user is Ada.');
  await t.service.process({ agent: 'assistant', message: 'hi' });
  const system = llm.requests[0]!.messages[0]!.content;
  assert.match(system, 'Main prompt.');
  assert.match(system, '## USER.md\n\nThe user is Ada.');
  assert.match(system, '- deploy: Ship it (');
  assert.not.match(system, 'SECRET BODY');
  assert.match(system, '## Date');
  await t.close();
});

test('list() returns every agent folder with an AGENT.md', async () => {
  await put('agents/b/AGENT.md', 'b');
  await put('agents/a/AGENT.md', 'a');
  await mkdir(path.join(ws, 'agents/empty'), { recursive: true });
  assert.equal((await new AgentLoader(ws).list()).map((a) => a.name), ['a', 'b']);
});

// Markdown is data: a frontmatter block in another language is an error, never code.
const payload = (marker: string) => `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran'); module.exports = { description: 'x' };`;

for (const lang of ['js', 'javascript', 'coffee', 'JS ']) {
  test(`AGENT.md, skills and bootstrap files with ---${lang} frontmatter are refused, naming the file, and never run`, async () => {
    const marker = path.join(ws, 'marker');
    const block = `---${lang}\n${payload(marker)}\n---\nbody`;
    await put('agents/a/AGENT.md', block);
    let e = await loadError('a');
    assert.is(e.code, 'ORYX_E_AGENT_INVALID');
    assert.match(e.message, path.join(ws, 'agents', 'a', 'AGENT.md'));
    assert.match(e.message, `marked "---${lang.trim().toLowerCase()}"`);

    await put('agents/b/AGENT.md', '---\ndescription: fine\n---\nb');
    await put('agents/b/skills/x.md', block);
    e = await loadError('b');
    assert.match(e.message, path.join(ws, 'agents', 'b', 'skills', 'x.md'));

    await put('agents/c/AGENT.md', 'c');
    await put('SOUL.md', block);
    e = await loadError('c');
    assert.match(e.message, path.join(ws, 'SOUL.md'));
    await rm(path.join(ws, 'SOUL.md'));
    assert.not.ok(existsSync(marker), 'the frontmatter ran as code');
  });
}

test('frontmatter YAML is the core schema: no custom or library tags, no duplicate keys', async () => {
  for (const [yaml, problem] of [
    ['description: !!js/function "function () {}"', 'Unresolved tag'],
    ['description: !!binary aGk=', 'Unresolved tag'],
    ['description: !custom x', 'Unresolved tag'],
    ['description: a\ndescription: b', 'unique'],
    ['- a list', 'must be a YAML mapping'],
  ]) {
    const e = await parseFrontmatter(`---\n${yaml}\n---\nbody`, 'X.md').then(() => undefined, (x: OryxError) => x);
    assert.ok(e, yaml);
    assert.is(e!.code, 'ORYX_E_AGENT_INVALID');
    assert.match(e!.message, `X.md: `);
    assert.match(e!.message, problem);
  }
  const ok = await parseFrontmatter('\uFEFF---yaml\ntools: [a, "b*"]\nn: 2\nwhen: 2024-01-01\n---\n\nBody\n', 'ok.md');
  assert.equal(ok.data, { tools: ['a', 'b*'], n: 2, when: '2024-01-01' });
  assert.is(ok.content, '\nBody\n');
  assert.equal(await parseFrontmatter('---- a rule, not a fence\n', 'r.md'), { data: {}, content: '---- a rule, not a fence\n', present: false });
  assert.match((await parseFrontmatter('---\ndescription: x\n', 'open.md').catch((x: OryxError) => x) as OryxError).message, 'open.md: the frontmatter is not closed');
});

test('an unchanged file is parsed once; each caller gets its own copy of the data, and an edit is parsed again', async () => {
  const text = '---\ntools: [read_file]\nsettings: { max_iterations: 3 }\n---\nBe brief.\n';
  const first = await parseFrontmatter(text, 'cache/AGENT.md');
  (first.data.tools as string[]).push('shell');
  (first.data.settings as Record<string, number>).max_iterations = 99;
  const again = await parseFrontmatter(text, 'cache/AGENT.md');
  assert.equal(again.data, { tools: ['read_file'], settings: { max_iterations: 3 } }, 'what a caller changed is not seen by the next');
  assert.is(again.content, 'Be brief.\n');
  const edited = await parseFrontmatter(text.replace('max_iterations: 3', 'max_iterations: 4'), 'cache/AGENT.md');
  assert.equal(edited.data.settings, { max_iterations: 4 });
  await parseFrontmatter('---\na: [\n---\n', 'cache/AGENT.md').then(() => assert.unreachable('bad YAML'), (e: OryxError) => assert.is(e.code, 'ORYX_E_AGENT_INVALID'));
  assert.equal((await parseFrontmatter(text, 'cache/AGENT.md')).data.tools, ['read_file'], 'a failed parse does not replace the last good one');
});

test('a tool name no plugin provides is an error with the closest one; a glob that matches nothing is fine', async () => {
  const t = await testKernel({
    plugins: [scripted([]), toolsPlugin(echoTool())],
    agents: { typo: { tools: ['ecko'] }, globbed: { tools: ['nothing__*', 'echo'] } },
  });
  try {
    const e = await t.kernel.toolsFor(await t.kernel.agents.load('typo')).then(() => undefined, (error: OryxError) => error);
    assert.is(e?.code, 'ORYX_E_AGENT_INVALID');
    assert.match(e!.message, 'tool "ecko" is not provided by any enabled plugin (did you mean "echo"?)');
    assert.equal((await t.kernel.toolsFor(await t.kernel.agents.load('globbed'))).map((x) => x.name), ['echo']);
  } finally {
    await t.close();
  }
});

test.run();
