// Seeded PRNG (mulberry32): the same seed gives the same choices (timing still varies).
// Every random choice of the soak goes through `rand`, in the order the code
// makes it; the generator's state is private to this module.
import { SEED } from './config.mjs'

let prngState = SEED >>> 0
export function rand() {
  prngState = (prngState + 0x6d2b79f5) >>> 0
  let t = prngState
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
export const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1))
export const pick = (items) => items[Math.floor(rand() * items.length)]
