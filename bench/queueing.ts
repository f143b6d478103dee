/**
 * What queueing alone does to the tail: a server of `servers` identical workers, one queue, each
 * request taking a service time drawn from the ones measured with one client (no queue), asked at
 * `rate` with Poisson or evenly spaced arrivals. Its p99/p50 is the floor no server with that
 * spread of image costs gets below at that rate: with constant service times, two workers at 80%
 * give 3.9x under Poisson arrivals (and 1x with even ones); with even arrivals the spread of the
 * images' own costs is what remains.
 */

import { seededRandom } from '../test/scratch.js';

/** p50 and p99 of the time from arrival to answer, in the service times' unit. */
export function queueingTail(serviceMs: readonly number[], servers: number, rate: number, arrivals: 'poisson' | 'uniform', seed: number, requests = 200_000): { p50: number; p99: number } {
  if (serviceMs.length === 0 || !(rate > 0)) throw new RangeError('service times and a positive rate are needed');
  const next = seededRandom(seed);
  const free = new Float64Array(servers);
  const times = new Float64Array(requests);
  let at = 0;
  for (let i = 0; i < requests; i++) {
    at += arrivals === 'poisson' ? (-Math.log(1 - next()) / rate) * 1000 : 1000 / rate;
    let worker = 0;
    for (let w = 1; w < servers; w++) if (free[w]! < free[worker]!) worker = w;
    const start = Math.max(at, free[worker]!);
    free[worker] = start + serviceMs[Math.floor(next() * serviceMs.length)]!;
    times[i] = free[worker]! - at;
  }
  times.sort();
  return { p50: times[Math.floor(requests * 0.5)]!, p99: times[Math.floor(requests * 0.99)]! };
}
