/**
 * The examples of `meridian render --help` run as written against the maps the quick start makes
 * (here: the test fixtures of `world` and `kirchberg`, the Kirchberg an der Iller sample), and each
 * draws the sample's data, not an empty corner of the map.
 */

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import sharp from 'sharp';
import { main } from '../../src/cli/main.js';
import { commands } from '../../src/cli/usage.js';
import { addArchive } from '../../src/tools/osm/add.js';
import { stylePath } from '../../src/tools/world/build.js';
import { repoRoot } from '../render/suite/cases.js';
import { tempDir } from '../scratch.js';

const dataDir = tempDir();

before(async () => {
  const mapsDir = path.join(dataDir, 'maps');
  mkdirSync(path.join(mapsDir, 'world'), { recursive: true });
  copyFileSync(path.join(repoRoot, 'test/fixtures/osm/world.pmtiles'), path.join(mapsDir, 'world', 'world.pmtiles'));
  // The world map as \`maps build-world\` writes it, over the fixture's archive (zooms 0-4).
  const style = JSON.parse(readFileSync(stylePath, 'utf8')) as { sources: Record<string, Record<string, unknown>> };
  for (const source of Object.values(style.sources)) if (source.type === 'vector') source.maxzoom = 4;
  writeFileSync(path.join(mapsDir, 'world', 'style.json'), JSON.stringify(style));
  writeFileSync(path.join(mapsDir, 'world.json'), JSON.stringify({ style: 'world/style.json' }));
  await addArchive(path.join(repoRoot, 'test/fixtures/osm/kirchberg.mbtiles'), { mapsDir });
});

/** A command line split as a POSIX shell splits it (single quotes only, as the examples use). */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

/** Colours of an image that cover at least 0.1% of it. */
async function colours(file: string): Promise<number> {
  const { data, info } = await sharp(readFileSync(file)).raw().toBuffer({ resolveWithObject: true });
  const counts = new Map<number, number>();
  for (let i = 0; i < data.length; i += info.channels) {
    const colour = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!;
    counts.set(colour, (counts.get(colour) ?? 0) + 1);
  }
  const pixels = info.width * info.height;
  return [...counts.values()].filter((count) => count >= pixels / 1000).length;
}

const examples = commands.find((command) => command.name === 'render')!.examples;

for (const example of examples) {
  test(`render --help: ${example}`, async () => {
    const argv = words(example).slice(1);
    const output = argv.indexOf('-o');
    assert.ok(output > 0, 'the example writes a file');
    const file = path.join(dataDir, path.basename(argv[output + 1]!));
    argv[output + 1] = file;
    assert.equal(await main([...argv, '--data', dataDir]), 0);
    // A map's data has land, water, roads, buildings or labels: more than a background and a line.
    const seen = await colours(file);
    assert.ok(seen >= 4, `${seen} colours in ${file}: the example shows no data`);
  });
}
