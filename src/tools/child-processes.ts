/**
 * The programs the tools run (gmt, osmium, tilemaker) die with the command that runs them.
 *
 * Killing the command's own process does not reach its children: they are re-parented and go on
 * writing into a partial folder the next import deletes. So each program runs in a process group
 * of its own (`detached`), and while any runs, SIGINT, SIGTERM and SIGHUP are forwarded to every
 * group; once they have exited the signal is raised again, so the command ends as the signal
 * meant. A group that outlives the forwarded signal by five seconds, or a second signal, gets
 * SIGKILL; so does every group still running when the command exits any other way. After a
 * terminating signal no new program starts, so a build cannot start the next step meanwhile.
 *
 * SIGKILL cannot be caught: a build records the groups it starts in a file of its partial folder
 * (`recordChildrenIn`), and the next build of the same maps stops what a killed one left
 * (`stopLeftovers`) before deleting that folder. Processes are read from Linux's /proc: the tools
 * are Debian's packages.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';

const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** How long a group may take to exit after a forwarded signal before it is killed. */
const graceMs = 5000;

const live = new Set<ChildProcess>();
/** The signal the command is stopping on, once one came. */
let stopping: NodeJS.Signals | null = null;
let escalation: NodeJS.Timeout | undefined;
/** The file the current build records its groups in. */
const ledger = new AsyncLocalStorage<string>();

function signalGroups(signal: NodeJS.Signals): void {
  for (const child of live) {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Gone already: its exit event is on its way.
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  if (stopping !== null) {
    signalGroups('SIGKILL');
    return;
  }
  stopping = signal;
  signalGroups(signal);
  escalation = setTimeout(() => signalGroups('SIGKILL'), graceMs);
}

function onExit(): void {
  signalGroups('SIGKILL');
}

function watch(on: boolean): void {
  for (const signal of forwarded) process[on ? 'on' : 'off'](signal, onSignal);
  process[on ? 'on' : 'off']('exit', onExit);
}

function track(child: ChildProcess): void {
  if (live.size === 0) watch(true);
  live.add(child);
  child.once('exit', () => {
    live.delete(child);
    if (live.size > 0) return;
    watch(false);
    if (stopping !== null) {
      clearTimeout(escalation);
      // With no listener left, the signal's default action ends the command.
      process.kill(process.pid, stopping);
    }
  });
}

/** `pgrp` and `starttime` of a process that is not a zombie, from /proc; null when there is none. */
function processStat(pid: number): { group: number; start: string } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name, in parentheses, may hold spaces: fields are counted after its end.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z') return null;
  return { group: Number(fields[2]), start: fields[19]! };
}

/** The live processes of a process group. */
function groupMembers(group: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => processStat(pid)?.group === group);
}

/**
 * Starts `command` in a process group of its own, tied to the command's life (see the module
 * comment), and records the group in the current build's file, if any.
 */
export function spawnTool(command: string, args: readonly string[], options: Omit<SpawnOptions, 'detached'>): ChildProcess {
  if (stopping !== null) throw new Error(`not starting ${command}: the command is stopping on ${stopping}`);
  const child = spawn(command, args, { ...options, detached: true });
  // Without a pid it did not start; its 'error' event says why.
  if (child.pid === undefined) return child;
  track(child);
  const file = ledger.getStore();
  if (file !== undefined) {
    try {
      appendFileSync(file, `${child.pid} ${processStat(child.pid)?.start ?? ''}\n`);
    } catch (error) {
      process.kill(-child.pid, 'SIGKILL');
      throw error;
    }
  }
  return child;
}

/** A program's failure: its exit code (or `ENOENT` when it is not installed) and what it wrote to stderr. */
export type ToolError = Error & { code?: number | string | null; stderr: string };

/**
 * Runs `command` to its end, as `execFile` does but through `spawnTool`: resolves with its output,
 * rejects when it fails or writes more than `maxBuffer` bytes to one stream.
 */
export function runTool(command: string, args: readonly string[], options: { cwd?: string; input?: string; maxBuffer: number }): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnTool(command, args, { cwd: options.cwd, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    const streams = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    const text = (name: keyof typeof streams) => Buffer.concat(streams[name]).toString('utf8');
    let overflow = false;
    for (const name of ['stdout', 'stderr'] as const) {
      let bytes = 0;
      child[name]!.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > options.maxBuffer && !overflow) {
          overflow = true;
          child.kill('SIGKILL');
        }
        if (!overflow) streams[name].push(chunk);
      });
    }
    if (options.input !== undefined) {
      // A program that exits without reading all its input is judged by its exit code, not EPIPE.
      child.stdin!.on('error', () => {});
      child.stdin!.end(options.input);
    }
    child.once('error', (error: NodeJS.ErrnoException) => reject(Object.assign(error, { stderr: '' })));
    child.once('close', (code, signal) => {
      if (code === 0 && !overflow) {
        resolve({ stdout: text('stdout'), stderr: text('stderr') });
        return;
      }
      const why = overflow ? `wrote more than ${options.maxBuffer} bytes` : signal ? `was killed by ${signal}` : `exited with ${code}`;
      reject(Object.assign(new Error(`${command} ${why}`), { code, stderr: text('stderr') }) satisfies ToolError);
    });
  });
}

/** Runs `work` with the groups it starts recorded in `file`, for `stopLeftovers`. */
export function recordChildrenIn<T>(file: string, work: () => Promise<T>): Promise<T> {
  return ledger.run(file, work);
}

/**
 * Kills what is left of the groups recorded in `file` by a build that was killed itself, and
 * returns once none of their processes is left. A group whose leader's pid now belongs to a
 * process started at another time is another program's (the pid was reused) and is left alone;
 * a group whose leader is gone but whose other members live cannot have been reused (Linux gives
 * no process the id of a live group).
 */
export async function stopLeftovers(file: string): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  const groups = text
    .split('\n')
    .map((line) => line.split(' '))
    .filter(([pid]) => pid !== undefined && /^\d+$/.test(pid))
    .filter(([pid, start]) => {
      const leader = processStat(Number(pid));
      return leader === null || leader.start === start;
    })
    .map(([pid]) => Number(pid));
  const left = () => groups.flatMap(groupMembers);
  for (const pid of left()) process.kill(pid, 'SIGKILL');
  // SIGKILL cannot be refused; a process ends once it leaves the kernel call it is in.
  for (let waited = 0; left().length > 0; waited += 20) {
    if (waited > 10_000) throw new Error(`processes ${left().join(', ')} of an import that was killed do not stop`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
