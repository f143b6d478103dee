import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { gzipSync } from 'node:zlib';
import { openMeridian, type Meridian } from '../../src/meridian.js';
import { IngestError, ingestFiles } from '../../src/weather/ingest.js';
import { openArchive } from '../../src/platform/pmtiles.js';
import { defaultVariables } from '../../src/weather/variables.js';
import { cleanUp, testConfig } from '../helpers.js';
import { tempDir } from '../scratch.js';
import { GRIB_EXAMPLES, requirePeers } from '../peers.js';
import { ecmwfFields, ecmwfPath, publishEcmwfStep } from './ecmwf-files.js';
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

/** ecCodes' values of one field of the GFS sample (or a file made from it), on its 2.5° grid (144 x 73 from 0°E, 90°N). */
function ecCodesField(shortName: string, file = gfs): Float64Array {
  const text = execFileSync('grib_get_data', ['-w', `shortName=${shortName}`, '-F', '%.10g', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
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

test('the GFS sample becomes one run of eight variables, each keyframe a tileset', async () => {
  const report = await ingestFiles(meridian.weather, meridian.weatherDirectory, [gfs], options);
  assert.equal(report.runs.length, 1);
  assert.equal(report.runs[0]!.referenceTime, '2011-01-10T12:00:00.000Z');
  assert.deepEqual(
    report.runs[0]!.keyframes.map((k) => k.variable_id).sort(),
    [
      'cloud_cover-total:gfs', 'precipitation-1h:gfs', 'precipitation_rate:gfs', 'pressure-msl:gfs', 'relative_humidity-2m:gfs',
      'temperature-2m:gfs', 'wind-10m:gfs', 'wind_gust-10m:gfs',
    ],
  );
  const instant = report.runs[0]!.keyframes.find((k) => k.variable_id === 'temperature-2m:gfs')!;
  assert.equal(instant.timestamp, '2011-01-15T12:00:00.000Z');
  const files = readdirSync(meridian.weatherDirectory);
  for (const keyframe of report.runs[0]!.keyframes) assert.ok(files.includes(`${keyframe.id}.pmtiles`));
});

/** Asserts that tile pixels of each variable decode to ecCodes' values of its fields, bilinearly interpolated, within one quantisation step. */
async function assertTilesMatch(rows: Awaited<ReturnType<Meridian['weather']['latest']>>, file: string, cases: readonly (readonly [string, readonly string[], (value: number) => number])[]): Promise<void> {
  for (const [variableId, shortNames, toUnit] of cases) {
    const row = rows.find((r) => r.variable_id === variableId)!;
    assert.ok(row, variableId);
    const { min, max } = (row.layer.metadata as { weather_variable: { decoding: { min: number; max: number } } }).weather_variable.decoding;
    const step = (max - min) / 255;
    const sources = shortNames.map((name) => ecCodesField(name, file));
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
}

test('decoding tile pixels gives the source field, bilinearly interpolated, within one quantisation step', async () => {
  const rows = await meridian.weather.latest();
  await assertTilesMatch(rows, gfs, [
    ['temperature-2m:gfs', ['2t'], (k: number) => k - 273.15],
    ['pressure-msl:gfs', ['prmsl'], (pa: number) => pa / 100],
    ['wind-10m:gfs', ['10u', '10v'], (ms: number) => ms],
    ['relative_humidity-2m:gfs', ['2r'], (percent: number) => percent],
    ['wind_gust-10m:gfs', ['gust'], (ms: number) => ms],
    ['precipitation_rate:gfs', ['prate'], (perSecond: number) => perSecond * 3600],
  ]);
});

test("ECMWF's encodings (made with ecCodes from the GFS sample, CCSDS-packed) ingest as ecCodes reads them", async () => {
  // ECMWF's msl (0.3.0), tp in metres (0.1.193) accumulated over 0-6 h, tprate (0.1.52), tcc in % on the surface (0.6.1), 2r, 10fg3.
  const directory = tempDir();
  const file = path.join(directory, ecmwfPath('ifs', new Date('2026-08-30T12:00:00Z'), 6));
  publishEcmwfStep(directory, ecmwfFields(path.join(directory, 'fields')), 'ifs', new Date('2026-08-30T12:00:00Z'), 6);
  const report = await ingestFiles(meridian.weather, meridian.weatherDirectory, [file], { ...options, model: 'ecmwf' });
  assert.deepEqual(report.failed, []);
  const rows = (await meridian.weather.latest()).filter((r) => r.variable_id.endsWith(':ecmwf'));
  await assertTilesMatch(rows, file, [
    ['pressure-msl:ecmwf', ['msl'], (pa: number) => pa / 100],
    ['precipitation-1h:ecmwf', ['tp'], (metres: number) => (metres * 1000) / 6],
    ['precipitation_rate:ecmwf', ['tprate'], (perSecond: number) => perSecond * 3600],
    ['cloud_cover-total:ecmwf', ['tcc'], (percent: number) => percent],
    ['relative_humidity-2m:ecmwf', ['2r'], (percent: number) => percent],
    ['wind_gust-10m:ecmwf', ['10fg3'], (ms: number) => ms],
    ['temperature-2m:ecmwf', ['2t'], (k: number) => k - 273.15],
    ['wind-10m:ecmwf', ['10u', '10v'], (ms: number) => ms],
  ]);
  rmSync(directory, { recursive: true, force: true });
});

test('a rotated lat/lon grid (template 3.1) tiles where PROJ puts its rotated frame, with ecCodes\' values', async () => {
  requirePeers('proj');
  // GFS's 2 m temperature on its grid taken as a rotated frame whose south pole is at 10°E, 40°S.
  const dir = tempDir();
  const only2t = path.join(dir, '2t.grib2');
  const rotated = path.join(dir, 'rotated.grib2');
  execFileSync('grib_copy', ['-w', 'shortName=2t', gfs, only2t]);
  execFileSync('grib_set', ['-s', 'gridType=rotated_ll,latitudeOfSouthernPoleInDegrees=-40,longitudeOfSouthernPoleInDegrees=10', only2t, rotated]);
  const report = await ingestFiles(meridian.weather, meridian.weatherDirectory, [rotated], { ...options, model: 'rotated' });
  assert.deepEqual(report.runs[0]!.keyframes.map((k) => k.variable_id), ['temperature-2m:rotated']);
  // ecCodes' values in file order: row j at rotated latitude 90 - 2.5 j, column i at rotated longitude 2.5 i.
  const text = execFileSync('grib_get_data', ['-F', '%.10g', rotated], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const values = Float64Array.from(text.trim().split('\n').slice(1), (line) => Number(line.trim().split(/\s+/)[2]));
  assert.equal(values.length, 144 * 73);
  const row = (await meridian.weather.latest()).find((r) => r.variable_id === 'temperature-2m:rotated')!;
  const { min, max } = (row.layer.metadata as { weather_variable: { decoding: { min: number; max: number } } }).weather_variable.decoding;
  const pixels = await tilePixels(row.archive, 0, 0, 0);
  const samples = Array.from({ length: 300 }, (_, sample) => [(sample * 97) % tileSize, 20 + ((sample * 61) % (tileSize - 40))] as const);
  const centres = pixelCentres(0, 0, 0, samples);
  // PROJ's rotated pole: o_lat_p is the north pole's latitude (40°), lon_0 the south pole's longitude.
  const input = centres.map(({ lon, lat }) => `${lon.toPrecision(15)} ${lat.toPrecision(15)}`).join('\n') + '\n';
  const frame = execFileSync('cs2cs', ['-f', '%.12f', '+proj=longlat', '+R=6371229', '+to', '+proj=ob_tran', '+o_proj=longlat', '+o_lat_p=40', '+o_lon_p=0', '+lon_0=10', '+R=6371229', '+to_meter=0.0174532925199433'], { input, encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number));
  const step = (max - min) / 255;
  for (const [sample, [px, py]] of samples.entries()) {
    const [rlon, rlat] = frame[sample]!;
    const expected = bilinearAt(values, rlon!, rlat!) - 273.15;
    const decoded = min + (pixels[(py * tileSize + px) * 4]! / 255) * (max - min);
    assert.ok(Math.abs(decoded - expected) <= step / 2 + 1e-3, `at ${centres[sample]!.lon},${centres[sample]!.lat} (rotated ${rlon},${rlat}): ${decoded} vs ${expected}`);
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
  const times = report.runs[0]!.keyframes.filter((k) => k.variable_id === 'precipitation-1h:safrica').map((k) => k.timestamp);
  // Its precipitation rates (0.1.7) are per hour although the parameter says per second (below), for both variables that read them.
  assert.equal(report.notes.length, 2, report.notes.join('\n'));
  assert.match(report.notes[0]!, /^safrica\.grib2 field 3 .*: precipitation-1h rates up to 112.2 cannot be per second, as the parameter says; read per hour$/);
  assert.match(report.notes[1]!, /^safrica\.grib2 field 3 .*: precipitation_rate rates up to 112.2 cannot be per second, as the parameter says; read per hour$/);
  assert.equal(times.length, 25);
  assert.equal(times[0], '2010-03-08T12:00:00.000Z');
  assert.equal(times[24], '2010-03-11T12:00:00.000Z');
  const catalog = await meridian.weather.latest();
  assert.deepEqual([...new Set(catalog.map((r) => r.variable_id))].filter((id) => !id.endsWith(':ecmwf')).sort(), [
    'cloud_cover-total:gfs', 'precipitation-1h:gfs', 'precipitation-1h:safrica', 'precipitation_rate:gfs', 'precipitation_rate:safrica', 'pressure-msl:gfs',
    'relative_humidity-2m:gfs', 'temperature-2m:gfs', 'temperature-2m:rotated', 'wind-10m:gfs', 'wind_gust-10m:gfs',
  ]);
});

test("safrica's precipitation rates, per hour under a per-second parameter, render as ecCodes' values in mm/h, not at the ceiling", async () => {
  // ecCodes reads 0.1.7 (kg m-2 s-1) with values up to 88: per second that would be 316,800 mm/h.
  const file = path.join(samples, 'safrica.grib2');
  const [units] = execFileSync('grib_get', ['-w', 'shortName=prate,stepRange=21', '-p', 'units', file], { encoding: 'utf8' }).trim().split('\n');
  assert.equal(units, 'kg m**-2 s**-1');
  const text = execFileSync('grib_get_data', ['-w', 'shortName=prate,stepRange=21', '-F', '%.6g', file], { encoding: 'utf8' });
  const values = text.trim().split('\n').slice(1).map((line) => Number(line.trim().split(/\s+/)[2]));
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const atCeiling = values.filter((v) => v >= 50).length / values.length;

  const row = (await meridian.weather.latest()).find(
    (r) => r.variable_id === 'precipitation-1h:safrica' && r.valid_time.toISOString() === '2010-03-09T09:00:00.000Z',
  )!;
  const { min, max } = (row.layer.metadata as { weather_variable: { decoding: { min: number; max: number } } }).weather_variable.decoding;
  const pixels = await tilePixels(row.archive, 0, 0, 0);
  let sum = 0;
  let count = 0;
  let ceiling = 0;
  for (let k = 0; k < pixels.length; k += 4) {
    if (pixels[k + 3] === 0) continue;
    const value = min + (pixels[k]! / 255) * (max - min);
    sum += value;
    count++;
    if (pixels[k] === 255) ceiling++;
  }
  // Resampling onto Web Mercator weighs points by area, so means agree within a quarter.
  assert.ok(Math.abs(sum / count - mean) <= 0.25 * mean, `mean ${sum / count} mm/h, ecCodes ${mean}`);
  assert.ok(ceiling / count <= atCeiling + 0.01, `${ceiling / count} of pixels at the ceiling, ecCodes ${atCeiling}`);
});

test('files compressed whole with bzip2 (DWD) or gzip ingest as the plain file does; a damaged one is named', async () => {
  const dir = tempDir();
  const bz2 = path.join(dir, 'gfs.grib2.bz2');
  writeFileSync(bz2, execFileSync('bzip2', ['-c', gfs], { maxBuffer: 64 << 20 }));
  const gz = path.join(dir, 'gfs.grib2.gz');
  writeFileSync(gz, gzipSync(readFileSync(gfs)));
  const damaged = path.join(dir, 'damaged.grib2.bz2');
  writeFileSync(damaged, readFileSync(bz2).subarray(0, 5000));
  // A catalog of its own: these runs are not the one the other tests read.
  const config = testConfig();
  const isolated = await openMeridian(config);
  try {
    const ingest = (files: string[], model: string) => ingestFiles(isolated.weather, isolated.weatherDirectory, files, { ...options, model });
    const keyframes = (report: Awaited<ReturnType<typeof ingest>>) => report.runs.flatMap((run) => run.keyframes.map((k) => `${k.variable_id.split(':')[0]} ${k.timestamp}`)).sort();
    const plain = await ingest([gfs], 'plain');
    for (const [file, model] of [[bz2, 'bzip2'], [gz, 'gzip']] as const) {
      const report = await ingest([file], model);
      assert.deepEqual(report.failed, []);
      assert.deepEqual(keyframes(report), keyframes(plain), file);
    }
    const bad = await ingest([gfs, damaged], 'plain');
    assert.equal(bad.failed.length, 1);
    assert.match(bad.failed[0]!, /damaged\.grib2\.bz2: not a readable bzip2 file/);
  } finally {
    await isolated.close();
    await cleanUp(config);
  }
});

test('a file that cannot be read or decoded is named in the report and the other files still publish', async () => {
  const dir = tempDir();
  const corrupt = path.join(dir, 'cut.grib2');
  writeFileSync(corrupt, readFileSync(gfs).subarray(0, 100_000));
  // The surface sample's 2 m temperature as CCSDS, then with its stream zeroed after the first bytes.
  const ccsds = path.join(dir, 'surface-ccsds.grib2');
  execFileSync('grib_set', ['-r', '-s', 'packingType=grid_ccsds', path.join(samples, 'regular_latlon_surface.grib2'), ccsds]);
  const damaged = path.join(dir, 'surface-damaged.grib2');
  const bytes = readFileSync(ccsds);
  bytes.fill(0, bytes.length - 300, bytes.length - 4);
  writeFileSync(damaged, bytes);

  const report = await ingestFiles(meridian.weather, meridian.weatherDirectory, [gfs, corrupt, '/nonexistent.grib2', damaged], options);
  assert.deepEqual(report.runs.map((r) => r.referenceTime), ['2011-01-10T12:00:00.000Z']);
  assert.equal(report.failed.length, 3, report.failed.join('\n'));
  assert.match(report.failed[0]!, /cut\.grib2: truncated GRIB message/);
  assert.match(report.failed[1]!, /Cannot read \/nonexistent\.grib2/);
  assert.match(report.failed[2]!, /surface-damaged\.grib2 field 1 .*parameter 0\.0\.0, level type 103 value 2, templates 4\.0, 3\.0, 5\.42: corrupt CCSDS stream/);

  // The intact CCSDS file publishes on its own.
  const alone = await ingestFiles(meridian.weather, meridian.weatherDirectory, [ccsds], { ...options, model: 'ccsds' });
  assert.deepEqual(alone.failed, []);
  assert.deepEqual(alone.runs[0]!.keyframes.map((k) => k.variable_id), ['temperature-2m:ccsds']);
});

test('every field an ingest leaves unused is reported with its parameter, level, templates and reason', async () => {
  // ECMWF's TIGGE sample: 25 fields, of which 2 m temperature, 10 m wind, mean sea-level pressure
  // (ECMWF's 0.3.0), total cloud cover (0.6.1 on the surface) and total precipitation (0.1.52 accumulated) make keyframes.
  const tigge = path.join(samples, 'ecmwf_tigge.grb');
  const report = await ingestFiles(meridian.weather, meridian.weatherDirectory, [tigge], { ...options, model: 'tigge' });
  const used = report.runs.flatMap((r) => r.keyframes.map((k) => k.variable_id)).sort();
  assert.deepEqual(used, ['cloud_cover-total:tigge', 'precipitation-1h:tigge', 'pressure-msl:tigge', 'temperature-2m:tigge', 'wind-10m:tigge']);
  // The catalog gives their units as people and UDUNITS read them (variables.test.ts parses them).
  const units = new Map((await meridian.weather.latest()).map((r) => [r.variable_id, (r.layer.metadata as { weather_variable: { unit: string } }).weather_variable.unit]));
  assert.equal(units.get('temperature-2m:tigge'), '°C');
  assert.equal(units.get('wind-10m:tigge'), 'm/s');
  const fields = Number(execFileSync('grib_count', [tigge], { encoding: 'utf8' }).trim());
  // One field each for temperature, pressure, cloud and precipitation, two for wind: every other one is in the report, once.
  assert.equal(report.skipped.length, fields - 6);
  const numbers = report.skipped.map((line) => Number(/field (\d+) /.exec(line)![1]));
  assert.equal(new Set(numbers).size, numbers.length);
  // Surface pressure (0.3.0 on the surface, not at mean sea level) is read by no variable.
  assert.ok(report.skipped.includes(
    'ecmwf_tigge.grb field 16 (byte 3610712): parameter 0.3.0, level type 1, templates 4.1, 3.40, 5.40: no variable reads this parameter on this level',
  ), report.skipped.join('\n'));
  // The 6-hour minimum of 2 m temperature matches the variable too, but its time is taken.
  assert.ok(report.skipped.some((line) => /field 7 .*templates 4\.11, .*another field gives temperature-2m at 2007-05-10T00:00:00\.000Z/.test(line)));
});

test('a file with nothing usable fails listing what it found; a grid Meridian cannot place is skipped with its template', async () => {
  const before = readdirSync(meridian.weatherDirectory).sort();
  await assert.rejects(
    ingestFiles(meridian.weather, meridian.weatherDirectory, [path.join(samples, 'regular_latlon_surface.grib2')], { ...options, variables: [] }),
    (error: unknown) =>
      error instanceof IngestError &&
      /No field of these files makes a keyframe/.test(error.message) &&
      /regular_latlon_surface\.grib2 field 1 \(byte 0\): parameter 0\.0\.0, level type 103 value 2, templates 4\.0, 3\.0, 5\.0: no variable reads/.test(error.message),
  );
  assert.deepEqual(readdirSync(meridian.weatherDirectory).sort(), before);
  // The RAP sample's pressure lies on an NCEP local grid (3.32769): values decode, geometry does not.
  const pressure = { ...defaultVariables[1]!, id: 'pressure-hybrid', fields: [{ discipline: 0, category: 3, number: 0, levelType: 105 }] };
  const report = await ingestFiles(meridian.weather, meridian.weatherDirectory, [gfs, path.join(samples, 'rap.wrfnat.grib2')], {
    ...options,
    variables: [...defaultVariables, pressure],
  });
  assert.deepEqual(report.failed, []);
  assert.ok(report.runs.some((r) => r.keyframes.some((k) => k.variable_id === 'temperature-2m:gfs')));
  assert.ok(report.skipped.some((line) => /^rap\.wrfnat\.grib2 field \d+ .*parameter 0\.3\.0, level type 105 value 1, templates 4\.0, 3\.32769, 5\.3: unsupported grid definition template 3\.32769$/.test(line)), report.skipped.filter((l) => l.startsWith('rap')).slice(0, 5).join('\n'));
});
