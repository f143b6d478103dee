import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

/** The pid of the live process holding the lock file, or null when it is free or stale. */
export function lockHolder(file: string): number | null {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (pid === process.pid) return pid;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

export class LockHeldError extends Error {
  constructor(
    readonly file: string,
    readonly pid: number,
  ) {
    super(`${file} is held by process ${pid}`);
  }
}

/**
 * Takes an exclusive lock file holding our pid; a lock left by a dead process is taken over.
 * The embedded database may be opened by one process only.
 */
export function acquireLock(file: string): () => void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = lockHolder(file);
      if (holder !== null) throw new LockHeldError(file, holder);
      rmSync(file, { force: true });
    }
  }
  throw new Error(`Cannot take the lock ${file}`);
}
