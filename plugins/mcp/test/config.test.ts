// mcp_servers.yaml and the plugin options: validation, ${VAR} expansion, precedence.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import type { TestKernel } from '@oryxos/kernel/testing';
import mcp, { loadServers } from '../src/index.ts';
import { FIXTURE, NODE, fixture, mcpKernel } from './helpers.ts';

let t: TestKernel | undefined;
let dir = '';
test.before.each(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'oryx-mcp-config-'));
  await mkdir(path.join(dir, '.oryxos'), { recursive: true });
});
test.after.each(async () => {
  await t?.close();
  t = undefined;
  await rm(dir, { recursive: true, force: true });
});

const writeServers = (text: string, file = path.join(dir, '.oryxos', 'mcp_servers.yaml')) => writeFile(file, text);
const q = JSON.stringify; // YAML accepts JSON strings, which keeps paths with any character safe

test('no mcp_servers.yaml means no servers', async () => {
  t = await mcpKernel({}, { dir });
  assert.equal(t.kernel.service('mcp').status(), []);
  assert.equal(await t.kernel.toolSourceStatus(), []);
});

test('servers from the file, with ${VAR}, ${VAR:-default} and $$ expanded, reach the server process', async () => {
  process.env.ORYX_MCP_TEST_VALUE = 'from-the-environment';
  try {
    await writeServers(`servers:
  fx:
    command: ${q(NODE)}
    args: [${q(FIXTURE)}]
    env:
      GIVEN: "\${ORYX_MCP_TEST_VALUE}"
      DEFAULTED: "\${ORYX_MCP_TEST_UNSET_VAR:-fallback}"
      DOLLAR: "cost: $$5"
    timeoutMs: 5000
`);
    t = await mcpKernel({}, { dir });
    const m = t.kernel.service('mcp');
    assert.is((await m.call('fx', 'env', { name: 'GIVEN' })).content, 'from-the-environment');
    assert.is((await m.call('fx', 'env', { name: 'DEFAULTED' })).content, 'fallback');
    assert.is((await m.call('fx', 'env', { name: 'DOLLAR' })).content, 'cost: $5');
    // Only the safe default variables are inherited, not the whole environment.
    assert.is((await m.call('fx', 'env', { name: 'ORYX_MCP_TEST_VALUE' })).content, '(unset)');
    assert.is(m.status()[0]!.origin, 'file');
  } finally {
    delete process.env.ORYX_MCP_TEST_VALUE;
  }
});

test('a missing variable makes only that server unavailable, with an error naming the variable and the server', async () => {
  await writeServers(`servers:
  remote:
    url: https://example.invalid/mcp
    headers:
      Authorization: "Bearer \${ORYX_MCP_TEST_MISSING_TOKEN}"
  fx:
    command: ${q(NODE)}
    args: [${q(FIXTURE)}]
`);
  t = await mcpKernel({}, { dir });
  const m = t.kernel.service('mcp');
  const error = await m.connect('remote').catch((e) => e);
  assert.is(error.code, 'ORYX_E_MCP_ENV_MISSING');
  assert.match(error.message, /ORYX_MCP_TEST_MISSING_TOKEN/);
  assert.match(error.message, /server "remote"/);
  assert.match(error.message, /headers\.Authorization/);
  const status = (await t.kernel.toolSourceStatus()).find((s) => s.name === 'remote')!;
  assert.is(status.ok, false);
  assert.match(status.reason!, /ORYX_MCP_TEST_MISSING_TOKEN/);
  assert.is((await m.call('fx', 'echo', { text: 'ok' })).content, 'echo: ok');
});

test('a bad entry makes only that server unavailable, naming the file and the field; the others are used', async () => {
  const cases: [string, RegExp][] = [
    [`    comand: node\n`, /servers\.fx\.comand is not a known field \(did you mean "command"\?\)/],
    [`    command: node\n    args: node\n`, /servers\.fx\.args must be an array/],
    [`    command: node\n    url: http://x/mcp\n`, /servers\.fx has both command and url/],
    [`    url: http://x/mcp\n    cwd: /tmp\n`, /servers\.fx\.cwd only applies to stdio servers/],
    [`    type: sse\n    command: node\n`, /servers\.fx\.url is missing \(type: sse reaches a URL\)/],
    [`    url: ftp://x\n`, /servers\.fx\.url must be an http/],
    [`    command: node\n    timeoutMs: 0\n`, /servers\.fx\.timeoutMs must be positive/],
    [`    command: node\n    disabled: true\n`, /servers\.fx\.disabled is not a known field \(write enabled: false\)/],
    [`    url: http://x/mcp\n    oauth: { grant: client_credentials }\n`, /servers\.fx\.oauth with grant: client_credentials needs clientId/],
  ];
  for (const [fields, expected] of cases) {
    await writeServers(`servers:\n  fx:\n${fields}  good:\n    command: ${q(NODE)}\n    args: [${q(FIXTURE)}]\n`);
    const loaded = await loadServers({ options: {}, root: dir, workspaceDir: path.join(dir, '.oryxos') });
    assert.equal(loaded.problems, [], fields);
    const [bad, good] = loaded.servers;
    assert.is(bad!.name, 'fx');
    assert.is(bad!.error?.code, 'ORYX_E_MCP_CONFIG_INVALID', fields);
    assert.match(bad!.error!.message, /mcp_servers\.yaml/);
    assert.match(bad!.error!.message, expected);
    assert.ok(bad!.error!.hint);
    assert.is(good!.name, 'good');
    assert.is(good!.error, undefined);
  }
  // Through the kernel: it starts, the bad server says why, the good one works.
  await writeServers(`servers:\n  fx:\n    comand: node\n  good:\n    command: ${q(NODE)}\n    args: [${q(FIXTURE)}]\n`);
  t = await mcpKernel({}, { dir });
  const m = t.kernel.service('mcp');
  const status = (await t.kernel.toolSourceStatus()).find((s) => s.name === 'fx')!;
  assert.is(status.ok, false);
  assert.match(status.reason!, /did you mean "command"/);
  const error = await m.connect('fx').catch((e) => e);
  assert.is(error.code, 'ORYX_E_MCP_CONFIG_INVALID');
  assert.is((await m.call('good', 'echo', { text: 'still here' })).content, 'echo: still here');
  assert.ok(t.warnings.some((w) => /server "fx" is unavailable/.test(w)), t.warnings.join('\n'));
});

test('a file that cannot be read at all is a problem of its own: the kernel starts, other sources are used', async () => {
  const cases: [string, RegExp][] = [
    ['servers: [\n', /not valid YAML/],
    ['server:\n  fx: {}\n', /server is not a known field \(did you mean "servers"\?\)/],
    ['- just a list\n', /must be a map with servers:/],
    ['servers:\n  fx: {}\nmcpServers: {}\n', /mcpServers is given next to servers/],
  ];
  for (const [text, expected] of cases) {
    await writeServers(text);
    await writeFile(path.join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { fromjson: { command: NODE, args: [FIXTURE] } } }));
    const loaded = await loadServers({ options: {}, root: dir, workspaceDir: path.join(dir, '.oryxos') });
    assert.is(loaded.problems.length, 1, text);
    assert.is(loaded.problems[0]!.error.code, 'ORYX_E_MCP_CONFIG_INVALID');
    assert.match(loaded.problems[0]!.error.message, /mcp_servers\.yaml/);
    assert.match(loaded.problems[0]!.error.message, expected);
    assert.equal(loaded.servers.map((s) => s.name), ['fromjson'], 'the .mcp.json servers are still used');
  }
  t = await mcpKernel({}, { dir });
  const sources = await t.kernel.toolSourceStatus();
  assert.ok(sources.some((s) => !s.ok && /mcp_servers\.yaml/.test(s.name) && /mcpServers is given next to servers/.test(s.reason!)), JSON.stringify(sources));
  assert.is((await t.kernel.service('mcp').call('fromjson', 'echo', { text: 'json' })).content, 'echo: json');
});

test('mcpServers: in mcp_servers.yaml (the Claude shape pasted in) is read, with a note to rename it', async () => {
  await writeServers(`mcpServers:\n  fx:\n    type: stdio\n    command: ${q(NODE)}\n    args: [${q(FIXTURE)}]\n    disabled: false\n`);
  const loaded = await loadServers({ options: {}, root: dir, workspaceDir: path.join(dir, '.oryxos') });
  assert.equal(loaded.problems, []);
  assert.equal(loaded.servers.map((s) => [s.name, s.config.type, s.config.enabled, s.error]), [['fx', 'stdio', true, undefined]]);
  assert.ok(loaded.notes.some((n) => /mcpServers: is read as servers:.*rename it to servers:/.test(n)), loaded.notes.join('\n'));
});

test('the scaffold shape (servers: {} and commented examples) and an empty servers: are fine', async () => {
  for (const text of ['servers: {}\n#  fs:\n#    command: npx\n', 'servers:\n#  fs:\n#    command: npx\n', '# nothing yet\n']) {
    await writeServers(text);
    const loaded = await loadServers({ options: {}, root: dir, workspaceDir: path.join(dir, '.oryxos') });
    assert.equal(loaded.servers, []);
  }
});

test('an options entry replaces a file entry of the same name, as a whole', async () => {
  await writeServers(`servers:
  fx:
    command: ${q(NODE)}
    args: [${q(FIXTURE)}]
    env: { WHO: file }
  only-file:
    command: ${q(NODE)}
    args: [${q(FIXTURE)}]
`);
  const loaded = await loadServers({
    options: { servers: { fx: { command: NODE, args: [FIXTURE], env: { WHO: 'options' } } } },
    root: dir, workspaceDir: path.join(dir, '.oryxos'),
  });
  assert.equal(loaded.overridden, [{ name: 'fx', used: 'mcp() options', ignored: [path.join(dir, '.oryxos', 'mcp_servers.yaml')] }]);
  assert.equal(loaded.servers.map((s) => [s.name, s.origin]), [['only-file', 'file'], ['fx', 'options']]);
  t = await mcpKernel({ servers: { fx: { command: NODE, args: [FIXTURE], env: { WHO: 'options' } } } }, { dir });
  assert.is((await t.kernel.service('mcp').call('fx', 'env', { name: 'WHO' })).content, 'options');
});

test('the file option: relative to the project folder; a named file that is missing is a problem, not a failed start', async () => {
  await writeFile(path.join(dir, 'custom.yaml'), `servers:\n  fx:\n    command: ${q(NODE)}\n    args: [${q(FIXTURE)}]\n`);
  t = await mcpKernel({ file: 'custom.yaml' }, { dir });
  assert.equal(t.kernel.service('mcp').names, ['fx']);
  await t.close();
  t = await mcpKernel({ file: 'nope.yaml' }, { dir });
  const [problem] = t.kernel.service('mcp').problems;
  assert.is(problem!.error.code, 'ORYX_E_MCP_CONFIG_INVALID');
  assert.match(problem!.error.message, /nope\.yaml: the servers file named by the mcp\(\) option "file" does not exist/);
});

test('options are validated when the factory is called, naming the field', () => {
  const cases: [unknown, RegExp][] = [
    [{ timeoutMs: -1 }, /option timeoutMs must be positive/],
    [{ eager: 'yes' }, /option eager must be boolean/],
    [{ servers: { fx: { command: 'node', headers: {} } } }, /servers\.fx\.headers only applies to remote servers/],
    [{ servers: { fx: { url: 'not a url' } } }, /servers\.fx\.url must be an http/],
    [{ servers: { 'bad name': { command: 'x' } } }, /not a valid server name/],
    [{ servers: { fx: { command: 'x', tools: 'all' } } }, /servers\.fx\.tools must be an array/],
    [{ reconnect: { baseDelayMs: 1, other: 2 } }, /option reconnect\.other must be removed/],
    [{ server: {} }, /option server must be removed \(did you mean "servers"\?\) \(known options: .*\bservers\b/],
  ];
  for (const [options, expected] of cases) {
    try {
      mcp(options as never);
      assert.unreachable(`accepted ${JSON.stringify(options)}`);
    } catch (error) {
      assert.ok(isOryxError(error), String(error));
      assert.is((error as { code: string }).code, 'ORYX_E_MCP_OPTIONS_INVALID');
      assert.match((error as Error).message, expected);
    }
  }
  assert.is(mcp({ servers: { fx: fixture() }, eager: false }).name, 'mcp');
});

test.run();
