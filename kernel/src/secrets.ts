import type { Message } from '@oryxos/provider-spec';

/** What a secret is replaced with wherever OryxOS writes or prints text. */
export const MASK = '***';

/** Values shorter than this are not registered: masking a short word everywhere would garble every output. */
export const MIN_SECRET_LENGTH = 8;

/**
 * The values OryxOS knows to be secret — what `${VAR}` expansion put into a server entry, a
 * provider's API key — masked as `***` in the kernel log, tool results (and so the stored
 * messages and the audit trail), run errors and CLI output. Plugins register what they load
 * from the environment with {@link add}; `kernel.secrets` is the one registry of a kernel.
 *
 * @example
 * kernel.secrets.add(process.env.OPENAI_API_KEY);
 * kernel.secrets.mask('key sk-live-123456'); // 'key ***' when that is the value
 */
export class Secrets {
  private values: string[] = [];

  /** Registers a value (ignored when undefined or shorter than {@link MIN_SECRET_LENGTH}). */
  add(value: string | undefined): void {
    if (!value || value.length < MIN_SECRET_LENGTH || this.values.includes(value)) return;
    // Longest first, so a secret that contains another is masked whole.
    this.values = [...this.values, value].sort((a, b) => b.length - a.length);
  }

  /** How many values are registered. */
  get size(): number { return this.values.length; }

  /** The text with every registered value replaced by {@link MASK}. */
  mask(text: string): string {
    for (const value of this.values) if (text.includes(value)) text = text.split(value).join(MASK);
    return text;
  }

  /** A message with its text and tool-call arguments masked (the same object when nothing is registered). */
  message<M extends Message>(m: M): M {
    if (!this.values.length) return m;
    const masked = { ...m, content: this.mask(m.content) };
    if (m.role === 'assistant' && m.toolCalls?.length) {
      (masked as Message & { role: 'assistant' }).toolCalls = m.toolCalls.map((c) => ({ ...c, args: JSON.parse(this.mask(JSON.stringify(c.args))) }));
    }
    return masked;
  }
}
