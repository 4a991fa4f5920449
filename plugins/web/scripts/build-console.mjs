// Builds the web console into dist/console: type-checks console/ (tsc), bundles it with esbuild
// into one hashed script and one hashed style sheet, copies the icon under its hash, and writes
// index.html naming them. `npm run build` (root) runs it through this package's build script.
// Usage: node scripts/build-console.mjs
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const pkg = path.resolve(import.meta.dirname, '..');
const source = path.join(pkg, 'console');
const out = path.join(pkg, 'dist', 'console');
const assets = path.join(out, 'assets');
const require = createRequire(import.meta.url);

execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(source, 'tsconfig.json')], { stdio: 'inherit' });

const esbuild = await import('esbuild');
await rm(out, { recursive: true, force: true });
await mkdir(assets, { recursive: true });
const result = await esbuild.build({
  entryPoints: [path.join(source, 'main.tsx')],
  outdir: assets,
  entryNames: 'console-[hash]',
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  legalComments: 'eof',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  metafile: true,
  logLevel: 'warning',
});
const built = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
const script = built.find((f) => f.endsWith('.js'));
const style = built.find((f) => f.endsWith('.css'));
if (!script || !style) throw new Error(`console build: expected one .js and one .css, got ${built.join(', ')}`);

const icon = await readFile(path.join(source, 'icon.svg'));
const iconName = `icon-${createHash('sha256').update(icon).digest('hex').slice(0, 8)}.svg`;
await writeFile(path.join(assets, iconName), icon);

// Relative URLs, so the console also works behind a proxy that serves it under a sub-path.
await writeFile(path.join(out, 'index.html'), `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>OryxOS</title>
<link rel="icon" href="assets/${iconName}" type="image/svg+xml">
<link rel="stylesheet" href="assets/${style}">
<script type="module" src="assets/${script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The OryxOS console needs JavaScript. The API is described at <a href="docs">/docs</a>.</noscript>
</body>
</html>
`);
const sizes = await Promise.all(['index.html', `assets/${script}`, `assets/${style}`, `assets/${iconName}`].map(async (f) => (await readFile(path.join(out, f))).length));
console.log(`console: ${sizes.reduce((a, b) => a + b, 0)} bytes (${script} ${sizes[1]}, ${style} ${sizes[2]})`);
