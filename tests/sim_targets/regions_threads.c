/* Two threads, each in a region of its own, open at the same time (a barrier holds both open
 * while they work): thread "a" does triad over n doubles, thread "b" over 2n. Under rprofsim a
 * region counts what every thread executes while it is open, so each region holds both triads
 * (6n FLOPs): thread a's share of region "a" 2n (it entered), thread b's 4n (it never entered
 * "a"), and the other way round for "b". Uses rprofsim's client requests directly (the marker
 * library sends the same). Usage: regions_threads N */
/* clang-format off: sim_target.h comes first (it sets _POSIX_C_SOURCE) */
#include "sim_target.h"

#include <pthread.h>

#include "rprofsim_requests.h"
/* clang-format on */

static pthread_barrier_t barrier;

struct Work {
  const char* region;
  long n;
  double *a, *b, *c;
};

__attribute__((noinline)) static void Triad(long n, double* restrict a, const double* restrict b,
                                            const double* restrict c, double s) {
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

static void* Run(void* arg) {
  struct Work* w = arg;
  RPROFSIM_REGION_BEGIN(w->region);
  pthread_barrier_wait(&barrier); /* both regions open */
  Triad(w->n, w->a, w->b, w->c, 3.0);
  pthread_barrier_wait(&barrier); /* both done, both still open */
  RPROFSIM_REGION_END(w->region);
  return NULL;
}

int main(int argc, char** argv) {
  long n = SimTargetParseN(argc, argv, 10000);
  struct Work work[2] = {{"a", n, 0, 0, 0}, {"b", 2 * n, 0, 0, 0}};
  for (int t = 0; t < 2; ++t) {
    work[t].a = SimTargetAlloc(work[t].n);
    work[t].b = SimTargetAlloc(work[t].n);
    work[t].c = SimTargetAlloc(work[t].n);
    for (long i = 0; i < work[t].n; ++i) work[t].a[i] = work[t].b[i] = work[t].c[i] = 1.0;
  }
  pthread_barrier_init(&barrier, NULL, 2);
  double t0 = SimTargetNow();
  pthread_t threads[2];
  for (int t = 0; t < 2; ++t) pthread_create(&threads[t], NULL, Run, &work[t]);
  for (int t = 0; t < 2; ++t) pthread_join(threads[t], NULL);
  printf("regions_threads n=%ld a[0]=%.1f threads_s=%.9f\n", n, work[0].a[0] + work[1].a[0],
         SimTargetNow() - t0);
  return 0;
}
