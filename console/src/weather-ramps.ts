/**
 * The weather legend of the console. The ramps themselves are declared once, for the console and
 * for static maps, in src/weather/ramps.ts.
 */

import type { Stop } from '../../src/weather/ramps.js';

export { colorLookup, rampOf, type Stop } from '../../src/weather/ramps.js';

/** Pixels kept free between two legend labels. */
const labelGap = 4;

/**
 * Hides the labels of an attached legend that would touch the one shown before them (stops close
 * together, such as 0, 0.1 and 1 of a 0..50 ramp): the first and the last always show, and a
 * label that would touch the last gives way to it. The gradient keeps every stop.
 */
export function thinLegendLabels(legendBox: HTMLElement): void {
  const labels = [...legendBox.querySelectorAll<HTMLElement>('.legend-ticks span')];
  for (const label of labels) label.hidden = false;
  if (labels.length < 3) return;
  const last = labels[labels.length - 1]!.getBoundingClientRect();
  let shown = labels[0]!.getBoundingClientRect();
  for (const label of labels.slice(1, -1)) {
    const box = label.getBoundingClientRect();
    if (box.left < shown.right + labelGap || box.right + labelGap > last.left) label.hidden = true;
    else shown = box;
  }
}

/** The legend: the ramp as a gradient bar with its stop values and the unit (see thinLegendLabels). */
export function legend(stops: Stop[], unit: string): HTMLElement {
  const low = stops[0]![0];
  const span = stops[stops.length - 1]![0] - low || 1;
  const gradient = stops.map(([value, color]) => `${color} ${(((value - low) / span) * 100).toFixed(1)}%`).join(', ');
  const bar = document.createElement('div');
  bar.className = 'legend-bar';
  bar.style.background = `linear-gradient(to right, ${gradient})`;
  const ticks = document.createElement('div');
  ticks.className = 'legend-ticks';
  for (const [value] of stops) {
    const tick = document.createElement('span');
    tick.textContent = String(value);
    tick.style.left = `${((value - low) / span) * 100}%`;
    ticks.append(tick);
  }
  const box = document.createElement('div');
  box.className = 'legend';
  const title = document.createElement('div');
  title.className = 'legend-unit';
  title.textContent = unit;
  box.append(title, bar, ticks);
  return box;
}
