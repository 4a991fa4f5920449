import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

// Model and tool output is Markdown written by a model, and so by whoever wrote what the model
// read: it must never run anything or reach another site. marked turns it into HTML, showing
// any HTML in the text as text (a model that writes `<script>` means to show it, and markup that
// never reaches a parser cannot act); DOMPurify (a maintained sanitizer, not a regex) then keeps
// only plain document HTML with http(s) and mailto links. The page's CSP blocks what might slip
// past both.

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    // An image would be fetched from wherever the model points (a classic way to leak a
    // conversation through its URL): show it as a link instead, to open on purpose.
    image({ href, text }: Tokens.Image) {
      return `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`;
    },
  },
});

const PURIFY = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['img', 'picture', 'video', 'audio', 'source', 'track', 'iframe', 'style', 'form', 'input', 'button', 'textarea', 'select', 'dialog'],
  // No styles (the CSP forbids inline ones anyway), no ids or classes that could pose as the console's own.
  FORBID_ATTR: ['style', 'class', 'id', 'name'],
  ALLOW_DATA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
};

let hooked = false;

/**
 * Markdown (GFM: code blocks, lists, tables, links) to sanitized HTML. Links open in a new tab
 * without a referrer or an opener; only http(s) and mailto links are kept.
 *
 * @example
 * el.innerHTML = renderMarkdown(answer);
 */
export function renderMarkdown(text: string): string {
  if (!hooked) {
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A' && node.hasAttribute('href')) {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer nofollow');
      }
    });
    hooked = true;
  }
  return DOMPurify.sanitize(marked.parse(text) as string, PURIFY);
}
