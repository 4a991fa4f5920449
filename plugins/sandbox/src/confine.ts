/**
 * OS confinement of child processes with bubblewrap: the file system the policy describes
 * (system folders and read roots read-only, write roots writable, deny entries masked,
 * control files read-only, a private /tmp), no network (or only the OryxOS proxy), no new
 * privileges, no capabilities, fresh PID/IPC/UTS/user namespaces, optional resource limits.
 */
import { execFile } from 'node:child_process';
import { lstat, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Limits } from './exec-rule.ts';
import { isWithin } from './paths.ts';
import { viewArgs, type WorkspaceView } from './workspace-view.ts';

const run = promisify(execFile);

/** Folders every program needs, bound read-only (a merged-/usr symlink stays a symlink). */
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

/** Secrets under /etc that no confined process reads (masked when they exist). */
const ETC_SECRETS = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/sudoers', '/etc/sudoers.d', '/etc/ssl/private',
  '/etc/security/opasswd', '/etc/krb5.keytab', '/etc/credstore', '/etc/credstore.encrypted'];

/** Where the proxy socket appears inside, and the loopback port the forwarder listens on. */
export const PROXY_SOCKET = '/run/oryx-proxy.sock';
export const PROXY_PORT = 3128;

/** The confinement programs found at start. */
export interface Mechanism {
  bwrap: string;
  /** `--disable-userns` is supported (bubblewrap 0.8+). */
  disableUserns: boolean;
  /** socat, the forwarder inside the sandbox when the http allow-list lets programs reach the network. */
  socat?: string;
  /** prlimit, which sets resource limits inside the sandbox. */
  prlimit?: string;
}

/** What one confined launch may see and do. */
export interface ConfineSpec {
  program: string;
  args: string[];
  cwd: string;
  /** Read-only roots (already narrowed by the agent). */
  read: string[];
  /** Writable roots. */
  write: string[];
  /** Existing denied paths inside the roots: masked. */
  deny: { path: string; dir: boolean }[];
  /** Existing control files inside the write roots: read-only. */
  protect: string[];
  /** Opted-in control files or folders inside those: writable again. */
  reopen: string[];
  /**
   * Folders inside a write root that hold a deny entry: mounted onto themselves (still
   * writable), so that they cannot be renamed or moved (a mount point cannot be), and the deny
   * entry's mask stays where it is.
   */
  pin?: string[];
  /** The workspace, rebuilt without the operator's files (workspace-view.ts). */
  view?: WorkspaceView;
  /** Folders of a program that lives outside every mounted folder (read-only, so it can start). */
  programDirs?: string[];
  /** Host path of this launch's proxy socket, when the network goes through the proxy. */
  proxySocket?: string;
  limits?: Limits;
}

interface SystemMounts { args: string[]; covered: string[] }
let systemMounts: Promise<SystemMounts> | undefined;

/** The bind mounts of the system folders and the /etc masks, computed once per process. */
function system(): Promise<SystemMounts> {
  systemMounts ??= (async () => {
    const args: string[] = [];
    const covered: string[] = [];
    for (const dir of SYSTEM) {
      const s = await lstat(dir).catch(() => undefined);
      if (!s) continue;
      if (s.isSymbolicLink()) args.push('--symlink', await readlink(dir), dir);
      else if (s.isDirectory()) { args.push('--ro-bind', dir, dir); covered.push(dir); }
    }
    const secrets = [...ETC_SECRETS];
    for (const name of await readdir('/etc/ssh').catch(() => [] as string[])) {
      if (/^ssh_host_.*_key$/.test(name)) secrets.push(`/etc/ssh/${name}`);
    }
    for (const file of secrets) {
      const s = await lstat(file).catch(() => undefined);
      if (s) args.push(...mask(file, s.isDirectory()));
    }
    return { args, covered };
  })();
  return systemMounts;
}

function mask(p: string, dir: boolean): string[] {
  return dir ? ['--tmpfs', p, '--remount-ro', p] : ['--ro-bind', '/dev/null', p];
}

const depth = (p: string) => p.split(path.sep).length;

/**
 * Finds bubblewrap and checks that it can build a sandbox here (user namespaces may be
 * disabled). Returns the mechanism or why there is none.
 */
export async function probe(bwrap: string, tools: { socat?: string; prlimit?: string }): Promise<Mechanism | string> {
  let disableUserns = false;
  try {
    const { stdout } = await run(bwrap, ['--version'], { timeout: 5000 });
    const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(stdout) ?? []).slice(1).map(Number);
    disableUserns = major > 0 || minor >= 8;
  } catch (error) {
    return `bubblewrap (${bwrap}) does not run: ${(error as Error).message}`;
  }
  const mechanism: Mechanism = { bwrap, disableUserns, ...tools };
  const test = await bwrapArgs(mechanism, { program: '/bin/true', args: [], cwd: '/', read: [], write: [], deny: [], protect: [], reopen: [] });
  try {
    await run(bwrap, test, { timeout: 10_000, env: {} });
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? '').trim();
    return `bubblewrap (${bwrap}) cannot build a sandbox here: ${stderr || (error as Error).message} (user namespaces may be disabled: check the kernel.unprivileged_userns_clone or user.max_user_namespaces sysctl)`;
  }
  return mechanism;
}

/**
 * The bubblewrap argument list for one launch. Mounts are ordered so that a path is mounted
 * after the folders that contain it: system folders, the private /tmp, then the roots, then
 * the folders pinned in place, the workspace view, masks and read-only control files inside
 * them, then opted-in control files made writable.
 */
export async function bwrapArgs(m: Mechanism, spec: ConfineSpec): Promise<string[]> {
  const sys = await system();
  const args = [
    '--unshare-user', '--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try',
    '--die-with-parent', '--new-session', '--cap-drop', 'ALL', ...(m.disableUserns ? ['--disable-userns'] : []),
    ...sys.args, '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp',
  ];
  const mounts: { path: string; order: number; args: string[] }[] = [];
  const visible = (p: string) => [...sys.covered, ...spec.read, ...spec.write].some((r) => isWithin(p, r));
  for (const w of spec.write) mounts.push({ path: w, order: 0, args: ['--bind', w, w] });
  for (const r of spec.read) {
    if (!spec.write.some((w) => isWithin(r, w))) mounts.push({ path: r, order: 0, args: ['--ro-bind', r, r] });
  }
  for (const dir of spec.programDirs ?? []) if (!visible(dir)) mounts.push({ path: dir, order: 0, args: ['--ro-bind', dir, dir] });
  for (const p of spec.pin ?? []) mounts.push({ path: p, order: 0.5, args: ['--bind', p, p] });
  if (spec.view && visible(spec.view.path)) mounts.push({ path: spec.view.path, order: 1, args: viewArgs(spec.view) });
  for (const d of spec.deny) if (visible(d.path)) mounts.push({ path: d.path, order: 1, args: mask(d.path, d.dir) });
  for (const p of spec.protect) mounts.push({ path: p, order: 1, args: ['--ro-bind', p, p] });
  for (const p of spec.reopen) mounts.push({ path: p, order: 2, args: ['--bind', p, p] });
  mounts.sort((a, b) => depth(a.path) - depth(b.path) || a.order - b.order);
  for (const mount of mounts) args.push(...mount.args);
  if (spec.proxySocket) args.push('--bind', spec.proxySocket, PROXY_SOCKET);
  args.push('--chdir', spec.cwd, '--');
  if (spec.proxySocket && m.socat) args.push('/bin/sh', '-c', forwarder(m.socat), 'oryx-net');
  const l = spec.limits;
  if (l && m.prlimit && (l.cpuSeconds || l.memoryMb || l.processes)) {
    args.push(m.prlimit,
      ...(l.cpuSeconds ? [`--cpu=${l.cpuSeconds}`] : []),
      ...(l.memoryMb ? [`--data=${l.memoryMb * 1024 * 1024}`] : []),
      ...(l.processes ? [`--nproc=${l.processes}`] : []),
      '--');
  }
  args.push(spec.program, ...spec.args);
  return args;
}

/**
 * The shell script that starts socat inside the sandbox (loopback port → the proxy's Unix
 * socket), waits until it listens (reading /proc/net/tcp with shell builtins only), then
 * becomes the program. socat is started from a subshell so it is not a child of the program.
 */
function forwarder(socat: string): string {
  const hexPort = PROXY_PORT.toString(16).toUpperCase().padStart(4, '0');
  return [
    `(${socat} TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:${PROXY_SOCKET} </dev/null >/dev/null 2>&1 &)`,
    'i=0',
    'while [ $i -lt 20000 ]; do',
    `  while read -r _ a _ s _; do [ "$a" = 0100007F:${hexPort} ] && [ "$s" = 0A ] && break 2; done </proc/net/tcp`,
    '  i=$((i+1))',
    'done',
    'exec "$@"',
  ].join('\n');
}
