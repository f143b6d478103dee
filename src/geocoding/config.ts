/**
 * The geocoding area's settings: whether a server builds the world place index when its data
 * directory has none.
 */

import { Type, type Static } from '@sinclair/typebox';
import { section } from '../platform/settings.js';

export const geocodingSettings = section({
  buildIndex: Type.Boolean({
    default: true,
    env: 'MERIDIAN_GEOCODING_BUILD_INDEX',
    description:
      'when the data directory has no current geocoding index (`<dataDir>/geocoding/world-index.v8`), the server builds it on a worker thread at start-up (seconds of CPU) and saves it; when false, geocoding answers 503 until `meridian geocoding build-index` has built it',
  }),
});

export type GeocodingConfig = Static<typeof geocodingSettings>;
