// FMA-heavy dense linear algebra: an Eigen matrix product (vfmadd231pd on 256-bit vectors when
// built -O2 -march=x86-64-v3; needs libeigen3-dev). Usage: eigen_gemm [N] [REPS] (default 256 1)
#include <Eigen/Dense>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 256, reps = argc > 2 ? std::atoi(argv[2]) : 1;
  Eigen::MatrixXd a = Eigen::MatrixXd::Random(n, n), b = Eigen::MatrixXd::Random(n, n), c(n, n);
  for (int r = 0; r < reps; r++) c.noalias() = a * b;
  std::printf("%.6f\n", c.sum());
  return 0;
}
