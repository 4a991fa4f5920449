/**
 * @oryxos/provider-kit/testing: a loopback server for a provider's wire protocol, and the wire
 * tests every provider must pass. A new provider writes a {@link WireDialect} (how its server
 * frames answers, streams and errors) and calls {@link providerWireSuite}.
 *
 * @example
 * import { test } from 'uvu';
 * import { providerWireSuite } from '@oryxos/provider-kit/testing';
 * providerWireSuite(test, myDialect);
 * test.run();
 */
export { wireServer, type Reply, type ScriptEntry, type RecordedRequest, type WireServer, type WireServerOptions, type Framing } from './wire-server.ts';
export {
  providerWireSuite, wireKernel, attemptRecorder, responseRecorder, type Attempt, type Test, type WireAnswer, type WireCall, type WireDialect, type WireKit, type WireRun,
} from './suite.ts';
export { heapOverCalls, probeLeak, type LeakFigures } from './leak-probe.ts';
