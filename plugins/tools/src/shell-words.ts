/**
 * Reads a command line the way a POSIX shell splits it into words — quotes and backslashes —
 * and says which shell features it uses that only a shell can carry out (pipes, redirections,
 * substitutions, globs, …). The `shell` tool runs a plain line as an argv (no shell at all) and
 * needs a shell only for the rest.
 */

/** The outcome of reading a command line. */
export type CommandLine =
  | { words: string[] }
  | { shell: string; words?: undefined }
  | { error: string; words?: undefined };

/** Characters that end a word and mean something only to a shell, outside quotes. */
const OPERATORS: Record<string, string> = {
  '|': 'a pipe (|)', '&': 'a control operator (&, &&)', ';': 'a command separator (;)',
  '<': 'a redirection (<)', '>': 'a redirection (>)', '(': 'a subshell or group ( )', ')': 'a subshell or group ( )',
  '\n': 'a line break (several commands)',
};
/** Characters a shell expands inside an unquoted word. */
const EXPANSIONS: Record<string, string> = {
  '$': 'a substitution or variable ($)', '`': 'a command substitution (`…`)',
  '*': 'a glob (*)', '?': 'a glob (?)', '[': 'a glob ([…])',
};

/**
 * Splits `line` into words with the POSIX quoting rules (`'…'` literal, `"…"` with `\"`, `\\`,
 * `\$`, `` \` `` escapes, `\x` outside quotes), or names the first shell feature it uses.
 *
 * @example
 * shellWords(`git commit -m "first commit"`) // { words: ['git', 'commit', '-m', 'first commit'] }
 * shellWords('ls | wc -l')                   // { shell: 'a pipe (|)' }
 * shellWords(`echo 'open`)                   // { error: 'an unterminated single quote' }
 */
export function shellWords(line: string): CommandLine {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  const end = () => { if (inWord) words.push(word); word = ''; inWord = false; };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') { end(); continue; }
    if (c === '\r' && line[i + 1] === '\n') continue;
    if (OPERATORS[c]) return { shell: OPERATORS[c] };
    if (EXPANSIONS[c]) return { shell: EXPANSIONS[c] };
    if (!inWord && (c === '~' || c === '#')) return { shell: c === '~' ? 'a home folder (~)' : 'a comment (#)' };
    if (c === '\\') {
      if (i + 1 >= line.length) return { error: 'a backslash at the end of the line' };
      const next = line[++i]!;
      if (next !== '\n') { word += next; inWord = true; } // backslash-newline joins lines
      continue;
    }
    if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) return { error: 'an unterminated single quote' };
      word += line.slice(i + 1, close);
      inWord = true;
      i = close;
      continue;
    }
    if (c === '"') {
      inWord = true;
      for (i++; ; i++) {
        if (i >= line.length) return { error: 'an unterminated double quote' };
        const d = line[i]!;
        if (d === '"') break;
        if (d === '$' || d === '`') return { shell: EXPANSIONS[d]! };
        if (d === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1]!)) {
          if (line[++i] !== '\n') word += line[i];
          continue;
        }
        word += d;
      }
      continue;
    }
    word += c;
    inWord = true;
  }
  end();
  // `NAME=value program`: a shell sets a variable for the program rather than run `NAME=value`
  // (a quoted "A=1" stays a program name, as in a shell).
  if (/^[ \t]*[A-Za-z_][A-Za-z0-9_]*=/.test(line)) return { shell: 'a variable assignment (NAME=value)' };
  return { words };
}
