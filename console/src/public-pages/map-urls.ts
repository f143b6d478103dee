/**
 * The URLs and snippets a map's viewer offers to copy, filled in for that map: the same forms as the
 * maps guide (docs/guide/maps.md). `key` is the text put after `key=`: the reader's key when copied,
 * a placeholder when shown.
 */

export interface MapFacts {
  id: string;
  formats: string[];
  minzoom: number;
  maxzoom: number;
  attribution: string;
  center: number[];
  bounds: number[];
}

export interface CopyItem {
  /** A stable name for tests and anchors. */
  name: string;
  label: string;
  /** A URL (`url`) or a snippet of code (`code`). */
  kind: 'url' | 'code';
  text: (key: string) => string;
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** `vectorSources`: the names of the style's vector sources (each has a TileJSON). */
export function copyItems(origin: string, map: MapFacts, vectorSources: string[], view: () => { lon: number; lat: number; zoom: number }): CopyItem[] {
  const base = `${origin}/maps/${encodeURIComponent(map.id)}`;
  const format = map.formats.includes('png') ? 'png' : map.formats[0]!;
  const q = (key: string) => `?key=${encodeURIComponent(key)}`;
  const attribution = JSON.stringify(map.attribution);
  const [lon, lat, zoom] = [round(map.center[0]!, 5), round(map.center[1]!, 5), map.center[2]!];
  return [
    { name: 'style', label: 'Style (MapLibre GL JS, Maputnik, QGIS vector tiles)', kind: 'url', text: (key) => `${base}/style.json${q(key)}` },
    ...vectorSources.map((source): CopyItem => ({ name: `vector-tilejson-${source}`, label: `Vector TileJSON (source ${source})`, kind: 'url', text: (key) => `${base}/sources/${encodeURIComponent(source)}.json${q(key)}` })),
    { name: 'raster-tilejson', label: 'Raster TileJSON, 512-px tiles', kind: 'url', text: (key) => `${base}/tiles.json${q(key)}` },
    { name: 'raster-tilejson-256', label: 'Raster TileJSON, 256-px tiles', kind: 'url', text: (key) => `${base}/256/tiles.json${q(key)}` },
    { name: 'xyz-512', label: 'XYZ tiles, 512 px', kind: 'url', text: (key) => `${base}/{z}/{x}/{y}.${format}${q(key)}` },
    { name: 'xyz-256', label: 'XYZ tiles, 256 px at twice the pixels (@2x)', kind: 'url', text: (key) => `${base}/256/{z}/{x}/{y}@2x.${format}${q(key)}` },
    { name: 'wmts', label: 'WMTS capabilities (QGIS, ArcGIS, OpenLayers)', kind: 'url', text: (key) => `${base}/WMTSCapabilities.xml${q(key)}` },
    {
      name: 'static',
      label: 'Static image of this view, 800x600',
      kind: 'url',
      text: (key) => {
        const v = view();
        return `${origin}/api/maps/${encodeURIComponent(map.id)}/static/${round(v.lon, 5)},${round(v.lat, 5)},${round(v.zoom, 2)}/800x600.${format}${q(key)}`;
      },
    },
    {
      name: 'leaflet',
      label: 'Leaflet (256-px tiles)',
      kind: 'code',
      text: (key) => `<link rel="stylesheet" href="https://unpkg.com/leaflet@1.9.4/dist/leaflet.css">
<script src="https://unpkg.com/leaflet@1.9.4/dist/leaflet.js"></script>
<div id="map" style="width: 768px; height: 512px"></div>
<script>
  const map = L.map('map').setView([${lat}, ${lon}], ${zoom + 1});
  L.tileLayer('${base}/256/{z}/{x}/{y}{r}.${format}${q(key)}', {
    tileSize: 256,
    maxZoom: ${map.maxzoom + 1},
    attribution: ${attribution},
  }).addTo(map);
</script>`,
    },
    {
      name: 'openlayers',
      label: 'OpenLayers (512-px tiles)',
      kind: 'code',
      text: (key) => `<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/ol@10.10.0/ol.css">
<script src="https://cdn.jsdelivr.net/npm/ol@10.10.0/dist/ol.js"></script>
<div id="map" style="width: 768px; height: 512px"></div>
<script>
  const map = new ol.Map({
    target: 'map',
    layers: [
      new ol.layer.Tile({
        source: new ol.source.XYZ({
          url: '${base}/{z}/{x}/{y}.${format}${q(key)}',
          tileSize: 512,
          maxZoom: ${map.maxzoom},
          attributions: ${attribution},
        }),
      }),
    ],
    view: new ol.View({ center: ol.proj.fromLonLat([${lon}, ${lat}]), zoom: ${zoom + 1} }),
  });
</script>`,
    },
    {
      name: 'qgis',
      label: 'QGIS (WMTS)',
      kind: 'code',
      text: (key) => `Layer > Add Layer > Add WMS/WMTS Layer… > New
Name: ${map.id}
URL:  ${base}/WMTSCapabilities.xml${q(key)}
OK > Connect > Tilesets: pick "${map.id}" in GoogleMapsCompatible (256-px tiles) or WebMercatorQuad512 (512-px tiles) > Add
Set the project's CRS to EPSG:3857.`,
    },
  ];
}

/** The map's style family: `X`, `X-light` and `X-dark` (as `maps import` makes them), those that exist, in that order. */
export function styleFamily(id: string, ids: string[]): { id: string; label: string }[] {
  const base = id.replace(/-(light|dark)$/, '');
  const family = [
    { id: base, label: 'Streets' },
    { id: `${base}-light`, label: 'Light' },
    { id: `${base}-dark`, label: 'Dark' },
  ].filter((member) => ids.includes(member.id));
  return family.length > 1 ? family : [];
}
