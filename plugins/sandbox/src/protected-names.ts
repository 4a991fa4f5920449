/**
 * The config file names OryxOS looks for in a folder (the CLI's discovery takes the first of
 * its list that exists), and a few it may learn: protected in every folder, since `oryx`
 * started in that folder would run the file.
 */
export const CONFIG_NAMES: readonly string[] = Object.freeze(
  ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs', 'json'].map((ext) => `oryx.config.${ext}`),
);

const CONFIG_WHY = 'oryx runs a config file by this name as code when it starts in this folder';

/** Names protected wherever they are: programs read them from the folder they run in and its parents. */
export const PROTECTED_NAMES: Readonly<Record<string, string>> = Object.freeze({
  '.git': 'git runs hooks and reads its config from .git, also when you run git yourself later',
  node_modules: 'node runs the code in node_modules',
  'package.json': 'npm runs the scripts of package.json, and node resolves packages through it',
  '.npmrc': 'npm reads its settings (including the shell and node options it runs with) from .npmrc',
  '.oryxos': 'it is an OryxOS workspace: its agents, skills and mcp_servers.yaml become the prompt, the sandbox and the programs of later runs',
  __pycache__: 'Python runs the compiled modules in __pycache__ instead of their source',
  ...Object.fromEntries(CONFIG_NAMES.map((name) => [name, CONFIG_WHY])),
});

/**
 * The entries of a git folder that make git run something or read settings from elsewhere:
 * its config (aliases, core.fsmonitor, core.hooksPath, filters), hooks, `commondir` (another
 * folder whose config and hooks apply), the git folders of submodules and worktrees, `info/`
 * (attributes select filters and diff drivers). The rest (objects, refs, the index, HEAD, logs)
 * is data git writes on every commit, and stays writable for confined programs.
 */
export const GIT_CONTROL: readonly string[] = Object.freeze(['config', 'config.worktree', 'hooks', 'info', 'commondir', 'modules', 'worktrees']);
