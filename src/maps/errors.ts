/** The documented error texts of the hosted service, so that every module uses the same words. */
export const OUT_OF_BOUNDS = 'Out of bounds';
export const INVALID_FORMAT = 'Invalid format';
export const INVALID_IMAGE_SIZE = 'Invalid image size';
export const INVALID_LANGUAGE = 'Invalid language';

/** Why a route that renders answers 503 (besides the key gate's reason). */
export const RENDER_UNAVAILABLE = 'Too many renders waiting, or the render ran too long';
