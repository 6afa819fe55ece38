#!/usr/bin/env python3
"""make-sweep-list.py: writes bench/select/sweep.list, the matrices of the SpMV-choice sweep.

Usage: python3 bench/select/make-sweep-list.py > bench/select/sweep.list

The list is the shared matrices (mtx:NAME), generated families of several sizes (spec syntax of
bench/gen.h) and row slices (slice:A:B:SPEC) of shared and generated matrices, as seed 002 made
its training blocks. Sizes run from about 1e3 to 2e6 rows and each matrix is kept under about
2.5e7 nonzeros, so that the whole sweep fits in a few minutes of one GPU. select-sweep assigns
each spec its set (shared for mtx:, holdout when FNV-1a-64(spec) % 5 == 0, else train); the
counts are printed at the end of the list as comments. Deterministic: no randomness here.
"""
import math

SHARED = {  # name: rows (MANIFEST.tsv of the shared matrices)
    "1138_bus": 1138, "add20": 2395, "add32": 4960, "adder_dcop_05": 1813, "ash219": 219,
    "bcsstk13": 2003, "bcsstk14": 1806, "G3_circuit": 1585478, "laplacian7pt_100": 1000000,
    "nos3": 960, "olm1000": 1000, "orsirr_1": 1030, "orsreg_1": 2205, "rajat12": 1879,
    "rdb3200l": 3200, "sherman3": 5005, "sherman5": 3312, "watt_2": 1856, "ani5_crop": 12561,
}
MAX_NNZ = 2.5e7


def powerlaw_mean(n, alpha):
    """Expected row length of powerlaw:N:alpha, sum_{k=1..N} k^(1-alpha)."""
    if n <= 200000:
        return sum(k ** (1.0 - alpha) for k in range(1, n + 1))
    # Euler-Maclaurin tail beyond 1000 terms.
    head = sum(k ** (1.0 - alpha) for k in range(1, 1001))
    e = 2.0 - alpha
    tail = (n ** e - 1000 ** e) / e if abs(e) > 1e-12 else math.log(n / 1000)
    return head + tail


def fnv1a64(s):
    h = 0xCBF29CE484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    out = []  # (spec, estimated nnz)

    def add(spec, nnz):
        if nnz <= MAX_NNZ:
            out.append((spec, nnz))

    for name in sorted(SHARED):
        out.append(("mtx:" + name, 0))

    # Stencils: 2D 5 and 9 points, 3D 7 and 27 points, 3D convection-diffusion.
    for n in (32, 50, 71, 100, 141, 200, 316, 500, 707, 1000, 1414):
        add(f"poisson2d:{n}", 5 * n * n)
    for n in (32, 50, 71, 100, 141, 200, 316, 500, 707, 1000, 1414):
        add(f"stencil2d9:{n}", 9 * n * n)
    for n in (10, 14, 22, 30, 40, 50, 64, 80, 100, 126):
        add(f"poisson3d:{n}", 7 * n ** 3)
    for n in (10, 14, 22, 30, 40, 50, 64, 80, 96):
        add(f"stencil3d27:{n}", 27 * n ** 3)
    for n in (16, 40, 70, 110):
        add(f"convdiff3d:{n}", 7 * n ** 3)

    # Power-law rows, several exponents and sizes (two seeds for the mid sizes).
    for alpha in (1.5, 1.7, 1.9, 2.0, 2.2, 2.5, 3.0):
        for n in (2000, 10000, 30000, 100000, 300000, 1000000, 2000000):
            seeds = (1, 2) if 10000 <= n <= 300000 else (1,)
            for s in seeds:
                nnz = n * powerlaw_mean(n, alpha)
                spec = f"powerlaw:{n}:{alpha}" + (f":{s}" if s != 1 else "")
                add(spec, nnz)

    # Banded: full bands of several half-widths.
    for w in (1, 2, 3, 5, 8, 12, 16, 24, 32, 48, 64, 100, 160):
        for n in (3000, 30000, 300000, 2000000):
            add(f"banded:{n}:{w}", n * (2 * w + 1))

    # Block-diagonal: dense blocks of several sizes.
    for b in (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512):
        for n in (4000, 60000, 1000000):
            add(f"blockdiag:{n}:{b}", n * b)

    # Uniform random columns, several lengths.
    for k in (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 96, 128):
        for n in (2000, 20000, 200000, 2000000):
            add(f"random:{n}:{k}", n * k)

    # Circuit-like: short rows plus D dense rows and columns.
    for d in (1, 2, 4, 8, 16):
        for n in (2000, 10000, 50000, 250000, 1000000):
            add(f"circuit:{n}:{d}", n * (2 * d + 5))

    # Row slices of the larger shared matrices, as seed 002 made its training blocks.
    for name, rows in (("G3_circuit", 1585478), ("laplacian7pt_100", 1000000)):
        for frac_a, frac_b in ((0, 0.01), (0.1, 0.13), (0.2, 0.3), (0.3, 0.33), (0.4, 0.6),
                               (0.5, 0.501), (0.6, 0.9), (0.05, 0.0505), (0.7, 0.75),
                               (0.95, 1.0)):
            a, b = int(frac_a * rows), int(frac_b * rows)
            add(f"slice:{a}:{b}:mtx:{name}", 0)
    for name in ("ani5_crop", "add32", "sherman3", "rdb3200l", "bcsstk13", "add20", "sherman5",
                 "orsreg_1", "rajat12", "watt_2"):
        rows = SHARED[name]
        for frac_a, frac_b in ((0, 0.5), (0.25, 0.75), (0.5, 1.0)):
            add(f"slice:{int(frac_a * rows)}:{int(frac_b * rows)}:mtx:{name}", 0)
    # Slices of irregular generated matrices: the long-row and short-row parts of seed 002.
    for src, n in (("powerlaw:1000000:2.0", 1000000), ("powerlaw:300000:1.9", 300000),
                   ("circuit:1000000:4", 1000000), ("circuit:250000:16", 250000),
                   ("powerlaw:100000:1.7", 100000)):
        for frac_a, frac_b in ((0, 0.1), (0.3, 0.35), (0.45, 0.55), (0.6, 1.0)):
            add(f"slice:{int(frac_a * n)}:{int(frac_b * n)}:{src}", 0)

    print("# sweep.list: the matrices of the SpMV-choice sweep (bench/select-sweep --list).")
    print("# Written by bench/select/make-sweep-list.py; edit that script, not this file.")
    for spec, _ in out:
        print(spec)
    sets = {"train": 0, "holdout": 0, "shared": 0}
    for spec, _ in out:
        if spec.startswith("mtx:"):
            sets["shared"] += 1
        else:
            sets["holdout" if fnv1a64(spec) % 5 == 0 else "train"] += 1
    est = sum(n for _, n in out)
    print(f"# {len(out)} specs: {sets['train']} train, {sets['holdout']} holdout, "
          f"{sets['shared']} shared; about {est / 1e6:.0f} million generated nonzeros "
          "(slices and shared matrices not counted)")


if __name__ == "__main__":
    main()
