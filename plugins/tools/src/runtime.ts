// What the built-in tools do when called, loaded on the first call of any of them (see
// `later` in builtin.ts). Their names, descriptions and schemas are in tools/, loaded at setup.
export { currentTime } from './run/current-time.ts';
export { editFile } from './run/edit-file.ts';
export { httpRequest } from './run/http-request.ts';
export { listDir } from './run/list-dir.ts';
export { readFile } from './run/read-file.ts';
export { shell } from './run/shell.ts';
export { writeFile } from './run/write-file.ts';
