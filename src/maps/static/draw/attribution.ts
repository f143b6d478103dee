/**
 * The attribution box: the map's attribution text, and the weather source's credit when the image
 * shows weather, on a light box in the chosen corner, in the default sans-serif font at 11 CSS px.
 * Text too long for the image is cut with an ellipsis.
 */

import type { SKRSContext2D } from '@napi-rs/canvas';
import { SANS_FONT } from '../fonts.js';
import type { Frame } from './frame.js';

/** Where the attribution goes, or `false` for none. */
export const ATTRIBUTIONS = ['bottomright', 'bottomleft', 'topleft', 'topright', 'false'] as const;
export type Attribution = (typeof ATTRIBUTIONS)[number];

const fontSize = 11;
const paddingX = 5;
const height = 17;

/**
 * The text of the box: the map's attribution, then the credit of the weather drawn on it (unless the
 * map's text names it already), separated by ` | ` as MapLibre's attribution control separates sources.
 */
export function attributionText(mapAttribution: string, weatherCredit?: string): string {
  const parts = [mapAttribution.trim()];
  const credit = weatherCredit?.trim() ?? '';
  if (credit !== '' && !parts[0]!.toLowerCase().includes(credit.toLowerCase())) parts.push(credit);
  return parts.filter((part) => part !== '').join(' | ');
}

export function drawAttribution(ctx: SKRSContext2D, frame: Frame, text: string, corner: Attribution): void {
  if (corner === 'false' || text.trim() === '') return;
  ctx.save();
  ctx.font = `${fontSize}px "${SANS_FONT}"`;
  const fitted = fit(ctx, text.trim(), frame.width - 2 * paddingX);
  if (fitted === '') {
    ctx.restore();
    return;
  }
  const width = Math.min(frame.width, ctx.measureText(fitted).width + 2 * paddingX);
  const left = corner.endsWith('right') ? frame.width - width : 0;
  const top = corner.startsWith('bottom') ? frame.height - height : 0;
  ctx.fillStyle = 'rgba(255,255,255,0.75)';
  ctx.fillRect(left, top, width, height);
  ctx.fillStyle = 'rgba(0,0,0,0.75)';
  ctx.textBaseline = 'middle';
  ctx.fillText(fitted, left + paddingX, top + height / 2);
  ctx.restore();
}

/** The longest prefix of `text`, with an ellipsis when cut, that is at most `room` wide. */
function fit(ctx: SKRSContext2D, text: string, room: number): string {
  if (ctx.measureText(text).width <= room) return text;
  let [low, high] = [0, text.length];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (ctx.measureText(`${text.slice(0, middle)}…`).width <= room) low = middle;
    else high = middle - 1;
  }
  return low === 0 ? '' : `${text.slice(0, low).trimEnd()}…`;
}
