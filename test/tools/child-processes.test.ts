/**
 * The programs `meridian maps import` runs die with it (issue 31, item 4): a real import of West
 * Oakland is killed while gmt, then tilemaker, runs; and after one killed by SIGKILL (which no
 * process can forward), the next import of the same maps stops what it left.
 */

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, test } from 'node:test';
import { readProcStat } from '../../src/platform/files/proc-stat.js';
import { importExtract } from '../../src/tools/osm/import.js';
import { OAKLAND, requirePeers } from '../peers.js';
import { tempDir } from '../scratch.js';

before(() => requirePeers('osmSamples', 'gshhgFull'));

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/meridian.js');

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
    cli.kill('SIGKILL');
    await exited;
    const left = survivors(seen).filter(([, info]) => info.name === 'tilemaker');
    assert.equal(left.length, 1, 'SIGKILL cannot be forwarded: tilemaker outlives the command');
    // Stopped, it cannot end on its own while the next import runs, as a long one would not.
    process.kill(left[0]![0], 'SIGSTOP');

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
