/**
 * Page cursors are base64 of a keyset position (`v1:<seq>`, the creation sequence of the last key
 * returned). Paging by position, not offset, never skips or repeats a key while others are created
 * or deleted.
 */
const prefix = 'v1:';

export function encodeCursor(seq: string): string {
  return Buffer.from(prefix + seq, 'utf8').toString('base64');
}

/** The position in a cursor, or null when it is not one of ours. Accepts base64url and a `+` turned into a space. */
export function decodeCursor(cursor: string): string | null {
  const text = cursor.replaceAll(' ', '+');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text) || text.length > 64) return null;
  const decoded = Buffer.from(text.replaceAll('-', '+').replaceAll('_', '/'), 'base64').toString('utf8');
  const match = /^v1:([1-9][0-9]{0,17})$/.exec(decoded);
  return match ? match[1]! : null;
}
