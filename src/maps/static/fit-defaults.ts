/**
 * The static API's defaults for a fitted image, declared once for the server (request.ts, fit.ts)
 * and for the console's static-map builder, which frames its map as the image will be. It imports
 * nothing, so that the console's build takes it as it is.
 */

/** Margin around fitted bounds or features, as a fraction of the image's size on each side (`padding`). */
export const DEFAULT_PADDING = 0.1;

/** Zoom of an auto-fitted image whose features are all one point: a street-level view. */
export const SINGLE_POINT_ZOOM = 14;
