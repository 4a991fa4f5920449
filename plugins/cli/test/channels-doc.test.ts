// docs/channels.md walks through writing a channel (a webhook door) from what
// `oryx plugins new webhook --kind channel` writes. This test follows it with the built CLI
// (bin/run.js; npm test builds first): the package the CLI writes has the files the page lists,
// the page's commands and files applied to it give a package that typechecks, builds and
// passes its own test, and, linked into a project, `oryx doctor` shows its check and
// `oryx serve` answers a POST through it.
import { execFile, spawn } from 'node:child_process';
import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject } from '@oryxos/kernel/testing';
import { pluginTemplate } from '../src/plugin-templates.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
const tsc = path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
const run = promisify(execFile);

/** The files the page writes in full: a line "`path`:", a blank line, then a fenced block. */
function writtenFiles(doc: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const m of doc.matchAll(/^`([^`\n]+)`:\n\n(`{3,})[a-z]*\n([\s\S]*?)\n\2$/gm)) files[m[1]!] = `${m[3]}\n`;
  return files;
}

/** The lines of the fenced block that follows `marker` in the page. */
function blockAfter(doc: string, marker: string): string[] {
  const at = doc.indexOf(marker);
  assert.ok(at >= 0, `docs/channels.md has ${marker}`);
  return /```[a-z]*\n([\s\S]*?)\n```/.exec(doc.slice(at))![1]!.split('\n');
}

const freePort = () => new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as AddressInfo;
    probe.close(() => resolve(port));
  });
});

test('docs/channels.md: following the walk-through from oryx plugins new gives a channel that builds, passes its test, and answers through oryx serve', async () => {
  const doc = await readFile(path.join(repo, 'docs', 'channels.md'), 'utf8');
  const dir = await tempProject('channels-doc-');
  const env = { XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, WEBHOOK_TOKEN: 'doc-test-token-0123456789' };
  try {
    // 1. What the CLI writes is what the page lists (and what the template makes).
    const generate = blockAfter(doc, '### 1. Generate the package');
    assert.equal(generate, ['oryx plugins new webhook --kind channel']);
    const made = await runOryx(['plugins', 'new', 'webhook', '--kind', 'channel', '--json'], { cwd: dir, env });
    assert.is(made.code, 0, made.stderr);
    const { dir: pkgDir, files } = JSON.parse(made.stdout) as { dir: string; files: string[] };
    const deps = { kernel: '^1.0.0', pluginKit: '^0.1.0', providerKit: '^0.1.0', providerSpec: '^1.0.0', contracts: '^1.0.0' };
    assert.equal(files, Object.keys(pluginTemplate('webhook', 'channel', deps)));
    const listed = blockAfter(doc, 'which delivers every finished run to a JSON Lines file:');
    assert.equal(listed.slice(1).map((l) => l.trim()), files, 'the page lists the files oryx plugins new writes');

    // The page's shell step, run as written (npm pkg edits package.json locally); its install of
    // the sqlite plugin is the checkout's own package, found from here without a download.
    const shell = blockAfter(doc, 'declare that instead of the journal');
    assert.equal(shell[0], 'cd oryx-plugin-webhook');
    assert.match(shell[1]!, /^npm pkg set /);
    assert.equal(shell[2], 'npm install --save-dev @oryxos/plugin-sqlite');
    const before = JSON.parse(await readFile(path.join(pkgDir, 'package.json'), 'utf8'));
    assert.equal(before.oryx.permissions, ['files:write'], 'the template declares the journal\'s file writes at index 0');
    await run('sh', ['-c', shell[1]!], { cwd: pkgDir });
    const pkg = JSON.parse(await readFile(path.join(pkgDir, 'package.json'), 'utf8'));
    assert.equal(pkg.oryx.permissions, ['listen']);
    pkg.devDependencies['@oryxos/plugin-sqlite'] = `file:${path.join(repo, 'plugins', 'sqlite')}`;
    await writeFile(path.join(pkgDir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);

    // 2–7. Every file the page shows, written over the generated package.
    const shown = writtenFiles(doc);
    assert.equal(Object.keys(shown).sort(), ['README.md', 'src/door.ts', 'src/errors.ts', 'src/index.ts', 'src/migrations.ts', 'test/webhook.test.ts']);
    for (const file of Object.keys(shown)) if (!files.includes(file)) assert.ok(file.startsWith('src/'), `${file} is a new source file`);
    for (const [file, text] of Object.entries(shown)) {
      await mkdir(path.dirname(path.join(pkgDir, file)), { recursive: true });
      await writeFile(path.join(pkgDir, file), text);
    }
    const tested = await run('npm', ['test'], { cwd: pkgDir, env: { ...process.env, WEBHOOK_TOKEN: undefined } });
    assert.match(tested.stdout, /Passed:\s+6\b/);
    assert.match(tested.stdout, /Total:\s+6\b/);
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: pkgDir });

    // 8. Linked into a project: listed with its permission, checked by oryx doctor, served by oryx serve.
    const linked = await runOryx(['plugins', 'link', pkgDir, '--no-install'], { cwd: dir, env });
    assert.is(linked.code, 0, linked.stderr);
    const plugins = JSON.parse((await runOryx(['plugins', '--json'], { cwd: dir, env })).stdout) as { items: { package: string; declaredPermissions: string[] }[] };
    assert.equal(plugins.items.find((p) => p.package === 'oryx-plugin-webhook')?.declaredPermissions, ['listen']);
    const port = await freePort();
    await writeFile(path.join(dir, 'oryx.config.ts'), `
      import { defineConfig } from '@oryxos/kernel';
      import { scripted } from '@oryxos/kernel/testing';
      import sqlite from '@oryxos/plugin-sqlite';
      import webhook from 'oryx-plugin-webhook';
      export default defineConfig({ plugins: [
        scripted([(req) => ({ text: 'you said ' + req.messages.at(-1).content })]), sqlite(), webhook({ allow: ['alice'], port: ${port} }),
      ] });
    `);
    await mkdir(path.join(dir, '.oryxos', 'agents', 'assistant'), { recursive: true });
    await writeFile(path.join(dir, '.oryxos', 'agents', 'assistant', 'AGENT.md'), '---\ndescription: test\n---\nYou answer.\n');
    const doctor = await runOryx(['doctor', '--json'], { cwd: dir, env });
    const items = JSON.parse(doctor.stdout).items as { check: string; status: string; detail: string }[];
    assert.equal(items.filter((i) => i.check.startsWith('webhook')).map((i) => [i.check, i.status, i.detail]), [
      ['webhook token', 'ok', 'token from env WEBHOOK_TOKEN'], ['webhook allow', 'ok', '1 sender(s) allowed'],
    ]);
    assert.not.match(doctor.stdout + doctor.stderr, env.WEBHOOK_TOKEN);

    const merged: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...env };
    for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
    const child = spawn(process.execPath, [path.join(repo, 'bin', 'run.js'), 'serve'], { cwd: dir, env: merged as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { out += d; });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      while (!out.includes('doors started: webhook')) {
        assert.ok(Date.now() < deadline && child.exitCode === null, `oryx serve to start: ${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const post = (from: string) => fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST', headers: { authorization: `Bearer ${env.WEBHOOK_TOKEN}` }, body: JSON.stringify({ id: `m-${from}`, from, thread: 't1', text: 'hello' }),
      });
      const answered = await post('alice');
      assert.is(answered.status, 200);
      assert.equal((await answered.json() as { answer: string }).answer, 'you said hello');
      assert.is((await post('mallory')).status, 403);
    } finally {
      child.kill('SIGTERM');
    }
    assert.is(await exited, 0, out);
    assert.match(out, 'SIGTERM: stopping the doors');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
