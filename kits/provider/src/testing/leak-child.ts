// The child process of probeLeak (its own entry, `@oryxos/provider-kit/testing/leak-child`, so the
// bundled build keeps it a file): node --expose-gc --import tsx leak-child.js <dialect module URL> <export name> <calls>
import { heapOverCalls } from './leak-probe.ts';
import type { WireDialect } from './suite.ts';

const [moduleUrl, exportName, calls] = process.argv.slice(2);
const dialect = (await import(moduleUrl!))[exportName!] as WireDialect;
process.stdout.write(`${JSON.stringify(await heapOverCalls(dialect, Number(calls)))}\n`);
