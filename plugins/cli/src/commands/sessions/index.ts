import { Flags } from '@oclif/core';
import type { Page, SessionInfo } from '@oryxos/contracts';
import { OryxCommand } from '@oryxos/command-kit';
import { table } from '@oryxos/command-kit';

export default class Sessions extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List stored sessions, most recently active first.';
  static override examples = [
    '<%= config.bin %> sessions',
    '<%= config.bin %> sessions --agent researcher --limit 5',
    '<%= config.bin %> sessions --tag eval:smoke',
    '<%= config.bin %> sessions --json',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    agent: Flags.string({ char: 'a', summary: 'Only sessions of this agent.' }),
    tag: Flags.string({ char: 't', summary: 'Only sessions with this tag (set when they were created).' }),
    limit: Flags.integer({ char: 'n', summary: 'Sessions per page.', default: 20, min: 1, max: 1000 }),
    cursor: Flags.string({ summary: 'Show the page after this cursor (printed under the previous page).' }),
  };

  async run(): Promise<Page<SessionInfo>> {
    const { flags } = await this.parse(Sessions);
    const { kernel } = await this.boot();
    const page = await kernel.service('sessions').list({ agent: flags.agent, tag: flags.tag, limit: flags.limit, cursor: flags.cursor });
    if (!this.jsonEnabled()) {
      if (page.items.length === 0) this.log(flags.cursor ? 'No more sessions.' : 'No sessions yet. Start one with `oryx run "hello"`.');
      else {
        // A sub-agent's session says whose it is (the caller's short id) when the page has one.
        const linked = page.items.some((s) => s.parentSessionId);
        this.log(table(page.items.map((s) => ({
          id: s.id, agent: s.agent, ...(linked ? { parent: s.parentSessionId?.slice(0, 8) ?? '' } : {}),
          messages: s.messageCount, turns: s.turns, updated: s.updatedAt.replace('T', ' ').slice(0, 19), title: s.title,
        })), ['id', 'agent', ...(linked ? ['parent' as const] : []), 'messages', 'turns', 'updated', 'title']));
      }
      if (page.nextCursor) this.log(`\nmore: ${this.config.bin} sessions --cursor ${page.nextCursor}${flags.agent ? ` --agent ${flags.agent}` : ''}${flags.tag ? ` --tag ${flags.tag}` : ''}`);
    }
    return page;
  }
}
