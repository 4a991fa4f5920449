// End to end through the built CLI (npm test builds first): oryx init, then oryx run with a
// scripted provider declared in the project's oryx.config.ts.
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';

let dir: string;
const oryx = (args: string[], options: { input?: string; env?: Record<string, string | undefined> } = {}) => runOryx(args, { cwd: dir, ...options });

const scriptedConfig = `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
const shout = {
  name: 'tools', version: '1.0.0', kernel: '^1',
  setup(k) {
    k.registerTool({
      name: 'shout', description: 'Upper-cases text', source: 'plugin',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      async execute(args) { return String(args.text).toUpperCase(); },
    });
  },
};
export default defineConfig({
  plugins: [
    scripted([
      { toolCalls: [{ name: 'shout', args: { text: 'hello cli' } }] },
      (req) => ({ text: 'The tool said: ' + req.messages.at(-1).content }),
    ]),
    shout,
  ],
});
`;

test.before.each(async () => { dir = await tempProject('cli-'); });
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

test('oryx init scaffolds the workspace and refuses to overwrite without --force', async () => {
  const first = await oryx(['init'], { env: { OPENAI_API_KEY: undefined } });
  assert.is(first.code, 0, first.stderr);
  for (const f of ['oryx.config.ts', '.oryxos/agents/assistant/AGENT.md', '.oryxos/AGENTS.md', '.oryxos/SOUL.md', '.oryxos/USER.md', '.oryxos/memory/MEMORY.md', '.oryxos/mcp_servers.yaml']) {
    assert.ok(existsSync(path.join(dir, f)), `${f} exists`);
  }
  assert.match(first.stdout, 'Provider: Ollama');
  const config = await readFile(path.join(dir, 'oryx.config.ts'), 'utf8');
  assert.match(config, "import ollama from '@oryxos/plugin-ollama'");
  // the comments say how control files are protected and how to opt in
  assert.match(config, "Control files are never written by agents");
  assert.match(config, "allowControlWrites: ['.oryxos/agents/notes/**']");
  const memory = await readFile(path.join(dir, '.oryxos/memory/MEMORY.md'), 'utf8');
  assert.match(memory, '## Core');
  assert.match(memory, '## Archive');

  await writeFile(path.join(dir, '.oryxos/USER.md'), 'my edits');
  const again = await oryx(['init']);
  assert.is(again.code, 1);
  assert.match(again.stderr, 'error ORYX_E_INIT_EXISTS');
  assert.match(again.stderr, 'hint: Pass --force');
  assert.is(await readFile(path.join(dir, '.oryxos/USER.md'), 'utf8'), 'my edits', 'nothing was overwritten');

  const forced = await oryx(['init', '--force', '--json'], { env: { OPENAI_API_KEY: 'sk-test' } });
  assert.is(forced.code, 0, forced.stderr);
  assert.is(JSON.parse(forced.stdout).provider, 'openai');
  assert.match(await readFile(path.join(dir, 'oryx.config.ts'), 'utf8'), "import openai from '@oryxos/plugin-openai'");
});

// oryx init compiling the config into the user's cache, and read commands using it: config-cache.test.ts.

const NO_KEYS = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, ANTHROPIC_API_KEY: undefined, GEMINI_API_KEY: undefined, GOOGLE_API_KEY: undefined };
/** A loopback port nothing listens on. */
async function closedPort(): Promise<string> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}
let closed = '';

test('oryx init picks the OpenAI-compatible provider for OPENAI_BASE_URL without a key, and says which and why', async () => {
  closed = await closedPort();
  const local = await oryx(['init'], { env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1' } });
  assert.is(local.code, 0, local.stderr);
  assert.match(local.stdout, 'Provider: OpenAI-compatible, because OPENAI_BASE_URL is set; no OPENAI_API_KEY is needed for a server that takes none (LM Studio, vLLM, llama.cpp).');
  assert.match(await readFile(path.join(dir, 'oryx.config.ts'), 'utf8'), "import openai from '@oryxos/plugin-openai'");
  const cases = [
    [{ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: undefined }, 'openai', /^OPENAI_API_KEY is set/],
    [{ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1' }, 'openai', /^OPENAI_BASE_URL is set and so is OPENAI_API_KEY/],
    [{ ...NO_KEYS, OLLAMA_HOST: closed }, 'ollama', /^no model key is set and no Ollama answered at http:\/\/127\.0\.0\.1:\d+\. Start Ollama .*set one of OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY/],
    [{ ...NO_KEYS, OPENAI_API_KEY: ' ', OPENAI_BASE_URL: '', OLLAMA_HOST: closed }, 'ollama', /^no model key is set and no Ollama answered/],
  ] as const;
  for (const [env, provider, reason] of cases) {
    const r = await oryx(['init', '--force', '--json'], { env });
    assert.is(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.is(out.provider, provider, JSON.stringify(env));
    assert.match(out.reason, reason);
  }
});

test('oryx init writes Anthropic for ANTHROPIC_API_KEY, Gemini for GEMINI_API_KEY or GOOGLE_API_KEY, Ollama when one answers', async () => {
  const anthropic = await oryx(['init', '--json'], { env: { ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-ant-test' } });
  assert.is(anthropic.code, 0, anthropic.stderr);
  assert.equal([JSON.parse(anthropic.stdout).provider, JSON.parse(anthropic.stdout).reason], ['anthropic', 'ANTHROPIC_API_KEY is set']);
  let config = await readFile(path.join(dir, 'oryx.config.ts'), 'utf8');
  assert.match(config, "import anthropic from '@oryxos/plugin-anthropic';");
  assert.match(config, "anthropic({ defaultModel: 'claude-sonnet-4-5' })");
  // What it wrote loads: `oryx agents` reads the config (the provider plugin's setup included).
  const agents = await oryx(['agents'], { env: { ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-ant-test' } });
  assert.is(agents.code, 0, agents.stderr);
  for (const name of ['GEMINI_API_KEY', 'GOOGLE_API_KEY']) {
    const gemini = await oryx(['init', '--force', '--json'], { env: { ...NO_KEYS, [name]: 'g-test' } });
    assert.is(gemini.code, 0, gemini.stderr);
    assert.is(JSON.parse(gemini.stdout).provider, 'gemini');
    assert.match(JSON.parse(gemini.stdout).reason, `${name} is set`);
    config = await readFile(path.join(dir, 'oryx.config.ts'), 'utf8');
    assert.match(config, "openai({ name: 'gemini', baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai', apiKey: process.env.GEMINI_API_KEY ?? process.env.GOOGLE_API_KEY");
    const loaded = await oryx(['agents'], { env: { ...NO_KEYS, [name]: 'g-test' } });
    assert.is(loaded.code, 0, loaded.stderr);
  }
  // An Ollama that answers /api/version (its documented version endpoint) is said to be running.
  const ollama = createServer((req, res) => { res.setHeader('content-type', 'application/json'); res.end(req.url === '/api/version' ? '{"version":"0.12.0"}' : '{}'); }).listen(0, '127.0.0.1');
  await once(ollama, 'listening');
  try {
    const host = `http://127.0.0.1:${(ollama.address() as AddressInfo).port}`;
    const r = await oryx(['init', '--force', '--json'], { env: { ...NO_KEYS, OLLAMA_HOST: host } });
    assert.is(r.code, 0, r.stderr);
    assert.equal([JSON.parse(r.stdout).provider, JSON.parse(r.stdout).reason], ['ollama', `no model key is set and Ollama answers at ${host}`]);
  } finally {
    ollama.close();
  }
});

test('oryx init writes commented-out scheduler and notify examples that work once uncommented', async () => {
  assert.is((await oryx(['init'], { env: { OPENAI_API_KEY: 'sk-test' } })).code, 0);
  const file = path.join(dir, 'oryx.config.ts');
  const config = await readFile(file, 'utf8');
  assert.match(config, "// import scheduler from '@oryxos/plugin-scheduler';");
  assert.match(config, "// notify({ channels: [{ name: 'ops'");
  // Uncomment the two imports and every line of the two examples (what a user does).
  const lines = config.split('\n');
  const start = lines.findIndex((l) => l.includes('// notify({'));
  const end = lines.findIndex((l, i) => i > start && l.trim() === '// ] }),');
  const active = lines.map((l, i) => (/^\/\/ import (scheduler|notify)/.test(l) || (i >= start && i <= end) ? l.replace(/^(\s*)\/\/ /, '$1') : l)).join('\n');
  await writeFile(file, active);
  const tasks = await oryx(['schedule', 'list', '--json']);
  assert.is(tasks.code, 0, tasks.stderr);
  assert.equal(JSON.parse(tasks.stdout).items.map((t: { name: string; schedule: string }) => [t.name, t.schedule]), [['inbox', 'every 30m'], ['morning-brief', 'cron 0 8 * * 1-5 (Europe/Berlin)']]);
  const channels = await oryx(['notify', 'channels', '--json']);
  assert.is(channels.code, 0, channels.stderr);
  assert.equal(JSON.parse(channels.stdout).items.map((c: { name: string; password: string }) => [c.name, c.password]), [['ops', 'env SMTP_PASS']]);
});

test('oryx init then oryx run with a scripted provider: tools run, answer printed, --json shape', async () => {
  assert.is((await oryx(['init'])).code, 0);
  await writeFile(path.join(dir, 'oryx.config.ts'), scriptedConfig);
  const agentFile = path.join(dir, '.oryxos/agents/assistant/AGENT.md');
  await writeFile(agentFile, (await readFile(agentFile, 'utf8')).replace(/^tools: .*$/m, 'tools: [shout]'));

  const plain = await oryx(['run', 'please shout']);
  assert.is(plain.code, 0, plain.stderr);
  assert.is(plain.stdout.trim(), 'The tool said: HELLO CLI');

  const json = await oryx(['run', '-', '--json'], { input: 'from stdin\n' });
  assert.is(json.code, 0, json.stderr);
  const result = JSON.parse(json.stdout);
  assert.equal(Object.keys(result).sort(), ['agent', 'answer', 'budget', 'iterations', 'runId', 'sessionId', 'stopReason', 'usage']);
  assert.is(result.answer, 'The tool said: HELLO CLI');
  assert.is(result.stopReason, 'final');
  assert.is(result.iterations, 2);
  assert.ok(result.usage.inputTokens > 0);

  const agents = JSON.parse((await oryx(['agents', '--json'])).stdout);
  assert.equal(agents.items.map((a: { name: string; tools: string[] }) => [a.name, a.tools]), [['assistant', ['shout']]]);
  const tools = JSON.parse((await oryx(['tools', '-a', 'assistant', '--json'])).stdout);
  assert.equal(tools.items.map((t: { name: string; source: string }) => [t.name, t.source]), [['shout', 'plugin']]);
});

test('oryx chat keeps one session across lines, streams, and handles /session and /new', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), `
    import { scripted } from '@oryxos/kernel/testing';
    const echo = (r) => ({ text: 'heard ' + r.messages.at(-1).content + ' after ' + (r.messages.length - 2) + ' earlier messages' });
    export default { plugins: [scripted([echo, echo, echo])] };
  `);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: {} });
  const r = await oryx(['chat'], { input: 'one\ntwo\nbinary\0line\n/session\n/new\nthree\n/exit\n' });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, 'error ORYX_E_CLI_USAGE: The message from this line has a NUL character (U+0000) at index 6');
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.filter((l) => l.startsWith('assistant> ')), [
    'assistant> heard one after 0 earlier messages',
    'assistant> heard two after 2 earlier messages',
    'assistant> heard three after 0 earlier messages',
  ]);
  assert.ok(lines.some((l) => /^[0-9a-f-]{36}$/.test(l)), 'the session id was printed');
});

test('errors print code, message and hint and exit non-zero', async () => {
  await mkdir(path.join(dir, '.oryxos')); // a project folder: the checkout above has a config of its own
  await writeFile(path.join(dir, 'oryx.config.ts'), scriptedConfig);
  const missing = await oryx(['run', '-a', 'ghost', 'hi']);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, 'error ORYX_E_AGENT_NOT_FOUND: No agent "ghost"');
  assert.match(missing.stderr, 'hint:');
  const json = await oryx(['run', '-a', 'ghost', 'hi', '--json']);
  assert.is(json.code, 1);
  assert.is(JSON.parse(json.stdout).error.code, 'ORYX_E_AGENT_NOT_FOUND');
  const nul = await oryx(['run', '-', '--json'], { input: 'ab\0cd' });
  assert.is(nul.code, 2);
  assert.is(JSON.parse(nul.stdout).error.code, 'ORYX_E_CLI_USAGE');
  assert.match(JSON.parse(nul.stdout).error.message, 'NUL character (U+0000) at index 2');
  assert.match(JSON.parse(nul.stdout).error.hint, 'UTF-8');
  const empty = await oryx(['run', '']);
  assert.is(empty.code, 2);
  assert.match(empty.stderr, 'ORYX_E_CLI_USAGE');
  // A flag oclif cannot parse: the same format, the usage exit status, and the help to read.
  const flag = await oryx(['run', 'hi', '--approval', 'maybe']);
  assert.is(flag.code, 2);
  assert.is(flag.stderr, 'error ORYX_E_CLI_USAGE: Expected --approval=maybe to be one of: ask, deny, wait\n  hint: See `oryx run --help` for its flags and arguments.\n');
  const unknown = await oryx(['sessions', '--limit', 'abc', '--json']);
  assert.is(unknown.code, 2);
  assert.equal(JSON.parse(unknown.stdout).error.code, 'ORYX_E_CLI_USAGE');
  assert.match(JSON.parse(unknown.stdout).error.message, 'Parsing --limit: Expected an integer but received: abc');
  const nonexistent = await oryx(['run', 'hi', '--bogus']);
  assert.match(nonexistent.stderr, /^error ORYX_E_CLI_USAGE: Nonexistent flag: --bogus\n/);
  // A likely typo names the flag meant: the command's own, an alias, the shared --config and --json.
  const typos = await oryx(['run', 'hi', '--agnt', 'x', '--strem=1', '--confg', 'c']);
  assert.is(typos.code, 2);
  assert.match(typos.stderr, /^error ORYX_E_CLI_USAGE: Nonexistent flags: --agnt \(did you mean "--agent"\?\), --strem=1 \(did you mean "--stream"\?\), --confg \(did you mean "--config"\?\)\n/);
  const jsonTypo = await oryx(['sessions', '--jsn']);
  assert.match(jsonTypo.stderr, 'Nonexistent flag: --jsn (did you mean "--json"?)');
  await writeFile(path.join(dir, 'oryx.config.ts'), 'export default { plugins: "all" };');
  const bad = await oryx(['agents']);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, 'error ORYX_E_CONFIG_INVALID');
  assert.match(bad.stderr, 'plugins must be an array');
});

test.run();
