/**
 * The vocabulary of object kinds in coordinate search results, and how `kind:` filters select them.
 * A kind is `FAMILY-SUBKIND` (`CRS-PROJCRS`) or a bare family that has no sub-kinds (`ELLIPSOID`);
 * a filter names one kind, a family (all its kinds) or `*` (everything), case-insensitively.
 */

export const KINDS = [
  'CRS-PROJCRS',
  'CRS-GEOGCRS',
  'CRS-GEOG3DCRS',
  'CRS-GCENCRS',
  'CRS-VERTCRS',
  'CRS-ENGCRS',
  'CRS-COMPOUNDCRS',
  'CRS-DRVDCRS',
  'COORDOP-COPTRAN',
  'COORDOP-COPCONO',
  'COORDOP-POIMOTO',
  'COORDOP-COPCON',
  'DATUM-VERTDAT',
  'DATUM-ENGDAT',
  'DATUM-GEODDAT',
  'DATUM-DYNGEODDA',
  'DATUM-ENSEMDAT',
  'ELLIPSOID',
  'PRIMEM',
  'METHOD',
  'CS-VERTCS',
  'CS-SPHERCS',
  'CS-CARTESCS',
  'CS-ELLIPCS',
  'CS-AFFINE',
  'CS-ORDINAL',
  'AXIS',
  'AREA',
  'UNIT-ANGUNIT',
  'UNIT-SCALEUNIT',
  'UNIT-LENUNIT',
  'UNIT-TIMEUNIT',
] as const;

export type Kind = (typeof KINDS)[number];

/** The part before the dash: `CRS`, `COORDOP`, `DATUM`, `CS`, `UNIT`, or the kind itself. */
export const familyOf = (kind: Kind): string => kind.split('-')[0]!;

export const isCrsKind = (kind: Kind): boolean => familyOf(kind) === 'CRS';

/** The kinds a `kind:` value selects, or null when the value names no kind, family or `*`. */
export function kindsMatching(value: string): ReadonlySet<Kind> | null {
  const wanted = value.toUpperCase();
  if (wanted === '*') return new Set(KINDS);
  const kinds = KINDS.filter((kind) => kind === wanted || familyOf(kind) === wanted);
  return kinds.length > 0 ? new Set(kinds) : null;
}
