import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { familyOf, KINDS, kindsMatching } from '../../../src/coordinates/search/kinds.js';
import { MAX_QUERY_LENGTH, MAX_TERMS, normalizeText, parseQuery, QueryError, tokenize } from '../../../src/coordinates/search/query.js';

const crsKinds = KINDS.filter((kind) => kind.startsWith('CRS-'));

test('without filters a query searches current CRSs', () => {
  const query = parseQuery('United Kingdom');
  assert.deepEqual(query.terms, ['united', 'kingdom']);
  assert.deepEqual([...query.kinds].sort(), [...crsKinds].sort());
  assert.equal(query.deprecated, 'exclude');
  assert.equal(query.code, null);
  assert.equal(query.trans, null);
});

test('the documented examples parse', () => {
  const finland = parseQuery('finland deprecated:* kind:*');
  assert.deepEqual(finland.terms, ['finland']);
  assert.equal(finland.kinds.size, KINDS.length);
  assert.equal(finland.deprecated, 'include');

  const mercator = parseQuery('mercator deprecated:1');
  assert.deepEqual(mercator.terms, ['mercator']);
  assert.equal(mercator.deprecated, 'only');

  const code = parseQuery('code:4326');
  assert.deepEqual(code.terms, []);
  assert.equal(code.code, 4326);

  assert.deepEqual(parseQuery('swit').terms, ['swit']);
  assert.deepEqual(parseQuery('4326').terms, ['4326']);
  assert.equal(parseQuery('trans:1676').trans, 1676);
});

test('kind: takes *, a family or a kind, in any case, and lists', () => {
  assert.deepEqual([...parseQuery('kind:crs').kinds].sort(), [...crsKinds].sort());
  assert.deepEqual([...parseQuery('kind:COORDOP').kinds].sort(), ['COORDOP-COPCON', 'COORDOP-COPCONO', 'COORDOP-COPTRAN', 'COORDOP-POIMOTO']);
  assert.deepEqual([...parseQuery('kind:crs-projcrs').kinds], ['CRS-PROJCRS']);
  assert.deepEqual([...parseQuery('kind:ELLIPSOID').kinds], ['ELLIPSOID']);
  assert.deepEqual([...parseQuery('kind:CRS-PROJCRS,ellipsoid').kinds].sort(), ['CRS-PROJCRS', 'ELLIPSOID']);
  for (const family of ['CRS', 'COORDOP', 'DATUM', 'CS', 'UNIT']) {
    const kinds = kindsMatching(family)!;
    assert.ok(kinds.size > 1, family);
    for (const kind of kinds) assert.equal(familyOf(kind), family);
  }
  for (const kind of KINDS) assert.deepEqual([...kindsMatching(kind.toLowerCase())!], [kind]);
});

test('filter keys and values are read case-insensitively, with or without a space after the colon', () => {
  const query = parseQuery('Kind: DATUM Deprecated:* EPSG:6326 wgs');
  assert.ok([...query.kinds].every((kind) => kind.startsWith('DATUM-')));
  assert.equal(query.deprecated, 'include');
  assert.equal(query.code, 6326);
  assert.deepEqual(query.terms, ['wgs']);
  const extra = parseQuery('datum:6258 ellipsoid:7019 method:9807 area_code:1286');
  assert.deepEqual([extra.datum, extra.ellipsoid, extra.method, extra.areaCode], [6258, 7019, 9807, 1286]);
});

test('free text is lower-cased, stripped of accents and split on punctuation', () => {
  assert.deepEqual(tokenize('Zürich'), ['zurich']);
  assert.deepEqual(tokenize('RÉUNION'), ['reunion']);
  assert.deepEqual(tokenize('Côte d’Ivoire'), ['cote', 'd', 'ivoire']);
  assert.deepEqual(tokenize('Øresund Straße Łódź Ærø'), ['oresund', 'strasse', 'lodz', 'aero']);
  assert.deepEqual(tokenize('CH1903+ / LV95'), ['ch1903', 'lv95']);
  assert.deepEqual(tokenize('４３２６'), ['4326']);
  assert.deepEqual(tokenize('東京 Москва'), ['東京', 'москва']);
  assert.equal(normalizeText('São Tomé'), 'sao tome');
  assert.deepEqual(parseQuery('WGS wgs Wgs 84').terms, ['wgs', '84']);
  assert.deepEqual(parseQuery('  --- !!  ').terms, []);
});

test('bad queries are QueryErrors that say what is wrong', () => {
  const cases: [string, RegExp][] = [
    ['foo:bar', /Unknown filter "foo:"/],
    ['http://example.com', /Unknown filter "http:"/],
    ['kind:PLANET', /unknown kind "PLANET"/],
    ['kind:CRS,', /unknown kind ""/],
    ['deprecated:2', /deprecated: expects 0, 1 or \*/],
    ['deprecated:yes', /deprecated: expects 0, 1 or \*/],
    ['code:abc', /code: expects an EPSG code/],
    ['code:-1', /code: expects an EPSG code/],
    ['trans:1.5', /trans: expects an EPSG code/],
    ['code:1234567890', /code: expects an EPSG code/],
    ['code:', /code: needs a value/],
    ['kind:CRS kind:*', /kind: is given more than once/],
    ['code:4326 epsg:4326', /epsg: is given more than once/],
    ['x'.repeat(MAX_QUERY_LENGTH + 1), /too long/],
    [Array.from({ length: MAX_TERMS + 1 }, (_, i) => `word${i}`).join(' '), /Too many search terms/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseQuery(text),
      (error: unknown) => error instanceof QueryError && error.name === 'QueryError' && message.test(error.message),
      text,
    );
  }
});

test('hostile input either parses or is a QueryError', () => {
  const words = fc.constantFrom('kind:', 'code:', 'trans:', 'deprecated:', 'datum:', ':', '*', '1', '0', 'CRS', 'crs-projcrs', ',', 'é', ' ', '\u0000', '\uD800', 'a:b:c');
  const hostile = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.array(words, { maxLength: 20 }).map((parts) => parts.join('')),
    fc.array(fc.oneof(words, fc.string({ maxLength: 8 })), { maxLength: 30 }).map((parts) => parts.join(' ')),
  );
  fc.assert(
    fc.property(hostile, (text) => {
      try {
        const query = parseQuery(text);
        assert.ok(query.terms.length <= MAX_TERMS);
        for (const term of query.terms) assert.match(term, /^[\p{L}\p{N}]+$/u);
      } catch (error) {
        assert.ok(error instanceof QueryError, String(error));
      }
    }),
    { numRuns: 2000 },
  );
});
