import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { rgba } from '../../../src/maps/static/color.js';
import { ApiError } from '../../../src/platform/errors.js';
import { MAX_POINTS, parseStaticRequest, type Query } from '../../../src/maps/static/request.js';
import { MAX_ZOOM } from '../../../src/render/view/viewport.js';
import { fitBounds } from '../../../src/maps/static/fit.js';
import { SINGLE_POINT_ZOOM } from '../../../src/maps/static/fit-defaults.js';
import { rejects } from './rejects.js';

const parse = (spec: string, query: Query = {}, length = 100) => parseStaticRequest('streets', spec, query, length);

test('a center request keeps its viewport and gets the documented defaults', () => {
  const request = parse('8.5,47.3,12/800x600@2x.png');
  assert.equal(request.kind, 'center');
  assert.equal(request.mapId, 'streets');
  assert.deepEqual(request.viewport, { center: [8.5, 47.3], zoom: 12, width: 800, height: 600, pixelRatio: 2 });
  assert.deepEqual([request.format, request.attribution, request.padding, request.shortest], ['png', 'bottomright', 0.1, false]);
  assert.deepEqual([request.paths, request.markers, request.bounds], [[], [], null]);
});

test('a bounds request is fitted with its padding', () => {
  const request = parse('5.9,45.8,10.5,47.8/512x512.webp', { padding: '0.05' });
  assert.equal(request.kind, 'bounds');
  assert.deepEqual(request.bounds, [5.9, 45.8, 10.5, 47.8]);
  assert.deepEqual(request.viewport, fitBounds([5.9, 45.8, 10.5, 47.8], 512, 512, 0.05));
});

test('an auto request fits its paths and markers; without any it is a 400', () => {
  const request = parse('auto/300x200.jpg', { markers: '8.5,47.3' });
  assert.equal(request.kind, 'auto');
  assert.equal(request.viewport.zoom, SINGLE_POINT_ZOOM);
  rejects(() => parse('auto/300x200.jpg'), 400, /^Nothing to fit/);
});

test('image sizes are 1..2048 and the only scale is @2x', () => {
  assert.equal(parse('0,0,1/2048x1.png').viewport.width, 2048);
  for (const size of ['0x10', '10x0', '2049x10', '10x2049', '99999999999999999999x1', '10x10@3x', '10x10@1x']) {
    rejects(() => parse(`0,0,1/${size}.png`), 400, 'Invalid image size');
  }
});

test('formats are png, jpg, webp, and only those the map allows', () => {
  for (const format of ['gif', 'jpeg', 'PNG', 'svg']) rejects(() => parse(`0,0,1/10x10.${format}`), 400, /^Invalid format: /);
  rejects(() => parse('0,0,1/10x10.gif'), 400, 'Invalid format: "gif" is not one of png, jpg, webp');
  rejects(() => parseStaticRequest('m', '0,0,1/10x10.webp', {}, 10, ['png', 'jpg']), 400, 'Invalid format: "webp" is not one of png, jpg');
});

test('an area or image part missing a piece is a 400 naming it', () => {
  const cases: [string, string][] = [
    ['', 'Missing image size and format after the area: {width}x{height}[@2x].{format}'],
    ['auto', 'Missing image size and format after the area: {width}x{height}[@2x].{format}'],
    ['10,50/800x600.png', 'Missing zoom in the area: {lon},{lat},{zoom}, {minx},{miny},{maxx},{maxy} or auto'],
    ['10/800x600.png', 'Missing latitude and zoom in the area: {lon},{lat},{zoom}, {minx},{miny},{maxx},{maxy} or auto'],
    ['1,2,3,4,5/10x10.png', 'Invalid area: {lon},{lat},{zoom}, {minx},{miny},{maxx},{maxy} or auto'],
    ['x,1,2/10x10.png', 'Invalid area: {lon},{lat},{zoom}, {minx},{miny},{maxx},{maxy} or auto'],
    ['1,2,3/800.png', 'Missing image height: {width}x{height}[@2x].{format}'],
    ['1,2,3/800@2x.png', 'Missing image height: {width}x{height}[@2x].{format}'],
    ['auto/10x10', 'Missing image format (png, jpg or webp): {width}x{height}[@2x].{format}'],
    ['auto/10x10.', 'Missing image format (png, jpg or webp): {width}x{height}[@2x].{format}'],
    ['1,2,3/10x10.png/x', 'Invalid image: {width}x{height}[@2x].{format}'],
    ['1,2,3/big.png', 'Invalid image: {width}x{height}[@2x].{format}'],
  ];
  for (const [spec, message] of cases) rejects(() => parse(spec), 400, message);
});

test('a URI over 8192 bytes is a 414', () => {
  assert.equal(parse('0,0,1/10x10.png', {}, 8192).kind, 'center');
  rejects(() => parse('0,0,1/10x10.png', {}, 8193), 414, 'URI Too Long. Maximum allowed length is 8192 bytes.');
});

test('a centre beyond the Mercator square, or a zoom outside 0..22, is out of bounds', () => {
  for (const spec of ['0,85.06,1', '180.5,0,1', '0,0,22.5', '0,-90,0']) rejects(() => parse(`${spec}/10x10.png`), 400, /^Out of bounds: (latitude|longitude|zoom) /);
  assert.equal(parse('-180,-85.0511,22/10x10.png').viewport.zoom, MAX_ZOOM);
});

test('query parameters: attribution, padding, shortest, latlng', () => {
  for (const attribution of ['bottomright', 'bottomleft', 'topleft', 'topright', 'false']) {
    assert.equal(parse('0,0,1/10x10.png', { attribution }).attribution, attribution);
  }
  rejects(() => parse('0,0,1/10x10.png', { attribution: 'middle' }), 400, 'Invalid attribution');
  assert.equal(parse('0,0,1/10x10.png', { padding: '0' }).padding, 0);
  for (const padding of ['0.5', '-0.1', 'abc', '', '1e-1', 'NaN']) rejects(() => parse('0,0,1/10x10.png', { padding }), 400, 'Invalid padding');
  assert.equal(parse('0,0,1/10x10.png', { shortest: '1' }).shortest, true);
  rejects(() => parse('0,0,1/10x10.png', { shortest: 'yes' }), 400, 'Invalid shortest');
  assert.deepEqual(parse('0,0,1/10x10.png', { latlng: 'true', markers: '47.3,8.5' }).markers[0]!.markers[0], { lon: 8.5, lat: 47.3, color: null });
  assert.equal(parse('0,0,1/10x10.png', { attribution: ['topleft', 'false'] }).attribution, 'false');
});

test('repeated paths and markers, and shortest as every path default', () => {
  const request = parse('0,0,1/10x10.png', { path: ['0,0|1,1', 'shortest:false|2,2|3,3'], markers: ['1,1', 'anchor:top|2,2|3,3'], shortest: 'true' });
  assert.deepEqual(request.paths.map((path) => path.shortest), [true, false]);
  assert.deepEqual(request.markers.map((group) => group.markers.length), [1, 2]);
});

test('deprecated fill, stroke, width and encodedpath style and add paths', () => {
  const request = parse('auto/10x10.png', { path: 'width:3|0,0|1,1', encodedpath: '_p~iF~ps|U_ulLnnqC', fill: 'none', stroke: 'red', width: '5' });
  assert.deepEqual(request.paths.map((path) => [path.fill, path.stroke, path.width]), [[null, rgba(255, 0, 0), 3], [null, rgba(255, 0, 0), 5]]);
  assert.deepEqual(request.paths[1]!.points, [[-120.2, 38.5], [-120.95, 40.7]]);
  rejects(() => parse('auto/10x10.png', { path: '0,0|1,1', stroke: 'none' }), 400, 'Invalid stroke');
  rejects(() => parse('auto/10x10.png', { path: '0,0|1,1', width: '0' }), 400, 'Invalid width');
});

test(`at most ${MAX_POINTS} points in all paths and markers`, () => {
  const entries = (count: number) => Array.from({ length: count }, () => '1,1').join('|');
  assert.equal(parse('auto/10x10.png', { markers: entries(MAX_POINTS - 2), path: '0,0|2,2' }).markers[0]!.markers.length, MAX_POINTS - 2);
  rejects(() => parse('auto/10x10.png', { markers: entries(MAX_POINTS - 1), path: '0,0|2,2' }), 400, /^Too many points/);
});

const specPart = fc.oneof(
  fc.constantFrom('auto', '8.5,47.3,12', '5.9,45.8,10.5,47.8', '170,-10,-170,10', '0,0,0', '-180,-85.0511,22', '1,2,3,4'),
  fc.tuple(fc.double(), fc.double(), fc.double()).map((numbers) => numbers.join(',')),
  fc.tuple(fc.integer({ min: -200, max: 200 }), fc.integer({ min: -100, max: 100 }), fc.integer({ min: -200, max: 200 }), fc.integer({ min: -100, max: 100 })).map((numbers) => numbers.join(',')),
  fc.string({ maxLength: 20 }),
);
const sizePart = fc.oneof(
  fc.tuple(fc.integer({ min: -5, max: 3000 }), fc.integer({ min: -5, max: 3000 }), fc.constantFrom('', '@2x', '@3x'), fc.constantFrom('png', 'jpg', 'webp', 'gif'))
    .map(([w, h, scale, format]) => `${w}x${h}${scale}.${format}`),
  fc.string({ maxLength: 20 }),
);
const overlay = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.array(fc.tuple(fc.double({ min: -200, max: 200, noNaN: true }), fc.double({ min: -100, max: 100, noNaN: true })).map(([a, b]) => `${a.toFixed(3)},${b.toFixed(3)}`), { minLength: 1, maxLength: 5 })
    .chain((pairs) => fc.constantFrom('', 'fill:red|', 'stroke:#00f8|width:3|', 'shortest:true|', 'icon:https://x.test/a.png|anchor:top|scale:2|', 'width:0|', '__proto__:1|').map((options) => options + pairs.join('|'))),
  fc.constantFrom('enc:_p~iF~ps|U_ulLnnqC_mqNvxq`@', 'enc:~~~~', 'enc:', '1,2,rgb(1,2,3)|3,4,nope'),
);
const queryValue = fc.oneof(fc.constant(undefined), overlay, fc.array(overlay, { maxLength: 3 }));
const query = fc.record({
  path: queryValue, markers: queryValue, encodedpath: queryValue, attribution: queryValue, padding: queryValue,
  shortest: queryValue, latlng: queryValue, fill: queryValue, stroke: queryValue, width: queryValue,
  __proto__: queryValue, constructor: queryValue,
}, { requiredKeys: [] });

test('random and hostile requests throw nothing but ApiError; accepted ones are well-formed', () => {
  fc.assert(fc.property(specPart, sizePart, query, fc.integer({ min: 0, max: 9000 }), (area, size, q, length) => {
    let request;
    try {
      request = parseStaticRequest('m', `${area}/${size}`, q, length);
    } catch (error) {
      assert.ok(error instanceof ApiError, `${String(error)} for ${area}/${size} ${JSON.stringify(q)}`);
      assert.ok([400, 404, 414].includes(error.statusCode));
      return;
    }
    const { center: [lon, lat], zoom, width, height, pixelRatio } = request.viewport;
    assert.ok(Number.isFinite(lon) && Number.isFinite(lat) && Math.abs(lon) <= 180 && Math.abs(lat) <= 85.0511287798066);
    assert.ok(zoom >= 0 && zoom <= 22);
    assert.ok(Number.isInteger(width) && width >= 1 && width <= 2048 && Number.isInteger(height) && height >= 1 && height <= 2048);
    assert.ok(pixelRatio === 1 || pixelRatio === 2);
    assert.ok(length <= 8192);
  }), { numRuns: 2000 });
});

test('arbitrary strings anywhere throw nothing but ApiError', () => {
  fc.assert(fc.property(fc.string({ maxLength: 60 }), fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(fc.string({ maxLength: 60 }), fc.array(fc.string({ maxLength: 30 }), { maxLength: 3 }))), (spec, q) => {
    try {
      parseStaticRequest('m', spec, q, spec.length);
    } catch (error) {
      assert.ok(error instanceof ApiError, String(error));
    }
  }), { numRuns: 2000 });
});
