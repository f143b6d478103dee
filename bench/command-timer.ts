/**
 * Times a peer's commands (ecCodes' tools) from a child process, so that the benchmark's own
 * process never forks between its measured rounds.
 *
 * A fork write-protects every page of the forking process; its next writes fault, page by page
 * (with transparent huge pages set to `always`, 2 MB at a time), until each is its own again. In
 * one process decoding the safrica sample eight times, with THP `always` (as this machine has it),
 * rounds with `execFileSync('true')` before each took 578-648 ms in one run against 460-525 ms
 * without, and 545-554 against 356-374 ms in another; with THP `madvise` no difference. A server
 * decodes forecasts without forking, so timing ecCodes with `execFileSync` between our rounds
 * charged our decoder for the benchmark's own forks.
 */

import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

interface Request {
  id: number;
  command: string;
  args: string[];
}

interface Reply {
  id: number;
  ms?: number;
  error?: string;
}

export interface CommandTimer {
  /** Milliseconds from starting `command` to its exit (its output discarded); rejects when it fails. */
  time(command: string, args: string[]): Promise<number>;
  close(): void;
}

export function startCommandTimer(): CommandTimer {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['child'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const waiting = new Map<number, { resolve: (ms: number) => void; reject: (error: Error) => void }>();
  let next = 0;
  child.on('message', (reply: Reply) => {
    const pending = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (reply.error !== undefined) pending?.reject(new Error(reply.error));
    else pending?.resolve(reply.ms!);
  });
  child.on('exit', () => {
    for (const pending of waiting.values()) pending.reject(new Error('the command timer exited'));
    waiting.clear();
  });
  return {
    time: (command, args) =>
      new Promise((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve, reject });
        child.send({ id, command, args } satisfies Request);
      }),
    close: () => child.disconnect(),
  };
}

if (process.argv[2] === 'child' && process.send) {
  process.on('message', ({ id, command, args }: Request) => {
    const start = performance.now();
    try {
      execFileSync(command, args, { stdio: 'ignore' });
      process.send!({ id, ms: performance.now() - start } satisfies Reply);
    } catch (error) {
      process.send!({ id, error: (error as Error).message } satisfies Reply);
    }
  });
}
