// The config files people already have, read as they are. Samples are the ones the clients'
// own docs give:
// - Claude Desktop: modelcontextprotocol.io, "Connect to local MCP servers" (claude_desktop_config.json).
// - Claude Code: code.claude.com/docs/en/mcp (".mcp.json" at the project root, `type: http|sse|stdio`,
//   "Environment variable expansion in .mcp.json": ${VAR} and ${VAR:-default}).
// - VS Code: code.visualstudio.com/docs/copilot/reference/mcp-configuration (`servers`, `inputs`,
//   `type`, `envFile`, `${input:…}`, JSON with comments).
// - Cursor: cursor.com/docs/context/mcp (`mcpServers`, `url` without `type`); Windsurf's `serverUrl`,
//   Cline's `disabled` / `autoApprove` (their MCP docs).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '@oryxos/kernel/testing';
import { loadServers, normalizeEntry, parseJsonc } from '../src/index.ts';
import { addServer, readForeignServers } from '../src/config-writer.ts';
import { FILESYSTEM, FIXTURE, NODE, mcpKernel } from './helpers.ts';

let t: TestKernel | undefined;
let dir = '';
test.before.each(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'oryx-mcp-eco-'));
  await mkdir(path.join(dir, '.oryxos'), { recursive: true });
});
test.after.each(async () => {
  await t?.close();
  t = undefined;
  await rm(dir, { recursive: true, force: true });
});

const load = (options = {}, env: NodeJS.ProcessEnv = {}) => loadServers({ options, root: dir, workspaceDir: path.join(dir, '.oryxos'), env: { HOME: '/home/me', ...env } });

test('Claude Desktop: the quick start\'s claude_desktop_config.json entry is read as it is', async () => {
  const sample = {
    mcpServers: {
      filesystem: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/username/Desktop', '/Users/username/Downloads'],
      },
    },
  };
  await writeFile(path.join(dir, '.mcp.json'), JSON.stringify(sample, null, 2));
  const loaded = await load();
  assert.equal(loaded.problems, []);
  const [fs] = loaded.servers;
  assert.is(fs!.name, 'filesystem');
  assert.is(fs!.origin, 'include');
  assert.is(fs!.source, path.join(dir, '.mcp.json'));
  assert.equal(fs!.config, sample.mcpServers.filesystem);
});

test('Claude Code: a .mcp.json at the project root with type: stdio and the real filesystem server works as is', async () => {
  await writeFile(path.join(dir, 'notes.txt'), 'from the project');
  await writeFile(path.join(dir, '.mcp.json'), JSON.stringify({
    mcpServers: { filesystem: { type: 'stdio', command: NODE, args: [FILESYSTEM, dir], env: {} } },
  }));
  t = await mcpKernel({}, { dir });
  const m = t.kernel.service('mcp');
  assert.equal(m.names, ['filesystem']);
  const tools = await m.tools('filesystem');
  assert.ok(tools.some((x) => x.exposed === 'filesystem__read_text_file'));
  assert.is((await m.call('filesystem', 'read_text_file', { path: path.join(dir, 'notes.txt') })).content, 'from the project');
});

test('Claude Code: ${VAR} and ${VAR:-default} in .mcp.json, type: http; the values taken from the environment are secrets', async () => {
  await writeFile(path.join(dir, '.mcp.json'), JSON.stringify({
    mcpServers: {
      'api-server': { type: 'http', url: '${API_BASE_URL:-https://api.example.com}/mcp', headers: { Authorization: 'Bearer ${API_KEY}' } },
      asana: { type: 'sse', url: 'https://mcp.asana.com/sse' },
    },
  }));
  const loaded = await load({}, { API_KEY: 'sk-secret-value-123' });
  const [api, asana] = loaded.servers;
  assert.equal(api!.config, { type: 'http', url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer sk-secret-value-123' } });
  assert.equal(asana!.config, { type: 'sse', url: 'https://mcp.asana.com/sse' });
  assert.ok(loaded.secrets.includes('sk-secret-value-123'));
  const missing = await load({}, {});
  assert.is(missing.servers[0]!.error?.code, 'ORYX_E_MCP_ENV_MISSING');
  assert.match(missing.servers[0]!.error!.message, /\.mcp\.json: server "api-server" uses \$\{API_KEY\} in headers\.Authorization/);
  assert.is(missing.servers[1]!.error, undefined, 'the other server is fine');
});

test('VS Code: servers with type, inputs and comments; a server using ${input:…} is unavailable saying what to write', async () => {
  await mkdir(path.join(dir, '.vscode'));
  await writeFile(path.join(dir, '.vscode', 'mcp.json'), `{
  // 💡 Inputs are prompted on first server start, then stored securely by VS Code.
  "inputs": [
    { "type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true },
  ],
  "servers": {
    // https://github.com/ppl-ai/modelcontextprotocol/
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": { "PERPLEXITY_API_KEY": "\${input:perplexity-key}" },
    },
    "fetch": { "type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"], "envFile": "\${workspaceFolder}/.env" },
    "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" },
  },
}
`);
  await writeFile(path.join(dir, '.env'), '# tokens\nexport FETCH_UA=oryx-test\nFETCH_TOKEN="a b c"\n');
  const loaded = await load({ include: ['.vscode/mcp.json'] });
  assert.equal(loaded.problems, []);
  const byName = Object.fromEntries(loaded.servers.map((s) => [s.name, s]));
  assert.is(byName.Perplexity!.error?.code, 'ORYX_E_MCP_INPUT_UNSUPPORTED');
  assert.match(byName.Perplexity!.error!.message, /uses \$\{input:perplexity-key\} in env\.PERPLEXITY_API_KEY, a VS Code prompt/);
  assert.match(byName.Perplexity!.error!.hint!, /\$\{PERPLEXITY_KEY\}/);
  assert.equal(byName.fetch!.config.env, { FETCH_UA: 'oryx-test', FETCH_TOKEN: 'a b c' }, 'envFile read, relative to ${workspaceFolder}');
  assert.ok(loaded.secrets.includes('a b c'), 'an env file holds secrets');
  assert.equal(byName.github!.config, { type: 'http', url: 'https://api.githubcopilot.com/mcp/' });
  assert.ok(loaded.notes.some((n) => /inputs \(VS Code prompts\)/.test(n)));
});

test('Cursor, Windsurf and Cline shapes: url without type, serverUrl, disabled and autoApprove; names with spaces', () => {
  assert.equal(normalizeEntry('x', { url: 'http://localhost:3000/mcp', headers: { 'API-KEY': 'k' } }, 'foreign').config, { url: 'http://localhost:3000/mcp', headers: { 'API-KEY': 'k' } });
  assert.equal(normalizeEntry('x', { serverUrl: 'https://mcp.example.com/sse', transportType: 'sse' }, 'foreign').config, { url: 'https://mcp.example.com/sse', type: 'sse' });
  const cline = normalizeEntry('x', { command: 'node', args: ['s.js'], disabled: true, autoApprove: ['read'], timeout: 60 }, 'foreign');
  assert.equal(cline.config, { command: 'node', args: ['s.js'], enabled: false });
  assert.equal(cline.notes.length, 2, 'autoApprove and timeout are left out, said so');
  assert.equal(normalizeEntry('x', { type: 'streamable-http', url: 'https://a/mcp' }, 'foreign').config, { type: 'http', url: 'https://a/mcp' });
  assert.match(normalizeEntry('x', { type: 'websocket', url: 'ws://a' }, 'foreign').problem!.problem, /must be stdio, http or sse/);
  assert.match(normalizeEntry('x', { command: 'node', headersHelper: 'get-token.sh' }, 'foreign').problem!.problem, /not supported: Claude Code runs this command/);
  assert.match(normalizeEntry('x', { command: 'node', argz: [] }, 'foreign').problem!.problem, /not a known field \(did you mean "args"\?\)/);
});

test('names another client allows but tool names cannot take are adapted, said so', async () => {
  await writeFile(path.join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { 'Brave Search': { command: 'npx', args: ['-y', '@modelcontextprotocol/server-brave-search'] }, 'github.com': { url: 'https://api.githubcopilot.com/mcp/' } } }));
  const loaded = await load();
  assert.equal(loaded.servers.map((s) => s.name), ['Brave-Search', 'github-com']);
  assert.ok(loaded.notes.some((n) => /"Brave Search" is used as "Brave-Search"/.test(n)));
});

test('precedence: the mcp() options over mcp_servers.yaml over .mcp.json, a name taken whole from the highest; include: [] reads no .mcp.json', async () => {
  const fx = (who: string) => ({ command: NODE, args: [FIXTURE], env: { WHO: who } });
  await writeFile(path.join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { a: fx('json'), b: fx('json'), c: fx('json') } }));
  await writeFile(path.join(dir, '.oryxos', 'mcp_servers.yaml'), `servers:\n  b: ${JSON.stringify(fx('yaml'))}\n  c: ${JSON.stringify(fx('yaml'))}\n`);
  const loaded = await load({ servers: { c: fx('options') } });
  assert.equal(loaded.servers.map((s) => [s.name, s.config.env?.WHO, s.origin]), [['a', 'json', 'include'], ['b', 'yaml', 'file'], ['c', 'options', 'options']]);
  assert.equal(loaded.overridden.map((o) => [o.name, path.basename(o.used), o.ignored.map((f) => path.basename(f))]).sort(), [
    ['b', 'mcp_servers.yaml', ['.mcp.json']],
    ['c', 'mcp() options', ['mcp_servers.yaml', '.mcp.json']],
  ]);
  assert.equal((await load({ include: [] })).servers.map((s) => s.name), ['b', 'c']);
  // Every file that can name programs is a control file, whether it exists or not.
  assert.ok(loaded.controlFiles.includes(path.join(dir, '.mcp.json')) && loaded.controlFiles.includes(path.join(dir, '.oryxos', 'mcp_servers.yaml')));
  t = await mcpKernel({ servers: { c: fx('options') } }, { dir });
  const m = t.kernel.service('mcp');
  assert.is((await m.call('a', 'env', { name: 'WHO' })).content, 'json');
  assert.is((await m.call('b', 'env', { name: 'WHO' })).content, 'yaml');
  assert.is((await m.call('c', 'env', { name: 'WHO' })).content, 'options');
});

test('JSONC: comments and trailing commas outside strings are dropped, inside strings kept', () => {
  assert.equal(parseJsonc('{ /* a */ "a": "http://x//y", // b\n "b": [1, 2,], "c": "/* not a comment */", }'), { a: 'http://x//y', b: [1, 2], c: '/* not a comment */' });
});

test('import: another client\'s servers in OryxOS\'s shape, references kept as references, comments of the file kept', async () => {
  const source = path.join(dir, 'vscode-mcp.json');
  await writeFile(source, JSON.stringify({
    servers: {
      github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${input:github-token}' } },
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '${env:HOME}/memory.json' } },
      broken: { comand: 'x' },
    },
  }));
  const target = path.join(dir, '.oryxos', 'mcp_servers.yaml');
  await writeFile(target, '# my servers\nservers: {}\n#  fs:\n#    command: npx\n');
  const found = await readForeignServers(source);
  assert.equal(found.map((f) => [f.name, !!f.server]), [['github', true], ['memory', true], ['broken', false]]);
  assert.match(found[2]!.skipped!, /comand is not a known field \(did you mean "command"\?\)/);
  assert.ok(found[0]!.notes.some((n) => /set GITHUB_TOKEN in the environment/.test(n)));
  for (const f of found) if (f.server) await addServer(target, f.name, f.server);
  const text = await readFile(target, 'utf8');
  assert.match(text, /^# my servers/);
  assert.match(text, /Authorization: Bearer \$\{GITHUB_TOKEN\}/);
  assert.match(text, /MEMORY_FILE_PATH: \$\{HOME\}\/memory\.json/);
  const loaded = await load({ include: [] }, { GITHUB_TOKEN: 'ghp_123456789', HOME: '/home/me' });
  assert.equal(loaded.servers.map((s) => s.config), [
    { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ghp_123456789' } },
    { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/home/me/memory.json' } },
  ]);
  const again = await addServer(target, 'memory', { command: 'npx' }).catch((e) => e);
  assert.is(again.code, 'ORYX_E_MCP_SERVER_EXISTS');
  assert.equal(await addServer(target, 'memory', { command: 'npx' }, { force: true }), { replaced: true });
});

test.run();
