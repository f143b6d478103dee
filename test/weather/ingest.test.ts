import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { openMeridian, type Meridian } from '../../src/app.js';
import { IngestError, ingestFiles } from '../../src/weather/ingest.js';
import { openArchive } from '../../src/platform/pmtiles.js';
import { defaultVariables } from '../../src/weather/variables.js';
import { cleanUp, tempDir, testConfig } from '../helpers.js';
import { GRIB_EXAMPLES, requirePeers } from '../peers.js';
import { pixelCentres, TILE_PIXELS as tileSize } from './proj.js';

const samples = GRIB_EXAMPLES;
const gfs = path.join(samples, 'gfs.t12z.pgrbf120.2p5deg.grib2');
const config = testConfig();
let meridian: Meridian;
const options = { model: 'gfs', attribution: 'GFS', variables: defaultVariables, format: 'png' as const, keepRuns: 1 };

before(async () => {
  // The tests ingest python-grib-doc's samples and compare with ecCodes' values.
  requirePeers('ecCodes', 'gribExamples');
  meridian = await openMeridian(config);
});
after(async () => {
  await meridian?.close();
  await cleanUp(config);
});

/** ecCodes' values of one field of the GFS sample, on its 2.5° grid (144 x 73 from 0°E, 90°N). */
function ecCodesField(shortName: string): Float64Array {
  const text = execFileSync('grib_get_data', ['-w', `shortName=${shortName}`, '-F', '%.10g', gfs], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const values = new Float64Array(144 * 73);
  for (const line of text.split('\n')) {
    const [lat, lon, value] = line.trim().split(/\s+/).map(Number);
    if (!Number.isFinite(value) || lat === undefined || lon === undefined) continue;
    values[Math.round((90 - lat) / 2.5) * 144 + Math.round(lon / 2.5)] = value!;
  }
  return values;
}

function bilinearAt(values: Float64Array, lon: number, lat: number): number {
  const x = ((((lon % 360) + 360) % 360) / 2.5);
  const y = (90 - lat) / 2.5;
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const fx = x - x0;
  const fy = y - y0;
  const at = (i: number, j: number) => values[Math.min(j, 72) * 144 + (i % 144)]!;
  return (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) + (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy;
}

async function tilePixels(archive: string, z: number, x: number, y: number): Promise<Buffer> {
  const opened = await openArchive(path.join(meridian.weatherDirectory, archive));
  const data = await opened.tile(z, x, y);
  await opened.close();
  return sharp(Buffer.from(data!)).raw().toBuffer();
}

test('the GFS sample becomes one run of five variables, each keyframe a tileset', async () => {
  const report = await ingestFiles(meridian.weather, meridian.weatherDirectory, [gfs], options);
  assert.equal(report.runs.length, 1);
  assert.equal(report.runs[0]!.referenceTime, '2011-01-10T12:00:00.000Z');
  assert.deepEqual(
    report.runs[0]!.keyframes.map((k) => k.variable_id).sort(),
    ['cloud_cover-total:gfs', 'precipitation-1h:gfs', 'pressure-msl:gfs', 'temperature-2m:gfs', 'wind-10m:gfs'],
  );
  const instant = report.runs[0]!.keyframes.find((k) => k.variable_id === 'temperature-2m:gfs')!;
  assert.equal(instant.timestamp, '2011-01-15T12:00:00.000Z');
  const files = readdirSync(meridian.weatherDirectory);
  for (const keyframe of report.runs[0]!.keyframes) assert.ok(files.includes(`${keyframe.id}.pmtiles`));
});

test('decoding tile pixels gives the source field, bilinearly interpolated, within one quantisation step', async () => {
  const rows = await meridian.weather.latest();
  for (const [variableId, shortNames, toUnit] of [
    ['temperature-2m:gfs', ['2t'], (k: number) => k - 273.15],
    ['pressure-msl:gfs', ['prmsl'], (pa: number) => pa / 100],
    ['wind-10m:gfs', ['10u', '10v'], (ms: number) => ms],
  ] as const) {
    const row = rows.find((r) => r.variable_id === variableId)!;
    const { min, max } = (row.layer.metadata as { weather_variable: { decoding: { min: number; max: number } } }).weather_variable.decoding;
    const step = (max - min) / 255;
    const sources = shortNames.map(ecCodesField);
    const pixels = await tilePixels(row.archive, 0, 0, 0);
    const samples = Array.from({ length: 400 }, (_, sample) => [(sample * 97) % tileSize, 20 + ((sample * 61) % (tileSize - 40))] as const);
    const centres = pixelCentres(0, 0, 0, samples);
    for (const [sample, [px, py]] of samples.entries()) {
      const { lon, lat } = centres[sample]!;
      sources.forEach((source, channel) => {
        const expected = toUnit(bilinearAt(source, lon, lat));
        const clamped = Math.min(max, Math.max(min, expected));
        const decoded = min + (pixels[(py * tileSize + px) * 4 + channel]! / 255) * (max - min);
        assert.ok(Math.abs(decoded - clamped) <= step / 2 + 1e-3, `${variableId} channel ${channel} at ${lon},${lat}: ${decoded} vs ${expected}`);
      });
      assert.equal(pixels[(py * tileSize + px) * 4 + 3], 255);
    }
  }
});

test('frozen precipitation is the precipitation rate times its frozen percentage', async () => {
  const directory = tempDir();
  const prate = path.join(directory, 'prate.grib2');
  const cpofp = path.join(directory, 'cpofp.grib2');
  execFileSync('grib_copy', ['-w', 'shortName=prate', gfs, prate]);
  // The sample has no frozen percentage: make one, 50 % everywhere, from the rate's own message.
  execFileSync('grib_set', ['-d', '50', '-s', 'parameterNumber=39', prate, cpofp]);
  const frozen = defaultVariables.find((v) => v.id === 'frozen_precipitation-1h')!;
  const config = testConfig();
  const isolated = await openMeridian(config);
  try {
    const report = await ingestFiles(isolated.weather, isolated.weatherDirectory, [prate, cpofp], { ...options, variables: [frozen] });
    assert.deepEqual(report.runs[0]!.keyframes.map((k) => k.variable_id), ['frozen_precipitation-1h:gfs']);
    const [row] = await isolated.weather.latest();
    const layer = row!.layer as { metadata: { weather_variable: { decoding: { channels: string } } } };
    assert.equal(layer.metadata.weather_variable.decoding.channels, 'r');
    const rates = ecCodesField('prate');
    const opened = await openArchive(path.join(isolated.weatherDirectory, row!.archive));
    const pixels = await sharp(Buffer.from((await opened.tile(0, 0, 0))!)).raw().toBuffer();
    await opened.close();
    const samples = [[100, 200], [300, 250], [400, 300], [50, 260]] as const;
    const centres = pixelCentres(0, 0, 0, samples);
    for (const [sample, [px, py]] of samples.entries()) {
      const expected = bilinearAt(rates, centres[sample]!.lon, centres[sample]!.lat) * 3600 * 0.5;
      const decoded = (pixels[(py * tileSize + px) * 4]! / 255) * 50;
      assert.ok(Math.abs(decoded - Math.min(50, expected)) <= 50 / 255 / 2 + 1e-3, `${decoded} vs ${expected}`);
    }
  } finally {
    await isolated.close();
    await cleanUp(config);
  }
});

test('the 3-hourly southern Africa run becomes 25 precipitation keyframes in time order', async () => {
  const report = await ingestFiles(meridian.weather, meridian.weatherDirectory, [path.join(samples, 'safrica.grib2')], {
    ...options,
    model: 'safrica',
    attribution: 'NCEP',
  });
  const times = report.runs[0]!.keyframes.map((k) => k.timestamp);
  assert.equal(times.length, 25);
  assert.equal(times[0], '2010-03-08T12:00:00.000Z');
  assert.equal(times[24], '2010-03-11T12:00:00.000Z');
  const catalog = await meridian.weather.latest();
  assert.deepEqual([...new Set(catalog.map((r) => r.variable_id))].sort(), [
    'cloud_cover-total:gfs', 'precipitation-1h:gfs', 'precipitation-1h:safrica', 'pressure-msl:gfs', 'temperature-2m:gfs', 'wind-10m:gfs',
  ]);
});

test('a corrupt file or an unsupported grid ingests nothing and leaves no file behind', async () => {
  const before = readdirSync(meridian.weatherDirectory).sort();
  const catalogBefore = (await meridian.weather.latest()).map((r) => r.id).sort();
  const corrupt = path.join(tempDir(), 'cut.grib2');
  writeFileSync(corrupt, readFileSync(gfs).subarray(0, 100_000));
  await assert.rejects(ingestFiles(meridian.weather, meridian.weatherDirectory, [gfs, corrupt], options), IngestError);
  await assert.rejects(ingestFiles(meridian.weather, meridian.weatherDirectory, ['/nonexistent.grib2'], options), /Cannot read/);
  await assert.rejects(
    ingestFiles(meridian.weather, meridian.weatherDirectory, [path.join(samples, 'regular_latlon_surface.grib2')], {
      ...options,
      variables: [],
    }),
    /No message of these files matches/,
  );
  // The RAP sample's pressure lies on an NCEP local grid (3.32769): values decode, geometry does not.
  const pressure = { ...defaultVariables[1]!, id: 'pressure-hybrid', fields: [{ discipline: 0, category: 3, number: 0, levelType: 105 }] };
  await assert.rejects(
    ingestFiles(meridian.weather, meridian.weatherDirectory, [gfs, path.join(samples, 'rap.wrfnat.grib2')], {
      ...options,
      variables: [...defaultVariables, pressure],
    }),
    /3\.32769/,
  );
  assert.deepEqual(readdirSync(meridian.weatherDirectory).sort(), before);
  assert.deepEqual((await meridian.weather.latest()).map((r) => r.id).sort(), catalogBefore);
});
