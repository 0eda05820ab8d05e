// Who holds a mirror's sync lease, said so that a process on the same machine can tell a live holder from a
// dead one: `host/pid/random`. A holder on this host whose process no longer exists holds nothing, so a
// server restarted after a crash takes the lease at once instead of waiting for it to lapse. A holder on
// another host (a file on a shared disk) is judged by the lease's expiry alone.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

export function newHolder(): string {
  return `${hostname()}/${process.pid}/${randomUUID()}`;
}

/** The holder's process id when it ran on this host; null otherwise. */
export function localPid(holder: string): number | null {
  const [host, pid] = holder.split('/');
  if (host !== hostname() || !/^\d+$/.test(pid ?? '')) return null;
  return Number(pid);
}

/** True only when the holder ran on this host and its process is gone. */
export function holderIsGone(holder: string): boolean {
  const pid = localPid(holder);
  if (pid === null || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: the process exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
