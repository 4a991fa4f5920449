// Node module hooks for plugins added with `oryx plugins install` or `link`: when a module
// outside this installation imports a package OryxOS provides to plugins, it gets this
// installation's copy, whatever copy (if any) the plugin's own folder holds. One kernel and one
// @oclif/core per process: errors are recognised, commands exit cleanly, the kernel range the
// loader checks is the one that runs. Registered by run.js (ESM imports; plugins are ESM).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const anchor = pathToFileURL(path.join(root, 'package.json')).href;
const ONE_OCLIF = '@oryxos/command-kit/oclif';
const PROVIDED = /^(@oclif\/core|@oryxos\/(kernel|plugin-cli|command-kit|plugin-kit|provider-kit|provider-spec|contracts|schema-kit|stop-rules))(\/|$)/;

const inside = (url) => {
  if (!url?.startsWith('file:')) return false;
  const file = fileURLToPath(url);
  return file === root || file.startsWith(root + path.sep);
};

export async function resolve(specifier, context, next) {
  // @oclif/core itself is the one-file copy OryxOS's own packages import (scripts/bundle-oclif.mjs),
  // for a module inside the installation too (a plugin linked from a folder in it, oclif's own plugins).
  if (specifier === '@oclif/core') return next(ONE_OCLIF, { ...context, parentURL: anchor });
  if (PROVIDED.test(specifier) && context.parentURL && !inside(context.parentURL)) {
    return next(specifier, { ...context, parentURL: anchor });
  }
  return next(specifier, context);
}
