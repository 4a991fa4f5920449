import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import approvals, { approvalRef } from '../src/index.ts';

test('options are checked at once, naming the field and the closest key', () => {
  const codeOf = (fn: () => unknown) => { try { fn(); } catch (e) { return isOryxError(e) ? `${e.code} ${e.message}` : String(e); } return 'ok'; };
  assert.is(codeOf(() => approvals({ destructive: 'maybe' as never })), 'ORYX_E_APPROVALS_OPTIONS approvals(): option destructive must be "ask" or "allow" (was "maybe")');
  assert.match(codeOf(() => approvals({ timeoutMs: { scheduler: 0 } })), /ORYX_E_APPROVALS_OPTIONS approvals\(\): option timeoutMs\.scheduler must be positive/);
  assert.match(codeOf(() => approvals({ timeout: 5 } as never)), /did you mean "timeoutMs"/);
  const plugin = approvals();
  assert.equal([plugin.name, plugin.requires, plugin.provides, plugin.agentKeys], ['approvals', ['database'], ['approvals'], ['approve']]);
  assert.is(plugin.settings!.pending_approval!.default, 'refuse');
  assert.is(plugin.settings!.pending_approval!.check('later'), 'must be refuse or deny');
});

test('approvalRef sums up a call and why it asks in one line, long arguments cut', () => {
  const ref = approvalRef({ id: 'a1', tool: 'write_file', args: { path: 'src/a.ts', content: 'x'.repeat(500) }, asks: [{ reason: 'write of "src/a.ts" needs approval' }] });
  assert.ok(ref.summary.startsWith('write_file {"path":"src/a.ts","content":"xxx'));
  assert.ok(ref.summary.includes('…: write of "src/a.ts" needs approval'));
  assert.ok(ref.summary.length < 230);
});

test.run();
