// Runs before `npm pack` of the CLI: every bundled workspace package must be built (its entry
// files and, for packages with commands, its oclif manifest), or the tarball would install an
// `oryx` that cannot start. Says what to run instead of packing a broken CLI.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const missing = [];
for (const name of pkg.bundleDependencies.filter((n) => n.startsWith('@oryxos/'))) {
  const dir = path.join(root, 'node_modules', name);
  const own = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const needed = [own.main, own.oclif?.commands ? 'oclif.manifest.json' : undefined].filter(Boolean);
  for (const file of needed) if (!existsSync(path.join(dir, file))) missing.push(`${name}: ${file}`);
}
if (missing.length) {
  process.stderr.write(`Not packing: these files are not built yet:\n  ${missing.join('\n  ')}\nRun \`npm run build\` first, then \`npm pack\`.\n`);
  process.exit(1);
}
