import type { Hook } from '@oclif/core';

/**
 * `oryx sesions` → `error ORYX_E_CLI_UNKNOWN_COMMAND: "sesions" is not an oryx command (did you
 * mean "sessions"?)`, exit 2. The typed words are matched against commands and topics of the
 * same depth (`sessions shwo ID` → `sessions show`) with the kernel's closest-match rule, the
 * one config keys and tool names use; nothing is run on a guess.
 */
const hook: Hook.CommandNotFound = async function notFound(opts) {
  const [{ closest }, { escapeControls }] = await Promise.all([import('@oryxos/schema-kit'), import('@oryxos/plugin-kit')]);
  const { config } = opts;
  const sep = config.topicSeparator === ' ' ? ' ' : ':';
  const shown = (id: string) => id.replaceAll(':', sep);
  const known = [
    ...config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases]),
    ...config.topics.filter((t) => !t.hidden).map((t) => t.name),
  ];
  const words = opts.id.split(':');
  let suggestion: string | undefined;
  for (let n = words.length; n >= 1 && !suggestion; n--) {
    const typed = words.slice(0, n).join(':');
    suggestion = closest(typed, new Set(known.filter((k) => k.split(':').length === n)));
  }
  const typed = escapeControls(shown(opts.id), { oneLine: true });
  const error = {
    code: 'ORYX_E_CLI_UNKNOWN_COMMAND',
    message: `"${typed}" is not an ${config.bin} command${suggestion ? ` (did you mean "${shown(suggestion)}"?)` : ''}`,
    hint: suggestion
      ? `Run \`${config.bin} ${shown(suggestion)} --help\` to see how it is used, or \`${config.bin} help\` for every command.`
      : `Run \`${config.bin} help\` for the list of commands.`,
  };
  if ((opts.argv ?? []).includes('--json')) process.stdout.write(`${JSON.stringify({ error }, null, 2)}\n`);
  else process.stderr.write(`error ${error.code}: ${error.message}\n  hint: ${error.hint}\n`);
  this.exit(2);
};

export default hook;
