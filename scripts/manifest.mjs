// Writes oclif.manifest.json for every package that has commands, so `oryx --help` reads
// command metadata from one JSON file instead of importing every command module.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const oclif = path.join(root, 'node_modules', 'oclif', 'bin', 'run.js');
const dirs = ['kernel', ...readdirSync(path.join(root, 'plugins')).map((d) => path.join('plugins', d))];
for (const dir of dirs) {
  const pkgFile = path.join(root, dir, 'package.json');
  if (!existsSync(pkgFile)) continue;
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  if (!pkg.oclif?.commands) continue;
  try {
    execFileSync(process.execPath, [oclif, 'manifest'], { cwd: path.join(root, dir), stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OCLIF_SKIP_UPDATE_CHECK: '1' } });
  } catch (error) {
    process.stderr.write(`oclif manifest failed in ${dir}:\n${error.stderr ?? error.message}\n`);
    process.exit(1);
  }
}
