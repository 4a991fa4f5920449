import { OryxCommand } from '@oryxos/command-kit';
import { table } from '@oryxos/command-kit';
import { installedPackages, type InstalledPackage } from '@oryxos/command-kit';

/** What `oryx version --json` prints. */
export interface VersionReport {
  cli: string;
  kernel: string | undefined;
  node: string;
  platform: string;
  packages: InstalledPackage[];
}

export default class Version extends OryxCommand {
  static override summary = 'The version of the CLI, the kernel and every package: those that come with the CLI and those added with `oryx plugins install` or `link`.';
  static override description = '`oryx --version` prints the same. Reads package.json files only: no plugin code is loaded and no config is run.';
  static override examples = ['<%= config.bin %> --version', '<%= config.bin %> version --json'];
  static override enableJsonFlag = true;

  async run(): Promise<VersionReport> {
    await this.parse(Version);
    const packages = installedPackages(this.config);
    const report: VersionReport = {
      cli: this.config.version,
      kernel: packages.find((p) => p.name === '@oryxos/kernel')?.version,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      packages,
    };
    if (!this.jsonEnabled()) {
      this.log(`${this.config.bin} ${report.cli} (${this.config.name}), kernel ${report.kernel ?? 'not found'}, node ${report.node} ${report.platform}`);
      this.log(table(packages.map((p) => ({ package: p.name, version: p.version, from: p.type === 'core' ? 'bundled' : p.type === 'user' ? 'installed' : `linked ${p.root}` }))));
    }
    return report;
  }
}
