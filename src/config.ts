/**
 * Everything Meridian can be configured with: the platform's settings and each area's section,
 * each declared once where it is used (platform/config.ts, keys/config.ts, maps/config.ts,
 * weather/config.ts, coordinates/config.ts, geocoding/config.ts). Defaults need no file.
 */

import path from 'node:path';
import type { Static } from '@sinclair/typebox';
import { coordinatesSettings } from './coordinates/config.js';
import { geocodingSettings } from './geocoding/config.js';
import { keysSettings } from './keys/config.js';
import { mapsSettings } from './maps/config.js';
import { invalidProxyEntries } from './platform/http/client-network.js';
import { platformSettings } from './platform/config.js';
import { ConfigError, defaultsOf, environmentVariables as environmentOf, loadSettings, section, type ConfigSources } from './platform/settings.js';
import { weatherSettings } from './weather/config.js';

export { ConfigError, type ConfigSources } from './platform/settings.js';

export const configSchema = section({ ...platformSettings, ...keysSettings, weather: weatherSettings, maps: mapsSettings, coordinates: coordinatesSettings, geocoding: geocodingSettings });

export type Config = Static<typeof configSchema>;

export const defaultConfig: Config = defaultsOf(configSchema);

/** Environment variables and the setting each one overrides. */
export const environmentVariables = environmentOf(configSchema);

/** Merges defaults, the config file, the environment and flags (in that order) and validates the result. */
export function loadConfig(sources: ConfigSources = {}): Config {
  const config = loadSettings(configSchema, sources);
  if (Array.isArray(config.trustProxy)) {
    const invalid = invalidProxyEntries(config.trustProxy);
    if (invalid.length > 0) throw new ConfigError(`Invalid configuration: "trustProxy" has ${invalid.map((entry) => JSON.stringify(entry)).join(', ')}, which is no address or network`);
  }
  config.dataDir = path.resolve(config.dataDir);
  if (config.maps.dir !== null) config.maps.dir = path.resolve(config.maps.dir);
  if (config.weather.dir !== null) config.weather.dir = path.resolve(config.weather.dir);
  if (config.coordinates.cacheDir !== null) config.coordinates.cacheDir = path.resolve(config.coordinates.cacheDir);
  return config;
}
