// Seeded randomness: a pure-rand generator for building a world in sequence, and a stateless hash for
// per-person values that must be computed lazily and in any order (scores, subsets).
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { uniformInt } from "pure-rand/distribution/uniformInt";

export interface Rng {
  /** Uniform in [0, 1). */
  float(): number;
  /** Uniform integer in [from, to]. */
  int(from: number, to: number): number;
  pick<T>(items: readonly T[]): T;
}

export function rng(seed: number): Rng {
  const gen = xoroshiro128plus(seed | 0);
  return {
    float: () => uniformFloat64(gen),
    int: (from, to) => uniformInt(gen, from, to),
    pick: (items) => items[uniformInt(gen, 0, items.length - 1)] as (typeof items)[number],
  };
}

/** 32-bit FNV-1a of a text: turns ids and names into seeds. */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Mixes a seed and an index into a well-spread 32-bit value (murmur3 finalizer). */
export function mix(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 0x9e3779b9, 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A stateless uniform value in [0, 1) for (seed, index). */
export function unit(seed: number, index: number): number {
  return mix(seed, index) / 4294967296;
}
