import { OryxError } from '@oryxos/provider-spec';

/**
 * The CLI's side of the boundary policy for user text (the web channel refuses the same): a
 * message read from standard input with a NUL character is refused, naming its position,
 * never stored cut. A NUL in a message is never meant: it is binary or UTF-16 data piped in.
 * (Arguments cannot hold a NUL, and standard input is decoded as UTF-8, so no lone surrogate
 * reaches here.)
 *
 * @example
 * assertText(await readStdin(), 'standard input'); // throws ORYX_E_CLI_USAGE on 'a\0b'
 */
export function assertText(message: string, from: string): void {
  const at = message.indexOf('\0');
  if (at === -1) return;
  throw new OryxError('ORYX_E_CLI_USAGE', `The message from ${from} has a NUL character (U+0000) at index ${at}`, {
    hint: 'That is binary or UTF-16 data, not text: convert it to UTF-8 (iconv -f UTF-16 -t UTF-8), or give the agent the path of the file to read.',
    data: { index: at },
  });
}
