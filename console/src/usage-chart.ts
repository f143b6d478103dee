/**
 * Requests per day as stacked bars, one colour per area of the API, drawn as SVG by hand (a few
 * dozen rectangles need no charting library). Every bar segment carries its day, area and count
 * (`data-*` and a tooltip), so the numbers stay readable and testable.
 */

import { h } from './dom.js';

export interface DayCount {
  day: string;
  area: string;
  requests: number;
}

/** Fixed colours, so an area looks the same in every chart; `unknown` is grey. */
export const areaColors: Record<string, string> = {
  maps: '#1d4ed8',
  weather: '#0d9488',
  coordinates: '#d97706',
  geocoding: '#db2777',
  keys: '#7c3aed',
  unknown: '#94a3b8',
};

const svgNs = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number>, ...children: (SVGElement | string)[]): SVGElementTagNameMap[K] {
  const element = document.createElementNS(svgNs, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

/** The UTC days from `since` to `until`, both included, as `YYYY-MM-DD`. */
export function daysBetween(since: string, until: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${since}T00:00:00Z`); t <= Date.parse(`${until}T00:00:00Z`); t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** Areas in a fixed order, then any other (such as `unknown`) alphabetically. */
export function areasOf(counts: DayCount[]): string[] {
  const known = Object.keys(areaColors);
  return [...new Set(counts.map((c) => c.area))].sort((a, b) => (known.indexOf(a) + 1 || 99) - (known.indexOf(b) + 1 || 99) || a.localeCompare(b));
}

/**
 * A bar per day of `days` (oldest left), its segments stacked by area; the scale is the busiest
 * day. `height` is the plot's and `barWidth` a bar's, in pixels; it shrinks to fit a narrower container.
 */
export function usageChart(days: string[], counts: DayCount[], options: { height: number; barWidth: number; label: string }): SVGSVGElement {
  const barWidth = options.barWidth;
  const gap = Math.max(1, Math.round(barWidth / 5));
  const axis = 16;
  const width = days.length * (barWidth + gap);
  const totals = new Map<string, number>();
  for (const c of counts) totals.set(c.day, (totals.get(c.day) ?? 0) + c.requests);
  const peak = Math.max(1, ...totals.values());
  const scale = options.height / peak;
  const areas = areasOf(counts);
  const chart = svg('svg', { class: 'usage-chart', width, height: options.height + axis, viewBox: `0 0 ${width} ${options.height + axis}`, role: 'img', 'aria-label': options.label });
  chart.append(svg('line', { x1: 0, x2: width, y1: options.height + 0.5, y2: options.height + 0.5, stroke: '#cbd5e1' }));
  days.forEach((day, i) => {
    const x = i * (barWidth + gap);
    let top = options.height;
    for (const area of areas) {
      const requests = counts.find((c) => c.day === day && c.area === area)?.requests ?? 0;
      if (requests === 0) continue;
      const height = requests * scale;
      top -= height;
      chart.append(
        svg('rect', { x, y: top, width: barWidth, height, fill: areaColors[area] ?? areaColors.unknown!, 'data-day': day, 'data-area': area, 'data-requests': requests }, svg('title', {}, `${day} · ${area}: ${requests}`)),
      );
    }
  });
  // The first and the last day under the axis, and the busiest day's count at the top.
  const text = (x: number, y: number, anchor: string, value: string) => svg('text', { x, y, 'text-anchor': anchor, class: 'usage-axis' }, value);
  chart.append(text(0, options.height + axis - 3, 'start', days[0]!.slice(5)), text(width, options.height + axis - 3, 'end', days[days.length - 1]!.slice(5)));
  chart.append(text(0, 9, 'start', `max ${peak}`));
  return chart;
}

/** The colour key of the areas a chart shows, with their totals. */
export function areaLegend(byArea: Record<string, number>): HTMLElement {
  const areas = areasOf(Object.entries(byArea).map(([area, requests]) => ({ day: '', area, requests })));
  return h(
    'ul',
    { class: 'area-legend' },
    ...areas.map((area) => h('li', { 'data-area': area }, h('span', { class: 'swatch', style: `background:${areaColors[area] ?? areaColors.unknown}` }), `${area} ${byArea[area]!.toLocaleString('en')}`)),
  );
}
