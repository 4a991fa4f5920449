// The `approvals` service's contract (the approvals plugin) on any database engine (sqlite and
// postgres: test/approvals-store.test.ts): two kernels on one database stand for two processes.
// Not a test file.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { scripted, testKernel, type TestKernel } from '@oryxos/kernel/testing';
import type { ApprovalRequest } from '@oryxos/contracts';
import approvalsPlugin from '@oryxos/plugin-approvals';
import type { StoreEngine } from '../kits/sql-store/test/store-contract.ts';

/** The error code a promise rejects with. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isOryxError(error) ? error.code : String(error);
  }
  return 'resolved';
}

export function approvalsContract(engine: StoreEngine): void {
  const request = (sessionId: string, over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
    runId: 'run-1', sessionId, agent: 'assistant', tool: 'shell', toolCallId: 'call-1', args: { command: 'git', args: ['push'] }, argsHash: 'h1',
    asks: [{ action: { kind: 'exec', command: 'git', args: ['push'] }, reason: '["git","push"] needs approval' }], ...over,
  });

  test(`approvals (${engine.name}): stored, listed and found by prefix from another process; a decision is a compare-and-set`, async () => {
    const project = await engine.project();
    const kernels: TestKernel[] = [];
    try {
      const boot = async () => {
        const k = await testKernel({ dir: project.dir, plugins: [scripted([]), project.plugin(), approvalsPlugin()] });
        kernels.push(k);
        return k;
      };
      const a = await boot();
      const b = await boot();
      const { id: sessionId } = await a.kernel.service('sessions').create({ agent: 'assistant' });
      const asked = await a.kernel.service('approvals').request(request(sessionId));
      const other = await a.kernel.service('approvals').request(request(sessionId, { toolCallId: 'call-2', tool: 'write_file' }));
      assert.is(asked.status, 'pending');

      // The other process sees it, whole.
      const seen = await b.kernel.service('approvals').get(asked.id);
      assert.equal(seen, asked);
      assert.equal((await b.kernel.service('approvals').list({ status: 'pending', sessionId })).map((x) => x.id).sort(), [asked.id, other.id].sort());
      assert.equal((await b.kernel.service('approvals').withPrefix(asked.id.slice(0, 8), 5)).map((x) => x.id), [asked.id]);
      assert.equal(await b.kernel.service('approvals').withPrefix("%' OR 1=1 --", 5), [], 'a prefix is never a pattern');

      // Two deciders at once, in two processes: exactly one wins, the other is told who did.
      const outcomes = await Promise.allSettled([
        a.kernel.service('approvals').decide(asked.id, { decision: 'approve', by: 'cli' }),
        b.kernel.service('approvals').decide(asked.id, { decision: 'deny', by: 'token:ops', reason: 'not today' }),
      ]);
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      assert.is(won.length, 1);
      assert.is(lost.length, 1);
      assert.is(lost[0]!.reason.code, 'ORYX_E_APPROVAL_DECIDED');
      const decided = (await a.kernel.service('approvals').get(asked.id))!;
      assert.match(lost[0]!.reason.message, new RegExp(`already ${decided.status} \\(by ${decided.decidedBy}`));
      assert.ok(decided.decidedAt && decided.decidedAt >= decided.requestedAt);
      assert.equal((await a.kernel.service('approvals').list({ status: 'pending' })).map((x) => x.id), [other.id]);
      assert.is(await codeOf(a.kernel.service('approvals').decide('00000000-0000-0000-0000-000000000000', { decision: 'approve', by: 'cli' })), 'ORYX_E_APPROVAL_NOT_FOUND');

      // Deleting the session deletes its approvals.
      await a.kernel.service('sessions').delete(sessionId);
      assert.equal(await a.kernel.service('approvals').list(), []);
    } finally {
      for (const k of kernels) await k.close();
      await project.cleanup();
    }
  });

  test(`approvals (${engine.name}): past its deadline a person's decision is refused and the timeout's expires it once`, async () => {
    const project = await engine.project();
    const k = await testKernel({ dir: project.dir, plugins: [scripted([]), project.plugin(), approvalsPlugin()] });
    try {
      const approvals = k.kernel.service('approvals');
      const { id: sessionId } = await k.kernel.service('sessions').create({ agent: 'assistant' });
      const past = new Date(Date.now() - 1000).toISOString();
      const late = await approvals.request(request(sessionId, { expiresAt: past }));
      assert.is(await codeOf(approvals.decide(late.id, { decision: 'approve', by: 'cli' })), 'ORYX_E_APPROVAL_EXPIRED');
      const stored = (await approvals.get(late.id))!;
      assert.equal([stored.status, stored.decidedBy], ['expired', 'timeout'], 'the refused decision expired it');

      const due = await approvals.request(request(sessionId, { toolCallId: 'call-2', expiresAt: past }));
      const future = await approvals.request(request(sessionId, { toolCallId: 'call-3', expiresAt: new Date(Date.now() + 3_600_000).toISOString() }));
      const open = await approvals.request(request(sessionId, { toolCallId: 'call-4' }));
      const expired = await approvals.expireDue();
      assert.equal(expired.map((x) => [x.id, x.status, x.decidedBy]), [[due.id, 'expired', 'timeout']]);
      assert.equal(await approvals.expireDue(), [], 'each expires once');
      assert.is(await codeOf(approvals.decide(due.id, { decision: 'deny', by: 'cli' })), 'ORYX_E_APPROVAL_EXPIRED');
      const approved = await approvals.decide(future.id, { decision: 'approve', by: 'cli', reason: 'fine' });
      assert.equal([approved.status, approved.reason], ['approved', 'fine']);
      // Used once by its call: a second use of the same approval is refused.
      assert.equal(await Promise.all([approvals.use(future.id), approvals.use(future.id)]).then((r) => r.sort()), [false, true]);
      assert.equal([(await approvals.get(future.id))!.status, await approvals.use(open.id)], ['used', false], 'a pending one cannot be used');
      assert.equal((await approvals.list({ status: 'pending' })).map((x) => x.id), [open.id]);
    } finally {
      await k.close();
      await project.cleanup();
    }
  });
}
