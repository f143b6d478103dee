import type { SearchOptions } from '../../src/geocoding/parameters.js';

/** Search options as the API's defaults make them (limit 5, autocomplete and fuzzy matching on), with `more` over them. */
export const searchOptions = (more: Partial<SearchOptions> = {}): SearchOptions => ({
  limit: 5,
  languages: [],
  proximity: null,
  bbox: null,
  countries: null,
  kinds: null,
  autocomplete: true,
  fuzzyMatch: true,
  ...more,
});
