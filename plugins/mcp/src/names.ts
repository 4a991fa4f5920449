import { matchesToolPattern } from '@oryxos/schema-kit';

/** Model APIs accept `[a-zA-Z0-9_-]{1,64}` as tool names. */
const MAX_NAME = 64;

/**
 * The kernel name of an MCP tool: `<server>__<tool>`, with characters model APIs refuse
 * replaced by `_`, and a long name cut and given a short hash so it stays unique.
 *
 * @example
 * exposedName('github', 'create.issue'); // 'github__create_issue'
 */
export function exposedName(server: string, tool: string): string {
  const name = `${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  if (name.length <= MAX_NAME) return name;
  // node:crypto loads on first use, not with the plugin: a read command (`oryx agents`) never needs it.
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256').update(tool).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`;
}

/**
 * Whether an agent's allow-list entry could match some tool of this server, without knowing
 * its tools yet: that is what keeps connections lazy. The literal part before the first `*`
 * must be a prefix of `<server>__`, or start with it.
 *
 * @example
 * serverMayMatch('filesystem__*', 'filesystem'); // true
 * serverMayMatch('*', 'github');                 // true
 * serverMayMatch('read_file', 'filesystem');     // false
 */
export function serverMayMatch(pattern: string, server: string): boolean {
  const prefix = `${server}__`;
  const star = pattern.indexOf('*');
  const literal = star === -1 ? pattern : pattern.slice(0, star);
  if (star === -1) return literal.startsWith(prefix) && literal.length > prefix.length;
  return prefix.startsWith(literal) || literal.startsWith(prefix);
}

/** A server's `tools:` allow-list (its own tool names, `*` globs); absent = every tool. */
export function toolAllowed(allow: string[] | undefined, tool: string): boolean {
  return allow === undefined || allow.some((p) => matchesToolPattern(tool, p));
}
