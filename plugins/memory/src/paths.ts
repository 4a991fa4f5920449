import path from 'node:path';
import { OryxError } from '@oryxos/provider-spec';
import { checkId, fileSafeName } from './scope.ts';

// Where memory files live, without reading them: shared by the store and by the memory
// service that stands in for it until its first read or write (lazy-store.ts).

const AGENT_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** A memory file past this many bytes has its oldest Archive entries rotated out (256 KiB). */
export const DEFAULT_ROTATE_BYTES = 256 * 1024;

/** An agent's own MEMORY.md and the workspace's shared one; throws ORYX_E_MEMORY_AGENT_INVALID for a name no folder can hold. */
export function agentPaths(workspaceDir: string, agent: string): { agent: string; shared: string } {
  if (!AGENT_NAME.test(agent)) {
    throw new OryxError('ORYX_E_MEMORY_AGENT_INVALID', `"${agent}" is not a valid agent name`, {
      hint: 'Agent names are folder names: letters, digits, _ . and -.',
    });
  }
  return {
    agent: path.join(workspaceDir, 'agents', agent, 'MEMORY.md'),
    shared: path.join(workspaceDir, 'memory', 'MEMORY.md'),
  };
}

/** The folder of a session's memory under `sessionsDir`. */
export function sessionDirOf(sessionsDir: string, session: string): string {
  return path.join(sessionsDir, fileSafeName(checkId('session', session)));
}

/** `<workspace>/memory/sessions`: where session memories live unless the plugin moves them. */
export const defaultSessionsDir = (workspaceDir: string) => path.join(workspaceDir, 'memory', 'sessions');
