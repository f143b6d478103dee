/**
 * A process's or thread's line of Linux's /proc/<pid>/stat (or /proc/<pid>/task/<tid>/stat), read by
 * proc(5)'s field numbers: 3 the state, 4 the parent, 14-17 the CPU times in clock ticks, 19 the nice
 * value, 22 the start time. The command name (field 2, in parentheses) may hold spaces and
 * parentheses: the other fields are counted from after its last closing parenthesis.
 */

import { readFileSync } from 'node:fs';

export interface ProcStat {
  /** The command name (field 2), without its parentheses. */
  readonly name: string;
  /** Field `number` (3 or more) as written. */
  field(number: number): string;
}

/** The stat line at `file`; null when it cannot be read (the process or thread has ended). */
export function readProcStat(file: string): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch {
    return null;
  }
  const end = text.lastIndexOf(')');
  const fields = text.slice(end + 2).split(' ');
  return { name: text.slice(text.indexOf('(') + 1, end), field: (number) => fields[number - 3]! };
}
