// The mcp-server plugin's tests that need the web plugin (here, not in plugins/mcp-server/test:
// its typecheck would meet the web plugin's built types before its sources).
// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned with its lock in
// plugins/mcp/test/conformance/suite/, the same install the MCP client's conformance test uses)
// against this server: every server scenario, run by the suite's own CLI (on the Node 22 its npm
// ci installs into node_modules/.cache) against Streamable HTTP served by the web plugin on
// loopback, here on Node 20. The model is the kernel's scripted provider.
//
// Most server scenarios call the suite's reference tools, resources and prompts by name
// (`test_image_content`, `test://static-text`, `test_simple_prompt`, …): fixtures/mcp-reference.ts
// builds them as ordinary OryxOS tools, skill files and a ResourceSource, which the server
// exposes through its options (tools, prompts, resources) like any others. The README's
// "Conformance" table says, for each scenario, whether it passes and why it cannot; this test
// holds the results to it, so a scenario that starts failing (or passing) shows.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoTool, scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import web from '@oryxos/plugin-web';
import mcpServer from '@oryxos/plugin-mcp-server';
import { referencePlugin, referencePromptNames, referenceResources, referenceToolNames, writeReferenceSkills } from './fixtures/mcp-reference.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const suiteSource = path.join(repoRoot, 'plugins', 'mcp', 'test', 'conformance', 'suite');
// Its own copy of the suite: plugins/mcp's conformance test may be installing its copy at the same time.
const cache = path.join(repoRoot, 'node_modules', '.cache', 'oryxos-mcp-conformance-server');

function run(command: string, args: string[], options: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code: code ?? 1, out }); });
  });
}

/** The suite and Node 22 in the cache, installed with `npm ci` from the pinned lock when it changed. */
async function installSuite(): Promise<{ node: string; cli: string }> {
  const lock = await readFile(path.join(suiteSource, 'package-lock.json'), 'utf8');
  const installed = await readFile(path.join(cache, 'package-lock.json'), 'utf8').catch(() => '');
  const node = path.join(cache, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');
  const cli = path.join(cache, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  if (installed !== lock || !existsSync(node) || !existsSync(cli)) {
    await mkdir(cache, { recursive: true });
    for (const f of ['package.json', 'package-lock.json', '.npmrc']) await copyFile(path.join(suiteSource, f), path.join(cache, f));
    // The checkout's npm_config_* settings (engine-strict under `npm test`) would refuse the suite's Node 22 packages.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k)));
    const npm = await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: cache, timeoutMs: 600_000, env });
    if (npm.code !== 0) throw new Error(`npm ci of the conformance suite failed:\n${npm.out.slice(-3000)}`);
  }
  if (!existsSync(node)) throw new Error(`no Node 22 for ${process.platform}-${process.arch} in the suite's lock (it has linux-x64 and linux-arm64)`);
  return { node, cli };
}

/** The README's table of server scenarios: name → its result cell (`pass`, `pass, vacuously: …`, or why it fails). */
async function readmeResults(): Promise<Map<string, string>> {
  const readme = await readFile(path.join(repoRoot, 'plugins', 'mcp-server', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Conformance'), readme.indexOf('## Error codes'));
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `([^`]+)` \| ([^|]+) \|/gm)) rows.set(m[1]!, m[2]!.trim());
  return rows;
}

test('every server scenario of the official conformance suite, as the README says', async () => {
  const { node, cli } = await installSuite();
  const t = await testKernel({
    plugins: [
      scripted(Array.from({ length: 200 }, () => ({ text: 'ok' }))), toolsPlugin(echoTool()), referencePlugin(), web({ auth: 'none' }),
      mcpServer({ agents: ['assistant'], http: true, tools: referenceToolNames, prompts: referencePromptNames, resources: ['sessions', referenceResources] }),
    ],
    agents: { assistant: { tools: ['echo', ...referenceToolNames] } },
  });
  try {
    await writeReferenceSkills(path.join(t.dir, '.oryxos', 'agents', 'assistant'));
    const { url } = await t.kernel.service('web').listen({ port: 0 });
    const listed = await run(node, [cli, 'list', '--server'], { cwd: cache, timeoutMs: 60_000 });
    const scenarios = [...listed.out.matchAll(/^\s+- (\S+) \[/gm)].map((m) => m[1]!);
    assert.ok(scenarios.length >= 30, listed.out);
    const r = await run(node, [cli, 'server', '--url', `${url}/mcp`, '--suite', 'all'], { cwd: t.dir, timeoutMs: 600_000 });
    const outcomes = new Map([...r.out.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gm)].map((m) => [m[1]!, m[3] === '0' && m[2] !== '0']));
    assert.equal([...outcomes.keys()].sort(), [...scenarios].sort(), r.out.slice(-3000));
    const readme = await readmeResults();
    assert.equal([...readme.keys()].sort(), [...scenarios].sort(), 'the README lists every server scenario once');
    const wrong = scenarios.filter((s) => outcomes.get(s) !== readme.get(s)!.startsWith('pass'))
      .map((s) => `${s}: ${outcomes.get(s) ? 'passes' : 'fails'}, the README says "${readme.get(s)}"`);
    assert.equal(wrong, [], `${wrong.join('\n')}\n${r.out.slice(-6000)}`);
    const passed = scenarios.filter((x) => outcomes.get(x));
    console.log(`conformance: ${passed.length} of ${scenarios.length} server scenarios pass`);
  } finally {
    await t.close();
  }
});

test.run();
