# genp2d.py N FILE: the 5-point Laplacian on an N x N grid (Dirichlet), as bench/gen.c's poisson2d:N, written as a symmetric Matrix Market file (lower triangle)
import sys
import numpy as np
N = int(sys.argv[1]); n = N * N
i = np.arange(n)
w = i[(i % N) != 0]   # rows with a west neighbour i - 1
s = i[i >= N]         # rows with a south neighbour i - N
r = np.concatenate([i, w, s]) + 1
c = np.concatenate([i, w - 1, s - N]) + 1
v = np.concatenate([np.full(n, 4.0), np.full(len(w), -1.0), np.full(len(s), -1.0)])
with open(sys.argv[2], 'w') as f:
    f.write('%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n' % (n, n, len(r)))
    f.write(''.join('%d %d %g\n' % t for t in zip(r.tolist(), c.tolist(), v.tolist())))
