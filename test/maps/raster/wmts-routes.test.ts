/**
 * WMTS 1.0.0: the capabilities document (RESTful and KVP) validated by libxml2's xmllint against
 * the OGC schemas in test/fixtures/ogc-schemas (as published), read back with XPath; its scale denominators against the
 * GoogleMapsCompatible table of the standard; tiles by GetTile, by the RESTful template and by the
 * XYZ routes being the same bytes; OWS exception reports for wrong KVP requests; the key gate.
 *
 * @oneDatabase the database only checks the key; what is tested is the WMTS capabilities and tiles.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';
import { requirePeers } from '../../peers.js';
import { repoRoot } from '../../render/suite/cases.js';
import { annexLimits, matrixLimits, smallStyle } from './raster-maps.js';

/** The OGC's schemas as published, with a catalog resolving their absolute imports to these copies. */
const schemas = path.join(repoRoot, 'test/fixtures/ogc-schemas');
const CAPABILITIES_SCHEMA = path.join(schemas, 'schemas.opengis.net/wmts/1.0/wmtsGetCapabilities_response.xsd');
const EXCEPTION_SCHEMA = path.join(schemas, 'schemas.opengis.net/ows/1.1.0/owsExceptionReport.xsd');
const CATALOG = path.join(schemas, 'catalog.xml');

/**
 * OGC 07-057r7 (WMTS 1.0.0), Annex E.4, "GoogleMapsCompatible" well-known scale set: the scale
 * denominator of each level, as published (256-px tiles).
 */
const ANNEX_E4: Record<number, number> = {
  0: 559082264.0287178,
  1: 279541132.0143589,
  2: 139770566.0071794,
  3: 69885283.00358972,
  4: 34942641.50179486,
  5: 17471320.75089743,
  6: 8735660.375448715,
  7: 4367830.187724357,
  8: 2183915.093862179,
  9: 1091957.546931089,
};
/** Annex E.4's top-left corner of every level, EPSG:3857 metres. */
const ANNEX_E4_TOP_LEFT = [-20037508.3427892, 20037508.3427892];

const small = smallStyle();
/** The extent of West Oakland's data: a map whose bounds stop far inside the world. */
const BOXED: [number, number, number, number] = [-122.3143312, 37.8040142, -122.290784, 37.8175832];

let server: TestServer;
let key: string;

before(async () => {
  requirePeers('xmllint');
  server = await startTestServer(
    testConfig({
      publicUrl: 'https://tiles.example.org/',
      maps: {
        definitions: {
          land: { style: small as never, maxzoom: 8, attribution: '© Test & Co <x>' },
          pngonly: { style: small as never, formats: ['png'], minzoom: 2, maxzoom: 5 },
          boxed: { style: small as never, maxzoom: 6, bounds: BOXED },
        },
      },
    }),
  );
  const { accountId } = await newAccount(server.meridian);
  // A key with characters that need escaping in URLs is not made by the store; the token is URL-safe.
  key = (await server.meridian.keys.create(accountId, {})).token;
});

after(() => server?.close());

const inject = (url: string) => server.server.public.inject({ method: 'GET', url });
const get = (url: string) => inject(`${url}${url.includes('?') ? '&' : '?'}key=${key}`);

/**
 * The one error of the published schema that the standard contradicts: it types MaxTileRow and
 * MaxTileCol as positiveInteger, where 07-057r7 (Table 24) has them run from the minimum to the
 * matrix's size - 1, so 0 in a matrix of one tile, or in the first row or column (a known erratum:
 * GeoWebCache/geowebcache#250). Every other message of xmllint is kept.
 */
const MAX_TILE_ERRATUM = /^-:\d+: element Max(TileRow|TileCol): Schemas validity error : Element '\{http:\/\/www\.opengis\.net\/wmts\/1\.0\}Max(TileRow|TileCol)': '0' is not a valid value of the atomic type 'xs:positiveInteger'\.$/;

/** xmllint's verdict on a document against a schema: '' when valid, its errors otherwise. */
function validate(xml: string, schema: string): string {
  try {
    execFileSync('xmllint', ['--nonet', '--noout', '--schema', schema, '-'], { input: xml, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, XML_CATALOG_FILES: CATALOG } });
    return '';
  } catch (error) {
    const lines = String((error as { stderr?: Buffer }).stderr ?? error).split('\n').filter((line) => line !== '');
    // xmllint's warning about the GML schemas importing SMIL twice says nothing of the document.
    const errors = lines.filter((line) => !/Schemas parser warning/.test(line));
    const rest = errors.filter((line) => !MAX_TILE_ERRATUM.test(line));
    return rest.length === 1 && rest[0] === '- fails to validate' && rest.length < errors.length ? '' : lines.join('\n');
  }
}

/** An XPath 1.0 expression evaluated by xmllint (elements matched by local-name(), so without prefixes). */
function xpath(xml: string, expression: string): string {
  return execFileSync('xmllint', ['--nonet', '--xpath', expression, '-'], { input: xml }).toString().replace(/\n$/, '');
}
const el = (name: string) => `*[local-name()='${name}']`;
const matrixOf = (set: string, z: number) => `//${el('Contents')}/${el('TileMatrixSet')}[${el('Identifier')}='${set}']/${el('TileMatrix')}[${el('Identifier')}='${z}']`;

async function capabilities(url = '/maps/land/WMTSCapabilities.xml'): Promise<string> {
  const response = await get(url);
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
  assert.match(String(response.headers['content-type']), /^application\/xml/);
  return response.body;
}

describe('GET /maps/{mapId}/WMTSCapabilities.xml and ?REQUEST=GetCapabilities', () => {
  test('the document validates against the WMTS 1.0.0 schema, in both encodings', async () => {
    for (const url of ['/maps/land/WMTSCapabilities.xml', '/maps/land/wmts?SERVICE=WMTS&REQUEST=GetCapabilities', '/maps/pngonly/wmts?service=WMTS&Request=GetCapabilities&AcceptVersions=1.0.0', '/maps/land/WMTSCapabilities.xml?language=de']) {
      const xml = await capabilities(url);
      assert.equal(validate(xml, CAPABILITIES_SCHEMA), '', url);
    }
  });

  test('the validator refuses a document that breaks the schema', async () => {
    // The check can fail: a layer without its identifier, and a template with a space, are refused.
    const xml = await capabilities();
    assert.notEqual(validate(xml.replace(/<ows:Identifier>land<\/ows:Identifier>/, ''), CAPABILITIES_SCHEMA), '');
    assert.notEqual(validate(xml.replace('{TileRow}.png', '{TileRow} .png'), CAPABILITIES_SCHEMA), '');
  });

  test('service, operations in both encodings, the layer, its formats, sets and templates, every URL with the key', async () => {
    const xml = await capabilities();
    assert.equal(xpath(xml, `string(//${el('ServiceIdentification')}/${el('Title')})`), 'land');
    assert.equal(xpath(xml, `string(//${el('ServiceIdentification')}/${el('ServiceType')})`), 'OGC WMTS');
    for (const operation of ['GetCapabilities', 'GetTile']) {
      const gets = `//${el('Operation')}[@name='${operation}']//${el('Get')}`;
      assert.equal(xpath(xml, `string(${gets}[.//${el('Value')}='KVP']/@*[local-name()='href'])`), `https://tiles.example.org/maps/land/wmts?key=${key}&`);
      assert.match(xpath(xml, `string(${gets}[.//${el('Value')}='RESTful']/@*[local-name()='href'])`), new RegExp(`^https://tiles\\.example\\.org/maps/land/.*\\?key=${key}$`));
    }
    const layer = `//${el('Contents')}/${el('Layer')}`;
    assert.equal(xpath(xml, `count(${layer})`), '1');
    assert.equal(xpath(xml, `string(${layer}/${el('Identifier')})`), 'land');
    assert.equal(xpath(xml, `string(${layer}/${el('Abstract')})`), 'Attribution: © Test & Co <x>');
    assert.equal(xpath(xml, `string(${layer}/${el('Style')}[@isDefault='true']/${el('Identifier')})`), 'default');
    assert.equal(xpath(xml, `count(${layer}/${el('Format')})`), '3');
    for (const type of ['image/png', 'image/jpeg', 'image/webp']) assert.equal(xpath(xml, `count(${layer}/${el('Format')}[.='${type}'])`), '1', type);
    assert.equal(xpath(xml, `count(${layer}/${el('TileMatrixSetLink')}/${el('TileMatrixSet')}[.='GoogleMapsCompatible' or .='WebMercatorQuad512'])`), '2');
    // The bounds of the map's one GeoJSON source (GeoJSON sources cover the world).
    const lower = xpath(xml, `string(${layer}/${el('WGS84BoundingBox')}/${el('LowerCorner')})`).split(' ').map(Number);
    const upper = xpath(xml, `string(${layer}/${el('WGS84BoundingBox')}/${el('UpperCorner')})`).split(' ').map(Number);
    assert.equal(lower[0], -180);
    assert.equal(upper[0], 180);
    assert.ok(lower[1]! < -85 && upper[1]! > 85, `${lower} ${upper}`);
    const templates = xpath(xml, `${layer}/${el('ResourceURL')}[@resourceType='tile']/@template`);
    for (const extension of ['png', 'jpg', 'webp']) {
      assert.ok(templates.includes(`https://tiles.example.org/maps/land/wmts/{TileMatrixSet}/{TileMatrix}/{TileCol}/{TileRow}.${extension}?key=${key}`), templates);
    }
    assert.equal(xpath(xml, `string(//${el('ServiceMetadataURL')}/@*[local-name()='href'])`), `https://tiles.example.org/maps/land/WMTSCapabilities.xml?key=${key}`);
  });

  test('the language of the request reaches every URL', async () => {
    const xml = await capabilities('/maps/land/WMTSCapabilities.xml?language=pt-BR');
    assert.match(xpath(xml, `string(//${el('ResourceURL')}/@template)`), /\?key=[^&]+&language=pt-BR$/);
    assert.equal(xpath(xml, `string(//${el('Operation')}[@name='GetTile']//${el('Get')}[.//${el('Value')}='KVP']/@*[local-name()='href'])`), `https://tiles.example.org/maps/land/wmts?key=${key}&language=pt-BR&`);
  });

  test('GoogleMapsCompatible is the scale set of WMTS Annex E.4 at zooms 0 to maxzoom + 1; the 512-px set has half its denominators at minzoom..maxzoom', async () => {
    const xml = await capabilities();
    const google = `//${el('Contents')}/${el('TileMatrixSet')}[${el('Identifier')}='GoogleMapsCompatible']`;
    assert.equal(xpath(xml, `string(${google}/${el('SupportedCRS')})`), 'urn:ogc:def:crs:EPSG::3857');
    assert.equal(xpath(xml, `string(${google}/${el('WellKnownScaleSet')})`), 'urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible');
    assert.equal(xpath(xml, `count(${google}/${el('TileMatrix')})`), '10');
    const quad512 = `//${el('Contents')}/${el('TileMatrixSet')}[${el('Identifier')}='WebMercatorQuad512']`;
    assert.equal(xpath(xml, `string(${quad512}/${el('SupportedCRS')})`), 'urn:ogc:def:crs:EPSG::3857');
    assert.equal(xpath(xml, `count(${quad512}/${el('TileMatrix')})`), '9');
    const fields = (set: string, z: number) => {
      const matrix = matrixOf(set, z);
      const names = ['ScaleDenominator', 'TopLeftCorner', 'TileWidth', 'TileHeight', 'MatrixWidth', 'MatrixHeight'];
      const [scale, corner, ...sizes] = xpath(xml, `concat(${names.map((name) => `${matrix}/${el(name)}`).join(", '|', ")})`).split('|');
      return { scale: Number(scale), corner: corner!.split(' ').map(Number), sizes: sizes.map(Number) };
    };
    for (let z = 0; z <= 9; z++) {
      const google = fields('GoogleMapsCompatible', z);
      // The table gives 16 significant digits.
      assert.ok(Math.abs(google.scale / ANNEX_E4[z]! - 1) < 1e-15, `zoom ${z}: ${google.scale}, Annex E.4: ${ANNEX_E4[z]}`);
      assert.deepEqual(google.corner, ANNEX_E4_TOP_LEFT);
      assert.deepEqual(google.sizes, [256, 256, 2 ** z, 2 ** z]);
      if (z > 8) continue;
      const quad512 = fields('WebMercatorQuad512', z);
      assert.ok(Math.abs(quad512.scale / (ANNEX_E4[z]! / 2) - 1) < 1e-15, `512 px, zoom ${z}: ${quad512.scale}`);
      assert.deepEqual(quad512.corner, ANNEX_E4_TOP_LEFT);
      assert.deepEqual(quad512.sizes, [512, 512, 2 ** z, 2 ** z]);
    }
  });

  test('the layer’s bounding box and tile matrix limits are its bounds’, by the standard’s formulas', async () => {
    const xml = await capabilities('/maps/boxed/WMTSCapabilities.xml');
    assert.equal(validate(xml, CAPABILITIES_SCHEMA), '');
    const layer = `//${el('Contents')}/${el('Layer')}`;
    const corner = (name: string) => xpath(xml, `string(${layer}/${el('WGS84BoundingBox')}/${el(name)})`).split(' ').map(Number);
    assert.deepEqual([...corner('LowerCorner'), ...corner('UpperCorner')], BOXED);
    for (const [set, zooms] of [['GoogleMapsCompatible', 7], ['WebMercatorQuad512', 6]] as const) {
      const limits = matrixLimits(xml, set);
      assert.deepEqual(limits.map(([z]) => z), Array.from({ length: zooms + 1 }, (_, z) => z), set);
      for (const limit of limits) assert.deepEqual(limit, annexLimits(BOXED, limit[0]!), `${set} matrix ${limit[0]}`);
    }
    // A map over the world is limited to nothing less than every tile.
    const world = await capabilities();
    for (const [z, minRow, maxRow, minCol, maxCol] of matrixLimits(world, 'GoogleMapsCompatible')) assert.deepEqual([minRow, maxRow, minCol, maxCol], [0, 2 ** z! - 1, 0, 2 ** z! - 1], `matrix ${z}`);
  });

  test('a map with zooms 2-5 in png only: its matrices and its one format', async () => {
    const xml = await capabilities('/maps/pngonly/WMTSCapabilities.xml');
    const identifiers = (set: string) => xpath(xml, `//${el('Contents')}/${el('TileMatrixSet')}[${el('Identifier')}='${set}']/${el('TileMatrix')}/${el('Identifier')}`).match(/>(\d+)</g)!.map((match) => Number(match.slice(1, -1)));
    assert.deepEqual(identifiers('GoogleMapsCompatible'), [2, 3, 4, 5, 6]);
    assert.deepEqual(identifiers('WebMercatorQuad512'), [2, 3, 4, 5]);
    assert.equal(xpath(xml, `count(//${el('Layer')}/${el('Format')})`), '1');
    assert.equal(xpath(xml, `count(//${el('Layer')}/${el('ResourceURL')})`), '1');
  });
});

describe('GetTile', () => {
  test('KVP GetTile, the RESTful template and the XYZ routes answer the same bytes', async () => {
    for (const [set, prefix] of [['GoogleMapsCompatible', '/256'], ['WebMercatorQuad512', '']] as const) {
      for (const [format, extension] of [['image/png', 'png'], ['image/jpeg', 'jpg'], ['image/webp', 'webp']] as const) {
        const xyz = await get(`/maps/land${prefix}/3/5/2.${extension}`);
        assert.equal(xyz.statusCode, 200);
        const kvp = await get(`/maps/land/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=land&STYLE=default&TILEMATRIXSET=${set}&TILEMATRIX=3&TILEROW=2&TILECOL=5&FORMAT=${encodeURIComponent(format)}`);
        assert.equal(kvp.statusCode, 200, kvp.body);
        assert.equal(kvp.headers['content-type'], format);
        assert.ok(kvp.rawPayload.equals(xyz.rawPayload), `${set} ${format}: KVP`);
        const rest = await get(`/maps/land/wmts/${set}/3/5/2.${extension}`);
        assert.equal(rest.statusCode, 200, rest.body);
        assert.equal(rest.headers['content-type'], format);
        assert.ok(rest.rawPayload.equals(xyz.rawPayload), `${set} ${format}: RESTful`);
        assert.ok(rest.headers.etag);
      }
    }
    // Parameter names in any case, as OGC requires; a tile of the two sets at the same z differs.
    const mixed = await get('/maps/land/wmts?service=WMTS&request=GetTile&version=1.0.0&layer=land&style=default&tileMatrixSet=GoogleMapsCompatible&TileMatrix=1&TileRow=0&TileCol=1&Format=image/png');
    assert.equal(mixed.statusCode, 200, mixed.body);
    assert.ok(mixed.rawPayload.equals((await get('/maps/land/256/1/1/0.png')).rawPayload));
    assert.ok(!mixed.rawPayload.equals((await get('/maps/land/1/1/0.png')).rawPayload));
  });

  test('the RESTful tile route answers errors with the JSON body', async () => {
    for (const [url, status, message] of [
      ['/maps/pngonly/wmts/WebMercatorQuad512/6/0/0.png', 400, 'Out of bounds'],
      ['/maps/pngonly/wmts/GoogleMapsCompatible/1/0/0.png', 400, 'Out of bounds'],
      ['/maps/pngonly/wmts/GoogleMapsCompatible/2/4/0.png', 400, 'Out of bounds'],
      ['/maps/pngonly/wmts/GoogleMapsCompatible/2/0/0.jpg', 400, 'Invalid format'],
      ['/maps/pngonly/wmts/NoSuchSet/2/0/0.png', 400, 'params'],
      ['/maps/nosuchmap/wmts/GoogleMapsCompatible/2/0/0.png', 404, 'The item does not exist'],
    ] as const) {
      const response = await get(url);
      assert.equal(response.statusCode, status, `${url}: ${response.body}`);
      assert.ok((response.json() as { errors: { message: string }[] }).errors[0]!.message.startsWith(message), `${url}: ${response.body}`);
    }
  });
});

describe('KVP errors are OWS exception reports', () => {
  const tile = 'SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=pngonly&STYLE=default&TILEMATRIXSET=GoogleMapsCompatible&TILEMATRIX=3&TILEROW=1&TILECOL=2&FORMAT=image/png';
  const without = (name: string) => tile.split('&').filter((pair) => !pair.startsWith(`${name}=`)).join('&');
  const replacing = (name: string, value: string) => tile.replace(new RegExp(`${name}=[^&]*`), `${name}=${value}`);

  test('each wrong or missing parameter is named with its exception code', async () => {
    assert.equal((await get(`/maps/pngonly/wmts?${tile}`)).statusCode, 200);
    const cases: [query: string, status: number, code: string, locator: string][] = [
      ['REQUEST=GetCapabilities', 400, 'MissingParameterValue', 'SERVICE'],
      ['SERVICE=WMS&REQUEST=GetCapabilities', 400, 'InvalidParameterValue', 'SERVICE'],
      ['SERVICE=WMTS', 400, 'MissingParameterValue', 'REQUEST'],
      ['SERVICE=WMTS&REQUEST=GetMap', 400, 'InvalidParameterValue', 'REQUEST'],
      ['SERVICE=WMTS&REQUEST=GetFeatureInfo', 501, 'OperationNotSupported', 'GetFeatureInfo'],
      ['SERVICE=WMTS&REQUEST=GetCapabilities&VERSION=2.0.0', 400, 'InvalidParameterValue', 'VERSION'],
      ['SERVICE=WMTS&REQUEST=GetCapabilities&ACCEPTVERSIONS=0.9.0,2.0.0', 400, 'VersionNegotiationFailed', 'ACCEPTVERSIONS'],
      ['SERVICE=WMTS&REQUEST=GetCapabilities&request=GetTile', 400, 'InvalidParameterValue', 'REQUEST'],
      [without('VERSION'), 400, 'MissingParameterValue', 'VERSION'],
      [replacing('VERSION', '1.1.0'), 400, 'InvalidParameterValue', 'VERSION'],
      [without('LAYER'), 400, 'MissingParameterValue', 'LAYER'],
      [replacing('LAYER', 'land'), 400, 'InvalidParameterValue', 'LAYER'],
      [without('STYLE'), 400, 'MissingParameterValue', 'STYLE'],
      [replacing('STYLE', 'dark'), 400, 'InvalidParameterValue', 'STYLE'],
      [without('FORMAT'), 400, 'MissingParameterValue', 'FORMAT'],
      [replacing('FORMAT', 'image/jpeg'), 400, 'InvalidParameterValue', 'FORMAT'],
      [replacing('FORMAT', ''), 400, 'MissingParameterValue', 'FORMAT'],
      [without('TILEMATRIXSET'), 400, 'MissingParameterValue', 'TILEMATRIXSET'],
      [replacing('TILEMATRIXSET', 'EPSG:4326'), 400, 'InvalidParameterValue', 'TILEMATRIXSET'],
      [without('TILEMATRIX'), 400, 'MissingParameterValue', 'TILEMATRIX'],
      [replacing('TILEMATRIX', '1'), 400, 'InvalidParameterValue', 'TILEMATRIX'],
      [replacing('TILEMATRIX', '7'), 400, 'InvalidParameterValue', 'TILEMATRIX'],
      [without('TILEROW'), 400, 'MissingParameterValue', 'TILEROW'],
      [replacing('TILEROW', '8'), 400, 'TileOutOfRange', 'TILEROW'],
      [replacing('TILEROW', '-1'), 400, 'InvalidParameterValue', 'TILEROW'],
      [without('TILECOL'), 400, 'MissingParameterValue', 'TILECOL'],
      [replacing('TILECOL', '8'), 400, 'TileOutOfRange', 'TILECOL'],
      [replacing('TILECOL', 'x'), 400, 'InvalidParameterValue', 'TILECOL'],
      [`${tile}&TILECOL=3`, 400, 'InvalidParameterValue', 'TILECOL'],
      [`${tile}&LANGUAGE=!!`, 400, 'InvalidParameterValue', 'LANGUAGE'],
    ];
    for (const [query, status, code, locator] of cases) {
      const response = await get(`/maps/pngonly/wmts?${query}`);
      assert.equal(response.statusCode, status, `${query}: ${response.body}`);
      assert.match(String(response.headers['content-type']), /^text\/xml/, query);
      assert.equal(validate(response.body, EXCEPTION_SCHEMA), '', query);
      const exception = `/${el('ExceptionReport')}/${el('Exception')}`;
      const [codeOf, locatorOf, textLength] = xpath(response.body, `concat(${exception}/@exceptionCode, '|', ${exception}/@locator, '|', string-length(${exception}/${el('ExceptionText')}))`).split('|');
      assert.deepEqual([codeOf, locatorOf], [code, locator], query);
      assert.ok(Number(textLength) > 0, query);
    }
  });
});

describe('the key gate and unknown maps', () => {
  test('no key or a wrong key is 403 with the JSON body on every WMTS route; an unknown map is 404', async () => {
    const urls = ['/maps/land/WMTSCapabilities.xml', '/maps/land/wmts?SERVICE=WMTS&REQUEST=GetCapabilities', '/maps/land/wmts/GoogleMapsCompatible/0/0/0.png'];
    for (const url of urls) {
      for (const refused of [url, `${url}${url.includes('?') ? '&' : '?'}key=not-a-key`]) {
        const response = await inject(refused);
        assert.equal(response.statusCode, 403, refused);
        assert.ok((response.json() as { errors: { message: string }[] }).errors[0]!.message.length > 0, refused);
        assert.ok(!response.body.includes('not-a-key'), refused);
      }
    }
    for (const url of ['/maps/nosuchmap/WMTSCapabilities.xml', '/maps/nosuchmap/wmts?SERVICE=WMTS&REQUEST=GetCapabilities']) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.equal((response.json() as { errors: { message: string }[] }).errors[0]!.message, 'The item does not exist');
    }
  });

  test('the capabilities carry the key of the request that asked, not another', async () => {
    const { accountId } = await newAccount(server.meridian, 'other');
    const other = (await server.meridian.keys.create(accountId, {})).token;
    const response = await inject(`/maps/land/WMTSCapabilities.xml?key=${other}`);
    assert.equal(response.statusCode, 200);
    assert.ok(response.body.includes(`key=${other}`));
    assert.ok(!response.body.includes(key));
  });
});
