declare module 'polylabel' {
  /** The pole of inaccessibility of a polygon (rings of [x, y]), within `precision`; `distance` to its outline. */
  export default function polylabel(polygon: number[][][], precision?: number, debug?: boolean): [number, number] & { distance: number };
}
