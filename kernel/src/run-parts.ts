// What only a run needs: the loop, its budget and state, resuming, the prompt's turns.
// AgentService loads it with its first run, so a command that runs nothing (`oryx agents`,
// `oryx tools`, `oryx sessions`) does not compile it (~40 KB).
export { RunBudget } from './budget.ts';
export { runLoop } from './loop.ts';
export { denyWaiting, resumePoint, waitingError, waitingOn } from './resume.ts';
export { groupTurns, turnCount } from './prompt.ts';
export { RunState } from './run-state.ts';
