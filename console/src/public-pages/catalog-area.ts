/** A map's bounds as the catalog and the viewer write them: west, south to east, north in degrees. */

const degrees = (value: number) => value.toFixed(4);

export function area([west, south, east, north]: number[]): string {
  return `${degrees(west!)}, ${degrees(south!)} to ${degrees(east!)}, ${degrees(north!)}`;
}
