import { Args, Flags } from '@oclif/core';
import type { MemoryEntry } from '@oryxos/contracts';
import { OryxCommand, listJson, type ListJson } from '@oryxos/command-kit';
import { scopedStore, storeFor, userFlag } from '../../cli.ts';
import { RECALL_MAX_LIMIT } from '../../tools.ts';

export default class MemoryRecall extends OryxCommand {
  static override readOnly = true;
  static override summary = "Search an agent's archived memory, best match first (the same ranking as the recall_memory tool).";
  static override description = 'Keyword ranking (BM25) over the Archive entries of the MEMORY.md the agent uses; '
    + 'Chinese, Japanese and Korean text is matched by characters and character pairs.';
  static override examples = [
    '<%= config.bin %> memory recall "staging database" -a assistant',
    '<%= config.bin %> memory recall 用户喜欢 --limit 3 --json',
    '<%= config.bin %> memory recall "on call" --user ana',
  ];
  static override enableJsonFlag = true;
  static override args = {
    query: Args.string({ description: 'Keywords to look for.', required: true }),
  };
  static override flags = {
    agent: Flags.string({ char: 'a', summary: 'Agent name (default: defaultAgent from the config, else assistant).' }),
    limit: Flags.integer({ char: 'n', summary: 'Most entries to return.', default: 5, min: 1, max: RECALL_MAX_LIMIT }),
    user: userFlag("Search this user's memory too (the agent's is always searched)."),
  };

  async run(): Promise<ListJson<MemoryEntry & { score: number }> & { agent: string; query: string }> {
    const { args, flags } = await this.parse(MemoryRecall);
    const { kernel, config } = await this.boot();
    const agent = (await kernel.agents.load(flags.agent ?? config.defaultAgent)).name;
    const store = storeFor(kernel);
    const scoped = scopedStore(store, flags.user !== undefined ? { scope: 'user', user: flags.user } : { scope: 'agent' });
    const results = await (scoped?.recall(agent, args.query, flags.limit, { user: flags.user }) ?? store.recall(agent, args.query, flags.limit));
    if (!this.jsonEnabled()) {
      this.log(results.length
        ? results.map((r, i) => `${i + 1}. ${r.date || 'undated'}  ${'scope' in r ? `[${String(r.scope)}]  ` : ''}(score ${r.score})  ${r.text.replace(/\n/g, '\n   ')}`).join('\n')
        : `No archive entry matches "${args.query}".`);
    }
    return listJson(results, undefined, { agent, query: args.query });
  }
}
