import type { Logger } from '@oryxos/kernel';

/**
 * The logger the `oryx mcp` commands boot with: the table they print already says why a
 * server is unavailable, so the plugin's own warnings would only repeat it.
 */
export function quietMcpLogger(print: (line: string) => void): Logger {
  return {
    debug() {},
    info() {},
    warn(message) { if (!message.startsWith('mcp: ')) print(`warning: ${message}`); },
  };
}
