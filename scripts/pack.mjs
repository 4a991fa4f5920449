// `npm pack` of the CLI: one tarball with every OryxOS package and all their dependencies, so
// `npm install -g oryxos-cli-<v>.tgz` needs no network.
//   before (prepack): every bundled workspace package must be built (its entry files and, for
//     packages with commands, its oclif manifest), or the tarball would install an `oryx` that
//     cannot start; then package.json gets `bundleDependencies` (every dependency).
//   after (postpack): package.json is put back as it was.
// bundleDependencies are added for the pack only: kept in package.json they would make npm
// treat the `npm` package (a dependency of @oclif/plugin-plugins, which bundles its own
// dependencies) as bundled by the root, and `npm install`/`npm ci` of this workspace then fail.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const file = path.join(root, 'package.json');
const kept = `${file}.packing`;

if (process.argv[2] === 'after') {
  if (existsSync(kept)) renameSync(kept, file);
  process.exit(0);
}
const pkg = JSON.parse(readFileSync(file, 'utf8'));
const missing = [];
for (const name of Object.keys(pkg.dependencies).filter((n) => n.startsWith('@oryxos/'))) {
  const dir = path.join(root, 'node_modules', name);
  const own = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  for (const needed of [own.main, own.oclif?.commands ? 'oclif.manifest.json' : undefined]) {
    if (needed && !existsSync(path.join(dir, needed))) missing.push(`${name}: ${needed}`);
  }
}
if (missing.length) {
  process.stderr.write(`Not packing: these files are not built yet:\n  ${missing.join('\n  ')}\nRun \`npm run build\` first, then \`npm pack\`.\n`);
  process.exit(1);
}
// Atomically, both ways: other processes may read package.json meanwhile.
writeFileSync(kept, readFileSync(file));
writeFileSync(`${file}.tmp`, `${JSON.stringify({ ...pkg, bundleDependencies: Object.keys(pkg.dependencies) }, null, 2)}\n`);
renameSync(`${file}.tmp`, file);
