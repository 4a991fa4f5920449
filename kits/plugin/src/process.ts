import { existsSync, readFileSync } from 'node:fs';

/**
 * True while a process with this id runs on this host (a process of another user counts). A
 * zombie (exited, waiting for a parent that may never reap it, as an orphan under a container's
 * init often does) counts as ended. Used to take over what a dead process held: a session lease,
 * a lock file, a scheduled slot.
 *
 * @example
 * if (holder.host === hostname() && !processAlive(holder.pid)) takeOver();
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch (error) {
    // No /proc (macOS): trust kill(0). With /proc, a vanished entry means the process just ended.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? !existsSync('/proc/self') : true;
  }
}
