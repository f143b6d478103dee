/**
 * The programs `meridian maps import` runs die with it (issue 31, item 4): a real import of West
 * Oakland is killed while gmt, then tilemaker, runs; and after one killed by SIGKILL (which no
 * process can forward), the next import of the same maps stops what it left. And SIGTERM timed
 * against `spawn` itself: as it returns a started program, and as a program's exit is reported.
 */

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { before, test } from 'node:test';
import { readProcStat } from '../../src/platform/files/proc-stat.js';
import { importExtract } from '../../src/tools/osm/import.js';
import { OAKLAND, requirePeers } from '../peers.js';
import { tempDir } from '../scratch.js';

before(() => requirePeers('osmSamples', 'gshhgFull'));

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/meridian.js');
const compiled = (file: string) => pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..', file)).href;
const moduleUrl = compiled('src/tools/child-processes.js');
const procStatUrl = compiled('src/platform/files/proc-stat.js');

interface ProcessInfo {
  parent: number;
  name: string;
  /** Start time, which tells a process from a later one given the same pid. */
  start: string;
}

/** A process that is not a zombie, from /proc; null when there is none. */
function processInfo(pid: number): ProcessInfo | null {
  const stat = readProcStat(`/proc/${pid}/stat`);
  return stat === null || stat.field(3) === 'Z' ? null : { parent: Number(stat.field(4)), name: stat.name, start: stat.field(22) };
}

function childrenOf(parent: number): Map<number, ProcessInfo> {
  const found = new Map<number, ProcessInfo>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = processInfo(Number(name));
    if (info?.parent === parent) found.set(Number(name), info);
  }
  return found;
}

/** The processes of `seen` that still run (the same process: same pid and start time). */
const survivors = (seen: Map<number, ProcessInfo>) => [...seen].filter(([pid, info]) => processInfo(pid)?.start === info.start);

/** `meridian maps import` of West Oakland into `dir`, as a process of its own. */
function startImport(dir: string): { cli: ChildProcess; exited: Promise<NodeJS.Signals | number | null> } {
  const cli = spawn(process.execPath, [bin, 'maps', 'import', OAKLAND, '--id', 'oakland'], {
    env: { ...process.env, MERIDIAN_DATA_DIR: dir, MERIDIAN_MAPS_DIR: path.join(dir, 'maps') },
    stdio: 'ignore',
  });
  return { cli, exited: new Promise((resolve) => cli.once('exit', (code, signal) => resolve(signal ?? code))) };
}

/** Waits until `cli` runs a program called `name`, recording in `seen` every child it had meanwhile. */
async function waitForChild(cli: ChildProcess, name: string, seen: Map<number, ProcessInfo>): Promise<void> {
  for (;;) {
    const now = childrenOf(cli.pid!);
    for (const [pid, info] of now) seen.set(pid, info);
    if ([...now.values()].some((info) => info.name === name)) return;
    if (cli.exitCode !== null || cli.signalCode !== null) throw new Error(`the import ended before ${name} ran`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits until a build under `home` has recorded `pid` in its ledger of programs (`<version>.partial/.children`). */
async function untilRecorded(home: string, pid: number): Promise<void> {
  const recorded = () =>
    (existsSync(home) ? readdirSync(home) : [])
      .filter((entry) => entry.endsWith('.partial'))
      .some((entry) => {
        const file = path.join(home, entry, '.children');
        return existsSync(file) && readFileSync(file, 'utf8').split('\n').some((line) => line.split(' ')[0] === String(pid));
      });
  while (!recorded()) await new Promise((resolve) => setTimeout(resolve, 10));
}

test('SIGTERM while gmt or tilemaker runs ends the import and every program it started', async () => {
  const outlived: Record<string, string[]> = {};
  for (const program of ['gmt', 'tilemaker']) {
    const seen = new Map<number, ProcessInfo>();
    const { cli, exited } = startImport(tempDir());
    try {
      await waitForChild(cli, program, seen);
      cli.kill('SIGTERM');
      assert.equal(await exited, 'SIGTERM', 'the command ends by the signal');
      outlived[program] = survivors(seen).map(([pid, info]) => `${info.name} ${pid}`);
    } finally {
      cli.kill('SIGKILL');
      for (const [pid] of survivors(seen)) process.kill(pid, 'SIGKILL');
    }
  }
  assert.deepEqual(outlived, { gmt: [], tilemaker: [] }, 'programs outlived the import, by the program running when it was killed');
});

test('the next import stops what an import killed by SIGKILL left, then builds and publishes', async () => {
  const dir = tempDir();
  const mapsDir = path.join(dir, 'maps');
  const seen = new Map<number, ProcessInfo>();
  const { cli, exited } = startImport(dir);
  try {
    await waitForChild(cli, 'tilemaker', seen);
    // Killed between starting tilemaker and writing it down, the import would leave nothing to find:
    // wait until its build's ledger (`.children` in the partial folder) names the program.
    const tilemaker = [...seen].find(([, info]) => info.name === 'tilemaker')![0];
    await untilRecorded(path.join(mapsDir, 'osm', 'oakland'), tilemaker);
    // Stopped, it cannot end on its own while the next import runs, as a long one would not; nor
    // die of SIGPIPE writing its progress into the pipe of the killed command (it did, before the
    // check below at times). A forwarded SIGKILL would still end it.
    process.kill(tilemaker, 'SIGSTOP');
    cli.kill('SIGKILL');
    await exited;
    const left = survivors(seen).filter(([, info]) => info.name === 'tilemaker');
    assert.equal(left.length, 1, 'SIGKILL cannot be forwarded: tilemaker outlives the command');

    const result = await importExtract(OAKLAND, { mapsDir, id: 'oakland' });
    assert.deepEqual(survivors(seen), [], 'the leftover tilemaker was stopped');
    assert.deepEqual(result.maps, ['oakland', 'oakland-light', 'oakland-dark']);
    const home = path.join(mapsDir, 'osm', 'oakland');
    assert.deepEqual(readdirSync(home).filter((name) => name.endsWith('.partial')), []);
    assert.ok(!existsSync(path.join(path.dirname(result.archive), '.children')), 'the list of programs is not published');
  } finally {
    cli.kill('SIGKILL');
    for (const [pid] of survivors(seen)) process.kill(pid, 'SIGKILL');
  }
});

/**
 * A command that starts `command` by `spawnTool`, then `true` as its next step once that has ended,
 * and is sent SIGTERM at a set point of the first start, through Node's `spawn` wrapped
 * (`syncBuiltinESMExports`): `started`, as `spawn` returns (the program runs, `spawnTool` has not
 * seen it yet); `exited`, as the program's exit is reported, before `spawnTool` hears of it.
 * Resolves with how the command ended and the program's pid and start time (read while it ran).
 */
async function signalledDuringSpawn(point: 'started' | 'exited', command: string, args: string[]) {
  const code = `
    import { createRequire, syncBuiltinESMExports } from 'node:module';
    import { writeSync } from 'node:fs';
    const { readProcStat } = await import(${JSON.stringify(procStatUrl)});
    const childProcess = createRequire(import.meta.url)('node:child_process');
    const spawn = childProcess.spawn;
    let first = true;
    childProcess.spawn = (...args) => {
      const child = spawn(...args);
      if (!first) return child;
      first = false;
      writeSync(1, child.pid + ' ' + readProcStat('/proc/' + child.pid + '/stat').field(22) + '\\n');
      if (${JSON.stringify(point)} === 'started') process.kill(process.pid, 'SIGTERM');
      else child.once('exit', () => process.kill(process.pid, 'SIGTERM'));
      return child;
    };
    syncBuiltinESMExports();
    const { spawnTool } = await import(${JSON.stringify(moduleUrl)});
    spawnTool(${JSON.stringify(command)}, ${JSON.stringify(args)}, { stdio: 'ignore' }).once('close', () => {
      try {
        spawnTool('true', [], { stdio: 'ignore' });
      } catch {
        // Stopping: no next step.
      }
    });
  `;
  const cli = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  cli.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const ended = await new Promise<NodeJS.Signals | number | null>((resolve) => cli.once('close', (code, signal) => resolve(signal ?? code)));
  const [pid, start] = stdout.trim().split(' ');
  return { ended, pid: Number(pid), start };
}

test('a SIGTERM that comes while spawn starts a program ends the command and that program', async (t) => {
  // `sleep` runs until it is killed: the program outlives the command unless the signal reaches it.
  const { ended, pid, start } = await signalledDuringSpawn('started', 'sleep', ['3600']);
  const outlived = () => processInfo(pid)?.start === start;
  t.after(() => {
    if (outlived()) process.kill(pid, 'SIGKILL');
  });
  assert.ok(pid > 0 && start !== undefined && start !== '', 'the program started');
  assert.equal(ended, 'SIGTERM', 'the command ends by the signal');
  assert.equal(outlived(), false, 'the program outlived the command');
});

test('a SIGTERM that comes as the last program exits ends the command, not dropped with the listener', async () => {
  const { ended } = await signalledDuringSpawn('exited', 'true', []);
  // Lost, the signal would let the command run its next step and exit with 0.
  assert.equal(ended, 'SIGTERM', 'the command ends by the signal');
});
