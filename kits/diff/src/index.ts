export { MAX_DIFF_LINES, proposedDiff, type ProposedCall, type ProposedDiffOptions } from './proposed-diff.ts';
