// C0 controls, DEL and C1 controls (ESC, CSI and OSC start the sequences that set window
// titles, move the cursor, erase lines or write the clipboard), and the Unicode controls that
// reorder or hide what a person reads (bidirectional overrides and isolates, LRM/RLM/ALM).
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const CONTROLS_BUT_LINES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const visible = (c: string): string => {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * Text from a model, a tool, a file or a server made inert for a terminal: every control
 * character is shown as a visible escape (`\x1b`, `\u202e`) instead of acting, so a string can
 * neither run a terminal sequence nor pass for something else. Newline and tab stay unless
 * `oneLine` is set (log lines: one entry, one line).
 *
 * @example
 * escapeControls('\x1b]0;pwned\x07ok\n'); // '\\x1b]0;pwned\\x07ok\n'
 * escapeControls('GET /x\nweb forged', { oneLine: true }); // 'GET /x\\x0aweb forged'
 */
export function escapeControls(text: string, options: { oneLine?: boolean } = {}): string {
  return text.replace(options.oneLine ? CONTROLS : CONTROLS_BUT_LINES, visible);
}
