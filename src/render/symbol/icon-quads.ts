/**
 * The pieces an icon is drawn in, as MapLibre's getIconQuads (src/symbol/quads.ts) cuts it: one
 * piece for a plain icon; with icon-text-fit and a stretchable image (stretchX / stretchY), a grid
 * of pieces whose fixed parts keep their size while the stretchable parts fill the box, the
 * image's `content` area laid over the text. Each piece maps a rectangle of the image (sprite
 * pixels, with MapLibre's one transparent pixel of atlas padding around the image) onto a
 * rectangle around the anchor (CSS px at the icon's size); rotation is left to the painter.
 */

import type { SpriteImage } from '../sprite/sprite.js';
import type { PositionedIcon } from './shaping.js';

/** MapLibre's IMAGE_PADDING: the transparent pixel around each image in its atlas. */
const BORDER = 1;

export interface IconQuad {
  /** Source rectangle in the image's pixels; may reach BORDER pixels beyond the image. */
  readonly sx: number;
  readonly sy: number;
  readonly sw: number;
  readonly sh: number;
  /** Destination around the anchor, CSS px. */
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

interface Cut {
  readonly fixed: number;
  readonly stretch: number;
}

type Ranges = readonly (readonly [number, number])[];

function sumWithinRange(ranges: Ranges, min: number, max: number): number {
  let sum = 0;
  for (const [a, b] of ranges) sum += Math.max(min, Math.min(max, b)) - Math.max(min, Math.min(max, a));
  return sum;
}

function stretchZonesToCuts(zones: Ranges, fixedSize: number, stretchSize: number): Cut[] {
  const cuts: Cut[] = [{ fixed: -BORDER, stretch: 0 }];
  for (const [c1, c2] of zones) {
    const last = cuts[cuts.length - 1]!;
    cuts.push({ fixed: c1 - last.stretch, stretch: last.stretch });
    cuts.push({ fixed: c1 - last.stretch, stretch: last.stretch + (c2 - c1) });
  }
  cuts.push({ fixed: fixedSize + BORDER, stretch: stretchSize });
  return cuts;
}

/**
 * MapLibre's applyTextFit: a text-fitted icon box pushed back out to the content's aspect ratio on
 * an axis whose textFitWidth / textFitHeight is "proportional".
 */
export function applyTextFit(icon: PositionedIcon, image: SpriteImage): { x1: number; y1: number; x2: number; y2: number } {
  let left = icon.left;
  let top = icon.top;
  let width = icon.right - left;
  let height = icon.bottom - top;
  const content = image.content!;
  const aspect = (content[2] - content[0]) / (content[3] - content[1]);
  const fitWidth = image.textFitWidth ?? 'stretchOrShrink';
  const fitHeight = image.textFitHeight ?? 'stretchOrShrink';
  if (fitHeight === 'proportional') {
    if ((fitWidth === 'stretchOnly' && width / height < aspect) || fitWidth === 'proportional') {
      const newWidth = Math.ceil(height * aspect);
      left *= newWidth / width;
      width = newWidth;
    }
  } else if (fitWidth === 'proportional') {
    if (fitHeight === 'stretchOnly' && aspect !== 0 && width / height > aspect) {
      const newHeight = Math.ceil(width / aspect);
      top *= newHeight / height;
      height = newHeight;
    }
  }
  return { x1: left, y1: top, x2: left + width, y2: top + height };
}

/** The icon's pieces at icon size `scale`; `textFit` when icon-text-fit is not "none". */
export function iconQuads(icon: PositionedIcon, image: SpriteImage, textFit: boolean, scale: number): IconQuad[] {
  const { pixelRatio } = image;
  const imageWidth = image.image.width;
  const imageHeight = image.image.height;
  let box = { x1: icon.left, y1: icon.top, x2: icon.right, y2: icon.bottom };
  const stretchX: Ranges = image.stretchX ?? [[0, imageWidth]];
  const stretchY: Ranges = image.stretchY ?? [[0, imageHeight]];
  const stretchWidth = sumWithinRange(stretchX, -Infinity, Infinity);
  const stretchHeight = sumWithinRange(stretchY, -Infinity, Infinity);
  const fixedWidth = imageWidth - stretchWidth;
  const fixedHeight = imageHeight - stretchHeight;
  let stretchOffsetX = 0;
  let stretchContentWidth = stretchWidth;
  let stretchOffsetY = 0;
  let stretchContentHeight = stretchHeight;
  let fixedOffsetX = 0;
  let fixedContentWidth = fixedWidth;
  let fixedOffsetY = 0;
  let fixedContentHeight = fixedHeight;
  if (image.content && textFit) {
    const content = image.content;
    if (image.textFitWidth || image.textFitHeight) box = applyTextFit(icon, image);
    stretchOffsetX = sumWithinRange(stretchX, 0, content[0]);
    stretchOffsetY = sumWithinRange(stretchY, 0, content[1]);
    stretchContentWidth = sumWithinRange(stretchX, content[0], content[2]);
    stretchContentHeight = sumWithinRange(stretchY, content[1], content[3]);
    fixedOffsetX = content[0] - stretchOffsetX;
    fixedOffsetY = content[1] - stretchOffsetY;
    fixedContentWidth = content[2] - content[0] - stretchContentWidth;
    fixedContentHeight = content[3] - content[1] - stretchContentHeight;
  }
  const iconWidth = box.x2 - box.x1;
  const iconHeight = box.y2 - box.y1;
  // Stretchable parts scale with the icon (em), fixed parts keep their pixels.
  const em = (stretch: number, offset: number, size: number, iconSize: number, start: number) => (stretch - offset) / size * iconSize + start;
  const px = (fixed: number, offset: number, fixedSize: number, stretch: number, stretchSize: number) => fixed - offset - (fixedSize * stretch) / stretchSize;
  const piece = (left: Cut, top: Cut, right: Cut, bottom: Cut): IconQuad => {
    const x1 = em(left.stretch, stretchOffsetX, stretchContentWidth, iconWidth, box.x1) * scale + px(left.fixed, fixedOffsetX, fixedContentWidth, left.stretch, stretchWidth) / pixelRatio;
    const x2 = em(right.stretch, stretchOffsetX, stretchContentWidth, iconWidth, box.x1) * scale + px(right.fixed, fixedOffsetX, fixedContentWidth, right.stretch, stretchWidth) / pixelRatio;
    const y1 = em(top.stretch, stretchOffsetY, stretchContentHeight, iconHeight, box.y1) * scale + px(top.fixed, fixedOffsetY, fixedContentHeight, top.stretch, stretchHeight) / pixelRatio;
    const y2 = em(bottom.stretch, stretchOffsetY, stretchContentHeight, iconHeight, box.y1) * scale + px(bottom.fixed, fixedOffsetY, fixedContentHeight, bottom.stretch, stretchHeight) / pixelRatio;
    const sx = left.stretch + left.fixed;
    const sy = top.stretch + top.fixed;
    return { sx, sy, sw: right.stretch + right.fixed - sx, sh: bottom.stretch + bottom.fixed - sy, x1, y1, x2, y2 };
  };
  if (!textFit || (!image.stretchX && !image.stretchY)) {
    return [piece({ fixed: 0, stretch: -BORDER }, { fixed: 0, stretch: -BORDER }, { fixed: 0, stretch: imageWidth + BORDER }, { fixed: 0, stretch: imageHeight + BORDER })];
  }
  const xCuts = stretchZonesToCuts(stretchX, fixedWidth, stretchWidth);
  const yCuts = stretchZonesToCuts(stretchY, fixedHeight, stretchHeight);
  const quads: IconQuad[] = [];
  for (let xi = 0; xi < xCuts.length - 1; xi++) {
    for (let yi = 0; yi < yCuts.length - 1; yi++) quads.push(piece(xCuts[xi]!, yCuts[yi]!, xCuts[xi + 1]!, yCuts[yi + 1]!));
  }
  return quads;
}
