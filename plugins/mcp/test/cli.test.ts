// End to end through the built `oryx` CLI (build first: npx tsc -b plugins/mcp && node scripts/manifest.mjs).
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject } from '@oryxos/kernel/testing';
import { loadServers } from '../src/index.ts';
import { FIXTURE, NODE, repoRoot, running } from './helpers.ts';

const dirs: string[] = [];
test.after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

async function project(): Promise<string> {
  const dir = await tempProject('oryx-mcp-cli-');
  dirs.push(dir);
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import { allowAll, scripted } from '@oryxos/kernel/testing';
import mcp from '@oryxos/plugin-mcp';

export default defineConfig({
  plugins: [
    allowAll(),
    scripted([
      { toolCalls: [{ id: 'c1', name: 'fx__pid' }] },
      (req) => ({ toolCalls: [{ id: 'c2', name: 'fx__echo', args: { text: 'pid ' + req.messages.at(-1).content } }] }),
      (req) => ({ text: 'model got: ' + req.messages.at(-1).content }),
    ]),
    mcp(),
  ],
});
`);
  await mkdir(path.join(dir, '.oryxos', 'agents', 'assistant'), { recursive: true });
  await writeFile(path.join(dir, '.oryxos', 'agents', 'assistant', 'AGENT.md'), '---\ndescription: test\ntools: ["fx__*"]\n---\nYou are a test agent.\n');
  const q = JSON.stringify;
  await writeFile(path.join(dir, '.oryxos', 'mcp_servers.yaml'), `servers:
  fx:
    command: ${q(NODE)}
    args: [${q(FIXTURE)}]
    connectTimeoutMs: 60000
  broken:
    command: ${q(NODE)}
    args: [${q(FIXTURE)}, --exit-at-start]
`);
  return dir;
}

test.before(() => {
  for (const built of ['plugins/mcp/dist/index.js', 'plugins/mcp/dist/commands/mcp/list.js', 'kernel/dist/index.js']) {
    if (!existsSync(path.join(repoRoot, built))) throw new Error(`${built} is missing: run \`npx tsc -b plugins/mcp && node scripts/manifest.mjs\` first`);
  }
});

test('oryx run: a scripted model calls MCP tools; the server\'s stderr stays out of the terminal; no process is left', async () => {
  const dir = await project();
  const r = await runOryx(['run', 'go'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  const m = /^model got: echo: pid (\d+)$/m.exec(r.stdout);
  assert.ok(m, r.stdout);
  assert.not.match(r.stderr, /fixture\[/);
  assert.match(await readFile(path.join(dir, '.oryxos', 'logs', 'mcp-fx.log'), 'utf8'), new RegExp(`fixture\\[${m![1]}\\]: started`));
  assert.not.ok(running(Number(m![1])), 'the server outlived `oryx run`');
  // The agent only uses fx__*, so the broken server was never started.
  assert.not.ok(existsSync(path.join(dir, '.oryxos', 'logs', 'mcp-broken.log')));
});

test('oryx mcp list / tools / call', async () => {
  const dir = await project();
  // Independent invocations, run side by side to keep the suite quick.
  const [list, tools, ok, failed, badJson] = await Promise.all([
    runOryx(['mcp', 'list'], { cwd: dir }),
    runOryx(['mcp', 'tools', 'fx', '--json'], { cwd: dir }),
    runOryx(['mcp', 'call', 'fx', 'echo', '--args', '{"text":"hi"}'], { cwd: dir }),
    runOryx(['mcp', 'call', 'fx', 'fail'], { cwd: dir }),
    runOryx(['mcp', 'call', 'fx', 'echo', '--args', '{text'], { cwd: dir }),
  ]);
  // People get a table and the reasons; scripts use --json (as `mcp tools` below).
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, /broken\s+stdio\s+failed \(unavailable\)\s+0/);
  assert.match(list.stdout, /fx\s+stdio\s+ready\s+11/);
  assert.match(list.stdout, /^broken: .*process ran \(pid \d+\) and exited during start-up.*exiting at start as asked/m);

  assert.is(tools.code, 0, tools.stderr);
  const echo = (JSON.parse(tools.stdout).items as { name: string; exposed: string; inputSchema: unknown }[]).find((t) => t.name === 'echo')!;
  assert.is(echo.exposed, 'fx__echo');
  assert.equal(echo.inputSchema, { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });

  assert.equal([ok.code, ok.stdout.trim()], [0, 'echo: hi']);

  assert.is(failed.code, 1);
  assert.is(failed.stdout.trim(), 'fixture: this tool always fails');
  assert.match(failed.stderr, /fail returned an error result/);

  assert.is(badJson.code, 2);
  assert.match(badJson.stderr, /ORYX_E_CLI_USAGE: --args is not valid JSON/);
});

test('oryx mcp list shows the sandbox reason for a server it may not start, which never ran', async () => {
  const dir = await tempProject('oryx-mcp-denied-');
  dirs.push(dir);
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import sandbox from '@oryxos/plugin-sandbox';
import mcp from '@oryxos/plugin-mcp';
export default defineConfig({ plugins: [sandbox({ files: { read: ['.'] }, exec: { allow: ['git'] } }), mcp()] });
`);
  await mkdir(path.join(dir, '.oryxos'), { recursive: true });
  await writeFile(path.join(dir, '.oryxos', 'mcp_servers.yaml'), `servers:\n  denied:\n    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(FIXTURE)}]\n`);
  const list = await runOryx(['mcp', 'list'], { cwd: dir });
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, /denied\s+stdio\s+failed \(unavailable\)\s+0/);
  assert.match(list.stdout, /^denied: MCP server "denied" may not be started: Denied by the sandbox: command .*node.* is not on the exec allow-list/m);
  // The log of every start says it too; the program itself never ran.
  const log = await readFile(path.join(dir, '.oryxos', 'logs', 'mcp-denied.log'), 'utf8');
  assert.match(log, /oryxos: not started: MCP server "denied" may not be started: Denied by the sandbox/);
  assert.not.match(log, /fixture\[|connected/, 'the server was started');
});

test('oryx init writes an mcp_servers.yaml this plugin reads as "no servers yet", and enables mcp()', async () => {
  const dir = await tempProject('oryx-mcp-init-');
  dirs.push(dir);
  const r = await runOryx(['init'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  const yaml = await readFile(path.join(dir, '.oryxos', 'mcp_servers.yaml'), 'utf8');
  assert.match(yaml, /^servers: \{\}$/m);
  assert.match(yaml, /^#\s+\w+:/m); // a commented example
  const loaded = await loadServers({ options: {}, root: dir, workspaceDir: path.join(dir, '.oryxos') });
  assert.equal(loaded.servers, []);
  assert.match(await readFile(path.join(dir, 'oryx.config.ts'), 'utf8'), /^\s+mcp\(\),/m);
});

test.run();
