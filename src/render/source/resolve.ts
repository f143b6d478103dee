/**
 * A style's source specification to a TileSource. Vector, raster and raster-dem sources take their
 * tiles from `url` (`pmtiles://…`, `mbtiles://…`, or a TileJSON document over http(s) or on disk)
 * or from `tiles` templates (http(s) URLs, or local paths and `file:` URLs); `geojson` sources
 * from their `data`. As in MapLibre, what the style says about a source (zoom range, bounds,
 * attribution, scheme, tileSize, encoding) wins over what the archive or TileJSON says, and the
 * style-spec defaults fill the rest. Relative paths resolve against the style's folder.
 *
 * Not supported, and reported as such when the map loads: `image` and `video` sources, vector
 * tiles in MapLibre Tile format (`encoding: "mlt"`), raster-dem `encoding: "custom"`.
 */

import type {
  RasterDEMSourceSpecification,
  RasterSourceSpecification,
  SourceSpecification,
  VectorSourceSpecification,
} from '@maplibre/maplibre-gl-style-spec';
import type { TileCache } from './cache.js';
import { EncodedTileSource, type SourceInfo, type TileStore } from './encoded.js';
import { FolderTileStore } from './folder.js';
import { GeoJsonSource } from './geojson.js';
import { defaultHttpOptions, HttpTileStore, type HttpOptions } from './http.js';
import type { Log } from './log.js';
import { openMbtiles } from './mbtiles.js';
import { openPmtiles, type ArchiveInfo } from './pmtiles.js';
import type { MapSource, TileFormat } from './source.js';
import { hasScheme, isHttpUrl, type Scheme } from './template.js';
import { loadTileJson } from './tilejson.js';
import { DEFAULT_SOURCE_BOUNDS } from '../../platform/web-mercator.js';

export interface ResolveOptions {
  /** The folder relative paths of the style resolve against: the style file's. */
  baseDir: string;
  cache: TileCache;
  log: Log;
  /** How log lines name the map, e.g. `map "osm"`. */
  mapName: string;
  http?: HttpOptions;
}

type TiledSpecification = VectorSourceSpecification | RasterSourceSpecification | RasterDEMSourceSpecification;

/** What the archive or TileJSON behind a source says about it. */
interface Metadata extends Partial<ArchiveInfo> {
  tileSize?: number | undefined;
  encoding?: string | undefined;
}

const VECTOR_TILE_SIZE = 512;
const DEFAULT_TILE_SIZE = 512;
const DEFAULT_MINZOOM = 0;
const DEFAULT_MAXZOOM = 22;
const imageTypes = new Set(['png', 'jpg', 'webp']);

export async function resolveSource(id: string, spec: SourceSpecification, options: ResolveOptions): Promise<MapSource> {
  const http = options.http ?? defaultHttpOptions;
  switch (spec.type) {
    case 'geojson':
      return GeoJsonSource.open(`sources.${id}`, spec, options.baseDir, options.cache, http);
    case 'vector':
    case 'raster':
    case 'raster-dem': {
      const { store, metadata, templates } = await openStore(spec, options.baseDir, http);
      try {
        return new EncodedTileSource(`${options.mapName}, source "${id}"`, settle(spec, metadata, templates), store, options.cache, options.log);
      } catch (error) {
        await store.close();
        throw error;
      }
    }
    default:
      throw new Error(`sources of type "${spec.type}" are not supported`);
  }
}

/** The store, what it says about itself, and the URL templates of its tiles when it has some. */
async function openStore(
  spec: TiledSpecification,
  baseDir: string,
  http: HttpOptions,
): Promise<{ store: TileStore; metadata: Metadata; templates: readonly string[] }> {
  const { url } = spec;
  if (url?.startsWith('pmtiles://')) {
    const { store, info } = await openPmtiles(url.slice('pmtiles://'.length), baseDir, http);
    return { store, metadata: info, templates: [] };
  }
  if (url?.startsWith('mbtiles://')) {
    const { store, info } = await openMbtiles(url.slice('mbtiles://'.length), baseDir);
    return { store, metadata: info, templates: [] };
  }
  const tilejson = url === undefined ? undefined : await loadTileJson(url, baseDir, http);
  const templates = spec.tiles ?? tilejson?.tiles;
  if (!templates?.length) throw new Error('a source needs "url" or "tiles"');
  const scheme: Scheme = ('scheme' in spec ? spec.scheme : undefined) ?? tilejson?.scheme ?? 'xyz';
  const metadata = tilejson ?? {};
  if (templates.every(isHttpUrl)) return { store: new HttpTileStore(templates, scheme, http), metadata, templates };
  const unsupported = templates.find((template) => hasScheme(template) && !/^file:/i.test(template));
  if (unsupported !== undefined) throw new Error(`tiles from "${unsupported}" are not supported (http(s) URLs, file: URLs and paths are)`);
  if (templates.some(isHttpUrl)) throw new Error('"tiles" mixes URLs and local paths');
  return { store: new FolderTileStore(templates, scheme, baseDir), metadata, templates };
}

/**
 * The extension of the tile URLs Meridian serves for a source: `pbf` for vector tiles; for images
 * the archive's format, else the extension of the source's templates, else `png`. (The bytes are
 * sent with the content type they really have.)
 */
function tileFormat(kind: TiledSpecification['type'], tileType: Metadata['tileType'], templates: readonly string[]): TileFormat {
  if (kind === 'vector') return 'pbf';
  if (tileType === 'png' || tileType === 'jpg' || tileType === 'webp') return tileType;
  const extension = /\.(png|jpe?g|webp)(?=$|[?#])/i.exec(templates[0] ?? '')?.[1]?.toLowerCase();
  return extension === 'jpeg' ? 'jpg' : ((extension as TileFormat | undefined) ?? 'png');
}

/** The source's description: the style's fields, else the store's, else the style-spec defaults. */
function settle(spec: TiledSpecification, metadata: Metadata, templates: readonly string[]): SourceInfo {
  const kind = spec.type;
  if (metadata.tileType !== undefined) {
    const drawable = kind === 'vector' ? metadata.tileType === 'mvt' : imageTypes.has(metadata.tileType);
    if (!drawable) throw new Error(`a ${kind} source cannot use ${metadata.tileType === 'other' ? 'tiles of an unsupported type' : `${metadata.tileType} tiles`}`);
  }
  let tileSize: number;
  let encoding: SourceInfo['encoding'];
  if (kind === 'vector') {
    // MapLibre refuses other sizes for vector sources.
    tileSize = (spec as { tileSize?: number }).tileSize ?? VECTOR_TILE_SIZE;
    if (tileSize !== VECTOR_TILE_SIZE) throw new Error(`vector sources must have a tileSize of ${VECTOR_TILE_SIZE}`);
    if (spec.encoding !== undefined && spec.encoding !== 'mvt') throw new Error(`vector tiles with encoding "${spec.encoding}" are not supported`);
  } else {
    tileSize = spec.tileSize ?? metadata.tileSize ?? DEFAULT_TILE_SIZE;
    if (kind === 'raster-dem') {
      const given = spec.encoding ?? metadata.encoding ?? 'mapbox';
      if (given !== 'mapbox' && given !== 'terrarium') throw new Error(`raster-dem encoding "${given}" is not supported (mapbox and terrarium are)`);
      encoding = given;
    }
  }
  const minzoom = spec.minzoom ?? metadata.minzoom ?? DEFAULT_MINZOOM;
  const maxzoom = spec.maxzoom ?? metadata.maxzoom ?? DEFAULT_MAXZOOM;
  if (minzoom > maxzoom) throw new Error(`minzoom ${minzoom} is above maxzoom ${maxzoom}`);
  return {
    kind,
    tileSize,
    minzoom,
    maxzoom,
    bounds: (spec.bounds as [number, number, number, number] | undefined) ?? metadata.bounds ?? [...DEFAULT_SOURCE_BOUNDS],
    attribution: spec.attribution ?? metadata.attribution,
    encoding,
    promoteId: kind === 'vector' ? spec.promoteId : undefined,
    format: tileFormat(kind, metadata.tileType, templates),
    vectorLayers: kind === 'vector' ? metadata.vectorLayers : undefined,
  };
}
