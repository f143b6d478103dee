/**
 * Marker icons fetched from `icon:` URLs, through the platform's HTTP client. A static-map server
 * that fetches URLs for its clients must not become a way into the network behind it, so only
 * http(s) is fetched, and every address connected to (on every redirect) must be public unless the
 * operator allows private ones (`maps.icons.allowPrivateAddresses`). The response must be an image
 * (PNG, JPEG, WebP or GIF by content type and by its first bytes) that decodes, at most
 * MAX_ICON_SIDE pixels a side, arrive within the time limit and stay under the size limit, after
 * at most three redirects. One image names at most `maxPerRequest` distinct icons and downloads at
 * most `maxBytesPerRequest` bytes of them; at most `maxDownloads` downloads run at once per
 * instance. Images are cached by URL, least recently used first out past `cacheEntries` icons or
 * `cacheBytes` bytes, and failures for `failureCacheMs`, so that one URL cannot make the server
 * fetch the same bad icon over and over.
 */

import sharp from 'sharp';
import { HttpClient, HttpClientError } from '../../platform/http/http-client.js';
import { Lru } from '../../platform/lru.js';
import { ApiError } from '../../platform/errors.js';
import type { Metrics } from '../../platform/metrics.js';
import type { MapsConfig } from '../config.js';

export type IconLimits = MapsConfig['icons'];

const maxRedirects = 3;
/** Icons are drawn at their own size times `scale`: a marker needs no more. */
export const MAX_ICON_SIDE = 512;
const imageTypes = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

class IconError extends Error {}

/** The words of the 400 for each failure of the HTTP client. */
function reasonOf(error: HttpClientError, limits: IconLimits): string {
  switch (error.code) {
    case 'timeout':
    case 'connect-timeout':
      return 'timed out';
    case 'private-address':
      return 'private address';
    case 'too-many-redirects':
      return 'too many redirects';
    case 'too-large':
      return `larger than ${limits.maxBytes} bytes`;
    case 'protocol':
      return 'only http and https are fetched';
    default:
      return 'could not be fetched';
  }
}

export class IconLoader {
  private readonly cache: Lru<string, Uint8Array>;
  /** The 400 message of icon URLs that failed recently. */
  private readonly failures: Lru<string, string>;
  private readonly client: HttpClient;
  private downloading = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limits: IconLimits,
    private readonly metrics?: Metrics,
  ) {
    // An icon may be a kilobyte or a megabyte: the entry count alone would not bound the memory.
    this.cache = new Lru(limits.cacheEntries, { weigh: (bytes) => bytes.byteLength, maxWeight: limits.cacheBytes });
    metrics?.watchCache('icons', () => ({ entries: this.cache.size, bytes: this.cache.weight }));
    this.failures = new Lru(limits.cacheEntries, { ttlMs: limits.failureCacheMs });
    this.client = new HttpClient({
      allowPrivateAddresses: limits.allowPrivateAddresses,
      headers: { accept: imageTypes.join(', ') },
      timeoutMs: limits.timeoutMs,
      maxBytes: limits.maxBytes,
      maxRedirects,
      retries: 0,
    });
  }

  /** The image bytes of every URL; a 400 naming the URL when one cannot be used. */
  async load(urls: Iterable<string>): Promise<Map<string, Uint8Array>> {
    const unique = [...new Set(urls)];
    const { maxPerRequest } = this.limits;
    if (unique.length > maxPerRequest) throw new ApiError(`Too many marker icons: at most ${maxPerRequest} distinct icon URLs per image`);
    const budget = { downloaded: 0 };
    const loaded = await Promise.all(unique.map(async (url) => [url, await this.one(url, budget)] as const));
    return new Map(loaded);
  }

  /** An icon from the cache, or downloaded when a download slot is free and the image's byte budget allows. */
  private async one(url: string, budget: { downloaded: number }): Promise<Uint8Array> {
    const cached = this.cache.get(url);
    this.metrics?.cacheLookup('icons', cached !== undefined);
    if (cached) return cached;
    const failed = this.failures.get(url);
    if (failed !== undefined) throw new ApiError(failed);
    const { maxBytesPerRequest } = this.limits;
    const overBudget = () => new ApiError(`Marker icons of one image may download at most ${maxBytesPerRequest} bytes`);
    await this.slot();
    let bytes: Uint8Array;
    try {
      if (budget.downloaded >= maxBytesPerRequest) throw overBudget();
      bytes = await this.fetch(url);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      const reason = error instanceof IconError ? error.message : error instanceof HttpClientError ? reasonOf(error, this.limits) : 'could not be fetched';
      const message = `Invalid marker icon ${url}: ${reason}`;
      if (this.limits.failureCacheMs > 0) this.failures.set(url, message);
      throw new ApiError(message);
    } finally {
      this.release();
    }
    this.cache.set(url, bytes);
    budget.downloaded += bytes.byteLength;
    if (budget.downloaded > maxBytesPerRequest) throw overBudget();
    return bytes;
  }

  private async slot(): Promise<void> {
    if (this.downloading >= this.limits.maxDownloads) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.downloading++;
  }

  private release(): void {
    this.downloading--;
    this.waiting.shift()?.();
  }

  private async fetch(url: string): Promise<Uint8Array> {
    const response = await this.client.request(url, {
      inspect: ({ status, headers }) => {
        if (status !== 200) throw new IconError(`HTTP ${status}`);
        const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (!imageTypes.includes(type)) throw new IconError(`not a PNG, JPEG, WebP or GIF image (${type || 'no content type'})`);
      },
    });
    const bytes = Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength);
    if (!isImage(bytes)) throw new IconError('not a PNG, JPEG, WebP or GIF image');
    const { width = 0, height = 0 } = await sharp(bytes).metadata().catch(() => ({ width: 0, height: 0 }));
    if (width === 0 || height === 0) throw new IconError('not a decodable image');
    if (width > MAX_ICON_SIDE || height > MAX_ICON_SIDE) throw new IconError(`larger than ${MAX_ICON_SIDE}×${MAX_ICON_SIDE} pixels`);
    return bytes;
  }
}

function isImage(bytes: Buffer): boolean {
  const starts = (...signature: number[]) => signature.every((byte, i) => bytes[i] === byte);
  return (
    starts(0x89, 0x50, 0x4e, 0x47) ||
    starts(0xff, 0xd8, 0xff) ||
    starts(0x47, 0x49, 0x46, 0x38) ||
    (starts(0x52, 0x49, 0x46, 0x46) && bytes.subarray(8, 12).toString('latin1') === 'WEBP')
  );
}
