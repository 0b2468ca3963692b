/**
 * The sandbox's seeded randomness. Probability faults draw from this so that a run with the
 * same seed and the same sequence of sends triggers the same faults; provider ids use
 * node:crypto instead, so generating an id never shifts the fault sequence.
 */
import { randomInt } from 'node:crypto';

/** A source of floats in [0, 1). */
export type RandomSource = () => number;

/**
 * Returns mulberry32 seeded with `seed`: the same seed always yields the same sequence.
 * mulberry32 is 32-bit state and a few integer ops: plenty for fault draws, not for secrets.
 */
export function mulberry32(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Returns a fresh 32-bit seed, for runs that did not ask for one (reported on the handle). */
export function freshSeed(): number {
  return randomInt(0, 2 ** 32 - 1);
}
