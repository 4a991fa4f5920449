import type { SandboxAction } from '@oryxos/contracts';

/**
 * An action in one line, for logs and the audit trail. Environment values are never shown
 * (they may be secrets), only their names.
 *
 * @example
 * describeAction({ kind: 'exec', command: 'git', args: ['status'], env: { LANG: 'C' } }) // 'exec ["git","status"] env LANG'
 */
export function describeAction(action: SandboxAction): string {
  switch (action?.kind) {
    case 'file': return `${action.op} ${action.path}`;
    case 'exec': {
      const env = Object.keys(action.env ?? {});
      return `exec ${JSON.stringify([action.command, ...(action.args ?? [])])}${action.cwd ? ` in ${action.cwd}` : ''}${env.length ? ` env ${env.join(' ')}` : ''}`;
    }
    case 'http': return `${action.method} ${action.url}`;
    case 'smtp': return `smtp ${action.host}:${action.port}`;
    default: return 'unknown action';
  }
}
