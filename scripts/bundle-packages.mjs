// Bundles each OryxOS package's JavaScript (after `tsc -b`): every file the package exports, and
// each oclif command and hook, becomes one module holding the package's own code it imports, with
// the code shared between them in chunks and every `await import('./x.ts')` kept as a chunk loaded
// on demand (esbuild, code splitting). Node then resolves and reads a few files per package
// instead of one per source file: `oryx agents` went from ~160 OryxOS module files to ~30.
//
// What stays as it was: other packages (another OryxOS package included) are imported by name,
// never copied in, so a process still holds one kernel and one @oclif/core, and a plugin added
// with `oryx plugins install` gets the host's copy (bin/host-modules.js) as before; the
// declaration files (.d.ts) are tsc's; the entry files keep their names (package.json `exports`,
// `oclif.commands`, `oclif.hooks`), with source maps to src/ (`node --enable-source-maps`).
// `import.meta.url` in a module means where tsc put that module (dist/x.js), wherever its code
// lands now, so files found next to a module (package.json, dist/console, worker/) still are.
// tsc's per-file output that no entry is made of any more is removed, so nothing can import a
// second copy of a module by a deep path.
// Usage: node scripts/bundle-packages.mjs [package folder …]   (default: every package)
import { build, transform } from 'esbuild';
import { builtinsWithoutImport } from './bundle-builtins.mjs';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const folders = (dir) => readdirSync(path.join(root, dir)).sort().map((d) => `${dir}/${d}`);
const wanted = process.argv.slice(2);
const packages = wanted.length ? wanted : ['kernel', 'kernel/testing', ...folders('kits'), ...folders('plugins')];

const walk = (dir) => (existsSync(dir) ? readdirSync(dir).flatMap((f) => {
  const p = path.join(dir, f);
  return statSync(p).isDirectory() ? walk(p) : [p];
}) : []);
/** The file an `exports` target means under the `import`/`node`/`default` conditions. */
const target = (value) => (typeof value === 'string' ? value : value && (target(value.import) ?? target(value.node) ?? target(value.default)));

/** The source files a package's entry points are built from (src/x.ts for dist/x.js). */
function entryPoints(dir) {
  const src = path.join(dir, 'src');
  const fromDist = (file) => {
    const rel = path.relative(path.join(dir, 'dist'), path.resolve(dir, file));
    return rel.startsWith('..') || !rel.endsWith('.js') ? undefined : path.join(src, rel.replace(/\.js$/, '.ts'));
  };
  if (!existsSync(path.join(dir, 'package.json'))) return [path.join(src, 'index.ts')]; // kernel/testing: part of the kernel package
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const files = [];
  const exported = pkg.exports ?? { '.': pkg.main };
  for (const [sub, value] of Object.entries(typeof exported === 'string' ? { '.': exported } : exported)) {
    if (!sub.includes('*')) files.push(fromDist(target(value) ?? ''));
  }
  if (pkg.oclif?.commands) files.push(...walk(path.resolve(dir, pkg.oclif.commands)).filter((f) => f.endsWith('.js')).map(fromDist));
  for (const hook of Object.values(pkg.oclif?.hooks ?? {}).flat()) files.push(fromDist(typeof hook === 'string' ? hook : hook.target));
  return [...new Set(files.filter((f) => f && existsSync(f)))];
}

// `import.meta.url` becomes a marker naming the module's own dist file, replaced in each output
// by that file's URL relative to the output (below).
const META = '__oryxos_module_url';
const metaUrl = (dir) => ({
  name: 'module-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const distFile = path.relative(dir, args.path).replace(/^src/, 'dist').replace(/\.ts$/, '.js');
      // A syntax-aware swap (strings and comments that mention import.meta.url stay as written).
      const { code, map } = await transform(source, {
        loader: 'ts', format: 'esm', sourcefile: args.path, sourcemap: 'external', sourcesContent: false,
        define: { 'import.meta.url': META }, tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
      });
      const inline = `//# sourceMappingURL=data:application/json;base64,${Buffer.from(map).toString('base64')}`;
      return { loader: 'js', contents: `var ${META} = "@@oryxos-module-url:${distFile}@@";${code}\n${inline}\n` };
    });
  },
});

// Libraries that are a package's own business (no state shared with other packages, no native
// code) are copied into its bundle with everything they import, so Node does not load them file
// by file nor scan their CommonJS for ESM named exports: semver's functions (~20 files) and
// tapable's hooks (15) for the kernel and the CLI, secretlint (~28 files, the audit redactor's
// scanner, in the chunk loaded with the first audit row). `yaml` (~80 files) goes into one
// package only, schema-kit's `yaml` module, which every other package imports it from, so a
// process holds one copy. Anything else stays an import by name.
const INLINE = /^(semver|tapable|@secretlint\/[^/]+)(\/|$)/;
// `@oclif/core` is imported from its one-file copy (scripts/bundle-oclif.mjs): one module for
// every package of the process, instead of ~250 files (the sources import the package itself).
const OCLIF = '@oryxos/command-kit/oclif';
const INLINE_IN = { 'kits/schema': /^yaml(\/|$)/ };
const externals = (folder) => ({
  name: 'externals',
  setup(b) {
    const inline = (p) => INLINE.test(p) || INLINE_IN[folder]?.test(p);
    b.onResolve({ filter: /^[^./]/ }, (args) => (inline(args.path) || args.importer.includes(`${path.sep}node_modules${path.sep}`)
      ? undefined
      : { path: args.path === '@oclif/core' ? OCLIF : args.path, external: true }));
  },
});
// Inlined CommonJS that requires Node's own modules (tapable: `util`) goes through esbuild's
// `__require`, which needs a `require` in scope: an ES module has none, so one is made (on the
// first line, so the source map's lines stay right).
const REQUIRE = "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url); ";

for (const folder of packages) {
  const dir = path.join(root, folder);
  const src = path.join(dir, 'src');
  const dist = path.join(dir, 'dist');
  if (!existsSync(src) || !existsSync(dist)) continue;
  const entries = entryPoints(dir);
  if (!entries.length) continue;
  const result = await build({
    entryPoints: entries,
    outbase: src,
    outdir: dist,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    chunkNames: 'chunks/[name]-[hash]',
    tsconfig: path.join(dir, 'tsconfig.json'),
    metafile: true,
    write: true,
    logLevel: 'error',
    plugins: [externals(folder), metaUrl(dir)],
  });
  const outputs = new Set(Object.keys(result.metafile.outputs).map((f) => path.resolve(root, f)));
  for (const out of outputs) {
    if (!out.endsWith('.js')) continue;
    const original = readFileSync(out, 'utf8');
    const text = builtinsWithoutImport(original);
    const needsRequire = text.includes('Dynamic require of "');
    if (!needsRequire && text === original && !text.includes('@@oryxos-module-url:')) continue;
    writeFileSync(out, (needsRequire ? REQUIRE : '') + text.replace(/"@@oryxos-module-url:([^"@]+)@@"/g, (_, file) => {
      const rel = path.relative(path.dirname(out), path.join(dir, file)).split(path.sep).join('/');
      return `new URL(${JSON.stringify(rel.startsWith('.') ? rel : `./${rel}`)}, import.meta.url).href`;
    }));
  }
  // tsc's output of a source file that is now inside an entry or a chunk (its .d.ts stays).
  // And all tsc wrote for a source file since deleted (its .js has a .d.ts beside it; files
  // without one, like the web console's assets, are not tsc's and stay).
  const stale = walk(dist).filter((file) => {
    const js = /\.js(\.map)?$/.test(file) ? file.replace(/\.map$/, '') : /\.d\.ts(\.map)?$/.test(file) ? file.replace(/\.d\.ts(\.map)?$/, '.js') : undefined;
    if (!js || outputs.has(path.resolve(js))) return false;
    if (existsSync(path.join(src, path.relative(dist, js)).replace(/\.js$/, '.ts'))) return !file.includes('.d.ts');
    return existsSync(js.replace(/\.js$/, '.d.ts'));
  });
  for (const file of stale) rmSync(file);
  // Chunks of an earlier build that this one no longer writes.
  for (const file of walk(path.join(dist, 'chunks'))) if (!outputs.has(path.resolve(file))) rmSync(file);
}
