/**
 * Labels in the reader's language: `language=xx` on static images and on style.json rewrites every
 * `text-field` that shows a name so that it shows `name:xx`, falling back to `name:latin`, then to
 * `name`, as OpenMapTiles users expect (a region or script subtag tries the whole tag first, then
 * the bare language: `zh-Hant` is `name:zh-Hant`, `name:zh`, `name:latin`, `name`). Any map's style
 * goes through the same transform; a layer whose text shows no name field is left alone.
 *
 * What counts as a name field: `name`, `name:<anything>` (`name:latin`, `name:nonlatin`, `name:de`)
 * and OpenMapTiles' `name_<lang>` and `name_int`. What is rewritten:
 *   - `["get", <name field>]`, and a `coalesce` of nothing but those, becomes the chain;
 *   - legacy `{name:latin}` tokens in a string become the chain inside a `concat`;
 *   - in a `concat` (or a token string) showing several names, as OpenMapTiles styles show
 *     `{name:latin}\n{name:nonlatin}`, only the first stays, with the text before it: the others
 *     would repeat it.
 */

import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { ApiError } from '../platform/errors.js';
import { Lru } from '../platform/lru.js';
import { INVALID_LANGUAGE } from './errors.js';

/** A BCP 47 language, optionally with a region or script: `de`, `pt-BR`, `zh-Hant`. */
export const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z]{2,4})?$/;
/** The `language` parameter as the API reference describes it, for every route that takes it. */
export const LANGUAGE_DESCRIPTION =
  'Labels in this language (de, pt-BR, zh-Hant: 2 or 3 lowercase letters, optionally - and a 2 to 4 letter region or script): name:{language}, else name:latin, else name, as in OpenMapTiles; a subtag tries the whole tag, then the language. Default: the style’s own labels. Anything else: 400 Invalid language';
/** Languages whose rewritten style is kept, per map (the grammar allows many more than are asked for). */
export const CACHED_LANGUAGES = 16;

const NAME_FIELD = /^name(?::[A-Za-z_-]+|_(?:[a-z]{2,3}|int))?$/;

/** The `language` parameter checked: null when absent. Throws the documented 400 otherwise. */
export function parseLanguage(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value[value.length - 1] : value;
  if (text === undefined) return null;
  if (!LANGUAGE.test(text)) throw new ApiError(INVALID_LANGUAGE);
  return text;
}

/** The name in `language`, else its Latin spelling, else the local name. */
export function nameExpression(language: string): unknown[] {
  const base = language.split('-')[0]!;
  const tags = base === language ? [language] : [language, base];
  return ['coalesce', ...tags.map((tag) => ['get', `name:${tag}`]), ['get', 'name:latin'], ['get', 'name']];
}

const isNameGet = (value: unknown): boolean =>
  Array.isArray(value) && value.length === 2 && value[0] === 'get' && typeof value[1] === 'string' && NAME_FIELD.test(value[1]);

/** A `get` of a name field, or a `coalesce` of only those. */
function isNameOnly(value: unknown): boolean {
  if (isNameGet(value)) return true;
  return Array.isArray(value) && value[0] === 'coalesce' && value.length > 1 && value.slice(1).every(isNameOnly);
}

const TOKEN = /\{([^{}]+)\}/g;

/** A legacy token string as the `concat` MapLibre would show (a missing property shows as ""). */
function tokensToExpression(text: string): unknown {
  const parts: unknown[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    parts.push(['to-string', ['get', match[1]!]]);
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return ['concat', ...parts];
}

function localize(value: unknown, chain: unknown[]): unknown {
  if (typeof value === 'string') {
    const names = [...value.matchAll(TOKEN)].some((match) => NAME_FIELD.test(match[1]!));
    return names ? localize(tokensToExpression(value), chain) : value;
  }
  if (!Array.isArray(value)) {
    // A legacy function: its stops hold the values.
    if (typeof value === 'object' && value !== null && Array.isArray((value as { stops?: unknown }).stops)) {
      const fn = value as { stops: [unknown, unknown][] };
      return { ...fn, stops: fn.stops.map(([input, output]) => [input, localize(output, chain)]) };
    }
    return value;
  }
  if (isNameOnly(value)) return chain;
  if (value[0] === 'literal') return value;
  const rewritten = value.map((item, i) => (i === 0 ? item : localize(item, chain)));
  // Unchanged stays the same object, so that a style without names is not copied.
  if (rewritten.every((item, i) => item === value[i])) return value;
  return rewritten[0] === 'concat' ? withoutRepeatedNames(rewritten, chain) : rewritten;
}

/** A concat showing the name once: later names go, each with the literal text just before it. */
function withoutRepeatedNames(concat: unknown[], chain: unknown[]): unknown[] {
  const shows = (item: unknown) => item === chain || (Array.isArray(item) && item[0] === 'to-string' && item[1] === chain);
  const first = concat.findIndex(shows);
  if (first < 0) return concat;
  const kept: unknown[] = [];
  concat.forEach((item, i) => {
    if (i > first && shows(item)) {
      if (typeof kept[kept.length - 1] === 'string' && kept.length - 1 > first) kept.pop();
      return;
    }
    kept.push(item);
  });
  return kept;
}

/** The style with every name label in `language`; the same object when nothing shows a name. */
export function localizeStyle(style: StyleSpecification, language: string): StyleSpecification {
  const chain = nameExpression(language);
  let changed = false;
  const layers = style.layers.map((layer) => {
    if (layer.type !== 'symbol' || layer.layout?.['text-field'] === undefined) return layer;
    const field = localize(layer.layout['text-field'], chain);
    if (field === layer.layout['text-field']) return layer;
    changed = true;
    return { ...layer, layout: { ...layer.layout, 'text-field': field } } as typeof layer;
  });
  return changed ? { ...style, layers } : style;
}

const localized = new WeakMap<StyleSpecification, Lru<string, StyleSpecification>>();

/** `localizeStyle`, kept per style and language; the style itself when `language` is null. */
export function localizedStyle(style: StyleSpecification, language: string | null): StyleSpecification {
  if (language === null) return style;
  let byLanguage = localized.get(style);
  if (!byLanguage) {
    byLanguage = new Lru(CACHED_LANGUAGES);
    localized.set(style, byLanguage);
  }
  return byLanguage.get(language) ?? byLanguage.set(language, localizeStyle(style, language));
}
