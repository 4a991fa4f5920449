// Used by scripts/bundle-packages.mjs on every module it writes (test/bundles.test.ts checks it).
// Node's own modules are taken with `process.getBuiltinModule` rather than imported: an import
// of a built-in builds an ES module facade of it, reading every export once, and for `node:fs`
// that reads `ReadStream`, which loads Node's file streams (~2 ms of every `oryx` command, and
// ~2 ms more for the facades of the dozen modules a command imports). The module is the same
// object the facade's default export is; names bind once, as the bundled code never reassigns
// them. Lines stay where they were (the source maps).
import { builtinModules } from 'node:module';

// esbuild writes every import on a line of its own, with double quotes. A library bundled in may
// name a built-in without `node:` (`"crypto"`).
const BUILTIN_IMPORT = /^import\s+(\{[^}]*\}|[A-Za-z_$][\w$]*)\s+from\s+"([^"]+)";/gm;
const BUILTIN = new Set(builtinModules);
/** `import { a as b } from "node:x";` → `const { a: b } = process.getBuiltinModule("node:x");` (and a default import alike). */
export function builtinsWithoutImport(text) {
  return text.replace(BUILTIN_IMPORT, (all, what, id) => (!id.startsWith('node:') && !BUILTIN.has(id) ? all : `const ${what.startsWith('{') ? what.replace(/\s+as\s+/g, ': ') : what} = process.getBuiltinModule(${JSON.stringify(id)});`));
}
