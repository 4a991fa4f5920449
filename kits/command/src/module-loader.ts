/**
 * Loading an ES module by URL the quick way where Node allows it: `require` of an ES module
 * (Node ≥ 20.19) loads the file and everything it imports in one synchronous pass, where
 * `import()` takes one asynchronous loader step per file. Used for the packages `oryx.config.ts`
 * imports (config-cache.ts).
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * Whether module hooks may be registered in this process: the plugin-install hooks (`bin/run.js`,
 * `oryx plugins install`), or a Node started with `--import`/`--loader` (tsx, a tracer). `require`
 * would pass them by, so a process with them loads everything with `import()`.
 */
export function moduleHooks(): boolean {
  if ((globalThis as Record<symbol, unknown>)[Symbol.for('oryxos.hostModules')]) return true;
  return /--(import|loader|experimental-loader)\b/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
}

/**
 * The namespace of the module at `url`, loaded with `require` when `sync` (by default: when no
 * module hooks are registered) and it is an ES module `require` can load. `import()` as before
 * for a module with top-level `await` (or in a cycle `require` cannot enter), a CommonJS file
 * (whose namespace `import()` builds), a Node with require(esm) off, and any URL not `file:`.
 * Node keeps one instance of a module for both ways.
 *
 * @example
 * const { default: plugin } = await loadModule(pathToFileURL('/proj/node_modules/x/index.js').href);
 */
export async function loadModule(url: string, sync = !moduleHooks()): Promise<Record<string, unknown>> {
  if (sync && url.startsWith('file:')) {
    let loaded: unknown;
    try {
      loaded = require(fileURLToPath(url));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== 'ERR_REQUIRE_ASYNC_MODULE' && code !== 'ERR_REQUIRE_ESM' && code !== 'ERR_REQUIRE_CYCLE_MODULE') throw error;
    }
    if (Object.prototype.toString.call(loaded) === '[object Module]') return loaded as Record<string, unknown>;
  }
  return await import(url) as Record<string, unknown>;
}
