/* Misuses the marker API on purpose (rprof/marker.h: "Misuse never crashes the program"), then
 * runs one well-formed region "fine".
 *
 *     unbalanced_markers end-without-begin|nested|both
 *
 * end-without-begin: rprof_region_end("never-begun") with no begin;
 * nested: "nested" begun again while open in the same thread (recursion). */
#include <rprof/marker.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "both";
  int end_alone = strcmp(mode, "end-without-begin") == 0 || strcmp(mode, "both") == 0;
  int nested = strcmp(mode, "nested") == 0 || strcmp(mode, "both") == 0;
  if (!end_alone && !nested) {
    fprintf(stderr, "usage: %s end-without-begin|nested|both\n", argv[0]);
    return 2;
  }
  if (end_alone) rprof_region_end("never-begun");
  if (nested) {
    rprof_region_begin("nested");
    rprof_region_begin("nested");
    rprof_region_end("nested");
    rprof_region_end("nested");
  }

  rprof_region_begin("fine");
  volatile double x = 0;
  for (int i = 0; i < 1000; ++i) x += i;
  (void)x;  /* only there to take time; clang warns of a variable set but never read */
  rprof_region_end("fine");

  printf("unbalanced_markers: done, markers %s\n", rprof_markers_active() ? "active" : "off");
  return 0;
}
