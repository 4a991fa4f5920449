/** How the calls of one response may overlap. */
export interface BatchOptions<C> {
  /** Calls may run at the same time at all (`settings.parallel_tools`). */
  parallel: boolean;
  /** At most this many at a time (`settings.max_parallel_tools`). */
  max: number;
  /** A call that must run alone (its tool says `parallel: false`). */
  alone(call: C): boolean;
}

/**
 * Runs the calls of one response, concurrently where allowed, and hands each result to
 * `done` in the original call order (so results are committed and shown in that order). A
 * call that must run alone waits for every call before it and holds back every call after it.
 * `run` must not throw (the executor turns every failure into a result).
 */
export async function runBatch<C, R>(
  calls: readonly C[], options: BatchOptions<C>, run: (call: C, index: number) => Promise<R>, done: (call: C, result: R, index: number) => Promise<void>,
): Promise<void> {
  const slots = calls.map(() => {
    let resolve!: (r: R) => void;
    const promise = new Promise<R>((r) => { resolve = r; });
    return { promise, resolve };
  });
  const launch = async () => {
    const active = new Set<Promise<unknown>>();
    for (const [index, call] of calls.entries()) {
      const alone = !options.parallel || options.alone(call);
      while (active.size > 0 && (alone || active.size >= options.max)) await (alone ? Promise.all(active) : Promise.race(active));
      const p = run(call, index).then((r) => slots[index]!.resolve(r));
      if (alone) { await p; continue; }
      const tracked = p.finally(() => active.delete(tracked));
      active.add(tracked);
    }
  };
  const deliver = async () => {
    for (const [index, call] of calls.entries()) await done(call, await slots[index]!.promise, index);
  };
  await Promise.all([launch(), deliver()]);
}
