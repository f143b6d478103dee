/**
 * Progress of long work (imports, builds, ingests) for a person watching: on a terminal, one line
 * redrawn in place with the phase, the percentage and the time left; otherwise (a log file, CI, a
 * pipe) plain lines: each phase's start, every tenth of it, and its end.
 */

export interface Progress {
  /** A new phase begins; `total` is its number of steps when known. */
  phase(name: string, total?: number): void;
  /** Steps done of the current phase (and its total, when it becomes known). */
  update(done: number, total?: number): void;
  /** A line that is not progress (a warning, a result). */
  note(message: string): void;
  /** The work ended: the line is left as it is. */
  end(): void;
}

interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Redraws on a terminal at most this often. */
const REDRAW_MS = 100;

export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** The time left when `fraction` of a phase took `elapsedMs`; null until there is enough to go on. */
export function eta(elapsedMs: number, fraction: number): number | null {
  if (fraction <= 0.01 || elapsedMs < 500) return null;
  return (elapsedMs * (1 - fraction)) / fraction;
}

/** The tenth of a phase (1 to 9) that `done` of `total` steps has newly reached past `last`, or null. */
function tenthReached(done: number, total: number, last: number): number | null {
  const tenth = Math.floor((Math.min(done, total) / total) * 10);
  return tenth > last && tenth < 10 ? tenth : null;
}

export function progressOn(stream: Stream, now: () => number = Date.now): Progress {
  const tty = stream.isTTY === true;
  let name = '';
  let total: number | undefined;
  let started = 0;
  let lastDraw = 0;
  let lastTenth = 0;
  let drawn = false;

  const line = (done: number): string => {
    if (!total) return `${name}…`;
    const fraction = Math.min(1, done / total);
    const left = eta(now() - started, fraction);
    return `${name}: ${(fraction * 100).toFixed(0)}%${left === null ? '' : `, ${formatDuration(left)} left`}`;
  };
  const clear = () => {
    if (tty && drawn) stream.write('\r\u001b[K');
    drawn = false;
  };
  const draw = (done: number) => {
    // A terminal that does not tell its width (util-linux `script`) says 0 columns.
    const text = line(done).slice(0, Math.max(20, (stream.columns || 80) - 1));
    stream.write(`\r\u001b[K${text}`);
    drawn = true;
    lastDraw = now();
  };
  const finishPhase = () => {
    if (!name) return;
    const took = formatDuration(now() - started);
    clear();
    stream.write(`${name}: done in ${took}\n`);
  };

  return {
    phase(next, steps) {
      finishPhase();
      name = next;
      total = steps;
      started = now();
      lastTenth = 0;
      if (tty) draw(0);
      else stream.write(`${name}…\n`);
    },
    update(done, steps) {
      if (steps !== undefined) total = steps;
      if (tty) {
        if (now() - lastDraw >= REDRAW_MS) draw(done);
        return;
      }
      if (!total) return;
      const tenth = tenthReached(done, total, lastTenth);
      if (tenth !== null) {
        lastTenth = tenth;
        stream.write(`${line(done)}\n`);
      }
    },
    note(message) {
      clear();
      stream.write(`${message}\n`);
    },
    end() {
      finishPhase();
      name = '';
    },
  };
}

/** Progress that goes nowhere (tests, library use). */
export const silentProgress: Progress = { phase() {}, update() {}, note() {}, end() {} };

/**
 * Progress in a server's log (pino): each phase's start with its size, every tenth of it, notes,
 * and each phase's end with its duration. `fields` go on every line (the model being fetched).
 */
export function progressToLog(
  log: { info(object: object, message: string): void },
  fields: object = {},
  now: () => number = Date.now,
): Progress {
  let name = '';
  let total: number | undefined;
  let started = 0;
  let lastTenth = 0;
  const finishPhase = () => {
    if (name) log.info({ ...fields, phase: name, ms: now() - started }, 'done');
    name = '';
  };
  return {
    phase(next, steps) {
      finishPhase();
      name = next;
      total = steps;
      started = now();
      lastTenth = 0;
      log.info({ ...fields, phase: name, ...(steps === undefined ? {} : { total: steps }) }, 'started');
    },
    update(done, steps) {
      if (steps !== undefined) total = steps;
      if (!total) return;
      const tenth = tenthReached(done, total, lastTenth);
      if (tenth !== null) {
        lastTenth = tenth;
        const elapsed = now() - started;
        const left = eta(elapsed, done / total);
        log.info({ ...fields, phase: name, done, total, percent: tenth * 10, ...(left === null ? {} : { etaMs: Math.round(left) }) }, 'progress');
      }
    },
    note(message) {
      log.info({ ...fields, phase: name, note: message }, 'note');
    },
    end: finishPhase,
  };
}

/** One `Progress` call, as it crosses from a worker thread to the thread that shows it. */
type ProgressCall =
  | { call: 'phase'; name: string; total?: number }
  | { call: 'update'; done: number; total?: number }
  | { call: 'note'; message: string }
  | { call: 'end' }
  | { call: 'closed' };

interface Port {
  postMessage(value: unknown): void;
  close(): void;
}

/**
 * Progress made in a worker thread, posted to the thread that shows it (see `relayProgress`);
 * `close` says the work posts nothing more.
 */
export function progressToPort(port: Port): Progress & { close(): void } {
  const post = (call: ProgressCall) => port.postMessage(call);
  return {
    phase: (name, total) => post({ call: 'phase', name, ...(total === undefined ? {} : { total }) }),
    update: (done, total) => post({ call: 'update', done, ...(total === undefined ? {} : { total }) }),
    note: (message) => post({ call: 'note', message }),
    end: () => post({ call: 'end' }),
    close() {
      post({ call: 'closed' });
      port.close();
    },
  };
}

/**
 * Shows on `progress` what `progressToPort` posts from another thread. Resolves once the other
 * side closed, after its last message: the port's own close event can come much later (when the
 * thread ends), so the other side says it.
 */
export function relayProgress(
  port: { on(event: 'message', listener: (value: unknown) => void): unknown; close(): void },
  progress: Progress,
): Promise<void> {
  return new Promise((resolve) => {
    port.on('message', (value) => {
      const message = value as ProgressCall;
      if (message.call === 'phase') progress.phase(message.name, message.total);
      else if (message.call === 'update') progress.update(message.done, message.total);
      else if (message.call === 'note') progress.note(message.message);
      else if (message.call === 'end') progress.end();
      else {
        port.close();
        resolve();
      }
    });
  });
}
