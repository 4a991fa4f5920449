// Writes plugins/cli/dist/oclif-core.cjs: the installed @oclif/core and its dependencies as one
// CommonJS file, which bin/run.js puts in Node's require cache under the package's own file
// names before anything imports it (see `primeOclifCore` there). Loading @oclif/core file by
// file is ~250 CommonJS modules (its own, semver's, minimatch's…): most of what `oryx --help`
// costs over a bare node start went on resolving and reading them, not on running them.
//
// The code is the installed package's, unchanged: each module's `__dirname`/`__filename` point
// at its original place in node_modules (found when the CLI starts), so what oclif reads next to
// itself (its package.json) is what it read before. Every subpath the package exports
// (`@oclif/core/ux`, `/flags`, …) is in the file, so any importer gets the same modules: one
// @oclif/core per process. TypeScript loaders oclif may require for linked TypeScript plugins
// stay outside. The file records the version it was built from; the CLI uses it only when that
// is the version installed, else it loads @oclif/core as before.
import { build } from 'esbuild';
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
  + "var __oclifCoreRoot = globalThis[Symbol.for('oryxos.oclifCoreRoot')];\n";

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
      // In @oclif/core's own files, __dirname and __filename are their places in the installed package.
      b.onLoad({ filter: /\.js$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!args.path.startsWith(coreRoot + path.sep) || !/\b__(dirname|filename)\b/.test(source)) return undefined;
        const rel = path.relative(coreRoot, args.path).split(path.sep).join('/');
        const own = `var __filename = require('node:path').join(__oclifCoreRoot, ${JSON.stringify(rel)}), __dirname = require('node:path').dirname(__filename);`;
        // After a "use strict" directive (it must stay first), on its line: the lines keep their numbers.
        const directive = /^\s*(['"])use strict\1;?/.exec(source)?.[0] ?? '';
        return { loader: 'js', contents: `${directive}${own}${source.slice(directive.length)}` };
      });
    },
  }],
});
