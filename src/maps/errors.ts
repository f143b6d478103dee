/** The documented error texts of the hosted service, so that every module uses the same words. */
export const OUT_OF_BOUNDS = 'Out of bounds';
export const INVALID_FORMAT = 'Invalid format';
export const INVALID_IMAGE_SIZE = 'Invalid image size';
export const INVALID_LANGUAGE = 'Invalid language';
