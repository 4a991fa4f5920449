import type { MemoryEntry } from '@oryxos/contracts';

/** The two zones of a MEMORY.md file. */
export type Zone = 'core' | 'archive';

/** An entry as parsed, with where it sits in the file. */
export interface ParsedEntry extends MemoryEntry {
  zone: Zone;
  /** Position among all entries of the file, top to bottom. */
  index: number;
  /** The entry's first line and the line after its last one (0-based, into `lines`). */
  line: number;
  endLine: number;
}

/** A parsed MEMORY.md: its entries by zone, and enough layout to insert new entries in place. */
export interface ParsedMemory {
  /** The file's lines, line endings removed. */
  lines: string[];
  /** `\r\n` when the file used it, so a save keeps the user's line endings. */
  eol: '\n' | '\r\n';
  core: ParsedEntry[];
  archive: ParsedEntry[];
  /** Every zone section: heading line and the line after its last line. */
  sections: { zone: Zone; heading: number; end: number }[];
}

/** The file `oryx init` writes and a first save creates. */
export const MEMORY_TEMPLATE = '# Memory\n\n## Core\n\n## Archive\n';

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const LIST_ITEM = /^(?:[-*+]|\d{1,9}[.)])(?:\s+(.*))?$/;
const RULE = /^([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const DATED = /^(?:\*\*|\[)?(\d{4}-\d{2}-\d{2})(?:\*\*|\])?(?:\s*[:\u2013\u2014-]\s*|\s+|$)([\s\S]*)$/;

function zoneOf(headingText: string): Zone | undefined {
  const t = headingText.replace(/[*_`]/g, '').trim().toLowerCase();
  return t === 'core' ? 'core' : t === 'archive' ? 'archive' : undefined;
}

/**
 * Parses MEMORY.md leniently. Zones are the sections under a heading `Core` or `Archive`
 * (any level, any case); an entry is a list item `- YYYY-MM-DD: text` whose indented (or
 * directly following) lines continue it; the date is optional; a paragraph inside a zone is
 * an undated entry. List items before the first zone heading count as Core, so a file with
 * no headings at all is all Core. Prose outside the zones, HTML comments and other headings
 * are kept in the file but are not entries. Never throws: any text parses.
 *
 * @example
 * const { core, archive } = parseMemory('## Core\n- 2025-01-02: The user is Ana.\n');
 */
export function parseMemory(text: string): ParsedMemory {
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = body.length ? body.split(/\r\n|\r|\n/) : [];
  if (lines.length && lines[lines.length - 1] === '') lines.pop();

  const parsed: ParsedMemory = { lines, eol, core: [], archive: [], sections: [] };
  let zone: Zone | undefined;
  let zoneLevel = 0;
  let preamble = true;
  let index = 0;
  let current: { zone: Zone; first: string; rest: string[]; line: number } | undefined;
  let blanks = 0;
  let inComment = false;

  const finish = () => {
    if (!current) return;
    const entry = makeEntry(current.first, current.rest);
    if (entry.text || entry.date) {
      const line = current.line;
      parsed[current.zone].push({ ...entry, zone: current.zone, index: index++, line, endLine: line + 1 + current.rest.length });
    }
    current = undefined;
  };
  const openSection = () => parsed.sections[parsed.sections.length - 1];

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (inComment) {
      if (line.includes('-->')) inComment = false;
      continue;
    }
    if (line.startsWith('<!--')) {
      finish();
      if (!line.includes('-->')) inComment = true;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      finish();
      blanks = 0;
      const level = heading[1]!.length;
      const named = zoneOf(heading[2]!);
      if (named || (zone && level <= zoneLevel)) {
        const open = openSection();
        if (open && open.end === -1) open.end = i;
      }
      if (named) {
        zone = named;
        zoneLevel = level;
        preamble = false;
        parsed.sections.push({ zone: named, heading: i, end: -1 });
      } else if (zone && level <= zoneLevel) {
        zone = undefined;
      }
      continue;
    }
    if (!line.trim()) {
      blanks++;
      continue;
    }
    if (RULE.test(line)) {
      finish();
      blanks = 0;
      continue;
    }
    const where: Zone | undefined = zone ?? (preamble ? 'core' : undefined);
    const item = LIST_ITEM.exec(line);
    const indented = /^\s/.test(line);
    if (current && (indented || (blanks === 0 && !item))) {
      for (; blanks > 0; blanks--) current.rest.push('');
      current.rest.push(line);
      continue;
    }
    blanks = 0;
    finish();
    if (!where) continue;
    if (item) current = { zone: where, first: item[1] ?? '', rest: [], line: i };
    else if (zone) current = { zone, first: line.trim(), rest: [], line: i };
    // Prose in the preamble (a title's description) is not an entry.
  }
  finish();
  const open = openSection();
  if (open && open.end === -1) open.end = lines.length;
  return parsed;
}

function makeEntry(first: string, rest: string[]): MemoryEntry {
  const dated = DATED.exec(first.trim());
  const date = dated ? dated[1]! : '';
  const head = (dated ? dated[2]! : first).trim();
  // Lazy (unindented) continuation lines do not count, or they would keep all indentation.
  const indents = rest.map((l) => /^\s*/.exec(l)![0].length).filter((n, i) => n > 0 && rest[i]!.trim());
  const cut = indents.length ? Math.min(...indents) : 0;
  const tail = rest.map((l) => l.slice(Math.min(cut, /^\s*/.exec(l)![0].length)).trimEnd());
  const text = [head, ...tail].join('\n').trim();
  return { date, text };
}

/**
 * One entry as it is written in the file and injected: `- YYYY-MM-DD: text`, later lines
 * indented by two spaces (so a line of the text can never become a heading or a new entry).
 *
 * @example
 * formatEntry({ date: '2025-01-02', text: 'Prefers tea' }); // '- 2025-01-02: Prefers tea'
 */
export function formatEntry(entry: MemoryEntry): string {
  const [first, ...rest] = entry.text.split('\n');
  const head = entry.date ? `- ${entry.date}: ${first}` : `- ${first}`;
  return [head, ...rest.map((l) => (l.trim() ? `  ${l}` : ''))].join('\n');
}

/** Characters the entries take when rendered one per line, as they are injected. */
export function renderedChars(entries: MemoryEntry[]): number {
  return entries.reduce((n, e, i) => n + formatEntry(e).length + (i ? 1 : 0), 0);
}

/** Collapses CR/CRLF and trailing spaces in a text to be saved. */
export function normalizeText(text: string): string {
  return text.replace(/\r\n?/g, '\n').split('\n').map((l) => l.trimEnd()).join('\n').trim();
}

/**
 * Returns the file text with the entries appended at the end of `zone`, touching nothing
 * else: hand-written prose, comments and layout stay as they were. A missing zone heading is
 * added (Core before Archive); an empty file becomes {@link MEMORY_TEMPLATE} first. Pass the
 * text's parse when you have it, to save parsing it again.
 *
 * @example
 * insertEntries(MEMORY_TEMPLATE, 'archive', [{ date: '2025-01-02', text: 'Shipped v1' }]);
 */
export function insertEntries(text: string, zone: Zone, entries: MemoryEntry[], parsedText?: ParsedMemory): string {
  let parsed = text.trim() ? parsedText ?? parseMemory(text) : parseMemory(MEMORY_TEMPLATE);
  if (!text.trim()) parsed = { ...parsed, eol: /\r\n/.test(text) ? '\r\n' : '\n' };
  const lines = [...parsed.lines];
  const block = entries.flatMap((e) => formatEntry(e).split('\n'));
  const section = parsed.sections.filter((s) => s.zone === zone).at(-1);
  if (section) {
    let at = section.end;
    while (at > section.heading + 1 && !lines[at - 1]!.trim()) at--;
    const before = at === section.heading + 1 ? [''] : [];
    const after = at < lines.length && lines[at]!.trim() ? [''] : [];
    lines.splice(at, 0, ...before, ...block, ...after);
  } else {
    const archive = parsed.sections.find((s) => s.zone === 'archive');
    const fresh = [`## ${zone === 'core' ? 'Core' : 'Archive'}`, '', ...block, ''];
    if (zone === 'core' && archive) {
      lines.splice(archive.heading, 0, ...fresh);
    } else {
      while (lines.length && !lines[lines.length - 1]!.trim()) lines.pop();
      if (lines.length) lines.push('');
      lines.push(...fresh.slice(0, -1));
    }
  }
  return lines.join(parsed.eol) + parsed.eol;
}

/**
 * The parse of `text + added`, computed from the parse of `text` and of `added` alone: what
 * an append costs stays the size of what it appends, not of the file. `text` must end (with a
 * line break) in its Archive zone, and `added` be whole entry lines, as a checkpoint append
 * writes them; the result is then what {@link parseMemory} would return.
 *
 * @example
 * extendArchive(parseMemory('## Archive\n- a\n'), '- b\n'); // same as parseMemory('## Archive\n- a\n- b\n')
 */
export function extendArchive(parsed: ParsedMemory, added: string): ParsedMemory {
  const tail = parseMemory(`## Archive\n${added}`);
  const offset = parsed.lines.length - 1;
  const before = parsed.core.length + parsed.archive.length;
  const last = parsed.sections[parsed.sections.length - 1]!;
  return {
    lines: [...parsed.lines, ...tail.lines.slice(1)],
    eol: parsed.eol,
    core: parsed.core,
    archive: [...parsed.archive, ...tail.archive.map((e) => ({ ...e, index: e.index + before, line: e.line + offset, endLine: e.endLine + offset }))],
    sections: [...parsed.sections.slice(0, -1), { ...last, end: offset + tail.lines.length }],
  };
}

/**
 * The file text without the given entries (their continuation lines included), everything
 * else as it was; a blank line doubled by a removal is dropped. Used to move entries out of
 * a file (rotation, migration) without touching what a person wrote around them.
 *
 * @example
 * const parsed = parseMemory(text);
 * removeEntries(parsed, parsed.archive.slice(0, 10)); // the ten oldest archive lines gone
 */
export function removeEntries(parsed: ParsedMemory, entries: ParsedEntry[]): string {
  const drop = new Set<number>();
  for (const e of entries) for (let i = e.line; i < e.endLine; i++) drop.add(i);
  const out: string[] = [];
  parsed.lines.forEach((line, i) => {
    if (drop.has(i)) return;
    if (!line.trim() && drop.has(i - 1) && out.length && !out[out.length - 1]!.trim()) return;
    out.push(line);
  });
  return out.length ? out.join(parsed.eol) + parsed.eol : '';
}
