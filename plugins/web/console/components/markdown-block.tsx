import { useMemo } from 'preact/hooks';
import { renderMarkdown } from '../markdown.ts';

/** Markdown from a model or a tool, sanitized (see ../markdown.ts). */
export function MarkdownBlock({ text, class: className = 'md' }: { text: string; class?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class={className} dangerouslySetInnerHTML={{ __html: html }} />;
}
