// Writes plugins/cli/dist/oclif-core.cjs: the installed @oclif/core and its dependencies as one
// CommonJS file, which bin/run.js puts in Node's require cache under the package's own file
// names before anything imports it (see `primeOclifCore` there). Loading @oclif/core file by
// file is ~250 CommonJS modules (its own, semver's, minimatch's…): most of what `oryx --help`
// costs over a bare node start went on resolving and reading them, not on running them.
//
// The code is the installed package's, unchanged but for two things the one-file form needs:
// each module's `__dirname`/`__filename` point
// at its original place in node_modules (found when the CLI starts), so what oclif reads next to
// itself (its package.json) is what it read before. Every subpath the package exports
// (`@oclif/core/ux`, `/flags`, …) is in the file, so any importer gets the same modules: one
// @oclif/core per process. TypeScript loaders oclif may require for linked TypeScript plugins
// stay outside. The file records the version it was built from; the CLI uses it only when that
// is the version installed, else it loads @oclif/core as before.
//
// Next to it, oclif-core.cjs.cache: V8's code cache of the file, so a start neither parses its
// 730 KB nor compiles each module on first call (see the end of this file, and `loadBundle` in
// bin/run.js).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'plugins', 'cli', 'dist', 'oclif-core.cjs');
const coreRoot = path.dirname(createRequire(path.join(root, 'package.json')).resolve('@oclif/core/package.json'));
const pkg = JSON.parse(readFileSync(path.join(coreRoot, 'package.json'), 'utf8'));

/** The file of each exported subpath under the `require` condition: `{ './ux': 'lib/ux/index.js', … }`. */
const target = (value) => (typeof value === 'string' ? value : value && (target(value.require) ?? target(value.node) ?? target(value.default)));
const files = Object.entries(pkg.exports)
  .filter(([sub]) => !sub.endsWith('package.json') && !sub.includes('*'))
  .map(([, value]) => path.normalize(target(value)))
  .filter((file, i, all) => file.endsWith('.js') && all.indexOf(file) === i);

// Each exported file's exports, made on first use (as require would), keyed by its path in the package.
const entry = `exports.version = ${JSON.stringify(pkg.version)};\nexports.modules = {\n${files
  .map((f) => `  ${JSON.stringify(f)}: () => require(${JSON.stringify(`./${f}`)}),`).join('\n')}\n};\n`;

const banner = `// @oclif/core ${pkg.version} and its dependencies in one file, written by scripts/bundle-oclif.mjs (see there).\n`
  + "var __oclifCoreRoot = globalThis[Symbol.for('oryxos.oclifCoreRoot')];\n"
  + "var __oryxosImport = globalThis[Symbol.for('oryxos.import')] ?? ((url) => import(url));\n";

await build({
  stdin: { contents: entry, resolveDir: coreRoot, sourcefile: 'oclif-core-entry.js', loader: 'js' },
  outfile: out,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['typescript', 'ts-node', 'tsx', 'tsx/*', 'pnpapi'],
  banner: { js: banner },
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'error',
  plugins: [{
    name: 'original-dirname',
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, async (args) => {
        const original = await readFile(args.path, 'utf8');
        // `import(url)` of a computed URL (oclif loading a command, a hook, a config file) goes
        // through the host's import (bin/run.js): code compiled from a V8 code cache (below) has
        // no import() of its own on Node 20 without an experimental flag. Every such URL is
        // absolute, so where it resolves from does not matter. `import('name')` is bundled.
        let source = original.replace(/\bawait import\((?!\s*['"`])/g, 'await __oryxosImport(');
        // In @oclif/core's own files, __dirname and __filename are their places in the installed package.
        if (args.path.startsWith(coreRoot + path.sep) && /\b__(dirname|filename)\b/.test(source)) {
          const rel = path.relative(coreRoot, args.path).split(path.sep).join('/');
          const own = `var __filename = require('node:path').join(__oclifCoreRoot, ${JSON.stringify(rel)}), __dirname = require('node:path').dirname(__filename);`;
          // After a "use strict" directive (it must stay first), on its line: the lines keep their numbers.
          const directive = /^\s*(['"])use strict\1;?/.exec(source)?.[0] ?? '';
          source = `${directive}${own}${source.slice(directive.length)}`;
        }
        return source === original ? undefined : { loader: 'js', contents: source };
      });
    },
  }],
});
// A dynamic import left in the file would fail when it runs from the code cache: refuse to build.
const left = readFileSync(out, 'utf8').split('\n').filter((line) => /(?<![\w$.'"`])import\s*\(/.test(line) && !line.startsWith('var __oryxosImport'));
if (left.length) throw new Error(`oclif-core.cjs: dynamic import() not routed through __oryxosImport:\n${left.join('\n')}`);

// The V8 code cache of the file (oclif-core.cjs.cache), made by a Node like the one that builds,
// after running every module of it, so the cache holds their compiled functions too. bin/run.js
// compiles the same wrapped text with it; V8 checks the source and its own version and flags, and
// refuses a cache that does not match (then it compiles as usual).
const cacheWriter = `
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire } = require('node:module');
const [bundle, core] = process.argv.slice(1);
globalThis[Symbol.for('oryxos.oclifCoreRoot')] = core;
globalThis[Symbol.for('oryxos.import')] = (url) => import(url);
const source = \`(function (exports, require, module, __filename, __dirname) {\${readFileSync(bundle, 'utf8')}\\n})\`;
const script = new vm.Script(source, { filename: bundle });
const module = { exports: {} };
script.runInThisContext().call(module.exports, module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
for (const load of Object.values(module.exports.modules)) load();
writeFileSync(bundle + '.cache', script.createCachedData());
`;
execFileSync(process.execPath, ['-e', cacheWriter, out, coreRoot], { stdio: ['ignore', 'ignore', 'inherit'] });
