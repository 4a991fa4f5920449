// The package's promises about itself: README error table, lazy heavy imports.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeErrorCodes } from '@oryxos/kernel/testing';
import { ERROR_CODES } from '../src/index.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('the README lists exactly the codes of ERROR_CODES, each with its fix', async () => {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  assert.equal(readmeErrorCodes(readme), { ...ERROR_CODES });
});

test('no module loaded by the entry point imports the MCP SDK or yaml at the top level', async () => {
  const seen = new Set<string>();
  const visit = async (file: string): Promise<void> => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = await readFile(file, 'utf8');
    for (const m of text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)) {
      const spec = m[1]!;
      assert.not.ok(/^@modelcontextprotocol\/|^yaml$/.test(spec), `${path.relative(root, file)} imports ${spec} statically`);
      if (spec.startsWith('.')) await visit(path.resolve(path.dirname(file), spec));
    }
  };
  await visit(path.join(root, 'src', 'index.ts'));
  assert.ok(seen.size > 5);
});

test.run();
