/* A small MPI program with marker regions, for tests/cli/mpi_test.py and
 * scripts/recipes/mpi-scaling: every rank runs a triad over its share of the elements (declared
 * to the markers: 2 FLOPs and 24 bytes an element), then an allreduce of its checksum.
 *   mpi_fixture [--elements N] [--reps R] [--split] [--imbalance] [--crash-rank K]
 * --elements N  elements per rank (default 1000000), or in all with --split (strong scaling:
 *               each of S ranks takes N / S)
 * --reps R      passes over the arrays (default 20)
 * --imbalance   rank r does r + 1 times the work: the slowest rank is the last
 * --crash-rank K  rank K aborts (SIGABRT) a second after MPI_Finalize, once the others have
 *                 ended normally (mpirun kills the ranks still running when one fails)
 * --crash-early K rank K aborts before its triad: mpirun then stops the others */
#include <mpi.h>
#include <rprof/marker.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  long elements = 1000000;
  int reps = 20, split = 0, imbalance = 0, crash_rank = -1, crash_early = -1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--elements") && i + 1 < argc) elements = atol(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--split")) split = 1;
    else if (!strcmp(argv[i], "--imbalance")) imbalance = 1;
    else if (!strcmp(argv[i], "--crash-rank") && i + 1 < argc) crash_rank = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--crash-early") && i + 1 < argc) crash_early = atoi(argv[++i]);
    else {
      fprintf(stderr, "mpi_fixture: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = split ? elements / size : elements;
  if (imbalance) n *= rank + 1;
  double* a = malloc(sizeof(double) * (size_t)n);
  double* b = malloc(sizeof(double) * (size_t)n);
  double* c = malloc(sizeof(double) * (size_t)n);
  for (long i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = 1.0 + (double)(i % 7);
    c[i] = 2.0;
  }
  if (rank == crash_early) abort();
  rprof_region_declare("triad", 2.0 * (double)n, 24.0 * (double)n);
  for (int r = 0; r < reps; ++r) {
    rprof_region_begin("triad");
    for (long i = 0; i < n; ++i) a[i] = b[i] + 0.5 * c[i];
    rprof_region_end("triad");
    b[r % n] = a[(r + 1) % n];
  }
  double local = 0, total = 0;
  for (long i = 0; i < n; ++i) local += a[i];
  rprof_region_begin("allreduce");
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  rprof_region_end("allreduce");
  if (rank == 0) printf("mpi_fixture: %d ranks, %ld elements each, checksum %.6g\n", size, n, total);
  free(a);
  free(b);
  free(c);
  MPI_Finalize();
  if (rank == crash_rank) {
    sleep(1);
    abort();
  }
  return 0;
}
