/**
 * The programs the tools run (gmt, osmium, tilemaker) die with the command that runs them.
 *
 * A signal sent to the command's process alone (`kill PID`, a supervisor stopping it) does not
 * reach its children: they are re-parented and go on writing into a partial folder the next
 * import deletes. So from the first program's start on, SIGINT, SIGTERM and SIGHUP are caught:
 * while any program runs they are forwarded to each, and once those have exited the signal is
 * raised again, so that the command ends as the signal meant (between programs, at once). A program
 * that outlives the forwarded signal by five seconds, or a second signal, gets SIGKILL; so does
 * every program still running when the command exits any other way. After a terminating
 * signal no new program starts, so a build cannot start its next step meanwhile. The programs stay
 * in the command's process group, so that a terminal's Ctrl-C and Ctrl-Z reach them as they reach
 * the command (none of them starts programs of its own).
 *
 * SIGKILL cannot be caught: a build records the programs it starts in a file of its partial folder
 * (`recordChildrenIn`), and the next build of the same maps stops what a killed one left
 * (`stopLeftovers`) before deleting that folder. Processes are read from Linux's /proc: the tools
 * are Debian's packages.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { readProcStat } from '../platform/files/proc-stat.js';

const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** How long a program may take to exit after a forwarded signal before it is killed. */
const graceMs = 5000;

const live = new Set<ChildProcess>();
/** The signal the command is stopping on, once one came. */
let stopping: NodeJS.Signals | null = null;
let escalation: NodeJS.Timeout | undefined;
/** The file the current build records its programs in. */
const ledger = new AsyncLocalStorage<string>();

function signalAll(signal: NodeJS.Signals): void {
  // One already gone is skipped: its exit event is on its way.
  for (const child of live) child.kill(signal);
}

/** Ends the command by `signal`: with no listener left, the signal's default action ends it. */
function raise(signal: NodeJS.Signals): void {
  clearTimeout(escalation);
  watch(false);
  process.kill(process.pid, signal);
}

function onSignal(signal: NodeJS.Signals): void {
  if (stopping !== null) {
    signalAll('SIGKILL');
    return;
  }
  stopping = signal;
  if (live.size === 0) {
    // Between two programs it ends the command at once, as it would without this listener (unless
    // another listener, which was given it too, keeps the command running).
    if (process.listenerCount(signal) === 1) raise(signal);
    else watch(false);
    return;
  }
  signalAll(signal);
  escalation = setTimeout(() => signalAll('SIGKILL'), graceMs);
}

function onExit(): void {
  signalAll('SIGKILL');
}

let watching = false;

/**
 * Catches the signals from before the first program starts until the command stops on one. Not
 * only while programs run: a signal that came while `spawn` was starting one (the program already
 * running, not yet in `live`) would have met the default action and left it running; and one that
 * came just before the last program's exit was handled would have been dropped unhandled with the
 * listener removed on that exit (Node delivers both through the same queue), so the command would
 * have gone on to its next step.
 */
function watch(on: boolean): void {
  if (watching === on) return;
  watching = on;
  for (const signal of forwarded) process[on ? 'on' : 'off'](signal, onSignal);
  process[on ? 'on' : 'off']('exit', onExit);
}

function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => {
    live.delete(child);
    if (live.size === 0 && stopping !== null) raise(stopping);
  });
}

/** The `starttime` of a process that is not a zombie, from /proc; null when there is none. */
function startTime(pid: number): string | null {
  const stat = readProcStat(`/proc/${pid}/stat`);
  return stat === null || stat.field(3) === 'Z' ? null : stat.field(22);
}

/**
 * Starts `command`, tied to the command's life (see the module comment), and records it in the
 * current build's file, if any.
 */
export function spawnTool(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  if (stopping !== null) throw new Error(`not starting ${command}: the command is stopping on ${stopping}`);
  watch(true);
  const child = spawn(command, args, options);
  // Without a pid it did not start; its 'error' event says why.
  if (child.pid === undefined) return child;
  track(child);
  const file = ledger.getStore();
  if (file !== undefined) {
    try {
      appendFileSync(file, `${child.pid} ${startTime(child.pid) ?? ''}\n`);
    } catch (error) {
      child.kill('SIGKILL');
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

/** Runs `work` with the programs it starts recorded in `file`, for `stopLeftovers`. */
export function recordChildrenIn<T>(file: string, work: () => Promise<T>): Promise<T> {
  return ledger.run(file, work);
}

/**
 * Kills the programs recorded in `file` that still run, left by a build that was killed itself,
 * and returns once they have ended. A pid that now belongs to a process started at another time
 * was reused by another program, and is left alone.
 */
export async function stopLeftovers(file: string): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  const recorded = text
    .split('\n')
    .map((line) => line.split(' '))
    .filter(([pid, start]) => pid !== undefined && /^\d+$/.test(pid) && start !== undefined && start !== '')
    .map(([pid, start]) => ({ pid: Number(pid), start: start! }));
  const left = () => recorded.filter(({ pid, start }) => startTime(pid) === start).map(({ pid }) => pid);
  for (const pid of left()) process.kill(pid, 'SIGKILL');
  // SIGKILL cannot be refused; a process ends once it leaves the kernel call it is in.
  for (let waited = 0; left().length > 0; waited += 20) {
    if (waited > 10_000) throw new Error(`processes ${left().join(', ')} of an import that was killed do not stop`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
