import { testKernel, type TestKernel } from '@oryxos/kernel/testing';
import type { test as uvuTest } from 'uvu';

/**
 * `testKernel` for a suite: every kernel started through the returned function is closed
 * (and its temp folder removed) after each test.
 */
export function kernelsFor(test: typeof uvuTest): (options: Parameters<typeof testKernel>[0]) => Promise<TestKernel> {
  const open: TestKernel[] = [];
  test.after.each(async () => {
    for (const t of open.splice(0)) await t.close();
  });
  return async (options) => {
    const t = await testKernel(options);
    open.push(t);
    return t;
  };
}
