// Node module hooks for plugins added with `oryx plugins install` or `link`: when a module
// outside this installation imports a package OryxOS provides to plugins, it gets this
// installation's copy, whatever copy (if any) the plugin's own folder holds. One kernel and one
// @oclif/core per process: errors are recognised, commands exit cleanly, the kernel range the
// loader checks is the one that runs. Registered by run.js (ESM imports; plugins are ESM).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const anchor = pathToFileURL(path.join(root, 'package.json')).href;
const PROVIDED = /^(@oclif\/core|@oryxos\/(kernel|plugin-cli|command-kit|plugin-kit|provider-kit|provider-spec|contracts|schema-kit|stop-rules))(\/|$)/;

const inside = (url) => {
  if (!url?.startsWith('file:')) return false;
  const file = fileURLToPath(url);
  return file === root || file.startsWith(root + path.sep);
};

export async function resolve(specifier, context, next) {
  if (PROVIDED.test(specifier) && context.parentURL && !inside(context.parentURL)) {
    return next(specifier, { ...context, parentURL: anchor });
  }
  return next(specifier, context);
}
