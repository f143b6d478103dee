/**
 * The WMTS 1.0.0 capabilities document of one map (OGC 07-057r7, 7.1.1): the service, its two
 * operations (GetCapabilities and GetTile, each in the RESTful and the KVP encoding), one layer (the
 * map, identified by its id, in each format it allows, with the one style `default`, its WGS 84
 * bounding box and tile matrix limits those of its data) and the two tile matrix sets of
 * tile-matrix-set.ts. Every URL in it is absolute and carries the key of the
 * request (and its `language`), so that a GIS client given the capabilities URL needs nothing else.
 *
 * The RESTful tile template names the set, `.../wmts/{TileMatrixSet}/{TileMatrix}/{TileCol}/{TileRow}.png`:
 * a layer's ResourceURLs of one format are alternatives for every set it links (WMTS 10.2.1), and
 * clients use them that way (OpenLayers takes every tile template in turn, QGIS keeps one per
 * format), so a template per set without `{TileMatrixSet}` would hand one set's tiles to the other.
 */

import { escapeXml } from './xml.js';
import { CONTENT_TYPES } from '../image-format.js';
import type { LoadedMap } from '../registry.js';
import { OWS_NAMESPACE } from './ows-exception.js';
import { EPSG_3857_URN, TILE_MATRIX_SETS, TOP_LEFT_CORNER, tileMatrices, tileRange, type TileMatrixSetKind } from './tile-matrix-set.js';
import { DEFAULT_STYLE, WMTS_VERSION } from './wmts-kvp.js';

export const WMTS_NAMESPACE = 'http://www.opengis.net/wmts/1.0';
const XLINK_NAMESPACE = 'http://www.w3.org/1999/xlink';

/** The URLs of a map's WMTS, for a key (and a language, when the request named one). */
export interface WmtsLinks {
  /** The RESTful capabilities document. */
  capabilities: string;
  /** The KVP endpoint, ending in `&` so that a client appends its parameters. */
  kvp: string;
  /** The base of the RESTful tiles. */
  restTiles: string;
  /** The RESTful tile template of a format extension. */
  tileTemplate(extension: string): string;
}

export function wmtsLinks(origin: string, mapId: string, key: string, language: string | null): WmtsLinks {
  const query = `?key=${encodeURIComponent(key)}${language === null ? '' : `&language=${encodeURIComponent(language)}`}`;
  const map = `${origin}/maps/${encodeURIComponent(mapId)}`;
  return {
    capabilities: `${map}/WMTSCapabilities.xml${query}`,
    kvp: `${map}/wmts${query}&`,
    restTiles: `${map}/wmts/${query}`,
    tileTemplate: (extension) => `${map}/wmts/{TileMatrixSet}/{TileMatrix}/{TileCol}/{TileRow}.${extension}${query}`,
  };
}

/** An XML element: its name, attributes and children (strings are text, escaped here). */
type Node = [name: string, attributes: Record<string, string>, ...children: (Node | string)[]];

function render(node: Node, indent: string): string {
  const [name, attributes, ...children] = node;
  const attributeText = Object.entries(attributes).map(([key, value]) => ` ${key}="${escapeXml(value)}"`).join('');
  if (children.length === 0) return `${indent}<${name}${attributeText}/>`;
  if (children.every((child) => typeof child === 'string')) return `${indent}<${name}${attributeText}>${escapeXml(children.join(''))}</${name}>`;
  const inner = children.map((child) => (typeof child === 'string' ? `${indent}  ${escapeXml(child)}` : render(child, `${indent}  `)));
  return `${indent}<${name}${attributeText}>\n${inner.join('\n')}\n${indent}</${name}>`;
}

const text = (name: string, value: string): Node => [name, {}, value];

/** One operation, reachable by GET in both encodings. */
function operation(name: string, restful: string, kvp: string): Node {
  const get = (href: string, encoding: string): Node => [
    'ows:Get',
    { 'xlink:href': href },
    ['ows:Constraint', { name: 'GetEncoding' }, ['ows:AllowedValues', {}, text('ows:Value', encoding)]],
  ];
  return ['ows:Operation', { name }, ['ows:DCP', {}, ['ows:HTTP', {}, get(restful, 'RESTful'), get(kvp, 'KVP')]]];
}

/**
 * A layer's link to a set, with the tiles of each matrix that hold the map's data (its bounds,
 * extent.ts): clients such as OpenLayers and QGIS ask for no tile outside them.
 */
function tileMatrixSetLink(map: LoadedMap, set: TileMatrixSetKind): Node {
  const limits = tileMatrices(map, set).map((matrix): Node => {
    const range = tileRange(map.bounds, matrix.z);
    return [
      'TileMatrixLimits',
      {},
      text('TileMatrix', matrix.identifier),
      text('MinTileRow', String(range.minRow)),
      text('MaxTileRow', String(range.maxRow)),
      text('MinTileCol', String(range.minCol)),
      text('MaxTileCol', String(range.maxCol)),
    ];
  });
  return ['TileMatrixSetLink', {}, text('TileMatrixSet', set.identifier), ['TileMatrixSetLimits', {}, ...limits]];
}

export function wmtsCapabilities(map: LoadedMap, links: WmtsLinks): string {
  const [west, south, east, north] = map.bounds;
  const layer: Node = [
    'Layer',
    {},
    text('ows:Title', map.id),
    ...(map.attribution ? [text('ows:Abstract', `Attribution: ${map.attribution}`)] : []),
    ['ows:WGS84BoundingBox', {}, text('ows:LowerCorner', `${west} ${south}`), text('ows:UpperCorner', `${east} ${north}`)],
    text('ows:Identifier', map.id),
    ['Style', { isDefault: 'true' }, text('ows:Identifier', DEFAULT_STYLE)],
    ...map.formats.map((format) => text('Format', CONTENT_TYPES[format])),
    ...TILE_MATRIX_SETS.map((set) => tileMatrixSetLink(map, set)),
    ...map.formats.map((format): Node => ['ResourceURL', { format: CONTENT_TYPES[format], resourceType: 'tile', template: links.tileTemplate(format) }]),
  ];
  const corner = TOP_LEFT_CORNER.map((metres) => metres.toFixed(7)).join(' ');
  const sets = TILE_MATRIX_SETS.map((set): Node => [
    'TileMatrixSet',
    {},
    text('ows:Title', set.title),
    text('ows:Identifier', set.identifier),
    text('ows:SupportedCRS', EPSG_3857_URN),
    ...(set.wellKnownScaleSet ? [text('WellKnownScaleSet', set.wellKnownScaleSet)] : []),
    ...tileMatrices(map, set).map((matrix): Node => [
      'TileMatrix',
      {},
      text('ows:Identifier', matrix.identifier),
      text('ScaleDenominator', String(matrix.scaleDenominator)),
      text('TopLeftCorner', corner),
      text('TileWidth', String(matrix.tileSize)),
      text('TileHeight', String(matrix.tileSize)),
      text('MatrixWidth', String(matrix.matrixSize)),
      text('MatrixHeight', String(matrix.matrixSize)),
    ]),
  ]);
  const document: Node = [
    'Capabilities',
    {
      xmlns: WMTS_NAMESPACE,
      'xmlns:ows': OWS_NAMESPACE,
      'xmlns:xlink': XLINK_NAMESPACE,
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      'xsi:schemaLocation': `${WMTS_NAMESPACE} http://schemas.opengis.net/wmts/1.0/wmtsGetCapabilities_response.xsd`,
      version: WMTS_VERSION,
    },
    [
      'ows:ServiceIdentification',
      {},
      text('ows:Title', map.id),
      text('ows:Abstract', `The map ${map.id} drawn from its style as raster tiles by Meridian`),
      text('ows:ServiceType', 'OGC WMTS'),
      text('ows:ServiceTypeVersion', WMTS_VERSION),
    ],
    ['ows:OperationsMetadata', {}, operation('GetCapabilities', links.capabilities, links.kvp), operation('GetTile', links.restTiles, links.kvp)],
    ['Contents', {}, layer, ...sets],
    ['ServiceMetadataURL', { 'xlink:href': links.capabilities }],
  ];
  return `<?xml version="1.0" encoding="UTF-8"?>\n${render(document, '')}\n`;
}
