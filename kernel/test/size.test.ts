// Issue 35's bounds on the kernel: the loop, its hooks, registries, the plugin loader, config
// and the agent contract fit in 1,800 lines (non-blank, non-comment, as a line counter sees
// them) and the public entry names at most 60 things. A feature that would push past them is a
// plugin or a kit.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import ts from 'typescript';

const src = fileURLToPath(new URL('../src/', import.meta.url));

/** Lines that are neither blank nor only a comment (`//`, `/*`, ` *`). */
function codeLines(text: string): number {
  return text.split('\n').filter((l) => l.trim() && !/^\s*(\/\/|\/\*|\*)/.test(l)).length;
}

test('codeLines counts code, not blank lines or comments', () => {
  assert.is(codeLines('// a\n\n/**\n * b\n */\nconst x = 1; // c\n  return x;\n'), 2);
});

test('kernel/src is at most 1,800 lines of code', () => {
  const files = readdirSync(src).filter((f) => f.endsWith('.ts'));
  const total = files.reduce((n, f) => n + codeLines(readFileSync(src + f, 'utf8')), 0);
  assert.ok(total > 1000, `counted ${total}`);
  assert.ok(total <= 1800, `kernel/src has ${total} lines of code; move what is not the loop, its hooks, registries, plugin loader, config or agent contract into a kit or plugin`);
});

test('no file in kernel/src is about approvals, resume, sub-agents, loop detection, YAML or clocks', () => {
  for (const f of readdirSync(src)) assert.not.match(f, /approv|resume|subagent|sub-agent|loop-guard|loop-detect|yaml|frontmatter|clock|deadline/, f);
});

test('@oryxos/kernel exports at most 60 names', () => {
  const program = ts.createProgram([src + 'index.ts'], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowImportingTsExtensions: true, noEmit: true, strict: true });
  const checker = program.getTypeChecker();
  const entry = program.getSourceFile(src + 'index.ts')!;
  const names = checker.getExportsOfModule(checker.getSymbolAtLocation(entry)!).map((s) => s.name);
  assert.ok(names.includes('Kernel') && names.includes('definePlugin'), names.join(', '));
  assert.ok(names.length <= 60, `${names.length} exported names: ${names.join(', ')}`);
});

test.run();
