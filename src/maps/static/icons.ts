/**
 * Marker icons fetched from `icon:` URLs. A static-map server that fetches URLs for its clients must
 * not become a way into the network behind it, so only http(s) is fetched, and every address a host
 * name resolves to (on every redirect) must be public unless the operator allows private ones. The
 * response must be an image (PNG, JPEG, WebP or GIF by content type and by its first bytes) that
 * decodes, at most MAX_ICON_SIDE pixels a side, arrive within the time limit and stay under the size
 * limit. Images are cached by URL, least recently used
 * first out; failures are not cached.
 */

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import sharp from 'sharp';
import { Lru } from '../../platform/lru.js';
import { ApiError } from '../../platform/errors.js';

export interface IconLimits {
  maxBytes: number;
  timeoutMs: number;
  cacheEntries: number;
  /** Allow hosts on loopback and private networks (tests, or an icon server inside the network). */
  allowPrivateAddresses: boolean;
}

const maxRedirects = 3;
/** Icons are drawn at their own size times `scale`: a marker needs no more. */
export const MAX_ICON_SIDE = 512;
const imageTypes = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/** Addresses that are not on the public internet. */
const privateRanges = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) privateRanges.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
  privateRanges.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return privateRanges.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? privateRanges.check(mapped[1]!, 'ipv4') : privateRanges.check(address, 'ipv6');
}

class IconError extends Error {}

export class IconLoader {
  private readonly cache: Lru<string, Uint8Array>;

  constructor(private readonly limits: IconLimits) {
    this.cache = new Lru(limits.cacheEntries);
  }

  /** The image bytes of every URL; a 400 naming the URL when one cannot be used. */
  async load(urls: Iterable<string>): Promise<Map<string, Uint8Array>> {
    const unique = [...new Set(urls)];
    const loaded = await Promise.all(unique.map(async (url) => [url, await this.one(url)] as const));
    return new Map(loaded);
  }

  private async one(url: string): Promise<Uint8Array> {
    const cached = this.cache.get(url);
    if (cached) return cached;
    let bytes: Uint8Array;
    const signal = AbortSignal.timeout(this.limits.timeoutMs);
    try {
      bytes = await this.fetch(url, signal);
    } catch (error) {
      const reason = error instanceof IconError ? error.message : signal.aborted ? 'timed out' : 'could not be fetched';
      throw new ApiError(`Invalid marker icon ${url}: ${reason}`);
    }
    return this.cache.set(url, bytes);
  }

  private async fetch(url: string, signal: AbortSignal, redirects = 0): Promise<Uint8Array> {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new IconError('only http and https are fetched');
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !this.limits.allowPrivateAddresses && isPrivateAddress(host)) throw new IconError('private address');
    const response = await this.get(target, signal);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (redirects >= maxRedirects) throw new IconError('too many redirects');
      return this.fetch(new URL(response.headers.location, target).href, signal, redirects + 1);
    }
    if (status !== 200) {
      response.resume();
      throw new IconError(`HTTP ${status}`);
    }
    const type = (response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!imageTypes.includes(type)) {
      response.resume();
      throw new IconError(`not a PNG, JPEG, WebP or GIF image (${type || 'no content type'})`);
    }
    const declared = Number(response.headers['content-length'] ?? 0);
    if (declared > this.limits.maxBytes) {
      response.destroy();
      throw new IconError(`larger than ${this.limits.maxBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.limits.maxBytes) {
        response.destroy();
        throw new IconError(`larger than ${this.limits.maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    const bytes = Buffer.concat(chunks);
    if (!isImage(bytes)) throw new IconError('not a PNG, JPEG, WebP or GIF image');
    const { width = 0, height = 0 } = await sharp(bytes).metadata().catch(() => ({ width: 0, height: 0 }));
    if (width === 0 || height === 0) throw new IconError('not a decodable image');
    if (width > MAX_ICON_SIDE || height > MAX_ICON_SIDE) throw new IconError(`larger than ${MAX_ICON_SIDE}×${MAX_ICON_SIDE} pixels`);
    return bytes;
  }

  private get(target: URL, signal: AbortSignal): Promise<IncomingMessage> {
    const client = target.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.get(target, { signal, lookup: this.lookup, headers: { accept: imageTypes.join(', ') } }, resolve);
      request.on('error', reject);
    });
  }

  /** DNS lookup that refuses private addresses, so the address checked is the address connected to. */
  private readonly lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const allowed = this.limits.allowPrivateAddresses ? addresses : addresses.filter((entry) => !isPrivateAddress(entry.address));
      if (allowed.length === 0) return callback(new IconError('private address'), '', 0);
      if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
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
