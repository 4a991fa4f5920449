/**
 * The boundary policy for user text (REST and `/v1` messages): a NUL character or a lone
 * surrogate is refused with a 400 naming its position, never stored cut or mangled. Neither
 * is ever meant in a message: a NUL usually means binary or UTF-16 data sent as text, and a
 * lone surrogate has no UTF-8 form, so model APIs reject or mangle it. Everything else is kept
 * exactly. (The store itself keeps any string exactly, so tool and model output with such
 * characters is safe.)
 */
const BAD = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What is wrong with `text` as a message, or undefined when it is fine.
 *
 * @example
 * textProblem('a\0b'); // 'a NUL character (U+0000) at index 1'
 */
export function textProblem(text: string): string | undefined {
  const found = BAD.exec(text);
  if (!found) return undefined;
  const what = found[0] === '\0' ? 'a NUL character (U+0000)' : `a lone surrogate (U+${found[0].charCodeAt(0).toString(16).toUpperCase()})`;
  return `${what} at index ${found.index}`;
}
