import type { Approval, ApprovalStore } from '@oryxos/contracts';
import { MIN_PREFIX } from '@oryxos/command-kit';
import { OryxError } from '@oryxos/provider-spec';
import { approvalsError } from './errors.ts';

/** How many matches an ambiguous prefix lists. */
const SHOWN = 5;

/**
 * The approval a person named on the command line: its full id or a unique prefix of it (the
 * 8 characters `oryx approvals` shows). No match is ORYX_E_APPROVAL_NOT_FOUND; a prefix several
 * ids start with is ORYX_E_CLI_AMBIGUOUS_ID listing them.
 *
 * @example
 * const approval = await resolveApproval(kernel.service('approvals'), '3f2a9c1e');
 */
export async function resolveApproval(store: ApprovalStore, idOrPrefix: string): Promise<Approval> {
  const exact = await store.get(idOrPrefix);
  if (exact) return exact;
  const matches = idOrPrefix.length >= MIN_PREFIX ? await store.withPrefix(idOrPrefix, SHOWN + 1) : [];
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    const listed = matches.slice(0, SHOWN).map((a) => `${a.id} (${a.tool} in session ${a.sessionId.slice(0, 8)}, ${a.status})`);
    throw new OryxError('ORYX_E_CLI_AMBIGUOUS_ID', `Approval prefix "${idOrPrefix}" matches ${matches.length > SHOWN ? `more than ${SHOWN}` : matches.length} approvals: ${listed.join('; ')}`, {
      hint: 'Give more characters of the id (or the whole id).',
      data: { prefix: idOrPrefix, matches: matches.map((a) => a.id) },
    });
  }
  throw approvalsError('ORYX_E_APPROVAL_NOT_FOUND', `No approval "${idOrPrefix}"`, {
    hint: `List approvals with \`oryx approvals --status all\`; an id prefix of at least ${MIN_PREFIX} characters works when it matches one approval.`,
  });
}
