/**
 * The weather viewer: the catalog's variables on a map, painted in the browser from the
 * value-encoded tiles (weather-tiles.ts), a time slider across the keyframes with interpolation
 * between the two around it, a legend with the unit, and the value under the cursor.
 */

import type { Map as MapLibreMap, RasterTileSource } from 'maplibre-gl';
import { gated, type ApiKey, type ResponseOf } from '../api.js';
import { field, fill, h, messageLine } from '../dom.js';
import { keyPicker } from '../key-picker.js';
import { basemapStyle, createMap } from '../map-view.js';
import { keyframesAround, magnitude, windFrom } from '../weather-decode.js';
import { legend, rampOf, thinLegendLabels } from '../weather-ramps.js';
import { momentTiles, valueAt, type WeatherMoment } from '../weather-tiles.js';

/** A catalog entry (`/weather/latest.json`), as the route's schema declares it. */
type CatalogEntry = ResponseOf<'/weather/latest.json'>['variables'][number];

/** The time slider moves in steps of this many minutes. */
const stepMinutes = 5;

/** Playing shows a run in about this many frames, this many milliseconds apart (12 s a loop). */
const playFrames = 60;
const frameMs = 200;

/** Two decimals, without the "-0.00" of a tiny negative. */
const degrees = (value: number) => (Math.abs(value) < 0.005 ? 0 : value).toFixed(2);

const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export function renderWeather(main: HTMLElement): () => void {
  let alive = true;
  let key: ApiKey | null = null;
  let entries: CatalogEntry[] = [];
  let entry: CatalogEntry | null = null;
  let map: MapLibreMap | null = null;
  let moment: WeatherMoment | null = null;
  let shownVariable: string | null = null;

  const message = messageLine();
  const keySlot = h('div');
  const variable = h('select', { name: 'variable', onchange: () => chooseVariable() });
  const slider = h('input', { type: 'range', name: 'time', min: 0, max: 0, step: stepMinutes, value: 0, oninput: () => (stop(), showMoment()) });
  const play = h('button', { type: 'button', class: 'secondary small', name: 'play', onclick: () => (playing ? stop() : start()) }, 'Play');
  let playing: ReturnType<typeof setInterval> | null = null;

  /** Plays the run in about `playFrames` steps of the slider, a frame every `frameMs`, from the start again at the end. */
  function start(): void {
    if (!entry || slider.disabled) return;
    const max = Number(slider.max);
    const step = Math.max(stepMinutes, Math.round(max / playFrames / stepMinutes) * stepMinutes);
    if (Number(slider.value) >= max) slider.value = '0';
    play.textContent = 'Pause';
    playing = setInterval(() => {
      const value = Number(slider.value);
      slider.value = String(value >= max ? 0 : Math.min(max, value + step));
      showMoment();
    }, frameMs);
  }

  function stop(): void {
    if (playing !== null) clearInterval(playing);
    playing = null;
    play.textContent = 'Play';
  }
  const timeLabel = h('div', { class: 'time-label', id: 'weather-time' });
  const between = h('small', { class: 'hint' });
  const opacity = h('input', { type: 'range', name: 'opacity', min: 0, max: 1, step: 0.05, value: 0.8, oninput: () => map?.getLayer('weather') && map.setPaintProperty('weather', 'raster-opacity', Number(opacity.value)) });
  const details = h('div', { class: 'variable-details muted' });
  const legendSlot = h('div', { class: 'legend-slot' });
  /** While a variable's tiles load: its name, in place of the labels of the variable shown before. */
  const loading = h('p', { class: 'message notice weather-loading', id: 'weather-loading', role: 'status', hidden: true });
  let loadingTicket = 0;
  const readout = h('div', { class: 'readout', id: 'weather-value' }, 'Move the cursor over the map');
  const mapBox = h('div', { class: 'map-box weather-map', id: 'weather-map' });

  /** Minutes since the first keyframe: the slider's unit. */
  const startOf = (e: CatalogEntry) => Date.parse(e.keyframes[0]!.timestamp);

  function showMoment(): void {
    if (!entry || !key || !map) return;
    const time = startOf(entry) + Number(slider.value) * 60_000;
    const { before, after, t } = keyframesAround(entry.keyframes, time);
    const v = entry.metadata.weather_variable;
    moment = { key: key.token, format: entry.tile_format, decoding: v.decoding, maxzoom: entry.metadata.maxzoom, before, after, t, ramp: rampOf(v.variable_id, v.decoding.min, v.decoding.max) };
    timeLabel.textContent = utc(time);
    between.textContent =
      before === after ? `Keyframe ${utc(Date.parse(before.timestamp))}` : `Between ${utc(Date.parse(before.timestamp))} and ${utc(Date.parse(after.timestamp))} (${Math.round(t * 100)}%)`;
    const tiles = momentTiles(moment);
    const source = map.getSource<RasterTileSource>('weather');
    // Another moment of the same variable only changes the tiles; another variable has its own
    // zoom range and attribution.
    if (source && shownVariable === v.variable_id) source.setTiles([tiles]);
    else {
      if (source) {
        map.removeLayer('weather');
        map.removeSource('weather');
      }
      shownVariable = v.variable_id;
      map.addSource('weather', { type: 'raster', tiles: [tiles], tileSize: 512, maxzoom: entry.metadata.maxzoom, attribution: v.attribution });
      // Under the basemap's labels, as static maps draw it (maps/static/weather-layer.ts): place
      // names stay readable over the colours.
      const labels = map.getStyle().layers.find((layer) => layer.type === 'symbol')?.id;
      map.addLayer({ id: 'weather', type: 'raster', source: 'weather', paint: { 'raster-opacity': Number(opacity.value), 'raster-resampling': 'nearest', 'raster-fade-duration': 0 } }, labels);
      mapBox.dataset.weatherUnder = labels ?? '';
    }
  }

  function chooseVariable(): void {
    entry = entries.find((e) => e.metadata.weather_variable.variable_id === variable.value) ?? null;
    if (!entry) return;
    const v = entry.metadata.weather_variable;
    const span = (Date.parse(entry.keyframes[entry.keyframes.length - 1]!.timestamp) - startOf(entry)) / 60_000;
    stop();
    slider.max = String(Math.ceil(span / stepMinutes) * stepMinutes);
    slider.value = '0';
    slider.disabled = play.disabled = span === 0;
    fill(
      details,
      `${entry.keyframes.length} keyframe${entry.keyframes.length === 1 ? '' : 's'} · run of ${utc(Date.parse(v.release_timestamp))} · ${v.attribution} · encoded ${v.decoding.min}..${v.decoding.max} ${v.unit}`,
    );
    // Until the new variable's tiles are drawn, the page says it is loading rather than keeping the
    // time, legend and value of the variable shown before.
    const ticket = ++loadingTicket;
    loading.textContent = `Loading ${v.name}…`;
    loading.hidden = false;
    mapBox.dataset.loading = v.variable_id;
    fill(legendSlot);
    timeLabel.textContent = '';
    between.textContent = '';
    readout.textContent = `Loading ${v.name}…`;
    delete readout.dataset.value;
    const loaded = () => {
      if (ticket !== loadingTicket || !alive || entry?.metadata.weather_variable.variable_id !== v.variable_id) return;
      loading.hidden = true;
      delete mapBox.dataset.loading;
      if (readout.dataset.value === undefined) readout.textContent = 'Move the cursor over the map';
      const shownLegend = legend(rampOf(v.variable_id, v.decoding.min, v.decoding.max), v.decoding.channels === 'rg' ? `${v.unit} (speed)` : v.unit);
      fill(legendSlot, shownLegend);
      thinLegendLabels(shownLegend);
    };
    showArea(entry);
    // `loaded()` is false while the new view's tiles load: the style is what the layer needs.
    if (map?.isStyleLoaded()) {
      showMoment();
      // `idle`: every tile of the view, the new variable's included, is drawn.
      map.once('idle', loaded);
    }
  }

  /** Frames the variable's grid: a regional run (the southern Africa sample) fills the map rather than a corner of the world. */
  function showArea(e: CatalogEntry): void {
    if (!map) return;
    const [west, south, north] = [e.metadata.bounds[0], Math.max(-85, e.metadata.bounds[1]), Math.min(85, e.metadata.bounds[3])];
    const east = e.metadata.bounds[2] < west ? e.metadata.bounds[2] + 360 : e.metadata.bounds[2];
    if (east - west >= 350) map.jumpTo({ center: [0, 0], zoom: 0 });
    else map.fitBounds([[west, south], [east, north]], { padding: 20, duration: 0 });
  }

  let reading = 0;
  async function readValue(lon: number, lat: number): Promise<void> {
    if (!moment || !entry) return;
    const ticket = ++reading;
    const values = await valueAt(moment, lon, lat).catch(() => null);
    if (ticket !== reading) return;
    const unit = entry.metadata.weather_variable.unit;
    const place = `${degrees(lat)}°, ${degrees(lon)}°`;
    if (!values) readout.textContent = `${place}: no data`;
    else if (values.length === 2) readout.textContent = `${place}: ${magnitude(values).toFixed(1)} ${unit} from ${Math.round(windFrom(values[0]!, values[1]!))}°`;
    else readout.textContent = `${place}: ${values[0]!.toFixed(1)} ${unit}`;
    readout.dataset.value = values ? String(magnitude(values)) : '';
  }

  async function useKey(chosenKey: ApiKey | null): Promise<void> {
    key = chosenKey;
    message.clear();
    // A key refused here would leave an empty map: the picker says why instead.
    mapPane.hidden = key === null;
    if (!key) return;
    try {
      entries = (await gated<ResponseOf<'/weather/latest.json'>>('/weather/latest.json', key.token)).variables;
    } catch (error) {
      message.error(`Cannot read the weather catalog with this key: ${(error as Error).message}`);
      return;
    }
    if (!alive) return;
    if (entries.length === 0) message.notice('The weather catalog is empty: ingest or fetch a forecast (meridian weather ingest / fetch).');
    // First the variable with the most keyframes: a run the slider can play says more than one moment.
    const longest = entries.reduce<CatalogEntry | undefined>((best, e) => (!best || e.keyframes.length > best.keyframes.length ? e : best), undefined);
    const keep = (entry ?? longest)?.metadata.weather_variable.variable_id;
    fill(variable, ...entries.map((e) => h('option', { value: e.metadata.weather_variable.variable_id, selected: e.metadata.weather_variable.variable_id === keep }, `${e.metadata.weather_variable.name} (${e.metadata.weather_variable.variable_id})`)));
    // A basemap under the weather when the server has one; the weather alone otherwise.
    const style = await basemapStyle(key.token);
    if (!alive) return;
    map?.remove();
    map = createMap(mapBox, style, { center: [0, 0], zoom: 0 }, key.token);
    const current = map;
    current.on('load', () => {
      mapBox.dataset.ready = 'true';
      chooseVariable();
    });
    current.on('mousemove', (event) => void readValue(event.lngLat.wrap().lng, event.lngLat.lat));
    current.on('mouseout', () => (readout.textContent = 'Move the cursor over the map'));
  }

  const mapPane = h('section', { class: 'card pane' }, h('div', { class: 'map-wrap' }, mapBox, readout));
  main.append(
    h('h1', {}, 'Weather'),
    message.element,
    h(
      'div',
      { class: 'weather' },
      h(
        'aside',
        { class: 'card controls' },
        keySlot,
        field('Variable', variable),
        loading,
        details,
        h('div', { class: 'row time-row' }, field('Time', slider), play),
        timeLabel,
        between,
        field('Opacity', opacity),
        legendSlot,
      ),
      mapPane,
    ),
  );
  keyPicker((k) => void useKey(k))
    .then((picker) => alive && fill(keySlot, picker))
    .catch((error: Error) => message.error(error.message));

  return () => {
    alive = false;
    stop();
    map?.remove();
  };
}
