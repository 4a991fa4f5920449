/**
 * Text for the Bot API's MarkdownV2 (https://core.telegram.org/bots/api#markdownv2-style): the
 * model's text shown as written, its code spans and fenced blocks as code. Outside code every
 * reserved character (`_*[]()~\`>#+-=|{}.!` and `\`) is escaped with `\`; inside code only `` ` ``
 * and `\`, as the Bot API requires. And a long answer split into messages within its limit.
 */

/** The Bot API's limit of one message: 4096 characters after entities parsing. */
export const MAX_MESSAGE = 4096;

const escapeText = (s: string) => s.replace(/[_*[\]()~`>#+\-=|{}.!\\]/g, '\\$&');
const escapeCode = (s: string) => s.replace(/[`\\]/g, '\\$&');

/**
 * `text` as MarkdownV2: fenced blocks (```lang) and inline code kept as code, everything else
 * literal. An unclosed fence or backtick (a streamed answer cut mid-block) is literal text.
 *
 * @example
 * toMarkdownV2('Use `npm i` (fast).') // 'Use `npm i` \\(fast\\)\\.'
 */
export function toMarkdownV2(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('```', i)) {
      const end = text.indexOf('```', i + 3);
      if (end !== -1) {
        let body = text.slice(i + 3, end);
        const nl = body.indexOf('\n');
        const lang = nl === -1 ? '' : body.slice(0, nl);
        const tagged = nl !== -1 && /^[\w+-]+$/.test(lang);
        if (tagged) body = body.slice(nl + 1);
        else if (body.startsWith('\n')) body = body.slice(1);
        out += `\`\`\`${tagged ? lang : ''}\n${escapeCode(body)}\`\`\``;
        i = end + 3;
        continue;
      }
    } else if (text[i] === '`') {
      const end = text.indexOf('`', i + 1);
      if (end > i + 1 && !text.slice(i + 1, end).includes('\n')) {
        out += `\`${escapeCode(text.slice(i + 1, end))}\``;
        i = end + 1;
        continue;
      }
    }
    out += escapeText(text[i]!);
    i++;
  }
  return out;
}

/**
 * Splits a long answer into pieces of at most `max` characters as shown (a little less than the
 * limit, since escaping does not count but a fence cut in two is closed and opened again), at a
 * blank line, else a line break, else a space, else anywhere.
 *
 * @example
 * splitMessage('a'.repeat(5000)).length // 2
 */
export function splitMessage(text: string, max = MAX_MESSAGE - 16): string[] {
  const pieces: string[] = [];
  let rest = text;
  let reopen = '';
  while (rest.length) {
    const budget = max - reopen.length;
    let piece: string;
    if (rest.length <= budget) {
      piece = rest;
      rest = '';
    } else {
      const window = rest.slice(0, budget);
      const at = [window.lastIndexOf('\n\n'), window.lastIndexOf('\n'), window.lastIndexOf(' ')].find((p) => p > budget / 2) ?? budget;
      piece = rest.slice(0, at);
      rest = rest.slice(at).replace(/^\s+/, '');
    }
    piece = reopen + piece;
    // Inside a fence at the cut: close it here, open it again (same language) in the next piece.
    const fences = piece.match(/```[\w+-]*/g) ?? [];
    reopen = '';
    if (fences.length % 2 === 1 && rest) {
      const lang = fences.at(-1)!.slice(3);
      piece += '\n```';
      reopen = `\`\`\`${lang}\n`;
    }
    pieces.push(piece);
  }
  return pieces.length ? pieces : [''];
}
