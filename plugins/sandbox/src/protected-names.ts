/** Names protected wherever they are: programs read them from the folder they run in and its parents. */
export const PROTECTED_NAMES: Readonly<Record<string, string>> = Object.freeze({
  '.git': 'git runs hooks and reads its config from .git, also when you run git yourself later',
  node_modules: 'node runs the code in node_modules',
  'package.json': 'npm runs the scripts of package.json',
  '.npmrc': 'npm reads its settings (including the shell and node options it runs with) from .npmrc',
});
