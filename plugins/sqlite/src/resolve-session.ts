/**
 * The session an id or a unique id prefix names (the CLI's short ids); an ambiguous prefix is
 * an error listing the matches. One rule for every command that takes a session id.
 */
export { resolveSessionId as resolveSession } from '@oryxos/plugin-cli';
