// `oryx --help` must stay fast: it reads command metadata from oclif manifests and loads no
// plugin code and no heavy library (timing itself lives in bench/, not in a test).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { oryxTrace, traceProject } from './fixtures/trace-oryx.ts';

test('oryx --help lists commands from every plugin without importing plugin code', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'oryx-trace-'));
  const file = path.join(dir, 'loaded.txt');
  try {
    const r = spawnSync(process.execPath, ['--import', './test/fixtures/trace-imports.mjs', 'bin/run.js', '--help'], {
      encoding: 'utf8', env: { ...process.env, ORYX_TRACE_FILE: file },
    });
    assert.is(r.status, 0, r.stderr);
    for (const cmd of ['init', 'run', 'chat', 'agents', 'tools', 'sessions', 'audit', 'memory', 'mcp', 'web', 'schedule', 'notify', 'eval']) {
      assert.match(r.stdout, new RegExp(`^\\s+${cmd}\\s`, 'm'), `${cmd} is listed`);
    }
    const loaded = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    // @oclif/core's one-file copy is oclif's code, not a plugin's (kits/command/dist/oclif.js, see below).
    const offenders = loaded.filter((u) => !u.endsWith('/kits/command/dist/oclif.js') && /\/(kernel|kits\/[^/]+|plugins\/[^/]+)\/(dist|src)\//.test(u)
      || /node_modules\/(openai|ollama|@anthropic-ai|libsql|@libsql|hono|@hono|@modelcontextprotocol|execa|arktype|tapable|gray-matter|cosmiconfig|bree|croner|nodemailer|@opentelemetry)\//.test(u));
    assert.equal(offenders, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a read command loads no web server even when the web plugin is on, nor OpenTelemetry with the otel plugin on; a run loads OpenTelemetry', async () => {
  const dir = await traceProject('read-trace-', `import { defineConfig } from '@oryxos/kernel';
import { allowAll, scripted } from '@oryxos/kernel/testing';
import web from '@oryxos/plugin-web';
import otel from '@oryxos/plugin-otel';
export default defineConfig({ plugins: [allowAll(), scripted([{ text: 'hi' }]), web(), otel({ endpoint: 'http://127.0.0.1:9', exportTimeoutMs: 200 })] });
`, { assistant: {} });
  try {
    const r = oryxTrace(dir, ['agents']);
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /^assistant\s/m, 'the agent is listed');
    const { loaded } = r;
    assert.ok(loaded.some((u) => /plugins\/web\/(dist|src)\/index\./.test(u)), 'the web plugin itself was loaded');
    assert.equal(loaded.filter((u) => /node_modules\/(hono|@hono)\/|plugins\/web\/(dist|src)\/(chunks\/)?server[.-]/.test(u)), []);
    const tracing = (u: string) => /node_modules\/@opentelemetry\/|plugins\/otel\/(dist|src)\/(chunks\/)?runtime[.-]/.test(u);
    assert.ok(loaded.some((u) => /plugins\/otel\/(dist|src)\/index\./.test(u)), 'the otel plugin itself was loaded');
    assert.equal(loaded.filter(tracing), [], 'no OpenTelemetry for a read command');
    // A run still works with the web plugin on (its server is loaded only by `oryx web`).
    const run = oryxTrace(dir, ['run', 'hello']);
    assert.is(run.status, 0, run.stderr);
    assert.match(run.stdout, /hi/);
    assert.equal(run.loaded.filter((u) => /node_modules\/(hono|@hono)\//.test(u)), [], 'nor for a run');
    assert.ok(run.loaded.some(tracing), 'a run loads OpenTelemetry');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a command reads YAML with the one built copy of yaml: the frontmatter and the MCP servers file, nothing from the yaml package itself', async () => {
  const dir = await traceProject('yaml-trace-', `import { defineConfig } from '@oryxos/kernel';
import { allowAll, scripted } from '@oryxos/kernel/testing';
import mcp from '@oryxos/plugin-mcp';
export default defineConfig({ plugins: [allowAll(), scripted([{ text: 'hi' }]), mcp()] });
`, { assistant: { description: 'reads YAML' } }, { '.oryxos/mcp_servers.yaml': '# none yet\nservers: {}\n' });
  try {
    const r = oryxTrace(dir, ['agents']);
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /^assistant\s.*reads YAML/m, 'the frontmatter was read');
    assert.ok(r.loaded.some((u) => /kits\/schema\/dist\/yaml\.js$/.test(u)), 'schema-kit/yaml was loaded');
    assert.equal(r.loaded.filter((u) => /node_modules\/yaml\//.test(u)), [], 'no file of the yaml package');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a read command loads no provider SDK (openai, ollama, @anthropic-ai/sdk) with all three providers on', async () => {
  const dir = await traceProject('read-sdk-', `import { defineConfig } from '@oryxos/kernel';
import openai from '@oryxos/plugin-openai';
import ollama from '@oryxos/plugin-ollama';
import anthropic from '@oryxos/plugin-anthropic';
export default defineConfig({ plugins: [
  openai({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k', defaultModel: 'm' }), ollama({ host: 'http://127.0.0.1:9' }),
  anthropic({ baseURL: 'http://127.0.0.1:9', apiKey: 'k', defaultModel: 'm' }),
] });
`, { assistant: { provider: 'anthropic' } });
  try {
    const r = oryxTrace(dir, ['agents']);
    assert.is(r.status, 0, r.stderr);
    assert.ok(r.loaded.some((u) => /plugins\/anthropic\/(dist|src)\/index\./.test(u)), 'the anthropic plugin itself was loaded');
    assert.equal(r.loaded.filter((u) => /node_modules\/(openai|ollama|@anthropic-ai|@opentelemetry)\//.test(u)), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a plugin\'s command loads the command kit, not the CLI package', async () => {
  const dir = await traceProject('read-kit-', `import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
export default defineConfig({ plugins: [scripted([{ text: 'hi' }]), sqlite(), audit()] });
`, { assistant: {} });
  try {
    const r = oryxTrace(dir, ['audit', 'summary']);
    assert.is(r.status, 0, r.stderr);
    assert.ok(r.loaded.some((u) => /kits\/command\/dist\/index\.js$/.test(u)), 'the kit');
    assert.equal(r.loaded.filter((u) => /plugins\/cli\/dist\/(index|command-kit)\.js$/.test(u)), [], 'nothing of the CLI package');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a read command loads none of Node\'s crypto, with the model providers, the scheduler and the quickstart\'s plugins on', async () => {
  const dir = await traceProject('read-crypto-', `import { defineConfig } from '@oryxos/kernel';
import openai from '@oryxos/plugin-openai';
import ollama from '@oryxos/plugin-ollama';
import anthropic from '@oryxos/plugin-anthropic';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import memory from '@oryxos/plugin-memory';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';
import mcp from '@oryxos/plugin-mcp';
import web from '@oryxos/plugin-web';
import scheduler from '@oryxos/plugin-scheduler';
export default defineConfig({ plugins: [
  openai({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k', defaultModel: 'm' }), ollama({ host: 'http://127.0.0.1:9' }),
  anthropic({ baseURL: 'http://127.0.0.1:9', apiKey: 'k', defaultModel: 'm' }),
  sqlite(), audit(), memory(), sandbox({ files: { read: ['.'] } }), tools(), mcp(), web(),
  scheduler({ tasks: [{ name: 'daily', agent: 'assistant', message: 'hi', cron: '0 8 * * *' }] }),
] });
`, { assistant: { provider: 'openai' } });
  const file = path.join(dir, 'modules.txt');
  try {
    // What Node loaded of its own modules, written when the process exits.
    const probe = path.join(dir, 'probe.cjs');
    writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(file)}, process.moduleLoadList.join('\\n')));\n`);
    // The first command that writes compiles the config into the cache (the model is unreachable: no matter).
    // Into a cache and state folder of this test's own, so the read commands below check an entry's MAC.
    const env = { ...process.env, NO_COLOR: '1', XDG_CACHE_HOME: path.join(dir, '.user-cache'), XDG_STATE_HOME: path.join(dir, '.user-state') };
    spawnSync(process.execPath, [path.resolve('bin/run.js'), 'run', 'hi'], { cwd: dir, encoding: 'utf8', env });
    const entries = readdirSync(path.join(dir, '.user-cache', 'oryxos', 'config'), { recursive: true }).map(String);
    assert.ok(entries.some((f) => /config-[0-9a-f]{32}\.js$/.test(f)), `the config was compiled: ${entries.join(', ')}`);
    for (const command of ['agents', 'tools']) {
      const r = spawnSync(process.execPath, ['-r', probe, path.resolve('bin/run.js'), command], { cwd: dir, encoding: 'utf8', env });
      assert.is(r.status, 0, r.stderr);
      const loaded = readFileSync(file, 'utf8').split('\n');
      assert.ok(loaded.includes('NativeModule fs'), 'the probe saw the module list');
      assert.equal(loaded.filter((m) => /^NativeModule (internal\/)?crypto\b/.test(m)), [], `oryx ${command} loads no crypto`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('@oclif/core loads from its one-file copy, required once, with nothing put in require\'s cache by hand; oryx says the same as with the package loaded file by file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'oryx-cjs-'));
  try {
    const run = (args: string[], mode: 'bundle' | 'files') => {
      const file = path.join(dir, `${mode}-${args.join('_')}.txt`);
      writeFileSync(file, '');
      const hook = mode === 'files' ? ['--import', './test/fixtures/oclif-files.mjs'] : [];
      const r = spawnSync(process.execPath, [...hook, '--require', './test/fixtures/trace-compiled.cjs', 'bin/run.js', ...args], {
        encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ORYX_TRACE_FILE: file },
      });
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      const compiled = lines.filter((l) => !l.startsWith('cached '));
      const cached = lines.filter((l) => l.startsWith('cached ')).map((l) => l.slice('cached '.length));
      return {
        out: [r.status, r.stdout, r.stderr], cached, compiled,
        core: compiled.filter((f) => /node_modules\/@oclif\/core\//.test(f)), bundle: compiled.filter((f) => f.endsWith(path.join('kits', 'command', 'dist', 'oclif.cjs'))),
      };
    };
    // Help, a read command, a usage error from oclif's parser, a command that is not there (oclif's
    // hook and errors), and `oryx help` (once @oclif/plugin-help's command, which loaded oclif again by its package name).
    for (const args of [['--help'], ['agents'], ['agents', '--help'], ['agents', '--no-such-flag'], ['no-such-command'], ['help', 'agents']]) {
      const bundled = run(args, 'bundle');
      const files = run(args, 'files');
      assert.equal(bundled.out, files.out, `oryx ${args.join(' ')}`);
      assert.equal(bundled.core, [], 'no file of the @oclif/core package compiled on its own');
      assert.is(bundled.bundle.length, 1, 'the one file is required once');
      assert.ok(files.core.length > 50, 'without it, @oclif/core loads file by file');
      // Every script in require's cache was compiled from its own file (JSON and native addons are not scripts).
      const scripts = bundled.cached.filter((f) => /\.c?js$/.test(f) && !f.endsWith('trace-compiled.cjs'));
      assert.ok(scripts.length > 0, 'the trace saw the cache');
      assert.equal(scripts.filter((f) => !bundled.compiled.includes(f)), [], 'no module in require\'s cache that was not loaded from its file');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the oclif copy is the package\'s code as esbuild writes it (no rewrite of its source, no code cache), and every package imports it', () => {
  // oclif's own dynamic import of a command, as the package has it, is in the bundle (esbuild
  // re-indents, renames and drops parentheses, but leaves an expression like this one alone).
  const source = readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('@oclif/core/package.json')), 'lib', 'module-loader.js'), 'utf8');
  const original = /await import\((?:[^;]*?)\.href\)/.exec(source)?.[0];
  assert.ok(original, 'oclif loads modules with import()');
  assert.ok(readFileSync('kits/command/dist/oclif.cjs', 'utf8').includes(original), `the bundle holds ${original} unchanged`);
  assert.not.ok(existsSync('kits/command/dist/oclif.cjs.cache'), 'no cache file beside the bundle');
  const run = readFileSync('bin/run.js', 'utf8');
  assert.not.match(run, /vm\.Script|Symbol\.for\('oryxos\.import'\)|oclifCoreRoot|require\.cache/, 'bin/run.js compiles nothing itself, routes no import and fills no cache');
  // The built packages import the copy, never the package (their sources import `@oclif/core`).
  const built = ['plugins/cli/dist/commands/chat.js', 'plugins/audit/dist/commands/audit/llm.js', 'kits/command/dist/index.js'];
  for (const file of built) {
    const text = readFileSync(file, 'utf8');
    assert.ok(text.includes('"@oryxos/command-kit/oclif"'), `${file} imports the one-file copy`);
    assert.not.ok(/from ["']@oclif\/core["']/.test(text), `${file} does not import @oclif/core itself`);
  }
});

test.run();
