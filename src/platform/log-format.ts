/**
 * How log lines read on a terminal. The log is JSON lines (pino) for machines; a person running
 * `meridian serve` in a terminal reads one short line per event instead, as Caddy's console
 * encoder does: the time, the level, and for an access line its status, duration, size, method
 * and URL, for any other line its message and fields.
 */
import PinoPretty from 'pino-pretty';
import type { DestinationStream } from 'pino';

export type LogFormat = 'auto' | 'json' | 'pretty';

/** Fields pino adds to every line, shown by the line's head or not at all. */
const headFields = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/** Bytes as a person reads them: `812B`, `48.2kB`, `3.1MB`. */
function size(bytes: number): string {
  if (bytes < 1000) return `${bytes}B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)}kB`;
  return `${(bytes / 1_000_000).toFixed(1)}MB`;
}

function fieldText(value: unknown): string {
  return typeof value === 'string' ? (/[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value) : JSON.stringify(value);
}

/**
 * The message part of a terminal line. An access line (`request completed`, platform/logging.ts)
 * becomes `200 182ms 48.2kB GET /url key 5b1e… from 203.0.113.9`; any other line its message
 * followed by its fields as `name=value` (an error by its message; its stack on the lines below).
 */
export function terminalMessage(entry: Record<string, unknown>): string {
  if (entry.msg === 'request completed' && typeof entry.status === 'number') {
    const key = typeof entry.keyId === 'string' ? ` key ${entry.keyId}` : '';
    return `${entry.status} ${entry.ms}ms ${size(Number(entry.bytes) || 0)} ${entry.method} ${entry.url}${key} from ${entry.client}`;
  }
  const parts = [typeof entry.msg === 'string' ? entry.msg : ''];
  let stack = '';
  for (const [name, value] of Object.entries(entry)) {
    if (headFields.has(name) || value === undefined) continue;
    if (name === 'err' && value && typeof value === 'object') {
      const error = value as { message?: string; stack?: string };
      parts.push(`err=${fieldText(error.message ?? '')}`);
      if (error.stack) stack = `\n${error.stack}`;
      continue;
    }
    parts.push(`${name}=${fieldText(value)}`);
  }
  return parts.filter(Boolean).join(' ') + stack;
}

/** Whether `format` asks for terminal lines on `output`: `auto` does when it is a terminal. */
export function writesPretty(format: LogFormat, output: { isTTY?: boolean }): boolean {
  return format === 'pretty' || (format === 'auto' && output.isTTY === true);
}

/**
 * The stream the server logs to in `format`: undefined (pino's JSON lines on stdout) unless it
 * asks for terminal lines, then those, coloured when `output` is a terminal.
 */
export function logStreamFor(format: LogFormat, output: NodeJS.WriteStream = process.stdout): DestinationStream | undefined {
  if (!writesPretty(format, output)) return undefined;
  return PinoPretty({
    destination: output,
    sync: true,
    colorize: output.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    hideObject: true,
    messageFormat: (entry) => terminalMessage(entry),
  });
}
