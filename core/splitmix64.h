/* splitmix64.h: the seeded pseudo-random numbers of spsolve (library, CLI, tests and benchmarks): splitmix64 and its uniform draws. */
#ifndef SPS_CORE_SPLITMIX64_H
#define SPS_CORE_SPLITMIX64_H

#include <stdint.h>

/*
 * splitmix64 (Steele, Lea and Flood 2014): the state advances by the Weyl constant
 * 0x9E3779B97F4A7C15 and the result is the state mixed by two xor-shift-multiply rounds.
 * Fixed seeds give the same sequence on every platform, so results that depend on a random
 * vector (a right-hand side, a start vector) are reproducible.
 */
static inline uint64_t sps_splitmix64_next(uint64_t *state)
{
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [-1, 1): the top 53 bits k give 2 k / 2^53 - 1 (the product is exact). */
static inline double sps_splitmix64_sym(uint64_t *state)
{
  return (double)(sps_splitmix64_next(state) >> 11) * 0x1.0p-52 - 1.0;
}

#endif /* SPS_CORE_SPLITMIX64_H */
