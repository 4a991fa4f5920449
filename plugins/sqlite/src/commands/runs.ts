import { Flags } from '@oclif/core';
import type { RunRecord } from '@oryxos/contracts';
import { OryxCommand, listJson, table, type ListJson } from '@oryxos/plugin-cli';
import { resolveSession } from '../resolve-session.ts';

export default class Runs extends OryxCommand {
  static override summary = 'List how runs ended, newest first: stop reason, iterations, tool calls, tokens, retries, time.';
  static override description = 'Every run has a record, whatever its end: final, limit, budget, loop, aborted or error '
    + '(with its error code).';
  static override examples = [
    '<%= config.bin %> runs',
    '<%= config.bin %> runs --session 3f2a9c1e',
    '<%= config.bin %> runs --json',
  ];
  static override enableJsonFlag = true;
  static override readOnly = true;
  static override flags = {
    session: Flags.string({ char: 's', summary: 'Only the runs of this session (its id or a unique prefix of it).' }),
    limit: Flags.integer({ char: 'n', summary: 'How many runs.', default: 20, min: 1, max: 1000 }),
  };

  async run(): Promise<ListJson<RunRecord>> {
    const { flags } = await this.parse(Runs);
    const { kernel } = await this.boot();
    const session = flags.session ? await resolveSession(kernel.service('sessions'), flags.session) : undefined;
    const runs = await kernel.service('runRecords').list({ ...(session ? { sessionId: session.id } : {}), limit: flags.limit });
    if (!this.jsonEnabled()) {
      if (runs.length === 0) this.log('No runs yet.');
      else {
        this.log(table(runs.map((r) => ({
          run: r.runId.slice(0, 8), session: r.sessionId.slice(0, 8), agent: r.agent, started: r.startedAt.replace('T', ' ').slice(0, 19),
          stop: r.stopReason, iterations: r.iterations, tools: r.toolCalls, tokens: r.inputTokens + r.outputTokens, retries: r.retries,
          ms: r.durationMs, why: r.errorCode ?? r.notice ?? '',
        })), ['run', 'session', 'agent', 'started', 'stop', 'iterations', 'tools', 'tokens', 'retries', 'ms', 'why']));
      }
    }
    return listJson(runs);
  }
}
