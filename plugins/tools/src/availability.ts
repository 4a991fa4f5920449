import { STAGE, type PluginContext } from '@oryxos/kernel';
import type { ToolName } from './options.ts';

type Kind = 'read' | 'write' | 'exec' | 'http';

/** What each built-in tool needs the sandbox to allow at all. */
const NEEDS: Partial<Record<ToolName, Kind>> = {
  read_file: 'read', list_dir: 'read', write_file: 'write', edit_file: 'write', shell: 'exec', http_request: 'http',
};

/** The sandbox plugin's answer to "can any action of this kind be allowed?" (by shape: no import of that plugin). */
/**
 * When a run gives an agent a built-in tool that the sandbox can only deny (`shell` with an
 * empty exec.allow, `http_request` with no HTTP host, no sandbox plugin at all), the tool
 * still loads and its calls are denied as usual, but a one-line warning says so when the
 * agent first runs with it in this process.
 */
export function warnUnavailableTools(ctx: PluginContext, registered: ReadonlySet<string>): void {
  const warned = new Set<string>();
  ctx.hooks.prepareStep.tapPromise({ stage: STAGE.OBSERVE }, async (prompt, run) => {
    if (run.iteration !== 1) return prompt;
    for (const { name } of prompt.tools) {
      const kind = NEEDS[name as ToolName];
      const key = `${run.agent.name}\0${name}`;
      if (!kind || !registered.has(name) || warned.has(key)) continue;
      warned.add(key);
      const reason = ctx.serviceOwner('sandbox') === 'kernel'
        ? 'no sandbox plugin is enabled, so every action is denied (add sandbox({...}) to oryx.config.ts)'
        : await ctx.service('sandbox').unavailable?.(kind, run.agent);
      if (reason) ctx.log.warn(`agent "${run.agent.name}": tool "${name}" is unavailable: ${reason}; its calls will be denied`);
    }
    return prompt;
  });
}
