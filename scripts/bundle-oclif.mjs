// Writes plugins/cli/dist/oclif-core.cjs: the installed @oclif/core and its dependencies as one
// CommonJS file, a plain esbuild bundle of the package's code, unchanged, which bin/run.js puts
// in Node's require cache under the package's own file names before anything imports it (see
// `primeOclifCore` there). Loading @oclif/core file by file is ~250 CommonJS modules (its own,
// semver's, minimatch's…): most of what `oryx --help` costs over a bare node start went on
// resolving and reading them, not on running them. Every subpath the package exports
// (`@oclif/core/ux`, `/flags`, …) is in the file, so any importer gets the same modules: one
// @oclif/core per process. TypeScript loaders oclif may require for linked TypeScript plugins
// stay outside. The file records the version it was built from; the CLI uses it only when that
// is the version installed, else it loads @oclif/core as before.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
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

const banner = `// @oclif/core ${pkg.version} and its dependencies in one file, written by scripts/bundle-oclif.mjs (see there).\n`;

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
});


// Earlier builds wrote a V8 code cache beside the file; nothing reads one now.
rmSync(`${out}.cache`, { force: true });
