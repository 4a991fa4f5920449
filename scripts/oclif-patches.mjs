// What scripts/bundle-oclif.mjs changes in @oclif/core while it bundles it (and what the
// changed lines call, defined once at the top of the bundle). test/bundles.test.ts checks them.
// Costs every `oryx` command paid while oclif loads (~25 ms of a ~240 ms `oryx agents`),
// removed without changing a result. The build fails when a text is no longer
// there (another @oclif/core): then look again rather than ship without.
// - Which dependencies are core plugins: oclif matches every root dependency against every
//   `oclif.plugins` entry with minimatch, compiling the pattern each time (21 × 11 here,
//   ~10 ms). An entry that is a plain package name has no glob in it, so it matches exactly itself.
// - The sort of a plugin's commands by id: its first `localeCompare` builds ICU's collator
//   (~8 ms). For ids of lowercase letters, digits, `:` and `-` the collator's order is the code
//   units' once `:` sorts before the digits (as `/` does); other ids still use `localeCompare`.
// - Reading a package.json or a manifest: `fs/promises` `readFile` is four round trips through
//   libuv's four-thread pool (open, stat, read, close), and oclif reads ~30 small JSON files at
//   once while it starts, so they queue behind each other (~3 ms of `oryx agents`, measured). A
//   synchronous read of a file of a few KB costs a few µs; the function stays async, so a
//   missing file is still a rejected promise.
// - The check of Node's version against oclif's `engines` (`>=18.0.0`) when its index loads:
//   semver's module builds its ~40 regexes and a Range for one comparison (~3 ms). A range of
//   the form `>=X[.Y[.Z]]` against a plain version is three numbers compared; any other range
//   still goes to semver.
// - Two Node modules required when oclif loads and used only on rare paths: `node:perf_hooks`
//   (~1 ms; oclif's timings, off unless asked for: the global `performance` is the same object)
//   and `node:child_process` (~1 ms; a PowerShell query on Windows under WSL). Each is required
//   on first use instead.
// - Where each plugin of `oclif.plugins` lives: oclif asks `require.resolve(name, { paths: [root] })`
//   for every one (~20), then walks up from the main file to its package.json (~4 ms). The first
//   folder that lookup tries is `<root>/node_modules/<name>`, so when a package.json is there the
//   walk starts from that folder (symbolic links resolved, as require resolves them); otherwise
//   oclif asks `require.resolve` as before.
export const PATCHES = [
  {
    file: 'lib/config/plugin-loader.js',
    from: 'patterns.some((w) => (0, minimatch_1.minimatch)(p, w))',
    to: 'patterns.some((w) => (__oryxosPackageName.test(w) ? p === w : (0, minimatch_1.minimatch)(p, w)))',
  },
  {
    file: 'lib/config/plugin.js',
    from: '.sort((a, b) => a.id.localeCompare(b.id))',
    to: '.sort((a, b) => __oryxosIdOrder(a.id, b.id))',
  },
  {
    file: 'lib/util/fs.js',
    from: "const contents = await (0, promises_1.readFile)(path, 'utf8');",
    to: "const contents = (0, node_fs_1.readFileSync)(path, 'utf8');",
  },
  {
    file: 'lib/index.js',
    from: "const semver = require('semver');",
    to: "const semver = { satisfies: (version, range) => __oryxosAtLeast(version, range, () => require('semver')) };",
  },
  {
    file: 'lib/performance.js',
    from: 'const node_perf_hooks_1 = require("node:perf_hooks");',
    to: 'const node_perf_hooks_1 = { performance: globalThis.performance, get PerformanceObserver() { return require("node:perf_hooks").PerformanceObserver; } };',
  },
  {
    file: 'lib/util/os.js',
    from: 'const node_child_process_1 = require("node:child_process");',
    to: 'const node_child_process_1 = { get execSync() { return require("node:child_process").execSync; } };',
  },
  {
    file: 'lib/util/find-root.js',
    from: 'pkgPath = require.resolve(name, { paths: [root] });',
    to: 'pkgPath = __oryxosPackageJson(name, root) ?? require.resolve(name, { paths: [root] });',
  },
];

/** A pattern in `oclif.plugins` that is a plain package name: it contains no glob, so it matches exactly itself. */
export const PACKAGE_NAME = /^(@[\w.-]+\/)?[\w.-]+$/;

/** Orders command ids as `a.localeCompare(b)` does (see PATCHES), without building ICU's collator for the usual ids. */
export function idOrder(a, b) {
  const plain = /^[a-z0-9:-]*$/;
  if (!plain.test(a) || !plain.test(b)) return a.localeCompare(b);
  const x = a.replaceAll(':', '/');
  const y = b.replaceAll(':', '/');
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * `semver.satisfies(version, range)` for Node's version against an `engines` range (see PATCHES):
 * `>=X`, `>=X.Y` or `>=X.Y.Z` against `X.Y.Z` without semver; anything else asks `semver()`.
 */
export function atLeast(version, range, semver) {
  const floor = /^\s*>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(range);
  const have = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!floor || !have) return semver().satisfies(version, range);
  for (let i = 1; i <= 3; i++) {
    const a = Number(have[i]);
    const b = Number(floor[i] ?? 0);
    if (a !== b) return a > b;
  }
  return true;
}

/**
 * `<root>/node_modules/<name>/package.json` with the folder's symbolic links resolved, when that
 * file is there: the first place `require.resolve(name, { paths: [root] })` looks (see PATCHES).
 */
export function packageJson(name, root) {
  const { existsSync, realpathSync } = process.getBuiltinModule('node:fs');
  const path = process.getBuiltinModule('node:path');
  const dir = path.join(root, 'node_modules', name);
  return existsSync(path.join(dir, 'package.json')) ? path.join(realpathSync.native(dir), 'package.json') : undefined;
}
