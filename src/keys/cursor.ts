import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Page cursors of the key listing. The position inside is the creation sequence of the last key of
 * a page, which the database counts for all accounts together, so it is sealed rather than shown:
 * AES-256-GCM under a key derived (HKDF-SHA256) from the master key for one account. A cursor
 * therefore tells nothing (not how many keys exist, not how fast other accounts create them: it has
 * the same length whatever the position, and a fresh nonce every time), opens only for the account
 * it was made for, and any change to it is detected. Every instance sharing the database holds the
 * same master key, so a cursor works on any of them and across restarts.
 *
 * Layout: version byte | 12-byte nonce | 8-byte position (sealed) | 16-byte tag, in base64. The
 * version byte is authenticated too, and tells a later layout apart from this one.
 */
const version = 1;
const nonceBytes = 12;
const positionBytes = 8;
const tagBytes = 16;
const cursorBytes = 1 + nonceBytes + positionBytes + tagBytes;

export class PageCursors {
  /** Derived once: this object keeps no copy of the master key. */
  private readonly cursorKey: Buffer;

  constructor(masterKey: Buffer) {
    this.cursorKey = derive(masterKey, 'meridian page cursors');
  }

  /** A cursor for `position` (a positive bigint as text) that only `accountId` can use. */
  seal(accountId: string, position: string): string {
    const nonce = randomBytes(nonceBytes);
    const cipher = createCipheriv('aes-256-gcm', this.accountKey(accountId), nonce);
    cipher.setAAD(Uint8Array.of(version));
    const plain = Buffer.alloc(positionBytes);
    plain.writeBigUInt64BE(BigInt(position));
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([Uint8Array.of(version), nonce, sealed, cipher.getAuthTag()]).toString('base64');
  }

  /**
   * The position in a cursor `accountId` was given, or null when it is not one: malformed,
   * altered, sealed with another master key or for another account. Base64url, missing padding
   * and a `+` turned into a space by a careless URL encoder are accepted.
   */
  open(accountId: string, cursor: string): string | null {
    const bytes = decodeBase64(cursor);
    if (bytes === null || bytes.length !== cursorBytes || bytes[0] !== version) return null;
    const nonce = bytes.subarray(1, 1 + nonceBytes);
    const sealed = bytes.subarray(1 + nonceBytes, 1 + nonceBytes + positionBytes);
    const decipher = createDecipheriv('aes-256-gcm', this.accountKey(accountId), nonce);
    decipher.setAAD(Uint8Array.of(version));
    decipher.setAuthTag(bytes.subarray(cursorBytes - tagBytes));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(sealed), decipher.final()]);
    } catch {
      return null;
    }
    return String(plain.readBigUInt64BE());
  }

  private accountKey(accountId: string): Buffer {
    return derive(this.cursorKey, accountId);
  }
}

function derive(key: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), info, 32));
}

/**
 * The bytes of base64 or base64url text, padded or not, or null. Only the canonical encoding of
 * the bytes is accepted: Node's decoder ignores stray characters and the unused bits of the last
 * one, and a cursor that was changed at all must not pass as the original.
 */
function decodeBase64(text: string): Buffer | null {
  const standard = text.replaceAll(' ', '+').replaceAll('-', '+').replaceAll('_', '/');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(standard)) return null;
  const bytes = Buffer.from(standard, 'base64');
  return bytes.toString('base64').replace(/=+$/, '') === standard.replace(/=+$/, '') ? bytes : null;
}
