/**
 * An arktype type (or any callable object) built on first use: calling it, or reading any of its
 * members, builds it once and forwards to it. The web plugin's ~40 request and response types
 * took about a quarter of every `oryx` command's CPU to build at import, though most commands
 * never serve a request.
 *
 * @example
 * export const Health = lazyType(() => type({ status: "'ok'" }));
 * Health({ status: 'ok' }); // built here
 */
export function lazyType<T extends object>(build: () => T): T {
  let built: T | undefined;
  const real = () => (built ??= build());
  // An arrow function as the target: callable, with no non-configurable own properties the
  // proxy would have to report.
  return new Proxy((() => {}) as unknown as T, {
    apply: (_target, self, args) => Reflect.apply(real() as (...a: unknown[]) => unknown, self, args),
    // Getters run on the real object; a method called through the proxy reaches it through this trap too.
    get: (_target, key) => Reflect.get(real(), key),
    has: (_target, key) => Reflect.has(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
