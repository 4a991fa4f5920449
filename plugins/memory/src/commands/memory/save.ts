import { Args, Flags } from '@oclif/core';
import { OryxError } from '@oryxos/provider-spec';
import type { MemoryEntry } from '@oryxos/contracts';
import { OryxCommand, readStdin } from '@oryxos/command-kit';
import { displayPath, scopedStore, storeFor, targetOf, userFlag } from '../../cli.ts';

export default class MemorySave extends OryxCommand {
  static override summary = "Save a dated entry to an agent's long-term memory (the Archive, or Core with --core).";
  static override description = 'Appends `- YYYY-MM-DD: TEXT` to the zone in the MEMORY.md the agent uses, atomically and under a lock, '
    + 'so it is safe while agents are running. Core is capped (coreMaxChars); pass - to read the text from standard input.';
  static override examples = [
    '<%= config.bin %> memory save "The user prefers metric units" --core -a assistant',
    '<%= config.bin %> memory save "Migrated the staging DB to v14" -a assistant',
    '<%= config.bin %> memory save "Ana is on call this week" --user ana',
    'echo "a longer note" | <%= config.bin %> memory save - --json',
  ];
  static override enableJsonFlag = true;
  static override args = {
    text: Args.string({ description: 'The fact to remember; - reads it from standard input.', required: true }),
  };
  static override flags = {
    agent: Flags.string({ char: 'a', summary: 'Agent name (default: defaultAgent from the config, else assistant).' }),
    core: Flags.boolean({ summary: 'Save to Core (always in the prompt, capped) instead of the Archive.', default: false }),
    user: userFlag(),
  };

  async run(): Promise<{ agent: string; zone: 'core' | 'archive'; path: string; entry: MemoryEntry; duplicate: boolean }> {
    const { args, flags } = await this.parse(MemorySave);
    const text = args.text === '-' ? (await readStdin()).trim() : args.text;
    if (!text.trim()) throw new OryxError('ORYX_E_CLI_USAGE', 'Nothing to save: the text is empty', { hint: 'Pass the fact as an argument, or - to read it from standard input.' });
    const { kernel, config } = await this.boot();
    const agent = (await kernel.agents.load(flags.agent ?? config.defaultAgent)).name;
    const store = storeFor(kernel);
    const zone = flags.core ? 'core' : 'archive';
    let entry: MemoryEntry;
    let duplicate = false;
    let file: string;
    const target = targetOf(flags);
    const scoped = scopedStore(store, target);
    if (scoped) {
      ({ entry, duplicate, path: file } = await scoped.saveEntry(agent, text, zone, target));
    } else {
      entry = await store.save(agent, text, zone);
      file = (await store.read(agent)).path;
    }
    if (!this.jsonEnabled()) {
      this.log(duplicate
        ? `Already in ${zone === 'core' ? 'Core' : 'the Archive'} of ${displayPath(file)}; nothing changed.`
        : `Saved to ${zone === 'core' ? 'Core' : 'the Archive'} of ${displayPath(file)}: ${entry.date}: ${entry.text}`);
    }
    return { agent, zone, path: file, entry, duplicate };
  }
}
