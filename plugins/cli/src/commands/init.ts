import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { OryxError } from '@oryxos/provider-spec';
import { ERROR_CODES } from '../errors.ts';
import { OryxCommand } from '../command.ts';
import { precompileConfig } from '../config-file.ts';
import { ollamaAnswers, pickProvider, scaffold, type InitProvider } from '../scaffold.ts';

const PROVIDER_NAMES: Record<InitProvider, string> = { openai: 'OpenAI-compatible', anthropic: 'Anthropic', gemini: 'Gemini', ollama: 'Ollama' };

export default class Init extends OryxCommand {
  static override summary = 'Create oryx.config.ts and the .oryxos workspace (an assistant agent, bootstrap files, memory).';
  static override description = 'Picks the provider from what it finds, in this order: OPENAI_BASE_URL (a local server such as '
    + 'LM Studio, vLLM or llama.cpp needs no key), OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY '
    + '(Gemini\'s OpenAI-compatible endpoint), else Ollama (checked: does it answer?), and says which and why. '
    + 'Refuses to overwrite existing files unless --force is given.';
  static override examples = ['<%= config.bin %> init', '<%= config.bin %> init --dir my-project --force'];
  static override enableJsonFlag = true;
  static override flags = {
    dir: Flags.string({ summary: 'Project folder to initialise.', default: '.' }),
    force: Flags.boolean({ summary: 'Overwrite existing files.', default: false }),
  };

  async run() {
    const { flags } = await this.parse(Init);
    const root = path.resolve(flags.dir);
    const keyed = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY'].some((k) => process.env[k]?.trim());
    const { provider, reason } = pickProvider(process.env, !keyed && await ollamaAnswers(process.env));
    const files = scaffold({ provider });
    const existing = Object.keys(files).filter((f) => existsSync(path.join(root, f)));
    if (existing.length && !flags.force) {
      throw new OryxError('ORYX_E_INIT_EXISTS', `Not overwriting existing files: ${existing.join(', ')}`, {
        hint: ERROR_CODES.ORYX_E_INIT_EXISTS,
      });
    }
    for (const [file, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), content);
    }
    // Compiled now, so a read command run next (`oryx agents`, `doctor`), which never writes the
    // cache, does not compile it again each time until a run does. Best effort: the config is
    // compiled by the first command that needs it otherwise.
    await precompileConfig(path.join(root, 'oryx.config.ts')).catch(() => false);
    if (!this.jsonEnabled()) {
      this.log(`Created ${Object.keys(files).length} files in ${root}:`);
      for (const f of Object.keys(files)) this.log(`  ${f}`);
      this.log(`Provider: ${PROVIDER_NAMES[provider]}, because ${reason}.`);
      this.log('Next: oryx run "hello"');
    }
    return { root, provider, reason, files: Object.keys(files), overwritten: existing };
  }
}

