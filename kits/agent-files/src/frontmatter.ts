/**
 * Markdown files are data. AGENT.md, skills and bootstrap files may start with a YAML
 * frontmatter block; nothing else is read there. A block in another language (`---js`,
 * `---coffee`, …) is refused rather than evaluated, because some frontmatter parsers run it
 * as code, and YAML is read on the core schema with no custom or library-specific tags.
 */
import { OryxError, errorMessage } from '@oryxos/provider-spec';

/** A Markdown file split into its frontmatter data and its body. */
export interface Frontmatter {
  /** The YAML mapping; `{}` when the file has no frontmatter or an empty one. */
  data: Record<string, unknown>;
  /** Everything after the closing `---` line (the whole text without frontmatter). */
  content: string;
  /** Whether the file had a frontmatter block. */
  present: boolean;
}

// `---` then an optional language name up to the end of the line. `----` is a Markdown rule, not a fence.
const OPENING = /^---(?!-)([^\r\n]*)\r?\n/;
const CLOSING = /^---[ \t]*$/m;

function invalid(file: string, problem: string, hint: string, cause?: unknown): OryxError {
  return new OryxError('ORYX_E_AGENT_INVALID', `${file}: ${problem}`, { hint, cause, data: { file } });
}

/**
 * The language named on the opening `---` line when it is not YAML, or undefined. Throws
 * nothing: callers decide whether a file without YAML frontmatter is an error.
 */
function foreignLanguage(text: string): string | undefined {
  const open = OPENING.exec(text);
  if (!open) return undefined;
  const lang = open[1]!.trim().toLowerCase();
  return lang === '' || lang === 'yaml' || lang === 'yml' ? undefined : lang;
}

/**
 * Refuses a Markdown file whose frontmatter is not YAML (`---js`), naming the file; the text
 * itself is left as it is. For files that are injected whole (bootstrap files).
 *
 * @example
 * assertMarkdownData(await readFile('SOUL.md', 'utf8'), '.oryxos/SOUL.md'); // throws for ---js
 */
export function assertMarkdownData(text: string, file: string): void {
  const lang = foreignLanguage(text.replace(/^\uFEFF/, ''));
  if (lang !== undefined) {
    throw invalid(file, `the frontmatter is marked "---${lang}": only YAML frontmatter is read, and a block in another language is never run`,
      'Start the file with a plain --- line followed by YAML, or remove the block.');
  }
}

/**
 * Splits a Markdown file into YAML frontmatter and body. The YAML is parsed on the core
 * schema: plain mappings, lists, strings, numbers, booleans and null; an explicit tag other
 * than the core ones (`!!js/function`, `!!binary`, `!custom`), a duplicate key or a syntax
 * error is an ORYX_E_AGENT_INVALID naming the file, and so is a non-YAML block (`---js`).
 *
 * @example
 * const { data, content } = await parseFrontmatter('---\ndescription: x\n---\nBody', 'AGENT.md');
 * // data = { description: 'x' }, content = 'Body'
 */
export async function parseFrontmatter(raw: string, file: string): Promise<Frontmatter> {
  const text = raw.replace(/^\uFEFF/, '');
  assertMarkdownData(text, file);
  const open = OPENING.exec(text);
  if (!open) return { data: {}, content: text, present: false };
  const rest = text.slice(open[0].length);
  const close = CLOSING.exec(rest);
  if (!close) {
    throw invalid(file, 'the frontmatter is not closed: add a line with only --- after it', 'Close the YAML block at the top of the file with a --- line.');
  }
  const source = rest.slice(0, close.index);
  const content = rest.slice(close.index + close[0].length).replace(/^\r?\n/, '');
  const { parseDocument } = await import('@oryxos/schema-kit/yaml');
  let doc;
  try {
    doc = parseDocument(source, { schema: 'core', resolveKnownTags: false, customTags: [], merge: false, uniqueKeys: true });
  } catch (error) {
    throw invalid(file, `the frontmatter is not valid YAML: ${errorMessage(error)}`, 'Fix the YAML between the --- lines at the top of the file.', error);
  }
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) {
    const tag = problem.code === 'TAG_RESOLVE_FAILED';
    throw invalid(file, `the frontmatter is not valid YAML: ${problem.message.split('\n')[0]}`, tag
      ? 'Only plain YAML is read: remove the tag (values are strings, numbers, booleans, lists and mappings).'
      : 'Fix the YAML between the --- lines at the top of the file.');
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw invalid(file, `the frontmatter is not valid YAML: ${errorMessage(error)}`, 'Fix the YAML between the --- lines at the top of the file.', error);
  }
  if (data === null || data === undefined) return { data: {}, content, present: true };
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw invalid(file, `the frontmatter must be a YAML mapping (key: value lines), not ${Array.isArray(data) ? 'a list' : typeof data}`,
      'Write the frontmatter as key: value lines.');
  }
  return { data: data as Record<string, unknown>, content, present: true };
}
