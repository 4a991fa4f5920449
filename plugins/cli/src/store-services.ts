import type { Database, RunRecordStore, SessionStore } from '@oryxos/contracts';
import type { Kernel } from '@oryxos/kernel';

/**
 * The store's services of a booted kernel, as `@oryxos/contracts` declares them: the `sessions`
 * store (`delete(id, { force })`, `scan`, `repair`, `withPrefix` where the store has them),
 * `runRecords` (`running` and `crashed` rows too) and, when a store plugin is enabled, the
 * `database` (`inspect`, `backup`). Whichever store plugin provides them (sqlite, postgres, the
 * kernel's in-memory sessions): the commands that use these work on any.
 *
 * ADAPTER: the kernel still declares its own, older service types; once its `Services` are the
 * contracts', this is `kernel.service(name)` and goes away.
 *
 * @example
 * const { sessions } = storeServices(kernel);
 * await sessions.delete(id, { force: true });
 */
export function storeServices(kernel: Kernel): { sessions: SessionStore; runRecords: RunRecordStore; database?: Database } {
  const services = kernel as unknown as { service(name: string): unknown; hasService(name: string): boolean };
  return {
    get sessions() { return services.service('sessions') as SessionStore; },
    // Asked for only by the commands that read runs: without a store plugin it says what to enable.
    get runRecords() { return services.service('runRecords') as RunRecordStore; },
    ...(services.hasService('database') ? { database: services.service('database') as Database } : {}),
  };
}
