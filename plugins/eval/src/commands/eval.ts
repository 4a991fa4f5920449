import { Args, Flags } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import type { EvalJson } from '../cli-run.ts';

export default class Eval extends OryxCommand {
  static override summary = 'Run an agent\'s test cases: replayed offline from their cassettes, or live; scored, with a table, JSON or JUnit XML.';
  static override description = 'Cases are YAML files in .oryxos/agents/<agent>/evals/ (or a folder or file given): the user turns, fixtures, and what '
    + 'the run must show (answer, tool calls, denials, stop reason, steps, tokens, time, a rubric for a judge model). Each case runs on '
    + 'a throwaway copy of the project with real tools and sandbox, in a session of its own tagged with the eval (`oryx sessions show`). '
    + 'A case with a cassette (evals/cassettes/<case>.jsonl) replays from it unless --live; --record runs live and writes it; a replay '
    + 'whose conversation or prompt no longer matches the recording reports "diverged" and the step. Exit status: 0 when every case '
    + 'passed (or was skipped), 1 when one failed, errored or diverged, 2 for a usage error. See docs/evals.md.';
  static override examples = [
    '<%= config.bin %> eval assistant',
    '<%= config.bin %> eval assistant --record --provider openai',
    '<%= config.bin %> eval .oryxos/agents/assistant/evals --replay --junit eval-results.xml',
    '<%= config.bin %> eval assistant --live --repeat 5 --filter readme',
    '<%= config.bin %> eval assistant --compare gpt-4o-mini gpt-4o',
  ];
  static override enableJsonFlag = true;
  static override args = {
    target: Args.string({ description: 'An agent name, a folder of case files or one case file (default: every agent\'s evals folder).' }),
  };
  static override flags = {
    live: Flags.boolean({ summary: 'Run every case against the agent\'s real provider, even one with a cassette.', default: false, exclusive: ['replay'] }),
    replay: Flags.boolean({ summary: 'Run every case from its cassette, offline; a case without one is an error (the default for cases that have one).', default: false, exclusive: ['live', 'record', 'compare'] }),
    record: Flags.boolean({ summary: 'Run live and write each case\'s cassette (replacing it once the run has ended).', default: false, exclusive: ['replay', 'compare'] }),
    filter: Flags.string({ char: 'f', summary: 'Only cases whose name contains this (any case), or matches it with * globs.' }),
    concurrency: Flags.integer({ char: 'j', summary: 'Cases run at once (default 1, or evals({ concurrency })).', min: 1, max: 64 }),
    repeat: Flags.integer({ char: 'n', summary: 'Runs of each case, for pass rates of flaky live cases.', min: 1, max: 1000, default: 1 }),
    junit: Flags.string({ summary: 'Also write the results as JUnit XML to this file, for CI.' }),
    compare: Flags.string({ summary: 'Run the cases live on two models (MODEL or PROVIDER:MODEL) or two config files, side by side.', multiple: true }),
    provider: Flags.string({ summary: 'Live and record: run on this provider instead of the agent\'s (its default model unless --model).' }),
    model: Flags.string({ summary: 'Run on this model instead of the agent\'s.' }),
    judge: Flags.string({ summary: 'The provider that judges llm_rubric checks: PROVIDER or PROVIDER:MODEL (default: evals({ judge }), else rubrics are skipped).' }),
  };

  async run(): Promise<EvalJson> {
    const { args, flags } = await this.parse(Eval);
    const { kernel, config } = await this.boot();
    const { evalCommand } = await import('../cli-run.ts');
    const json = this.jsonEnabled();
    const { json: result, failed } = await evalCommand(kernel, config, { ...flags, target: args.target, json }, {
      out: (text) => this.log(text),
      err: (text) => this.logToStderr(text),
      loadConfig: async (file) => {
        const { loadConfig } = await import('@oryxos/command-kit');
        const loaded = await loadConfig({ file });
        if (!loaded) throw new Error(`no config at ${file}`);
        return loaded;
      },
    });
    process.exitCode = failed ? 1 : 0;
    return result;
  }
}
