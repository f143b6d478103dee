/**
 * `pmtiles://` sources: a PMTiles v3 archive, local (`pmtiles://tiles/world.pmtiles`, relative to
 * the style's folder, `pmtiles:///abs/path.pmtiles` or `pmtiles://file:///…`) or remote
 * (`pmtiles://https://…`, read with range requests through the platform's HTTP client). Zoom
 * range, bounds and attribution come from the archive's header and metadata, as with MapLibre's
 * pmtiles protocol.
 *
 * Tiles are read as stored (a gzipped vector tile stays gzipped), so that the tile endpoints can
 * pass them on untouched; decoding gunzips them. Directories and metadata are decompressed as
 * usual: the pmtiles library decompresses those through its cache, and tile data through the
 * archive's own function, which here passes the bytes through.
 */

import { open, stat } from 'node:fs/promises';
import { EtagMismatch, PMTiles, SharedPromiseCache, TileType, type RangeResponse, type Source } from 'pmtiles';
import { redactUrl } from '../../platform/logging.js';
import { LocalFile } from '../../platform/pmtiles.js';
import type { TileStore } from './encoded.js';
import { defaultHttpOptions, Limiter, sourceClient, type HttpOptions } from './http.js';
import type { VectorLayer } from './source.js';
import { isHttpUrl, localPath } from './template.js';
import { vectorLayersOf } from './tilejson.js';

export type StoredTileType = 'mvt' | 'png' | 'jpg' | 'webp' | 'other';

/** What an archive (PMTiles or MBTiles) says about its tiles; absent fields fall back to defaults. */
export interface ArchiveInfo {
  /** Undefined when the archive does not say. */
  tileType: StoredTileType | undefined;
  minzoom?: number | undefined;
  maxzoom?: number | undefined;
  bounds?: [number, number, number, number] | undefined;
  attribution?: string | undefined;
  vectorLayers?: VectorLayer[] | undefined;
}

export interface OpenedArchive {
  store: TileStore;
  info: ArchiveInfo;
}

/**
 * A remote archive read with range requests through the platform's HTTP client, each within the
 * time limit. As the pmtiles library's own FetchSource: an archive shorter than the first read is
 * asked again for its actual size, a changed ETag makes the library read the header again, and a
 * server that ignores ranges is refused rather than downloaded whole. `maps add` checks a remote
 * archive through it, as the server will read it.
 */
export class HttpRangeSource implements Source {
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  getKey(): string {
    return this.url;
  }

  async getBytes(offset: number, length: number, signal?: AbortSignal, etag?: string): Promise<RangeResponse> {
    let response = await this.read(offset, offset + length - 1, offset === 0, signal, etag);
    if (response.status === 416) {
      const size = response.contentRange?.size;
      if (size === null || size === undefined) throw new Error('Missing content-length on 416 response');
      response = await this.read(0, size - 1, false, signal, etag);
    }
    return {
      // The client's bodies have an ArrayBuffer of their own.
      data: response.body.buffer as ArrayBuffer,
      etag: strongEtag(response.headers.etag),
      cacheControl: response.headers['cache-control'],
      expires: response.headers.expires,
    };
  }

  private read(start: number, end: number, sizeUnknown: boolean, signal: AbortSignal | undefined, etag: string | undefined) {
    const length = end - start + 1;
    return sourceClient.request(this.url, {
      range: { start, end },
      timeoutMs: this.timeoutMs,
      maxBytes: length,
      ...(signal ? { signal } : {}),
      inspect: ({ status, headers }) => {
        if (status === 416 && sizeUnknown) return false;
        const current = strongEtag(headers.etag);
        if (status === 416 || (etag && current && current !== etag)) {
          throw new EtagMismatch(`Server returned non-matching ETag ${etag} after one retry. Check browser extensions and servers for issues that may affect correct ETag headers.`);
        }
        if (status >= 300) throw new Error(`Bad response code: ${status}`);
        if (status === 200 && !(Number(headers['content-length']) <= length)) {
          throw new Error('Server returned no content-length header or content-length exceeding request. Check that your storage backend supports HTTP Byte Serving.');
        }
      },
    });
  }
}

/** Weak ETags say nothing about the bytes. */
const strongEtag = (etag: string | undefined) => (etag && !etag.startsWith('W/') ? etag : undefined);

const tileTypes: Partial<Record<TileType, StoredTileType>> = {
  [TileType.Mvt]: 'mvt',
  [TileType.Png]: 'png',
  [TileType.Jpeg]: 'jpg',
  [TileType.Webp]: 'webp',
};

const asStored = async (data: ArrayBuffer): Promise<ArrayBuffer> => data;

function attributionOf(metadata: unknown): string | undefined {
  const attribution = (metadata as { attribution?: unknown } | null)?.attribution;
  return typeof attribution === 'string' && attribution !== '' ? attribution : undefined;
}

interface Opened {
  source: Source;
  key: string;
  /** Range requests of a remote archive in flight at once; unbounded for a local file. */
  limiter: Limiter | undefined;
  close(): Promise<void>;
}

async function openSource(location: string, baseDir: string, http: HttpOptions): Promise<Opened> {
  if (isHttpUrl(location)) {
    return { source: new HttpRangeSource(location, http.timeoutMs), key: `pmtiles ${location}`, limiter: new Limiter(http.concurrency), close: async () => {} };
  }
  const file = localPath(location, baseDir);
  // The modification time keeps a replaced archive from being served from the cache of the old one.
  const { mtimeMs, size } = await stat(file);
  const handle = await open(file, 'r');
  return { source: new LocalFile(file, handle), key: `pmtiles ${file} ${mtimeMs} ${size}`, limiter: undefined, close: () => handle.close() };
}

/** Opens the archive a `pmtiles://` URL names (the part after the protocol is `location`). */
export async function openPmtiles(location: string, baseDir: string, http: HttpOptions = defaultHttpOptions): Promise<OpenedArchive> {
  const { source, key, limiter, close } = await openSource(location, baseDir, http);
  const cache = new SharedPromiseCache();
  const archive = new PMTiles(source, cache);
  const stored = new PMTiles(source, cache, asStored);
  let head;
  let metadata: unknown;
  try {
    try {
      head = await archive.getHeader();
    } catch (error) {
      throw isHttpUrl(location) ? new Error(`cannot read the PMTiles archive ${redactUrl(location)}: ${(error as Error).message}`) : error;
    }
    metadata = await archive.getMetadata();
  } catch (error) {
    await close();
    throw error;
  }
  const read = async (z: number, x: number, y: number) => {
    const found = await stored.getZxy(z, x, y);
    return found ? new Uint8Array(found.data) : null;
  };
  return {
    store: { key, read: limiter ? (z, x, y) => limiter.run(() => read(z, x, y)) : read, close },
    info: {
      tileType: tileTypes[head.tileType] ?? 'other',
      minzoom: head.minZoom,
      maxzoom: head.maxZoom,
      bounds: [head.minLon, head.minLat, head.maxLon, head.maxLat],
      attribution: attributionOf(metadata),
      vectorLayers: vectorLayersOf((metadata as { vector_layers?: unknown } | null)?.vector_layers),
    },
  };
}
