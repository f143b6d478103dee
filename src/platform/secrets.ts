import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A new random credential: `bytes` of randomness as base64url, behind an optional recognisable prefix. */
export function newToken(bytes: number, prefix = ''): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

/** Credentials are high-entropy random strings, so a plain SHA-256 is a safe lookup hash. */
export function hashToken(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/** The same hash in hex: the cheapest form for the gate's hot path. */
export function hashTokenHex(token: string): string {
  return hash('sha256', token, 'hex');
}

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Constant-time equality of two hex digests. */
export function sameHexHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

const ivBytes = 12;
const tagBytes = 16;

/** AES-256-GCM with the master key; the result is `iv | tag | ciphertext`. */
export class TokenCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('The master key must be 32 bytes');
  }

  encrypt(plaintext: string): Buffer {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  decrypt(sealed: Buffer): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, ivBytes));
    decipher.setAuthTag(sealed.subarray(ivBytes, ivBytes + tagBytes));
    return Buffer.concat([decipher.update(sealed.subarray(ivBytes + tagBytes)), decipher.final()]).toString('utf8');
  }

  /** A value that identifies the key without revealing it, stored to catch a wrong master key at start-up. */
  fingerprint(): string {
    return createHmac('sha256', this.key).update('meridian master key check').digest('base64');
  }
}

export const masterKeyFile = 'master.key';

/**
 * The configured master key, or the one kept in the data directory, generated there (mode 0600)
 * the first time. Several instances sharing a database must be given the same key.
 */
export function loadMasterKey(configured: string | null, dataDir: string): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  const file = path.join(dataDir, masterKeyFile);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
    } catch (error) {
      // Another process sharing the directory wrote it first: use that one.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a base64 32-byte key`);
  return key;
}
