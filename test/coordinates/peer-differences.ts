/**
 * Where Meridian (PROJ 9.9) and its peer, Debian's PROJ 9.1.1 reading the same registry, differ
 * for a known reason, each checked against a source independent of both.
 */

/**
 * PROJ 9.1.1 inverts the Lambert azimuthal equal-area projection's authalic latitude with a
 * truncated series (about 1.2e-9° off at 65°N, past the peer test's 1e-9°); PROJ 9.9 agrees with
 * the exact inverse below to 1e-11°. Pairs whose operation inverts EPSG:3035 (ETRS89-extended /
 * LAEA Europe) are compared with it instead of cs2cs.
 */
export const LAEA_INVERSE_SOURCES = new Set([3035]);

/**
 * EPSG:3035's inverse on GRS 1980 (lat_0 52°, lon_0 10°, false easting 4,321,000 m, northing
 * 3,210,000 m), per Snyder (Map Projections: A Working Manual, eq. 24-1 and 3-16), with the
 * authalic latitude inverted by Newton's iteration to convergence: [longitude, latitude] in degrees.
 */
export function laeaEuropeInverse(easting: number, northing: number): [number, number] {
  const a = 6378137;
  const f = 1 / 298.257222101;
  const e2 = 2 * f - f * f;
  const e = Math.sqrt(e2);
  const q = (phi: number) => {
    const s = Math.sin(phi);
    return (1 - e2) * (s / (1 - e2 * s * s) - (1 / (2 * e)) * Math.log((1 - e * s) / (1 + e * s)));
  };
  const radians = Math.PI / 180;
  const qp = q(Math.PI / 2);
  const rq = a * Math.sqrt(qp / 2);
  const phi1 = 52 * radians;
  const beta1 = Math.asin(q(phi1) / qp);
  const d = (a * Math.cos(phi1)) / Math.sqrt(1 - e2 * Math.sin(phi1) ** 2) / (rq * Math.cos(beta1));
  const x = easting - 4321000;
  const y = northing - 3210000;
  const rho = Math.hypot(x / d, d * y);
  const ce = 2 * Math.asin(rho / (2 * rq));
  const beta = Math.asin(Math.cos(ce) * Math.sin(beta1) + (d * y * Math.sin(ce) * Math.cos(beta1)) / rho);
  const lambda = 10 * radians + Math.atan2(x * Math.sin(ce), d * rho * Math.cos(beta1) * Math.cos(ce) - d * d * y * Math.sin(beta1) * Math.sin(ce));
  const qq = qp * Math.sin(beta);
  let phi = Math.asin(qq / 2);
  for (let i = 0; i < 20; i++) {
    const s = Math.sin(phi);
    phi += ((1 - e2 * s * s) ** 2 / (2 * Math.cos(phi))) * (qq / (1 - e2) - s / (1 - e2 * s * s) + (1 / (2 * e)) * Math.log((1 - e * s) / (1 + e * s)));
  }
  return [lambda / radians, phi / radians];
}

/**
 * Concatenated operations that PROJ 9.9 builds (PROJ 9.1.1 could not: the test skipped them) but
 * without the accuracy EPSG gives them (999 m; each has a prime-meridian step: Paris, Ferro or Jakarta);
 * projinfo 9.1.1 on the same registry reports none either. The index keeps EPSG's value: which of
 * PROJ's rules drops it is to be settled (issue 18, default-transformation slice).
 */
export const ACCURACY_DROPPED_BY_PROJ = new Map([
  [8176, 999],
  [8211, 999],
  [8263, 999],
  [8638, 999],
  [8641, 999],
]);

/**
 * Pairs PROJ 9.1.1 cannot transform on the newer registry, compared with cs2cs on Debian's own
 * registry (EPSG v10.076) instead, where the operation has not changed.
 */
export const PEER_ON_DEBIAN_REGISTRY = new Map([
  [
    '4326>5514',
    'EPSG v13.102 defines ETRS89 to S-JTSK as a concatenated operation whose last step ends in another CRS than the concatenation; PROJ 9.1.1 refuses to build it ("The target CRS of the last step ... is not the same"), PROJ 9.9 accepts it',
  ],
]);

/** Systems of peer.test.ts whose operations from WGS 84 differ between EPSG v10.076 and v13.102, and why. */
const ADDED = 'not in EPSG v10.076: added since';
export const OPERATIONS_CHANGED_SINCE_V10_076 = new Map<number, string>([
  [5699, 'RGF93 v2b and its NGF-IGN78 geoid operation (3) are new; the best operation goes through them'],
  [9883, 'v13.102 adds ETRS89-NOR [EUREF89] and CD Norway depth operation (4), now the most accurate'],
  [10951, ADDED],
  [11098, ADDED],
  [11198, ADDED],
  [11325, ADDED],
  [11367, ADDED],
  [11375, ADDED],
  [11405, ADDED],
  [12230, ADDED],
]);

/**
 * Methods PROJ 9.1.1 does not implement (cs2cs answers `*`) and writes into WKT1 under a made-up
 * PROJECTION name (from the EPSG name), which PROJ 9.9 implements and refuses to write as WKT1
 * ("Unsupported conversion method"): Meridian transforms and its WKT1 export is null. As WKT1 names.
 */
export const NEW_SINCE_PROJ_9_1 = new Set(['Lambert_Conic_Conformal_(1SP_variant_B)']);

/**
 * Systems reached by a "Coordinate Frame rotation full matrix" transformation (rotations too large
 * for the small-angle formula, e.g. Bonaire to WGS 84 (1), EPSG:10769): PROJ 9.9 applies the exact
 * rotation matrix (`+exact`), PROJ 9.1.1 does not know the method and approximates, about 1 cm off.
 * The peer is PROJ 9.1.1's cct running projinfo's pipeline with `+exact`.
 */
export const FULL_MATRIX_ROTATION = new Set([10758]);

/**
 * CRSs whose default transformation (PROJ 9.9's first candidate to WGS 84) is not PROJ 9.1.1's
 * first on the same registry, and why; their exports are not compared either.
 */
export const RANKED_OTHERWISE_SINCE_PROJ_9_1 = new Map<number, string>([
  [
    22619,
    'PROJ 9.9 goes from NAD83(CSRS)v6 through NAD83(2011) (EPSG:9129 + 9774, 2 m, via geocentric conversions); PROJ 9.1.1 does not pass through that intermediate CRS and has only ATS77 chains whose grids are missing, then a ballpark',
  ],
]);

/**
 * Points where PROJ 9.9 applies another operation than cs2cs 9.1.1 on the same registry, as
 * `ours|cs2cs` operation names: since PROJ 9.3 (OSGeo/PROJ 89943df4a, "tune ordering of operations
 * based on areas", issue #3854), of two operations of the same accuracy whose areas hold the point,
 * the one with the smaller area is used; 9.1.1 keeps the first. Both give the same numbers here
 * (the same Helmert parameters), so results still agree.
 */
export const SMALLER_AREA_SINCE_PROJ_9_3 = new Map([
  ['ED50 to WGS 84 (6)|ED50 to WGS 84 (2)', 'UK onshore (6) is smaller than "Austria; Denmark; France; Germany (west); Netherlands; Switzerland" (2); both 6 m, the same parameters'],
]);
