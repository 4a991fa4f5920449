import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { optionsShape } from '../src/options.ts';
import { taskShape } from '../src/task.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The first cells (`name`) of the table under a heading. */
function firstCells(heading: string): string[] {
  const section = readme.split(heading)[1]!.split(/\n#{2,3} /)[0]!;
  return [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
}

test('the README documents every option and every task field, and nothing else', () => {
  assert.equal(firstCells('### Options').sort(), [...optionsShape.keys].sort());
  assert.equal(firstCells('### A task').sort(), [...taskShape.keys].sort());
});

test('the README lists every command of the package', () => {
  const documented = [...readme.matchAll(/^\| command \| (.+?) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`oryx schedule (\w+)/g)].map((c) => c[1]!));
  const commands = readdirSync(new URL('../src/commands/schedule', import.meta.url)).map((f) => f.replace(/\.ts$/, ''));
  assert.equal(documented.sort(), commands.sort());
});

test.run();
