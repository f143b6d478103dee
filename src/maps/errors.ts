import { HttpError } from '../platform/errors.js';

/** A static-map request the client got wrong; `status` and `message` become the HTTP response. */
export class MapsError extends HttpError {
  override readonly name = 'MapsError';

  constructor(readonly status: 400 | 404 | 414, message: string) {
    super(status, message);
  }
}

/** The documented error texts of the hosted service, so that every module uses the same words. */
export const OUT_OF_BOUNDS = 'Out of bounds';
export const INVALID_FORMAT = 'Invalid format';
export const INVALID_IMAGE_SIZE = 'Invalid image size';
export const NOT_FOUND = 'The item does not exist';
export const URI_TOO_LONG = 'URI Too Long. Maximum allowed length is 8192 bytes.';
