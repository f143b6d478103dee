/**
 * @oneDatabase the database only checks the key; what is tested is the coordinates routes over PROJ and the EPSG registry.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { projInfo } from '../../src/coordinates/proj/proj.js';
import { newAccount, startTestServer, type TestServer } from '../helpers.js';

let server: TestServer;
let key: string;

before(async () => {
  server = await startTestServer();
  const { accountId } = await newAccount(server.meridian);
  key = (await server.meridian.keys.create(accountId, {})).token;
});
after(() => server.close());

async function get(url: string, withKey = true) {
  const response = await server.server.public.inject({ method: 'GET', url: `${url}${withKey ? `${url.includes('?') ? '&' : '?'}key=${key}` : ''}` });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

describe('GET /coordinates/transform/{coordinates}.json', () => {
  test('transforms in GIS order with the default source and target 4326', async () => {
    const identity = await get('/coordinates/transform/8.5,47.3,400;-73.9,40.7.json');
    assert.equal(identity.status, 200);
    assert.deepEqual(identity.body, {
      results: [
        { x: 8.5, y: 47.3, z: 400 },
        { x: -73.9, y: 40.7, z: 0 },
      ],
      operations: [
        { code: null, name: 'Null geographic offset from WGS 84 to WGS 84' },
        { code: null, name: 'Null geographic offset from WGS 84 to WGS 84' },
      ],
      transformer_selection_strategy: 'auto',
    });
    const swiss = await get('/coordinates/transform/8.5,47.3.json?s_srs=4326&t_srs=2056');
    assert.equal(swiss.status, 200);
    assert.ok(Math.abs(swiss.body.results[0].x - 2680270.551) < 1e-3);
    assert.ok(Math.abs(swiss.body.results[0].y - 1239333.170) < 1e-3);
    // The operation applied, with its EPSG code: CH1903+ to WGS 84 (1), inverted, then the projection.
    assert.deepEqual(swiss.body.operations, [{ code: 1676, name: 'Inverse of CH1903+ to WGS 84 (1) + Swiss Oblique Mercator 1995' }]);
  });

  test('reports the strategy used with ops', async () => {
    const listed = await get('/coordinates/transform/7.4386,46.9511.json?t_srs=21781&ops=1753');
    assert.equal(listed.body.transformer_selection_strategy, 'listed');
    const bound = await get('/coordinates/transform/7.4386,46.9511.json?t_srs=21781&ops=1676');
    assert.equal(bound.body.transformer_selection_strategy, 'boundcrs');
  });

  test('carries the EPSG dataset version in a header', async () => {
    const response = await get('/coordinates/transform/1,2.json');
    assert.equal(response.headers['x-epsg-version'], projInfo().epsgVersion);
  });

  test('bad input is 400 with the error body, never 500', async () => {
    const cases = [
      '/coordinates/transform/abc.json',
      '/coordinates/transform/1,2,3,4.json',
      `/coordinates/transform/${Array(51).fill('1,2').join(';')}.json`,
      '/coordinates/transform/1,2.json?s_srs=0',
      '/coordinates/transform/1,2.json?t_srs=abc',
      '/coordinates/transform/1,2.json?t_srs=99999999',
      '/coordinates/transform/1,2.json?ops=abc',
      '/coordinates/transform/1,2.json?ops=99999999',
      '/coordinates/transform/0,95.json?t_srs=3857',
      // An operation whose area misses the CRS's, projections PROJ does not implement, a height with no operation to WGS 84.
      '/coordinates/transform/0,0.json?s_srs=2964&ops=1174',
      '/coordinates/transform/10,50.json?t_srs=2299',
      '/coordinates/transform/10,50.json?t_srs=3144',
      '/coordinates/transform/20,-30.json?t_srs=2963',
      '/coordinates/transform/20,-30.json?t_srs=5017',
      '/coordinates/transform/-100,40.json?s_srs=5773',
      '/coordinates/transform/400000,300000.json?s_srs=3168&ops=8659',
    ];
    for (const url of cases) {
      const response = await get(url);
      assert.equal(response.status, 400, url);
      assert.equal(typeof response.body.errors[0].message, 'string', url);
    }
  });

  test('needs an API key', async () => {
    const response = await get('/coordinates/transform/1,2.json', false);
    assert.equal(response.status, 403);
    assert.deepEqual(response.body, { errors: [{ message: 'Key is missing, invalid or restricted' }] });
  });
});

describe('GET /coordinates/search/{query}.json', () => {
  test('finds systems by text and filters, with the spec fields', async () => {
    const { status, body, headers } = await get('/coordinates/search/swit.json?limit=3');
    assert.equal(status, 200);
    assert.equal(headers['x-epsg-version'], projInfo().epsgVersion);
    assert.ok(body.total >= 3);
    assert.equal(body.results.length, 3);
    const first = body.results[0];
    for (const field of ['accuracy', 'area', 'bbox', 'default_transformation', 'deprecated', 'id', 'kind', 'name', 'transformations', 'unit']) {
      assert.ok(field in first, field);
    }
    assert.match(first.area, /Switzerland/);
    assert.ok(first.transformations.every((t: unknown) => Number.isInteger(t)));
  });

  test('details transformations and exports on request', async () => {
    const { body } = await get('/coordinates/search/code:2056.json?transformations=true&exports=true');
    const [item] = body.results;
    assert.equal(item.id.code, 2056);
    assert.match(item.exports.proj4, /\+type=crs/);
    assert.match(item.exports.wkt, /TOWGS84/);
    const first = item.transformations[0];
    for (const field of ['accuracy', 'area', 'bbox', 'deprecated', 'exports', 'grids', 'id', 'name', 'reversible', 'target_crs', 'unit', 'usable']) {
      assert.ok(field in first, field);
    }
  });

  test('bad parameters and filters are 400 with the error body', async () => {
    for (const url of [
      '/coordinates/search/x.json?limit=0',
      '/coordinates/search/x.json?limit=51',
      '/coordinates/search/x.json?offset=-1',
      '/coordinates/search/x.json?transformations=maybe',
      '/coordinates/search/kind:bogus.json',
      '/coordinates/search/deprecated:2.json',
      '/coordinates/search/nosuchkey:1.json',
      `/coordinates/search/${'a'.repeat(1100)}.json`,
    ]) {
      const response = await get(url);
      assert.equal(response.status, 400, url);
      assert.equal(typeof response.body.errors[0].message, 'string', url);
    }
  });

  test('needs an API key', async () => {
    assert.equal((await get('/coordinates/search/wgs.json', false)).status, 403);
  });
});
