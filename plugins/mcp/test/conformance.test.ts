// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned with its lock
// in test/conformance/suite/) against OryxOS's MCP client: every client scenario, each run
// by the suite's own CLI, which starts the scenario's server (and authorization server) and
// runs test/conformance/client.mjs (on the built packages: npm test builds first) with its URL. The suite's CLI needs Node 22 for itself: the
// same `npm ci` installs a Node 22 from the package registry into node_modules/.cache, for that
// process only; OryxOS, the client under test, runs on this Node (20).
//
// The README's "Conformance" table says which scenarios pass and, for any that cannot, why;
// this test holds the results to it, so a scenario that starts failing (or passing) shows.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from './helpers.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const suiteSource = path.join(here, 'conformance', 'suite');
const cache = path.join(repoRoot, 'node_modules', '.cache', 'oryxos-mcp-conformance');
const client = path.join(here, 'conformance', 'client.mjs');

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
    // Under `npm test` the checkout's settings arrive as npm_config_* variables (engine-strict=true,
    // which would refuse the suite's Node 22 packages) and beat the suite's own .npmrc: drop them.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k)));
    const npm = await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: cache, timeoutMs: 600_000, env });
    if (npm.code !== 0) throw new Error(`npm ci of the conformance suite failed:\n${npm.out.slice(-3000)}`);
  }
  if (!existsSync(node)) throw new Error(`no Node 22 for ${process.platform}-${process.arch} in the suite's lock (it has linux-x64 and linux-arm64)`);
  return { node, cli };
}

/** The README's table of scenarios: name → `pass`, or the reason it cannot. */
async function readmeResults(): Promise<Map<string, string>> {
  const readme = await readFile(path.join(here, '..', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Conformance'));
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `([^`]+)` \| ([^|]+) \|/gm)) rows.set(m[1]!, m[2]!.trim());
  return rows;
}

/** The client runs on the built plugin: one older than its sources would test old code. */
async function assertBuilt(): Promise<void> {
  const built = path.join(here, '..', 'dist', 'index.js');
  if (!existsSync(built)) throw new Error('plugins/mcp/dist is missing: run `npm run build` first');
  const newest = Math.max(...(await readdir(path.join(here, '..', 'src'), { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => statSync(path.join(e.parentPath, e.name)).mtimeMs));
  if (statSync(built).mtimeMs < newest - 1000) throw new Error('plugins/mcp/dist/index.js is older than its sources: run `npm run build` (or `npx tsc -b && node scripts/bundle-packages.mjs plugins/mcp`) first');
}

interface Outcome { scenario: string; passed: boolean; checks: string; out: string }

test('every client scenario of the official conformance suite, as the README says', async () => {
  const { node, cli } = await installSuite();
  const version = await run(node, ['--version'], { cwd: cache, timeoutMs: 30_000 });
  assert.match(version.out, /^v22\./, 'the suite runs on Node 22');
  assert.match(process.version, /^v20\./, 'OryxOS, the client under test, runs on Node 20');

  const listed = await run(node, [cli, 'list'], { cwd: repoRoot, timeoutMs: 60_000 });
  const scenarios = [...listed.out.slice(listed.out.indexOf('Client scenarios')).matchAll(/^\s+- (\S+) \[/gm)].map((m) => m[1]!);
  assert.is(scenarios.length, 26, `the suite's client scenarios:\n${listed.out}`);
  const expected = await readmeResults();
  assert.equal([...expected.keys()].sort(), [...scenarios].sort(), 'the README lists exactly the suite\'s client scenarios');

  await assertBuilt();
  // The runner splits --command on spaces and hands it to a shell: quoted paths survive that.
  const command = [process.execPath, client].map((p) => JSON.stringify(p)).join(' ');
  const outcomes: Outcome[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: 3 }, async () => {
    while (next < scenarios.length) {
      const scenario = scenarios[next++]!;
      const r = await run(node, [cli, 'client', '--command', command, '--scenario', scenario, '--timeout', '60000'], { cwd: repoRoot, timeoutMs: 120_000 });
      outcomes.push({ scenario, passed: r.code === 0 && /OVERALL: PASSED/.test(r.out), checks: /^Passed: .*$/m.exec(r.out)?.[0] ?? '(no result)', out: r.out });
    }
  }));

  const passing = outcomes.filter((o) => o.passed).length;
  console.log(`conformance: ${passing} of ${scenarios.length} client scenarios pass`);
  for (const o of outcomes.sort((a, b) => a.scenario.localeCompare(b.scenario))) {
    const want = expected.get(o.scenario)!;
    if (want === 'pass') assert.ok(o.passed, `${o.scenario} should pass (${o.checks}):\n${o.out.slice(-4000)}`);
    else assert.not.ok(o.passed, `${o.scenario} passes now: change its README row (was: ${want})`);
  }
});

test.run();
