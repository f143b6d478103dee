/**
 * The countries of the world as the geocoder knows them: ISO 3166-1 codes and names in the 78
 * languages of npm `i18n-iso-countries` (official names and aliases: `Deutschland`, `Allemagne`,
 * `ドイツ`, `USA`) and the names Unicode CLDR shows (Node's ICU), and from Natural Earth (npm
 * `world-atlas`, 1:50m) their shape, from which come
 * the centre (the pole of inaccessibility of the largest part: `centerOf`), the bounding box and the reverse lookup. A country Natural
 * Earth has no shape for at this scale (small islands) is still found by name, centred on its
 * largest place.
 *
 * Read when the index is built (place-index.ts), on a worker thread or at setup, never while serving.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import polylabel from 'polylabel';
import { planarRing } from '../tools/world/natural-earth.js';

const require = createRequire(import.meta.url);

/** The part of `i18n-iso-countries` read here (its Node entry registers every language). */
interface CountryNames {
  getSupportedLanguages(): string[];
  getNames(language: string, options: { select: 'all' }): Record<string, string[]>;
  numericToAlpha2(code: string): string | undefined;
}

export interface Country {
  /** ISO 3166-1 alpha-2, upper case. */
  code: string;
  /** The name shown in each language of the package (see `displayName`). */
  display: Record<string, string>;
  /** Every name in every language, with its language, as people may type them. */
  names: { text: string; language: string }[];
  /** Rings of the country's polygons (outer ring first), longitudes continuous (may pass ±180). */
  polygons: Position[][][];
  center: [number, number] | null;
  /** [west, south, east, north]; west > east when it crosses the antimeridian. */
  bbox: [number, number, number, number] | null;
}

/** Natural Earth shapes without an ISO code in world-atlas that have one. */
const CODE_BY_NAME: Record<string, string> = { Kosovo: 'XK' };

export function countryNamesPackage(): CountryNames {
  return require('i18n-iso-countries') as CountryNames;
}

/** A package version, part of the index cache's key. */
export function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
}

/**
 * The name shown for a country in a language ICU has no names in: of its names there, the shortest after dropping
 * qualifiers people do not say (`Moldova, Republic of` → `Moldova`, `Holy See (Vatican City
 * State)` → `Holy See`, `United States of America` → `United States`), not an abbreviation in
 * capitals (`USA`), and not the name another country is shown with (`Congo` is both the Republic
 * and the Democratic Republic: each keeps its longer name).
 */
function displayNames(all: Record<string, string[]>): Record<string, string> {
  const candidates = new Map<string, string[]>();
  for (const [code, names] of Object.entries(all)) {
    const list = names
      .map((name) => name.replace(/\s*\(.*\)\s*$/u, '').replace(/,.*$/u, '').trim())
      .filter((name) => name.length >= 4 && name !== name.toUpperCase());
    candidates.set(code, [...new Set(list.length > 0 ? list : names)].sort((a, b) => a.length - b.length));
  }
  const uses = new Map<string, number>();
  for (const list of candidates.values()) for (const name of list) uses.set(name, (uses.get(name) ?? 0) + 1);
  const shown: Record<string, string> = {};
  for (const [code, list] of candidates) shown[code] = list.find((name) => uses.get(name) === 1) ?? all[code]![0]!;
  return shown;
}

const regionNames = new Map<string, Intl.DisplayNames | null>();

/**
 * The country's name in a language as Unicode CLDR (through Node's ICU) shows it, when ICU has that
 * language: `United Kingdom`, `Vereinigtes Königreich`, `Congo - Kinshasa`.
 */
function cldrName(language: string, code: string): string | null {
  if (!regionNames.has(language)) {
    const names = new Intl.DisplayNames([language], { type: 'region', fallback: 'none' });
    regionNames.set(language, names.resolvedOptions().locale.split('-')[0] === language ? names : null);
  }
  return regionNames.get(language)?.of(code) ?? null;
}

/** [west, south, east, north] of polygons whose longitudes may pass ±180: the smallest box, across the antimeridian if that is smaller. */
export function bboxOf(polygons: readonly Position[][][]): [number, number, number, number] {
  let south = 90;
  let north = -90;
  const spans: [number, number][] = [];
  for (const polygon of polygons) {
    let west = Infinity;
    let east = -Infinity;
    for (const [lon, lat] of polygon[0]! as [number, number][]) {
      west = Math.min(west, lon);
      east = Math.max(east, lon);
      south = Math.min(south, lat);
      north = Math.max(north, lat);
    }
    while (west >= 180) [west, east] = [west - 360, east - 360];
    while (east <= -180) [west, east] = [west + 360, east + 360];
    if (east - west >= 360) spans.push([-180, 180]);
    else if (west < -180) spans.push([west + 360, 180], [-180, east]);
    else if (east > 180) spans.push([west, 180], [-180, east - 360]);
    else spans.push([west, east]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  // The largest stretch of longitude no part covers is left out of the box.
  let gap = spans[0]![0] + 360 - spans.reduce((end, span) => Math.max(end, span[1]), -Infinity);
  let west = spans[0]![0];
  let east = spans.reduce((end, span) => Math.max(end, span[1]), -Infinity);
  let reach = spans[0]![1];
  for (const span of spans.slice(1)) {
    if (span[0] - reach > gap) {
      gap = span[0] - reach;
      east = reach;
      west = span[0];
    }
    reach = Math.max(reach, span[1]);
  }
  const round = (value: number) => Math.round(value * 1e5) / 1e5;
  return [round(west), round(south), round(east), round(north)];
}

/**
 * A country's centre: the point of its largest part farthest from the part's edges (its pole of
 * inaccessibility, through npm `polylabel`), measured with longitudes shrunk by the cosine of the
 * part's latitude so that distances are about true (Web Mercator would pull it poleward: northern
 * Sweden instead of its middle).
 */
function centerOf(polygons: readonly Position[][][]): [number, number] {
  let best: { rings: [number, number][][]; area: number; scale: number } | null = null;
  for (const polygon of polygons) {
    const outer = polygon[0]!;
    const lat = outer.reduce((sum, p) => sum + p[1]!, 0) / outer.length;
    const scale = Math.cos((lat * Math.PI) / 180);
    const rings = polygon.map((ring) => ring.map((p) => [p[0]! * scale, p[1]!] as [number, number]));
    let area = 0;
    const ring = rings[0]!;
    for (let i = 1; i < ring.length; i++) area += (ring[i]![0] - ring[i - 1]![0]) * (ring[i]![1] + ring[i - 1]![1]);
    area = Math.abs(area / 2);
    if (!best || area > best.area) best = { rings, area, scale };
  }
  const at = polylabel(best!.rings, Math.sqrt(best!.area) / 100);
  return [at[0] / best!.scale, at[1]];
}

/** Every country of `i18n-iso-countries`, with its Natural Earth shape when it has one. */
export function readCountries(): Country[] {
  const names = countryNamesPackage();
  const languages = names.getSupportedLanguages();
  const byLanguage = new Map(languages.map((language) => [language, names.getNames(language, { select: 'all' })]));
  const display = new Map(languages.map((language) => [language, displayNames(byLanguage.get(language)!)]));
  const topology = JSON.parse(readFileSync(require.resolve('world-atlas/countries-50m.json'), 'utf8')) as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const shapes = new Map<string, Position[][][]>();
  const collection = feature(topology, topology.objects.countries);
  for (const shape of collection.features) {
    const code = shape.id === undefined ? CODE_BY_NAME[shape.properties.name] : names.numericToAlpha2(String(shape.id));
    if (!code || !shape.geometry) continue;
    const geometry = shape.geometry as Polygon | MultiPolygon;
    const polygons = (geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates)
      .map((rings) => rings.map(planarRing).filter((ring) => ring !== null))
      .filter((rings) => rings.length > 0);
    if (polygons.length > 0) shapes.set(code, [...(shapes.get(code) ?? []), ...polygons]);
  }
  const codes = Object.keys(byLanguage.get('en')!);
  return codes.map((code) => {
    const polygons = shapes.get(code) ?? [];
    const all: { text: string; language: string }[] = [];
    const shown: Record<string, string> = {};
    for (const language of languages) {
      const cldr = cldrName(language, code);
      for (const text of [...(byLanguage.get(language)![code] ?? []), ...(cldr ? [cldr] : [])]) all.push({ text, language });
      // CLDR tells the two Congos apart as `Congo - Kinshasa`: a title, not a name to show.
      const name = cldr && !/ - |\(/.test(cldr) ? cldr : display.get(language)![code];
      if (name) shown[language] = name;
    }
    let center: [number, number] | null = null;
    if (polygons.length > 0) {
      const at = centerOf(polygons);
      center = [Math.round((((at[0] + 540) % 360) - 180) * 1e5) / 1e5, Math.round(at[1] * 1e5) / 1e5];
    }
    return { code, display: shown, names: all, polygons, center, bbox: polygons.length > 0 ? bboxOf(polygons) : null };
  });
}
