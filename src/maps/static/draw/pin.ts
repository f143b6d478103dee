/**
 * The default marker: a teardrop pin with a white dot, 27 CSS pixels wide like MapLibre GL JS's
 * default marker, its tip at the bottom centre of its box (so anchors place the tip), drawn in the
 * marker's colour with a darker rim and a soft shadow around the tip.
 */

import type { SKRSContext2D } from '@napi-rs/canvas';
import { formatColor, rgba, type RGBA } from '../color.js';

export const PIN_WIDTH = 27;
export const PIN_HEIGHT = 37;
/** MapLibre GL JS's default marker colour. */
export const DEFAULT_PIN_COLOR = rgba(0x3f, 0xb1, 0xce);

const headRadius = PIN_WIDTH / 2;
const headCenter = headRadius;
const tipY = PIN_HEIGHT;

/** Draws the pin into the box whose top-left corner is (x, y), `scale` times its size. */
export function drawPin(ctx: SKRSContext2D, x: number, y: number, scale: number, color: RGBA | null): void {
  const fill = color ?? DEFAULT_PIN_COLOR;
  ctx.save();
  ctx.translate(x, y);
  ctx.scale(scale, scale);

  ctx.fillStyle = 'rgba(0,0,0,0.18)';
  ctx.beginPath();
  ctx.ellipse(headRadius, tipY, 7, 2.5, 0, 0, Math.PI * 2);
  ctx.fill();

  // The pin's sides are the tangents from its tip to the round head.
  const distance = tipY - headCenter;
  const theta = Math.acos(headRadius / distance);
  ctx.beginPath();
  ctx.moveTo(headRadius, tipY);
  ctx.arc(headRadius, headCenter, headRadius - 0.5, Math.PI / 2 - theta, Math.PI / 2 + theta, true);
  ctx.closePath();
  ctx.fillStyle = formatColor(fill);
  ctx.fill();
  ctx.lineWidth = 1;
  ctx.strokeStyle = formatColor(rgba(Math.round(fill.r * 0.6), Math.round(fill.g * 0.6), Math.round(fill.b * 0.6), Math.max(fill.a, 0.5)));
  ctx.stroke();

  ctx.beginPath();
  ctx.arc(headRadius, headCenter, 5, 0, Math.PI * 2);
  ctx.fillStyle = '#ffffff';
  ctx.fill();
  ctx.restore();
}
