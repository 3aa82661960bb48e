/** A seeded generator (mulberry32): one seed draws one run, and replays it. */
export interface Random {
  /** A float in [0, 1). */
  float(): number;
  /** A whole number in [min, max]. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A generator of its own, so that drawing more here does not shift another part's draws. */
  fork(): Random;
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const float = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const random: Random = {
    float,
    int: (min, max) => min + Math.floor(float() * (max - min + 1)),
    chance: (probability) => float() < probability,
    pick: (items) => items[Math.floor(float() * items.length)]!,
    fork: () => seededRandom(Math.floor(float() * 2 ** 32)),
  };
  return random;
}
