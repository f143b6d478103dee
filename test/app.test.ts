import assert from 'node:assert/strict';
import { test } from 'node:test';
import { epsgVersion } from '../src/coordinates/routes.js';
import { LogCapture, startTestServer, testConfig } from './helpers.js';
import { smallStyle } from './maps/raster/raster-maps.js';

interface StartLine {
  msg: string;
  console: string;
  admin: string;
  metrics: string;
  maps: string[];
  weatherRuns: { model: string; runs: number; latest: string }[];
  epsg: string;
  database: string;
}

const startLine = (logs: LogCapture) =>
  logs.lines.map((line) => JSON.parse(line) as StartLine).find((line) => line.msg === 'Meridian is serving');

test('the start-up log names the console, where metrics are, the maps, the weather runs and the EPSG version', async () => {
  const logs = new LogCapture();
  const server = await startTestServer(
    testConfig({ logLevel: 'info', metrics: { token: 'metrics-token-0123456789' }, maps: { definitions: { square: { style: smallStyle() as never } } } }),
    { logStream: logs },
  );
  try {
    const time = new Date(Date.UTC(2026, 0, 2, 6));
    await server.meridian.weather.publish('gfs', time, [], 2);
    const { public: url } = await server.server.listen();
    const line = startLine(logs);
    assert.ok(line, logs.text);
    assert.match(line.console, /^(http:\/\/127\.0\.0\.1:\d+\/console\/|not built \(npm run build\))$/);
    assert.equal(line.admin, 'on the public listener');
    assert.equal(line.metrics, `${url}/metrics (bearer token)`);
    assert.deepEqual(line.maps, ['square']);
    assert.deepEqual(line.weatherRuns, [{ model: 'gfs', runs: 1, latest: time.toISOString() }]);
    assert.equal(line.epsg, epsgVersion());
    assert.match(line.epsg, /^v?\d/);
    assert.ok(['pglite', 'postgres'].includes(line.database));
  } finally {
    await server.close();
  }
});

test('without a token or an admin listener the start-up log says metrics are off', async () => {
  const logs = new LogCapture();
  const server = await startTestServer(testConfig({ logLevel: 'info' }), { logStream: logs });
  try {
    await server.server.listen();
    const line = startLine(logs);
    assert.equal(line?.metrics, 'off');
    assert.deepEqual(line?.weatherRuns, []);
  } finally {
    await server.close();
  }
});
