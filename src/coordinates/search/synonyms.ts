/**
 * What users type that the EPSG registry does not say: the words search reads differently from how
 * they are typed. A small table, kept general (words and phrases, never a query and its answer):
 * - `NICKNAMES`: common names of systems or families that EPSG spells otherwise; the phrase is
 *   replaced by EPSG's words (`state plane` → `spcs`, the prefix of the conversions' names
 *   `SPCS83 New York East zone`).
 * - `PLACE_WORDS`: adjectives and short forms of place names, looked up as the place too (`swiss`
 *   also finds `Switzerland` in areas, as a whole word: `british` → `uk` does not find Ukraine; the
 *   word itself still matches).
 *   Countries' names in other languages are read the same way, from a list (place-names.ts).
 * - `NOISE_WORDS`: words that describe every entry (`epsg 3857`, `swiss grid`): they add to the
 *   relevance of an entry that has them but do not exclude one that has not.
 * - `HEMISPHERES`: a hemisphere word after a zone number joins it as EPSG writes the zone
 *   (`utm zone 32 north`, `utm 33 s`, `utm 32 nord` → `32n`, `33s`).
 * Keys and values are normalized words (query.ts `tokenize`).
 */

export const NICKNAMES: ReadonlyMap<string, readonly string[]> = new Map([
  ['google', ['pseudo', 'mercator']],
  ['google mercator', ['pseudo', 'mercator']],
  ['spherical mercator', ['pseudo', 'mercator']],
  ['gps', ['wgs', '84']],
  // Gauß-Krüger and Gauss-Krüger are normalized to gauss kruger (query.ts); the German ue spelling and the abbreviation are not.
  ['gk', ['gauss', 'kruger']],
  ['krueger', ['kruger']],
  ['state plane', ['spcs']],
  ['stateplane', ['spcs']],
]);

/** The longest nickname, in words. */
export const NICKNAME_WORDS = Math.max(...[...NICKNAMES.keys()].map((phrase) => phrase.split(' ').length));

export const PLACE_WORDS: ReadonlyMap<string, readonly string[]> = new Map([
  ['swiss', ['switzerland']],
  ['german', ['germany']],
  ['french', ['france']],
  ['british', ['uk']],
  ['britain', ['uk']],
  ['england', ['uk']],
  ['scotland', ['uk']],
  ['wales', ['uk']],
  ['dutch', ['netherlands']],
  ['holland', ['netherlands']],
  ['belgian', ['belgium']],
  ['danish', ['denmark']],
  ['swedish', ['sweden']],
  ['norwegian', ['norway']],
  ['finnish', ['finland']],
  ['austrian', ['austria']],
  ['italian', ['italy']],
  ['spanish', ['spain']],
  ['portuguese', ['portugal']],
  ['polish', ['poland']],
  ['czech', ['czechia']],
  ['hungarian', ['hungary']],
  ['greek', ['greece']],
  ['irish', ['ireland']],
  ['japanese', ['japan']],
  ['chinese', ['china']],
  ['korean', ['korea']],
  ['australian', ['australia']],
  ['canadian', ['canada']],
  ['american', ['usa']],
  ['america', ['usa']],
  ['brazilian', ['brazil']],
  ['mexican', ['mexico']],
  ['indian', ['india']],
  ['nz', ['zealand']],
]);

const NORTH = ['north', 'northern', 'n', 'nord', 'norte', 'noord', 'norr'];
const SOUTH = ['south', 'southern', 's', 'sud', 'sur', 'sul', 'zuid', 'syd'];
export const HEMISPHERES: ReadonlyMap<string, string> = new Map([...NORTH.map((word) => [word, 'n'] as const), ...SOUTH.map((word) => [word, 's'] as const)]);

export const NOISE_WORDS: ReadonlySet<string> = new Set(['epsg', 'grid', 'crs', 'srs', 'system', 'coordinate', 'coordinates', 'projection', 'reference']);
