// Writes @oclif/core as one file for OryxOS's own code: kits/command/dist/oclif.cjs, a plain
// esbuild bundle of the installed package and its dependencies (its code unchanged), and beside it
// oclif.js, the ES module `@oryxos/command-kit/oclif` that requires it and exports its names (no
// declarations: the sources import `@oclif/core`, whose types they are).
// Loading @oclif/core file by file is ~250 CommonJS modules (its own, semver's, minimatch's…), and
// Node's resolving, statting and reading of them cost more than running them: ~110 ms of CPU of a
// read command on Node 20 (`oryx agents` 480 against 595 ms, bench/README.md). bin/run.js imports
// oclif from there, and scripts/bundle-packages.mjs writes every OryxOS package's `import … from
// '@oclif/core'` as an import of `@oryxos/command-kit/oclif`, so a process holds one oclif, read
// from one file, with nothing put in Node's module caches by hand. The sources keep importing
// `@oclif/core` (its types come from there); an added plugin's import of it is resolved to the same
// module (bin/host-modules.js). `@oclif/plugin-plugins` imports the package as it always did: its
// commands load it file by file, a second copy, which oclif is built to accept (`oryx help` is the
// CLI's own command, so it does not).
// TypeScript loaders oclif may require for linked TypeScript plugins stay outside.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'kits', 'command', 'dist');
const out = path.join(dist, 'oclif.cjs');
const coreRoot = path.dirname(createRequire(path.join(root, 'package.json')).resolve('@oclif/core/package.json'));
const pkg = JSON.parse(readFileSync(path.join(coreRoot, 'package.json'), 'utf8'));

await build({
  entryPoints: [path.join(coreRoot, 'lib', 'index.js')],
  outfile: out,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['typescript', 'ts-node', 'tsx', 'tsx/*', 'pnpapi'],
  banner: { js: `// @oclif/core ${pkg.version} and its dependencies in one file, written by scripts/bundle-oclif.mjs (see there).` },
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'error',
});

// The names an ES module can import from it, as the package's main module has them.
const names = Object.keys(createRequire(import.meta.url)(out)).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default');
writeFileSync(path.join(dist, 'oclif.js'), `// @oclif/core ${pkg.version} for OryxOS's packages: the one-file copy beside this module (scripts/bundle-oclif.mjs).
const oclif = process.getBuiltinModule('node:module').createRequire(import.meta.url)('./oclif.cjs');
export const { ${names.join(', ')} } = oclif;
export default oclif;
`);

// Where earlier builds put the bundle (it was put into require's cache by bin/run.js), and the V8 code cache before that.
for (const old of ['oclif-core.cjs', 'oclif-core.cjs.map', 'oclif-core.cjs.cache']) rmSync(path.join(root, 'plugins', 'cli', 'dist', old), { force: true });
