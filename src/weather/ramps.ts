/**
 * Colour ramps of the weather variables, by base id (the part of `variable_id` before `:`), and
 * their lookup tables: one declaration for the console, which paints weather tiles in the browser,
 * and for static maps, which paint them in a render thread. A variable without a ramp of its own
 * gets a neutral ramp over its range. No Node or DOM API: both sides import it.
 */

export type Stop = [value: number, color: string];

const ramps: Record<string, Stop[]> = {
  'temperature-2m': [[-40, '#2c1a6b'], [-25, '#3b4cc0'], [-10, '#6f9bd8'], [0, '#d8ecf2'], [10, '#f6d776'], [20, '#f29a4a'], [30, '#d8432b'], [45, '#6b0a1a']],
  'pressure-msl': [[960, '#5e3c99'], [990, '#6aa1d6'], [1013, '#f7f7f7'], [1030, '#f4a582'], [1050, '#b2182b']],
  'wind-10m': [[0, '#f0f9e8'], [5, '#a8ddb5'], [10, '#4eb3d3'], [20, '#2b6cb0'], [30, '#7b3294'], [45, '#d7301f']],
  'precipitation-1h': [[0, '#c6dbef00'], [0.1, '#c6dbefcc'], [1, '#6baed6'], [5, '#2171b5'], [10, '#fdae61'], [25, '#d7191c'], [50, '#7b0c67']],
  // Radar-like: the rate's ramp is the hourly precipitation's.
  precipitation_rate: [[0, '#c6dbef00'], [0.1, '#c6dbefcc'], [1, '#6baed6'], [5, '#2171b5'], [10, '#fdae61'], [25, '#d7191c'], [50, '#7b0c67']],
  'relative_humidity-2m': [[0, '#8c510a'], [30, '#d8b365'], [60, '#f5f5f5'], [80, '#5ab4ac'], [100, '#01665e']],
  'wind_gust-10m': [[0, '#f0f9e8'], [5, '#a8ddb5'], [10, '#4eb3d3'], [20, '#2b6cb0'], [30, '#7b3294'], [45, '#d7301f'], [75, '#67000d']],
  'frozen_precipitation-1h': [[0, '#dadaeb00'], [0.1, '#dadaebcc'], [1, '#bcbddc'], [5, '#9e9ac8'], [10, '#756bb1'], [25, '#54278f']],
  'cloud_cover-total': [[0, '#6b728000'], [20, '#6b728033'], [100, '#374151dd']],
  'radar-composite': [[-20, '#04e9e700'], [5, '#04e9e7'], [20, '#02c802'], [35, '#fdf802'], [50, '#fd0000'], [65, '#bc0000'], [80, '#f800fd']],
};

export function rampOf(variableId: string, min: number, max: number): Stop[] {
  const base = variableId.split(':')[0]!;
  return ramps[base] ?? [[min, '#440154'], [min + (max - min) / 2, '#21918c'], [max, '#fde725']];
}

function rgba(color: string): [number, number, number, number] {
  const hex = color.slice(1);
  const part = (i: number) => parseInt(hex.slice(i, i + 2), 16);
  return [part(0), part(2), part(4), hex.length === 8 ? part(6) : 255];
}

/** A lookup table of the ramp: `color(value)` writes the RGBA of a value into a pixel array. */
export function colorLookup(stops: Stop[], entries = 1024): (value: number, out: Uint8ClampedArray, offset: number) => void {
  const low = stops[0]![0];
  const high = stops[stops.length - 1]![0];
  const colors = stops.map(([, c]) => rgba(c));
  const table = new Uint8ClampedArray(entries * 4);
  for (let i = 0; i < entries; i++) {
    const value = low + ((high - low) * i) / (entries - 1);
    let s = 0;
    while (s < stops.length - 2 && value > stops[s + 1]![0]) s++;
    const [a, b] = [stops[s]![0], stops[s + 1]![0]];
    const t = b === a ? 0 : Math.max(0, Math.min(1, (value - a) / (b - a)));
    for (let c = 0; c < 4; c++) table[i * 4 + c] = colors[s]![c]! + (colors[s + 1]![c]! - colors[s]![c]!) * t;
  }
  return (value, out, offset) => {
    const i = Math.round(((Math.max(low, Math.min(high, value)) - low) / (high - low || 1)) * (entries - 1)) * 4;
    out[offset] = table[i]!;
    out[offset + 1] = table[i + 1]!;
    out[offset + 2] = table[i + 2]!;
    out[offset + 3] = table[i + 3]!;
  };
}
