/**
 * CPU time of processes from /proc (Linux), for benchmarks that compare what each side spends: a
 * server process (every thread of it: serving, render threads, sharp's, the garbage collector) and
 * Chromium (the browser and every process it started: renderers, GPU process, utilities).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { readProcStat } from '../src/platform/files/proc-stat.js';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

interface Stat {
  ppid: number;
  /** utime + stime, in seconds. */
  own: number;
  /** cutime + cstime: children that ended and were waited for, in seconds. */
  children: number;
}

function statOf(pid: number): Stat | null {
  const stat = readProcStat(`/proc/${pid}/stat`);
  if (!stat) return null; // ended meanwhile
  // ppid is field 4, utime..cstime fields 14-17.
  const at = (field: number) => Number(stat.field(field));
  return { ppid: at(4), own: (at(14) + at(15)) / TICKS_PER_SECOND, children: (at(16) + at(17)) / TICKS_PER_SECOND };
}

/** CPU seconds a process has used so far, all its threads together. */
export function processCpuSeconds(pid: number): number {
  const stat = statOf(pid);
  if (!stat) throw new Error(`no process ${pid}`);
  return stat.own;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
  } catch {
    return '';
  }
}

/**
 * CPU seconds used so far by the Chromium processes this process started (found by their command)
 * and all their descendants, counting also the descendants that ended and were waited for by one
 * of them. Compare two readings taken while the browser runs.
 */
export function chromiumCpuSeconds(): number {
  const stats = new Map<number, Stat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = statOf(Number(name));
    if (stat) stats.set(Number(name), stat);
  }
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const roots = (children.get(process.pid) ?? []).filter((pid) => /chrom/i.test(commandOf(pid)));
  let seconds = 0;
  const stack = [...roots];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    const stat = stats.get(pid)!;
    seconds += stat.own + stat.children;
    stack.push(...(children.get(pid) ?? []));
  }
  return seconds;
}

/** One thread's CPU and run-queue wait so far, in seconds, with its name. */
export interface ThreadTimes {
  name: string;
  cpu: number;
  /** Time runnable but waiting for a core (/proc/<pid>/task/<tid>/schedstat): what a busy machine adds. */
  waited: number;
  /** When the thread started, seconds since the machine booted. */
  started: number;
}

/** Every thread of a process, by thread id. */
export function threadTimes(pid: number): Map<number, ThreadTimes> {
  const threads = new Map<number, ThreadTimes>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readProcStat(`/proc/${pid}/task/${tid}/stat`);
      if (!stat) continue;
      const [, waited] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      threads.set(Number(tid), {
        name: stat.name,
        cpu: (Number(stat.field(14)) + Number(stat.field(15))) / TICKS_PER_SECOND,
        waited: waited! / 1e9,
        started: Number(stat.field(22)) / TICKS_PER_SECOND,
      });
    } catch {
      // ended meanwhile
    }
  }
  return threads;
}

/**
 * What each thread used between two readings of `threadTimes`, threads of the same name added up
 * (so `node` is the serving thread and `node-worker`-named threads are together); sorted by CPU.
 */
export function threadUse(before: Map<number, ThreadTimes>, after: Map<number, ThreadTimes>, nameOf: (tid: number, name: string, started: number) => string = (_, name) => name): { name: string; cpu: number; waited: number }[] {
  const use = new Map<string, { cpu: number; waited: number }>();
  for (const [tid, now] of after) {
    const then = before.get(tid) ?? { cpu: 0, waited: 0 };
    const name = nameOf(tid, now.name, now.started);
    const sum = use.get(name) ?? { cpu: 0, waited: 0 };
    use.set(name, { cpu: sum.cpu + now.cpu - then.cpu, waited: sum.waited + now.waited - then.waited });
  }
  return [...use].map(([name, times]) => ({ name, ...times })).sort((a, b) => b.cpu - a.cpu);
}
