// Types for oryx.config.ts in a folder with no node_modules (as with a global install): `oryx
// init` writes a tsconfig.json that resolves @oryxos/* to the installation's packages, so `tsc`
// (and an editor) catch a hook reading `call.arguments` instead of `call.args`.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx } from '@oryxos/kernel/testing';

const tsc = path.join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc');
const typecheck = (cwd: string) => promisify(execFile)(process.execPath, [tsc, '-p', '.'], { cwd }).then(() => '', (e: { stdout: string }) => e.stdout);

let dir: string;
// Outside the checkout: no node_modules anywhere above, as in a folder used with a global `oryx`.
test.before.each(async () => { dir = await mkdtemp(path.join(tmpdir(), 'oryx-typed-')); });
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

test('oryx init writes a tsconfig.json: the scaffold typechecks, a wrong field in an inline hook does not', async () => {
  const r = await runOryx(['init', '--json'], { cwd: dir, env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined } });
  assert.is(r.code, 0, r.stderr);
  assert.ok(JSON.parse(r.stdout).files.includes('tsconfig.json'));
  assert.match(await readFile(path.join(dir, 'tsconfig.json'), 'utf8'), /"@oryxos\/\*": \[\s*"[^"]+\/node_modules\/@oryxos\/\*"/);
  assert.is(await typecheck(dir), '', 'the config oryx init wrote typechecks');

  const config = await readFile(path.join(dir, 'oryx.config.ts'), 'utf8');
  const withGuard = (field: string) => config
    .replace("import { defineConfig } from '@oryxos/kernel';", "import { defineConfig, definePlugin } from '@oryxos/kernel';")
    .replace('plugins: [', `plugins: [\n    definePlugin({ name: 'no-env', hooks: { async beforeTool({ call }) { if (String(call.${field}.path).endsWith('.env')) return { content: 'no', isError: true }; return undefined; } } }),`);
  assert.ok(withGuard('args').includes('definePlugin({'), 'the scaffold has the import and plugins list the test edits');
  await writeFile(path.join(dir, 'oryx.config.ts'), withGuard('arguments'));
  assert.match(await typecheck(dir), /oryx\.config\.ts\(\d+,\d+\): error TS2339: Property 'arguments' does not exist on type 'ToolCall'/);
  // oryx doctor runs the same check (TypeScript is beside this installation).
  const typesLine = async () => JSON.parse((await runOryx(['doctor', '--json'], { cwd: dir })).stdout).items.find((c: { check: string }) => c.check === 'config types');
  const wrong = await typesLine();
  assert.is(wrong.status, 'fail');
  assert.is(wrong.code, 'ORYX_E_CONFIG_TYPES');
  assert.match(wrong.detail, /1 type error\(s\): .*oryx\.config\.ts\(\d+,\d+\): error TS2339: Property 'arguments' does not exist on type 'ToolCall'/);
  await writeFile(path.join(dir, 'oryx.config.ts'), withGuard('args'));
  assert.is(await typecheck(dir), '');
  assert.is((await typesLine()).status, 'ok');
});

test('a project with its own tsconfig.json keeps it', async () => {
  await writeFile(path.join(dir, 'tsconfig.json'), '{"compilerOptions":{}}\n');
  const r = await runOryx(['init', '--json'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  assert.not.ok(JSON.parse(r.stdout).files.includes('tsconfig.json'));
  assert.is(await readFile(path.join(dir, 'tsconfig.json'), 'utf8'), '{"compilerOptions":{}}\n');
});

test.run();
