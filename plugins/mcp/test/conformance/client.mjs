// OryxOS's MCP client as the client under test of the official conformance suite
// (@modelcontextprotocol/conformance, `conformance client --command …`). The suite starts a
// server for one scenario, then runs this with the server URL as the last argument,
// MCP_CONFORMANCE_SCENARIO naming the scenario and MCP_CONFORMANCE_CONTEXT holding what a
// scenario gives its client (pre-registered credentials, a private key) — see the suite's
// README and its examples/clients/typescript/everything-client.ts.
//
// Nothing here speaks MCP or OAuth: it boots a kernel with the real mcp plugin, declares the
// server the way a user would (url, and an oauth: entry where the scenario hands out
// credentials), and uses the plugin's own service (connect, call, login). The only stand-in is
// the person at the browser: the scenario's authorization server approves at once by
// redirecting, so "the browser" here follows that redirect to OryxOS's loopback listener.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { allowAll, testKernel } from '@oryxos/kernel/testing';
import mcp from '@oryxos/plugin-mcp';

// Plain JavaScript on the built packages (npm test builds first): a process per scenario starts
// in a fraction of the time a TypeScript loader takes.

/** The client id metadata document URL the suite's CIMD scenario expects (SEP-991); any https URL the deployer publishes works the same. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

const url = /** @type {string} */ (process.argv.at(-1));
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
/** @type {Record<string, string>} */
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');

/**
 * The server entry a user would write for this server.
 * @returns {import('@oryxos/plugin-mcp').McpServerConfig}
 */
function entry() {
  if (scenario === 'auth/pre-registration') return { url, oauth: { clientId: context.client_id, clientSecret: context.client_secret } };
  if (scenario === 'auth/client-credentials-basic') return { url, oauth: { grant: 'client_credentials', clientId: context.client_id, clientSecret: context.client_secret } };
  if (scenario === 'auth/client-credentials-jwt') {
    return { url, oauth: { grant: 'client_credentials', clientId: context.client_id, privateKey: context.private_key_pem, algorithm: context.signing_algorithm ?? 'ES256' } };
  }
  if (scenario === 'auth/cross-app-access-complete-flow') {
    return {
      url,
      oauth: {
        grant: 'cross_app_access', clientId: context.client_id, clientSecret: context.client_secret,
        idp: { tokenEndpoint: context.idp_token_endpoint, clientId: context.idp_client_id, idToken: context.idp_id_token },
      },
    };
  }
  if (scenario.startsWith('auth/')) return { url, oauth: { clientMetadataUrl: CLIENT_METADATA_URL } };
  return { url };
}

/** A browser whose person approves: it loads the authorization URL and follows redirects (to the loopback listener). */
/** @param {URL} start */
async function browse(start) {
  let next = start.href;
  for (let hops = 0; next && hops < 10; hops++) {
    const response = await fetch(next, { redirect: 'manual' });
    await response.body?.cancel();
    const location = response.headers.get('location');
    next = location ? new URL(location, next).href : undefined;
  }
}

/** The tool each scenario's server expects to be called, with its arguments. */
/** @type {Record<string, [string, Record<string, unknown>]>} */
const CALLS = {
  tools_call: ['add_numbers', { a: 5, b: 3 }],
  'elicitation-sep1034-client-defaults': ['test_client_elicitation_defaults', {}],
  'sse-retry': ['test_reconnection', {}],
};

async function main() {
  const tokenDir = await mkdtemp(path.join(tmpdir(), 'oryx-conformance-tokens-'));
  const t = await testKernel({ plugins: [allowAll(), mcp({ servers: { target: entry() }, tokenDir, connectTimeoutMs: 20_000, timeoutMs: 20_000 })] });
  try {
    const service = t.kernel.service('mcp');
    service.authorizer = ({ url: authorizationUrl }) => { void browse(authorizationUrl); };
    // A person who accepts what a form offers: the fields left out get the schema's defaults.
    if (scenario.startsWith('elicitation')) service.onElicit = () => ({ action: 'accept', content: {} });
    await service.connect('target');
    const [tool, args] = CALLS[scenario] ?? (scenario.startsWith('auth/') ? ['test-tool', {}] : [undefined, {}]);
    if (tool) {
      const result = await service.call('target', tool, args);
      if (result.isError) throw new Error(`${tool} returned an error result: ${result.content}`);
    }
  } finally {
    await t.close();
    await rm(tokenDir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (error) => {
  console.error(`oryx conformance client (${scenario}):`, error instanceof Error ? `${error.code ?? ''} ${error.message}` : error);
  process.exit(1);
});
