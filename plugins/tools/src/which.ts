import path from 'node:path';

/** True when the command is a path (has a slash) rather than a name to look up. */
export const isPathLike = (command: string) => command.includes('/') || command.includes(path.sep);
