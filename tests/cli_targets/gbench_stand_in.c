/* A stand-in for a Google Benchmark binary that does not load the shared libbenchmark, as one
 * linked statically would not (Debian ships no static libbenchmark to link a real one with): it
 * answers --benchmark_list_tests and writes --benchmark_out as Google Benchmark 1.7 does, with a
 * NaN among its counters, so that tests/cli/gbench_test.py sees what rprof keeps when its shim
 * cannot bracket the timed loop. It takes --benchmark_min_time in seconds, as 1.7 does. */
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  const char* out = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--benchmark_list_tests=true") == 0) {
      puts("BM_fake/8");
      return 0;
    }
    if (strncmp(argv[i], "--benchmark_out=", 16) == 0) out = argv[i] + 16;
    if (strncmp(argv[i], "--benchmark_min_time=", 21) == 0 && strchr(argv[i], 'x')) return 1;
  }
  puts("BM_fake/8   2.5 us   2.0 us   1000");
  if (out == NULL) return 0;
  FILE* f = fopen(out, "w");
  if (f == NULL) return 1;
  fputs("{\"context\": {\"host_name\": \"h\"}, \"benchmarks\": [{\"name\": \"BM_fake/8\", "
        "\"run_name\": \"BM_fake/8\", \"run_type\": \"iteration\", \"repetitions\": 1, "
        "\"repetition_index\": 0, \"threads\": 1, \"iterations\": 1000, \"real_time\": 2.5, "
        "\"cpu_time\": 2.0, \"time_unit\": \"us\", \"FLOPs\": 8.0e+06, "
        "\"bytes_per_second\": NaN}]}\n", f);
  return fclose(f) == 0 ? 0 : 1;
}
