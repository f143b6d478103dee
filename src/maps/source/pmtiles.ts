/**
 * `pmtiles://` sources: a PMTiles v3 archive, local (`pmtiles://tiles/world.pmtiles`, relative to
 * the style's folder, `pmtiles:///abs/path.pmtiles` or `pmtiles://file:///…`) or remote
 * (`pmtiles://https://…`, read with range requests). Zoom range, bounds and attribution come from
 * the archive's header and metadata, as with MapLibre's pmtiles protocol.
 */

import { stat } from 'node:fs/promises';
import { Compression, FetchSource, PMTiles, TileType, type RangeResponse, type Source } from 'pmtiles';
import { openArchive, type Archive } from '../../platform/pmtiles.js';
import { redactUrl } from '../../platform/logging.js';
import type { TileStore } from './encoded.js';
import { defaultHttpOptions, Limiter, type HttpOptions } from './http.js';
import { isHttpUrl, localPath } from './template.js';

export type StoredTileType = 'mvt' | 'png' | 'jpg' | 'webp' | 'other';

/** What an archive (PMTiles or MBTiles) says about its tiles; absent fields fall back to defaults. */
export interface ArchiveInfo {
  /** Undefined when the archive does not say. */
  tileType: StoredTileType | undefined;
  minzoom?: number | undefined;
  maxzoom?: number | undefined;
  bounds?: [number, number, number, number] | undefined;
  attribution?: string | undefined;
}

export interface OpenedArchive {
  store: TileStore;
  info: ArchiveInfo;
}

/** The range source of the pmtiles library over http(s), each request with a time limit. */
class TimedFetchSource implements Source {
  private readonly inner: FetchSource;

  constructor(
    url: string,
    private readonly timeoutMs: number,
  ) {
    this.inner = new FetchSource(url);
  }

  getKey(): string {
    return this.inner.getKey();
  }

  getBytes(offset: number, length: number, signal?: AbortSignal, etag?: string): Promise<RangeResponse> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    return this.inner.getBytes(offset, length, signal ? AbortSignal.any([signal, timeout]) : timeout, etag);
  }
}

const remoteTileTypes: Partial<Record<TileType, StoredTileType>> = {
  [TileType.Mvt]: 'mvt',
  [TileType.Png]: 'png',
  [TileType.Jpeg]: 'jpg',
  [TileType.Webp]: 'webp',
};

async function openRemote(url: string, options: HttpOptions): Promise<Archive> {
  const archive = new PMTiles(new TimedFetchSource(url, options.timeoutMs));
  const limiter = new Limiter(options.concurrency);
  let head;
  try {
    head = await archive.getHeader();
  } catch (error) {
    throw new Error(`cannot read the PMTiles archive ${redactUrl(url)}: ${(error as Error).message}`);
  }
  return {
    minZoom: head.minZoom,
    maxZoom: head.maxZoom,
    tileType: remoteTileTypes[head.tileType] ?? 'other',
    tileCompression: head.tileCompression === Compression.None ? 'none' : head.tileCompression === Compression.Gzip ? 'gzip' : 'other',
    bounds: [head.minLon, head.minLat, head.maxLon, head.maxLat],
    metadata: () => archive.getMetadata(),
    tile: (z, x, y) =>
      limiter.run(async () => {
        const found = await archive.getZxy(z, x, y);
        return found ? new Uint8Array(found.data) : null;
      }),
    close: async () => {},
  };
}

function attributionOf(metadata: unknown): string | undefined {
  const attribution = (metadata as { attribution?: unknown } | null)?.attribution;
  return typeof attribution === 'string' && attribution !== '' ? attribution : undefined;
}

/** Opens the archive a `pmtiles://` URL names (the part after the protocol is `location`). */
export async function openPmtiles(location: string, baseDir: string, http: HttpOptions = defaultHttpOptions): Promise<OpenedArchive> {
  let archive: Archive;
  let key: string;
  if (isHttpUrl(location)) {
    archive = await openRemote(location, http);
    key = `pmtiles ${location}`;
  } else {
    const file = localPath(location, baseDir);
    // The modification time keeps a replaced archive from being served from the cache of the old one.
    const { mtimeMs, size } = await stat(file);
    archive = await openArchive(file);
    key = `pmtiles ${file} ${mtimeMs} ${size}`;
  }
  let metadata: unknown;
  try {
    metadata = await archive.metadata();
  } catch (error) {
    await archive.close();
    throw error;
  }
  return {
    store: { key, read: (z, x, y) => archive.tile(z, x, y), close: () => archive.close() },
    info: {
      tileType: archive.tileType,
      minzoom: archive.minZoom,
      maxzoom: archive.maxZoom,
      bounds: archive.bounds,
      attribution: attributionOf(metadata),
    },
  };
}
