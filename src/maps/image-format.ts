/** The image formats a map can be drawn in, as named in URLs and map definitions. */

export const FORMATS = ['png', 'jpg', 'webp'] as const;
export type Format = (typeof FORMATS)[number];

export const CONTENT_TYPES: Record<Format, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

/** The OpenAPI content of a response that is an image in any of the formats. */
export const IMAGE_CONTENT = Object.fromEntries(Object.values(CONTENT_TYPES).map((type) => [type, { schema: { type: 'string', format: 'binary' } }]));
