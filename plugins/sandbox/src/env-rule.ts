/**
 * Environment variables of child processes. A child starts with the kernel's minimal
 * environment; `exec.env` (and an entry's `env`) name what may be added. Some variables exist
 * to change what a program does — load code, run hooks, read another config — so a pattern
 * never covers them: they must be listed by their exact name.
 */

/** Variables that make a program load or run something else, by exact name. */
const CHANGES_BEHAVIOUR = new Set([
  'PATH', 'HOME', 'SHELL', 'ENV', 'BASH_ENV', 'CDPATH', 'IFS', 'PS4', 'PROMPT_COMMAND', 'SHELLOPTS', 'BASHOPTS', 'GLOBIGNORE', 'ZDOTDIR',
  'NODE_OPTIONS', 'NODE_PATH', 'NODE_REPL_EXTERNAL_MODULE', 'NODE_EXTRA_CA_CERTS',
  'CLASSPATH', 'EDITOR', 'VISUAL', 'PAGER', 'MANPAGER', 'LESSOPEN', 'LESSCLOSE', 'BROWSER', 'SSH_ASKPASS', 'SUDO_ASKPASS',
  'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CONFIG_DIRS', 'XDG_DATA_DIRS', 'GCONV_PATH', 'LOCPATH', 'NLSPATH', 'HOSTALIASES',
  'GLIBC_TUNABLES', 'OPENSSL_CONF', 'OPENSSL_ENGINES', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'CURL_HOME', 'WGETRC', 'GNUPGHOME',
  'PHPRC', 'PHP_INI_SCAN_DIR', 'BUNDLE_GEMFILE', 'GEM_HOME', 'GEM_PATH', 'CARGO_HOME', 'RUSTC_WRAPPER', 'RUSTC', 'GOFLAGS', 'GOPATH',
  'MAKEFLAGS', 'MFLAGS', 'CC', 'CXX', 'LD', 'TMPDIR',
]);

/** Families of such variables, by prefix. */
const CHANGES_BEHAVIOUR_PREFIX = [
  'LD_', 'DYLD_', 'GIT_', 'BASH_FUNC_', 'npm_config_', 'NPM_CONFIG_', 'YARN_', 'PNPM_', 'PYTHON', 'PERL', 'RUBY', 'JAVA_', '_JAVA_',
  'JDK_JAVA_', 'LUA_', 'MALLOC_', 'DENO_', 'BUN_', 'PIP_', 'CARGO_', 'GRADLE_', 'MAVEN_',
];

/**
 * Why a variable is one that changes what a program does (for the denial reason), or
 * undefined for an ordinary one.
 *
 * @example
 * behaviourChange('GIT_CONFIG_COUNT') // 'GIT_* variables'
 * behaviourChange('LANG')             // undefined
 */
export function behaviourChange(name: string): string | undefined {
  if (CHANGES_BEHAVIOUR.has(name)) return name;
  const prefix = CHANGES_BEHAVIOUR_PREFIX.find((p) => name.startsWith(p));
  return prefix ? `${prefix}* variables` : undefined;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What is wrong with an `exec.env` entry (`NAME` or `PREFIX*`), or undefined. */
export function parseEnvName(entry: string): string | undefined {
  const bare = entry.endsWith('*') ? entry.slice(0, -1) : entry;
  if (bare === '' && entry === '*') return undefined;
  return NAME.test(bare) ? undefined : 'must be a variable name (LANG) or a prefix ending in * (LC_*)';
}

/**
 * Whether `name` is allowed by `patterns`: an exact entry always; a pattern (`LC_*`, `*`) only
 * for variables that do not change what a program does.
 */
export function envAllowed(patterns: readonly string[], name: string): boolean {
  if (patterns.includes(name)) return true;
  if (behaviourChange(name)) return false;
  return patterns.some((p) => p.endsWith('*') && name.startsWith(p.slice(0, -1)));
}

/**
 * The reason a variable set by the launcher is refused, or undefined when `patterns` allow it.
 * `forWhat` names the program in the reason.
 */
export function envProblem(patterns: readonly string[], name: string, value: unknown, forWhat: string): string | undefined {
  if (!NAME.test(name)) return `environment variable name ${JSON.stringify(name)} is not valid`;
  if (typeof value !== 'string' || value.includes('\0')) return `environment variable ${name} must be a string without NUL bytes`;
  if (envAllowed(patterns, name)) return undefined;
  const why = behaviourChange(name);
  if (why) {
    return `environment variable ${name} is not allowed for ${forWhat}: ${why === name ? 'it' : why} can change what a program does `
      + `(load code, run hooks, read another config), so it must be listed by its exact name in exec.env (sandbox({ exec: { env: ['${name}'] } }))`;
  }
  return `environment variable ${name} is not allowed for ${forWhat}: it is not on the exec.env allow-list (sandbox({ exec: { env: ['${name}'] } }))`;
}
