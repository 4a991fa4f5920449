// The mcp commands and the promises about config and errors, end to end through the built
// `oryx` CLI (build first: npx tsc -b && node scripts/manifest.mjs): a bad MCP file never fails
// unrelated commands; add / remove / import write OryxOS's file; a failed start says its real
// cause in `oryx mcp list`, `oryx run`, `oryx doctor` and the log; login / logout; resources and
// prompts.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject } from '@oryxos/kernel/testing';
import { EVERYTHING, FIXTURE, NODE, repoRoot } from './helpers.ts';
import { startOAuthFixture } from './fixtures/oauth-servers.ts';

const dirs: string[] = [];
test.after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });
const q = JSON.stringify;

test.before(() => {
  for (const built of ['plugins/mcp/dist/commands/mcp/add.js', 'plugins/mcp/dist/commands/mcp/login.js', 'kernel/dist/index.js']) {
    if (!existsSync(path.join(repoRoot, built))) throw new Error(`${built} is missing: run \`npx tsc -b && node scripts/manifest.mjs\` first`);
  }
});

/** A project with the scripted model, allowAll and mcp(); `servers` is the mcp_servers.yaml text. */
async function project(servers?: string, tools = '["*"]'): Promise<string> {
  const dir = await tempProject('oryx-mcp-cmd-');
  dirs.push(dir);
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import { allowAll, scripted } from '@oryxos/kernel/testing';
import mcp from '@oryxos/plugin-mcp';
export default defineConfig({ plugins: [allowAll(), scripted([{ text: 'hello' }]), mcp()] });
`);
  await mkdir(path.join(dir, '.oryxos', 'agents', 'assistant'), { recursive: true });
  await writeFile(path.join(dir, '.oryxos', 'agents', 'assistant', 'AGENT.md'), `---\ndescription: test\ntools: ${tools}\n---\nYou are a test agent.\n`);
  if (servers !== undefined) await writeFile(path.join(dir, '.oryxos', 'mcp_servers.yaml'), servers);
  return dir;
}

test('a broken mcp_servers.yaml, or one bad entry, never fails unrelated commands; mcp list names the problem with a did-you-mean', async () => {
  const broken = await project('servers: [\n');
  const typo = await project(`servers:\n  fx:\n    comand: node\n  good:\n    command: ${q(NODE)}\n    args: [${q(FIXTURE)}]\n`);
  const [sessions, agents, run, list, typoList] = await Promise.all([
    runOryx(['sessions'], { cwd: broken }),
    runOryx(['agents'], { cwd: broken }),
    runOryx(['run', 'hi'], { cwd: broken }),
    runOryx(['mcp', 'list'], { cwd: broken }),
    runOryx(['mcp', 'list'], { cwd: typo }),
  ]);
  assert.is(sessions.code, 0, sessions.stderr);
  assert.is(agents.code, 0, agents.stderr);
  assert.equal([run.code, run.stdout.trim()], [0, 'hello'], run.stderr);
  assert.match(run.stderr, /mcp_servers\.yaml: not valid YAML/);
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, /mcp_servers\.yaml is left out: .*not valid YAML/);
  assert.is(typoList.code, 0, typoList.stderr);
  assert.match(typoList.stdout, /good\s+stdio\s+ready/);
  assert.match(typoList.stdout, /^fx: .*servers\.fx\.comand is not a known field \(did you mean "command"\?\)/m);
});

test('a server that fails to start says its real cause (ERR_MODULE_NOT_FOUND and the path) in mcp list, run, doctor and the log every start writes', async () => {
  const serverDir = await mkdtemp(path.join(tmpdir(), 'oryx-mcp-server-'));
  dirs.push(serverDir);
  const entry = path.join(serverDir, 'dist', 'index.js');
  await mkdir(path.dirname(entry));
  await writeFile(path.join(serverDir, 'package.json'), '{ "type": "module" }');
  await writeFile(entry, "import { Server } from '@example/mcp-server-sdk';\nnew Server();\n");
  const dir = await project(`servers:\n  missing:\n    command: ${q(NODE)}\n    args: [${q(entry)}]\n`);
  const [list, run, doctor] = await Promise.all([
    runOryx(['mcp', 'list'], { cwd: dir }),
    runOryx(['run', 'hi'], { cwd: dir }),
    runOryx(['doctor'], { cwd: dir }),
  ]);
  const cause = new RegExp(`Error \\[ERR_MODULE_NOT_FOUND\\]: Cannot find package '@example/mcp-server-sdk' imported from ${entry.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`);
  assert.match(list.stdout, cause);
  assert.not.match(list.stdout, /at packageResolve|Node\.js v\d/, 'the stack and Node\'s version line are left out');
  assert.match(list.stdout, /log: .*mcp-missing\.log/);
  assert.match(run.stderr, cause);
  assert.match(doctor.stdout + doctor.stderr, cause);
  const log = await readFile(path.join(dir, '.oryxos', 'logs', 'mcp-missing.log'), 'utf8');
  assert.match(log, /oryxos: starting /);
  assert.match(log, /at packageResolve|ERR_MODULE_NOT_FOUND/);
  assert.match(log, /oryxos: not started: MCP server "missing" could not be started/);
});

test('oryx mcp add NAME -- CMD ARGS… and oryx mcp add NAME URL write mcp_servers.yaml, keeping its comments; remove takes one out', async () => {
  const dir = await project('servers: {}\n# an example:\n#  fs:\n#    command: npx\n');
  const addStdio = await runOryx(['mcp', 'add', 'fx', '-e', 'GREETING=hi', '--', NODE, FIXTURE, '--flag'], { cwd: dir });
  assert.is(addStdio.code, 0, addStdio.stderr);
  assert.match(addStdio.stdout, /Added MCP server "fx"/);
  const addUrl = await runOryx(['mcp', 'add', 'remote', 'https://mcp.example.com/mcp', '-H', 'Authorization: Bearer ${TOKEN}'], { cwd: dir });
  const addSse = await runOryx(['mcp', 'add', 'legacy', '--transport', 'sse', 'https://mcp.example.com/sse'], { cwd: dir });
  const again = await runOryx(['mcp', 'add', 'fx', '--', 'npx', 'x'], { cwd: dir });
  const nothing = await runOryx(['mcp', 'add', 'empty'], { cwd: dir });
  assert.is(addUrl.code, 0, addUrl.stderr);
  assert.is(addSse.code, 0, addSse.stderr);
  assert.is(again.code, 1);
  assert.match(again.stderr, /ORYX_E_MCP_SERVER_EXISTS/);
  assert.match(again.stderr, /--force/);
  assert.is(nothing.code, 2);
  assert.match(nothing.stderr, /ORYX_E_CLI_USAGE/);
  const yaml = await readFile(path.join(dir, '.oryxos', 'mcp_servers.yaml'), 'utf8');
  assert.match(yaml, /# an example:/);
  assert.match(yaml, /Authorization: Bearer \$\{TOKEN\}/);
  assert.match(yaml, /type: sse/);
  const call = await runOryx(['mcp', 'call', 'fx', 'env', '--args', '{"name":"GREETING"}'], { cwd: dir });
  assert.equal([call.code, call.stdout.trim()], [0, 'hi'], call.stderr);
  const removed = await runOryx(['mcp', 'remove', 'legacy'], { cwd: dir });
  assert.is(removed.code, 0, removed.stderr);
  assert.not.match(await readFile(path.join(dir, '.oryxos', 'mcp_servers.yaml'), 'utf8'), /legacy/);
});

test('oryx mcp import reads a Claude Desktop file and writes OryxOS\'s entries; .mcp.json is used without importing', async () => {
  const dir = await project();
  const desktop = path.join(dir, 'claude_desktop_config.json');
  await writeFile(desktop, q({ mcpServers: { fx: { command: NODE, args: [FIXTURE] }, 'Bad One': { url: 'ftp://nope' } } }));
  const imported = await runOryx(['mcp', 'import', desktop, '--json'], { cwd: dir });
  assert.is(imported.code, 1, 'one of the two was skipped');
  const result = JSON.parse(imported.stdout);
  assert.equal(result.items.map((i: { name: string; written: boolean }) => [i.name, i.written]), [['fx', true], ['Bad-One', false]]);
  const tools = await runOryx(['mcp', 'tools', 'fx'], { cwd: dir });
  assert.match(tools.stdout, /fx__echo/);
  // A .mcp.json at the project root needs no import.
  const other = await project();
  await writeFile(path.join(other, '.mcp.json'), q({ mcpServers: { viajson: { type: 'stdio', command: NODE, args: [FIXTURE] } } }));
  const list = await runOryx(['mcp', 'list'], { cwd: other });
  assert.match(list.stdout, /viajson\s+stdio\s+ready\s+11/);
});

test('OAuth from the CLI: mcp list says the server needs authorization and how to sign in; login with $BROWSER; tokens outside the project; logout', async () => {
  const fx = await startOAuthFixture();
  try {
    const dir = await project(`servers:\n  remote:\n    url: ${fx.url}\n`);
    const state = await mkdtemp(path.join(tmpdir(), 'oryx-mcp-state-'));
    dirs.push(state);
    // The person's browser: loads the URL and follows the redirects back to OryxOS (the authorization server approves at once).
    const browser = path.join(state, 'browser.mjs');
    await writeFile(browser, "let u = process.argv[2]; for (let i = 0; u && i < 5; i++) { const r = await fetch(u, { redirect: 'manual' }); const l = r.headers.get('location'); u = l && new URL(l, u).href; }\n");
    const env = { XDG_STATE_HOME: state, BROWSER: `${NODE} ${browser}`, DISPLAY: undefined };
    const before = await runOryx(['mcp', 'list'], { cwd: dir, env });
    assert.match(before.stdout, /remote\s+http\s+failed \(unavailable\)/);
    assert.match(before.stdout, /^remote: MCP server "remote" needs authorization/m);
    assert.match(before.stdout, /hint: Run oryx mcp login remote/);
    const login = await runOryx(['mcp', 'login', 'remote'], { cwd: dir, env });
    assert.is(login.code, 0, login.stderr);
    assert.match(login.stderr, /To sign in to MCP server "remote", open:\n\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    assert.match(login.stdout, /Signed in to MCP server "remote": 1 tool\(s\)\./);
    const tokens = await readdir(path.join(state, 'oryxos', 'mcp-auth'));
    assert.is(tokens.length, 1);
    assert.not.ok((await readdir(path.join(dir, '.oryxos'), { recursive: true })).some((f) => /mcp-auth|token/.test(String(f))), 'nothing of the sign-in is in the project');
    const after = await runOryx(['mcp', 'list'], { cwd: dir, env: { XDG_STATE_HOME: state } });
    assert.match(after.stdout, /remote\s+http\s+ready, signed in\s+1/);
    const logout = await runOryx(['mcp', 'logout', 'remote'], { cwd: dir, env });
    assert.match(logout.stdout, /Signed out of MCP server "remote": tokens deleted, 2 revoked/);
    assert.equal(await readdir(path.join(state, 'oryxos', 'mcp-auth')), []);
  } finally {
    await fx.close();
  }
});

test('oryx mcp resources and prompts against server-everything', async () => {
  const dir = await project(`servers:\n  everything:\n    command: ${q(NODE)}\n    args: [${q(EVERYTHING)}, stdio]\n`);
  const [resources, read, prompts, prompt] = await Promise.all([
    runOryx(['mcp', 'resources', 'everything'], { cwd: dir }),
    runOryx(['mcp', 'resources', 'everything', 'demo://resource/dynamic/text/2'], { cwd: dir }),
    runOryx(['mcp', 'prompts', 'everything'], { cwd: dir }),
    runOryx(['mcp', 'prompts', 'everything', 'args-prompt', '--args', '{"city":"Lyon"}'], { cwd: dir }),
  ]);
  assert.match(resources.stdout, /demo:\/\/resource\/static\/document\/architecture\.md/);
  assert.match(resources.stdout, /URI templates:/);
  assert.match(read.stdout, /2/);
  assert.match(prompts.stdout, /args-prompt\s+city state\?/);
  assert.is(prompt.stdout.trim(), "user: What's weather in Lyon?");
});

test.run();
