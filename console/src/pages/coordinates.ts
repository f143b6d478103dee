/**
 * Coordinates: EPSG search with the filter syntax, the details of a result (its area of use on a
 * map, exports on request) and the transform form.
 */

import type { GeoJSONSource, Map as MapLibreMap } from 'maplibre-gl';
import { gated, type ApiKey, type ResponseOf, type Schemas } from '../api.js';
import { copyButton, field, fill, h, messageLine } from '../dom.js';
import { keyPicker } from '../key-picker.js';
import { basemapStyle, createMap } from '../map-view.js';

/**
 * T with every property present but those named in Optional. The schemas SearchItem and
 * TransformationItem list no required property, so their generated types make every field
 * optional; the server sends them all but a search item's `exports` (which only `exports=true`
 * asks for), and the console reads them as sent.
 */
type Present<T, Optional extends keyof T = never> = Required<Omit<T, Optional>> & Pick<T, Optional>;

/** T with its property K (one of T's) of type V. */
type With<T, K extends keyof T, V> = Omit<T, K> & { [P in K]: V };

type TransformationItem = Present<Schemas['TransformationItem']>;
type SearchItem = With<Present<Schemas['SearchItem'], 'exports'>, 'transformations', (number | TransformationItem)[]>;
type SearchResult = With<ResponseOf<'/coordinates/search/{query}.json'>, 'results', SearchItem[]>;
type TransformResult = ResponseOf<'/coordinates/transform/{coordinates}.json'>;

const examples = ['swit', 'kind:CRS-PROJCRS utm 32N', 'code:2056', 'method:9807 swiss', 'kind:DATUM wgs', 'trans:1676'];
const pageSize = 10;

/** The area as a polygon; an area across the antimeridian (west > east) continues east past 180°. */
function areaPolygon([west, south, east, north]: NonNullable<SearchItem['bbox']>) {
  const e = west > east ? east + 360 : east;
  return { type: 'Feature' as const, properties: {}, geometry: { type: 'Polygon' as const, coordinates: [[[west, south], [e, south], [e, north], [west, north], [west, south]]] } };
}

/**
 * Decimals worth showing in a unit: a millimetre (or a thousandth of a foot) for lengths, about
 * 0.1 mm on the ground for degrees and grads, the same for radians.
 */
export function decimalsFor(unit: string | null): number {
  if (unit === null) return 3;
  if (/radian/i.test(unit)) return 11;
  if (/degree|grad|gon/i.test(unit)) return 9;
  return 3;
}

export function renderCoordinates(main: HTMLElement): () => void {
  let alive = true;
  let key: ApiKey | null = null;
  let map: MapLibreMap | null = null;
  let offset = 0;

  const message = messageLine();
  const searchMessage = messageLine();
  const keySlot = h('div');
  const query = h('input', { type: 'search', name: 'query', placeholder: 'swit, code:2056, kind:CRS-PROJCRS utm 32N…', value: '' });
  const deprecated = h('input', { type: 'checkbox', name: 'deprecated' });
  const results = h('tbody');
  const summary = h('span', { class: 'summary' });
  const back = h('button', { type: 'button', class: 'secondary small', disabled: true, onclick: () => search(Math.max(0, offset - pageSize)) }, '← Previous');
  const next = h('button', { type: 'button', class: 'secondary small', disabled: true, onclick: () => search(offset + pageSize) }, 'Next →');
  const detail = h('div', { class: 'detail' }, h('p', { class: 'muted' }, 'Choose a result to see its details and area of use.'));
  const mapBox = h('div', { class: 'map-box area-map', id: 'area-map' });

  const coordinates = h('textarea', { name: 'coordinates', rows: 3, value: '7.43863,46.95108', placeholder: 'x,y[,z] one a line (longitude or easting first)' });
  const source = h('input', { type: 'number', name: 's_srs', min: 1, value: 4326 });
  const target = h('input', { type: 'number', name: 't_srs', min: 1, value: 2056 });
  const ops = h('input', { name: 'ops', placeholder: 'e.g. 1676|1150 (optional)' });
  const transformMessage = messageLine();
  const transformed = h('div', { class: 'transformed' });

  const queryText = () => `${query.value.trim()}${deprecated.checked && !/deprecated:/i.test(query.value) ? ' deprecated:*' : ''}`.trim();

  async function search(at = 0): Promise<void> {
    if (!key) return;
    const text = queryText();
    if (!text) return;
    searchMessage.clear();
    try {
      const page = await gated<SearchResult>(`/coordinates/search/${encodeURIComponent(text)}.json`, key.token, { limit: pageSize, offset: at });
      offset = at;
      fill(results, ...(page.results.length ? page.results.map(row) : [h('tr', {}, h('td', { colSpan: 4, class: 'empty' }, 'Nothing found.'))]));
      summary.textContent = page.total ? `${at + 1}–${at + page.results.length} of ${page.total}` : '0 results';
      back.disabled = at === 0;
      next.disabled = at + pageSize >= page.total;
    } catch (error) {
      // The old results answered another query: they go, and the error stands beside the box.
      fill(results);
      summary.textContent = '';
      back.disabled = next.disabled = true;
      fill(detail, h('p', { class: 'muted' }, 'Choose a result to see its details and area of use.'));
      map?.getSource<GeoJSONSource>('area')?.setData({ type: 'FeatureCollection', features: [] });
      searchMessage.error((error as Error).message);
    }
  }

  function row(item: SearchItem): HTMLTableRowElement {
    const tr = h(
      'tr',
      { class: 'clickable', tabIndex: 0, 'data-code': item.id.code },
      h('td', { class: 'nowrap' }, `${item.id.authority}:${item.id.code}`),
      h('td', {}, item.name, item.deprecated ? h('span', { class: 'badge' }, 'deprecated') : null),
      h('td', { class: 'nowrap muted' }, item.kind),
      h('td', { class: 'muted' }, item.area ?? ''),
    );
    const open = () => {
      for (const other of results.querySelectorAll('tr.selected')) other.classList.remove('selected');
      tr.classList.add('selected');
      showDetails(item);
    };
    tr.addEventListener('click', open);
    tr.addEventListener('keydown', (event) => event.key === 'Enter' && open());
    return tr;
  }

  /** "EPSG:8094 NTF (Paris) to NTF (1) + NTF to WGS 84 (1)"; a chain EPSG has no code for lists its steps' codes. */
  function defaultTransformation(operation: SearchItem['default_transformation']): string | null {
    if (!operation) return null;
    const named = operation.steps.length === 1 || operation.steps.every((step) => step.code !== operation.code);
    const code = named ? `EPSG:${operation.code}` : operation.steps.map((step) => `EPSG:${step.code}`).join(' + ');
    return `${code} ${operation.name}`;
  }

  function showDetails(item: SearchItem): void {
    const code = `${item.id.authority}:${item.id.code}`;
    const exportsSlot = h('div', { class: 'exports' });
    const isCrs = item.kind.startsWith('CRS');
    const transformations = item.transformations.map((t) => (typeof t === 'number' ? `EPSG:${t}` : `EPSG:${t.id.code} ${t.name}`));
    const rows: [string, string | null][] = [
      ['Code', code],
      ['Kind', item.kind],
      ['Area', item.area],
      ['Bounds', item.bbox ? item.bbox.join(', ') : null],
      ['Unit', item.unit],
      ['Default transformation', defaultTransformation(item.default_transformation)],
      ['Accuracy', item.accuracy === null ? null : `${item.accuracy} m`],
      ['Transformations to WGS 84', transformations.length ? transformations.join(', ') : null],
    ];
    const exportsButton = h('button', { type: 'button', class: 'secondary small', onclick: () => loadExports(item, exportsSlot, exportsButton) }, 'Show exports (PROJ, WKT)');
    fill(
      detail,
      h('h3', {}, item.name),
      h('dl', {}, ...rows.filter(([, value]) => value !== null && value !== '').flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, value)])),
      isCrs
        ? h(
            'div',
            { class: 'actions' },
            exportsButton,
            ' ',
            h('button', { type: 'button', class: 'secondary small', onclick: () => (source.value = String(item.id.code)) }, 'Transform from'),
            ' ',
            h('button', { type: 'button', class: 'secondary small', onclick: () => (target.value = String(item.id.code)) }, 'Transform to'),
          )
        : null,
      exportsSlot,
    );
    showArea(item);
  }

  async function loadExports(item: SearchItem, slot: HTMLElement, button: HTMLButtonElement): Promise<void> {
    if (!key) return;
    button.disabled = true;
    try {
      const page = await gated<SearchResult>(`/coordinates/search/${encodeURIComponent(`code:${item.id.code} kind:${item.kind} deprecated:*`)}.json`, key.token, { exports: true, limit: 5 });
      const found = page.results.find((r) => r.id.code === item.id.code && r.kind === item.kind);
      const exports = found?.exports;
      if (!exports) {
        fill(slot, h('p', { class: 'muted' }, 'No exports for this object.'));
        return;
      }
      fill(
        slot,
        ...(['proj4', 'wkt'] as const).flatMap((format) => {
          const text = exports[format];
          if (!text) return [];
          return [h('div', { class: 'export-head' }, h('strong', {}, format === 'proj4' ? 'PROJ string' : 'WKT (GDAL)'), copyButton(() => text)), h('pre', { class: `export export-${format}` }, text)];
        }),
      );
    } catch (error) {
      fill(slot, h('p', { class: 'message error' }, (error as Error).message));
      button.disabled = false;
    }
  }

  function showArea(item: SearchItem): void {
    const data = item.bbox ? areaPolygon(item.bbox) : { type: 'FeatureCollection' as const, features: [] };
    const apply = () => {
      if (!map) return;
      map.getSource<GeoJSONSource>('area')?.setData(data);
      if (item.bbox) {
        const [west, south, east, north] = item.bbox;
        map.fitBounds([[west, south], [west > east ? east + 360 : east, north]], { padding: 30, duration: 0, maxZoom: 9 });
      }
    };
    if (map?.loaded()) apply();
    else map?.once('load', apply);
  }

  async function transform(event: Event): Promise<void> {
    event.preventDefault();
    if (!key) return;
    transformMessage.clear();
    const tuples = coordinates.value.split(/[;\n]+/).map((t) => t.trim().replace(/\s+/g, '')).filter(Boolean).join(';');
    try {
      const extra: Record<string, string> = { s_srs: source.value, t_srs: target.value };
      if (ops.value.trim()) extra.ops = ops.value.trim();
      const [result, unit] = await Promise.all([
        gated<TransformResult>(`/coordinates/transform/${encodeURIComponent(tuples)}.json`, key.token, extra),
        unitOf(Number(target.value)),
      ]);
      const places = decimalsFor(unit);
      const shown = result.results.map((r) => [r.x.toFixed(places), r.y.toFixed(places), r.z.toFixed(3)]);
      const text = (values: string[]) => values.join(',');
      // The operation PROJ applied to each point: its EPSG code when it has one, and its name.
      const operation = (i: number) => {
        const used = result.operations[i];
        return used ? h('td', { class: 'operation' }, used.code === null ? '' : h('span', { class: 'nowrap' }, `EPSG:${used.code} `), used.name) : h('td', {});
      };
      fill(
        transformed,
        h('p', { class: 'muted' }, `Selection: ${result.transformer_selection_strategy}. `, `x and y in ${unit ?? 'the target’s unit'} (${places} decimals), z in metres.`),
        h(
          'table',
          { class: 'results' },
          h('thead', {}, h('tr', {}, h('th', {}, 'x'), h('th', {}, 'y'), h('th', {}, 'z'), h('th', {}, 'Operation applied'), h('th', {}, copyButton(() => shown.map(text).join('\n'), 'Copy all')))),
          h('tbody', {}, ...shown.map((values, i) => h('tr', {}, ...values.map((value) => h('td', { class: 'number' }, value)), operation(i), h('td', {}, copyButton(() => text(values)))))),
        ),
      );
    } catch (error) {
      fill(transformed);
      transformMessage.error((error as Error).message);
    }
  }

  /** The unit of a CRS's first axes as the search API names it (`degree`, `metre`, `US survey foot`…), or null. */
  async function unitOf(code: number): Promise<string | null> {
    if (!key) return null;
    const page = await gated<SearchResult>(`/coordinates/search/${encodeURIComponent(`code:${code} kind:CRS deprecated:*`)}.json`, key.token, { limit: 5 }).catch(() => null);
    return page?.results.find((r) => r.id.code === code)?.unit ?? null;
  }

  async function useKey(chosenKey: ApiKey | null): Promise<void> {
    key = chosenKey;
    // A key refused here would leave searches failing and an empty map: the picker says why instead.
    workspace.hidden = transformCard.hidden = key === null;
    if (!key) return;
    const style = await basemapStyle(key.token);
    if (!alive) return;
    map?.remove();
    map = createMap(mapBox, style, { center: [0, 20], zoom: 0 }, key.token);
    const current = map;
    current.on('load', () => {
      current.addSource('area', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
      current.addLayer({ id: 'area-fill', type: 'fill', source: 'area', paint: { 'fill-color': '#e4572e', 'fill-opacity': 0.2 } });
      current.addLayer({ id: 'area-line', type: 'line', source: 'area', paint: { 'line-color': '#e4572e', 'line-width': 2 } });
      mapBox.dataset.ready = 'true';
    });
    if (queryText()) void search(offset);
  }

  const searchForm = h(
    'form',
    { class: 'search-form', onsubmit: (event: Event) => (event.preventDefault(), void search(0)) },
    field('Search', query),
    h('label', { class: 'check' }, deprecated, ' Include deprecated'),
    h('button', { type: 'submit' }, 'Search'),
  );

  const workspace = h(
    'div',
    { class: 'coordinates' },
    h(
      'section',
      { class: 'card' },
      searchForm,
      searchMessage.element,
      h(
        'p',
        { class: 'hint' },
        'Words match codes, names, aliases and areas. Filters: kind: deprecated: code: trans: datum: ellipsoid: method: area_code:. Try ',
        ...examples.flatMap((example, i) => [i ? ', ' : '', h('a', { href: '#', onclick: (event: Event) => (event.preventDefault(), (query.value = example), void search(0)) }, example)]),
        '.',
      ),
      h('div', { class: 'toolbar' }, summary, h('span', { class: 'grow' }), back, next),
      h('table', { class: 'results' }, h('thead', {}, h('tr', {}, ...['Code', 'Name', 'Kind', 'Area'].map((t) => h('th', {}, t)))), results),
    ),
    h('section', { class: 'card' }, detail, mapBox),
  );
  const transformCard = h(
    'section',
    { class: 'card' },
    h('h2', {}, 'Transform'),
    h(
      'form',
      { class: 'transform-form', onsubmit: (event: Event) => void transform(event) },
      field('Coordinates', coordinates, 'x,y or x,y,z, one a line or separated by ;, at most 50'),
      h('div', { class: 'row' }, field('From (EPSG)', source), field('To (EPSG)', target), field('Operations', ops, 'EPSG codes separated by |')),
      h('button', { type: 'submit' }, 'Transform'),
    ),
    transformMessage.element,
    transformed,
  );
  main.append(h('h1', {}, 'Coordinates'), message.element, h('div', { class: 'card' }, keySlot), workspace, transformCard);
  keyPicker((k) => void useKey(k))
    .then((picker) => alive && fill(keySlot, picker))
    .catch((error: Error) => message.error(error.message));

  return () => {
    alive = false;
    map?.remove();
  };
}
