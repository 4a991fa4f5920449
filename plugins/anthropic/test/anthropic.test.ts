import { test } from 'uvu';
import { providerWireSuite } from '@oryxos/provider-kit/testing';
import { anthropicDialect } from './helpers/anthropic-server.ts';

// The tests every provider passes (errors, retries, aborts, time limits, answer shapes) come from the provider kit.
providerWireSuite(test, anthropicDialect);

test.run();
