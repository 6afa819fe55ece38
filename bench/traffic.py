"""traffic.py: the bytes one CSR SpMV and one unfused Krylov iteration move, the bandwidth bound's model (bench/README.md).

solve_bench.c counts the same in C (iteration_bytes); peers.py and plot.py import this file.
Vectors are n doubles, each read or written once per operation; a dot product of a vector
with itself (r.r, t.t, w.w) reads it once.
"""


def spmv_bytes(m, n, nnz):
    """GPU.md's bytes of one CSR SpMV: 12*nnz + 4*(m+1) + 8*n + 8*m."""
    return 12.0 * nnz + 4.0 * (m + 1) + 8.0 * n + 8.0 * m


def iteration_bytes(solver, n, S, k, restart, precond="none", orthog="cgs2"):
    """Bytes of inner iteration k (1-based) of `solver` (cg, gmres, bicgstab) with `precond`
    (none or jacobi); S = spmv_bytes of the matrix.
      CG:       S + 8*12n: (p, q) reads 2n, r.r n; x, r, p updates read 6n, write 3n.
      CG+Jacobi S + 8*17n: z = D^-1 r (read 2n, write n), (r, z) 2n instead of r.r, ||r|| n.
      GMRES(m), step j = (k-1) mod m + 1: CGS2 S + 8*(4j + 9)n, MGS S + 8*(5j + 3)n;
                right Jacobi + 8*3n.
      BiCGSTAB: 2S + 8*24n: (r0hat, v), (t, s), (r0hat, r) read 2n each, t.t and ||r|| n
                each; s, x (two axpy), r, p read 11n, write 5n. Right Jacobi: 2S + 8*30n."""
    v = 8.0 * n
    jac = precond == "jacobi"
    if solver == "cg":
        return S + (17.0 if jac else 12.0) * v
    if solver == "gmres":
        j = (k - 1) % restart + 1
        orth = 4.0 * j + 9.0 if orthog == "cgs2" else 5.0 * j + 3.0
        return S + (orth + (3.0 if jac else 0.0)) * v
    if solver == "bicgstab":
        return 2.0 * S + (30.0 if jac else 24.0) * v
    raise ValueError("unknown solver %r" % solver)


def mean_iteration_bytes(solver, n, S, its, restart, precond="none", orthog="cgs2"):
    """The mean over iterations 1..its (GMRES's steps cost more as j grows)."""
    if its <= 0:
        return float("nan")
    return sum(iteration_bytes(solver, n, S, k, restart, precond, orthog)
               for k in range(1, its + 1)) / its
