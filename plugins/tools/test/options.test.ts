import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import tools, { type ToolsOptions } from '../src/index.ts';

async function names(options: ToolsOptions): Promise<string[]> {
  const t = await testKernel({ plugins: [scripted([]), tools(options)] });
  try {
    return (await t.kernel.allTools(await t.kernel.agents.load('assistant'))).map((x) => x.name).sort();
  } finally {
    await t.close();
  }
}

test('include and exclude pick the tools to register', async () => {
  assert.equal(await names({ include: ['read_file', 'shell'] }), ['read_file', 'shell']);
  assert.equal(await names({ exclude: ['shell', 'http_request'] }), ['current_time', 'edit_file', 'list_dir', 'read_file', 'write_file']);
  assert.equal(await names({ include: ['shell'], exclude: ['shell'] }), []);
});

test('approval marks the tools a person approves before every call', async () => {
  const t = await testKernel({ plugins: [scripted([]), tools({ approval: { shell: 'always' } })] });
  try {
    const all = await t.kernel.allTools(await t.kernel.agents.load('assistant'));
    const marked = all.filter((x) => x.approval === 'always').map((x) => x.name);
    assert.equal(marked, ['shell']);
  } finally {
    await t.close();
  }
});

const bad: [unknown, RegExp][] = [
  ['all', /tools\(\): options must be an object/],
  [{ include: ['read_file', 'rm_rf'] }, /option include\.1 must be/],
  [{ maxOutputChars: 10 }, /option maxOutputChars must be at least 100/],
  [{ shellTimeoutMs: 1.5 }, /option shellTimeoutMs must be an integer/],
  [{ shellEnv: 'inherit' }, /option shellEnv was removed: the sandbox decides the environment/],
  [{ maxRedirect: 3 }, /option maxRedirect must be removed/],
  [{ shellTimeoutMs: 5000, maxShellTimeoutMs: 1000 }, /shellTimeoutMs \(5000\) is above maxShellTimeoutMs \(1000\)/],
  [{ approval: { shell: 'sometimes' } }, /option approval\.shell must be "always"/],
  [{ approval: { rm_rf: 'always' } }, /option approval\.rm_rf names no tool of this plugin/],
];
for (const [options, message] of bad) {
  test(`bad options fail at once: ${JSON.stringify(options)}`, () => {
    try {
      tools(options as ToolsOptions);
      assert.unreachable('accepted');
    } catch (error) {
      assert.ok(isOryxError(error), String(error));
      assert.is(error.code, 'ORYX_E_TOOLS_OPTIONS');
      assert.match(error.message, message);
      assert.match(error.hint ?? '', /tools\(\{/);
    }
  });
}

test('execa is loaded lazily, never imported at the top of a module', async () => {
  const src = path.join(import.meta.dirname, '..', 'src');
  const files = (await readdir(src, { recursive: true })).filter((f) => f.endsWith('.ts'));
  for (const f of files) {
    const text = await readFile(path.join(src, f), 'utf8');
    assert.not.match(text, /^import[^;]*from 'execa'/m, `${f} imports execa statically`);
  }
  assert.match(await readFile(path.join(src, 'run', 'shell.ts'), 'utf8'), /await import\('execa'\)/);
});

test.run();
