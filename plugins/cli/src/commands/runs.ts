import { Flags } from '@oclif/core';
import type { RunRecord } from '@oryxos/contracts';
import { OryxCommand } from '@oryxos/command-kit';
import { table } from '@oryxos/command-kit';
import { listJson, type ListJson } from '@oryxos/command-kit';
import { resolveSessionId } from '@oryxos/command-kit';

export default class Runs extends OryxCommand {
  static override summary = 'List how runs ended, newest first: stop reason, iterations, tool calls, tokens (cached: from the provider\'s prompt cache), retries, time.';
  static override description = 'Every run has a record from its start, whatever its end: running, final, limit, budget, loop, aborted, error '
    + '(with its error code), suspended, or crashed (its process died; found at the next start).';
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
    const sessions = kernel.service('sessions');
    const runRecords = kernel.service('runRecords');
    const session = flags.session ? await resolveSessionId(sessions, flags.session) : undefined;
    const runs = await runRecords.list({ ...(session ? { sessionId: session.id } : {}), limit: flags.limit });
    if (!this.jsonEnabled()) {
      if (runs.length === 0) this.log('No runs yet.');
      else {
        this.log(table(runs.map((r) => ({
          run: r.runId.slice(0, 8), session: r.sessionId.slice(0, 8), agent: r.agent, started: r.startedAt.replace('T', ' ').slice(0, 19),
          stop: r.stopReason, iterations: r.iterations, tools: r.toolCalls, tokens: r.inputTokens + r.outputTokens,
          cached: r.cacheReadTokens ?? '', retries: r.retries,
          ms: r.finishedAt ? r.durationMs : '', why: r.errorCode ?? r.notice ?? '',
        })), ['run', 'session', 'agent', 'started', 'stop', 'iterations', 'tools', 'tokens', 'cached', 'retries', 'ms', 'why']));
      }
    }
    return listJson(runs);
  }
}
