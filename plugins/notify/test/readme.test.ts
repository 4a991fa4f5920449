import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { channelShape } from '../src/channel.ts';
import { optionsShape } from '../src/options.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The first cells (`name`) of the table under a heading. */
function firstCells(heading: string): string[] {
  const section = readme.split(heading)[1]!.split(/\n#{2,3} /)[0]!;
  return [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
}

test('the README documents every option (retry.* one by one) and every channel field a config may use', () => {
  const retry = (optionsShape.props.retry.inner as unknown as { keys: string[] }).keys;
  const options = optionsShape.keys.flatMap((key) => (key === 'retry' ? retry.map((k) => `retry.${k}`) : [key]));
  assert.equal(firstCells('### Options').sort(), options.sort());
  // passEnv is the run-time form of pass (oryx notify add --pass-env), refused in the config.
  assert.equal(firstCells('### A channel').sort(), channelShape.keys.filter((k) => k !== 'passEnv').sort());
});

test('the README lists every command of the package', () => {
  const documented = [...readme.matchAll(/^\| command \| (.+?) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`oryx notify (\w+)/g)].map((c) => c[1]!));
  const commands = readdirSync(new URL('../src/commands/notify', import.meta.url)).map((f) => f.replace(/\.ts$/, ''));
  assert.equal(documented.sort(), commands.sort());
});

test.run();
