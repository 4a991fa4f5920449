/**
 * `true`, `false`, or a list of model names where `*` matches any run of characters, as a test
 * of a model name.
 *
 * @example
 * modelMatcher(['gpt-4o*', 'llava*'])('llava:13b') // true
 */
export function modelMatcher(value: boolean | string[]): (model: string) => boolean {
  if (typeof value === 'boolean') return () => value;
  const patterns = value.map((p) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i'));
  return (model) => patterns.some((p) => p.test(model));
}
