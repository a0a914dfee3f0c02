"""A float32 matrix product through numpy (issue 28): rprof's hot functions should find the BLAS
kernel numpy calls (OpenBLAS's sgemm_kernel_* here) inside libblas, with no marker.
    python3 np_mm.py [N [REPS]]   default 128 x 128, 3 products"""
import sys

import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 128
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
a = np.ones((n, n), dtype=np.float32)
b = np.full((n, n), 2, dtype=np.float32)
for _ in range(reps):
    c = a @ b
print(int(c[0, 0]))
