#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */
#include "marker/marker_load_failure.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rprof/marker.h"

static char report_path[PATH_MAX];
static char report_why[1024];
static int armed;

/* Each process that exits normally, a forked child too: its own block, under its own pid. */
__attribute__((destructor)) static void write_report(void) {
  if (!armed) return;
  char block[sizeof report_why + 128];
  int n = snprintf(block, sizeof block,
                   "rprof-markers\t%d\t%ld\nproblem\t*\tthe marker backend is not loaded (%s); "
                   "no region was measured\n",
                   RPROF_MARKER_FORMAT_VERSION, (long)getpid(), report_why);
  if (n <= 0) return;
  size_t size = (size_t)n < sizeof block ? (size_t)n : sizeof block - 1;
  int fd = open(report_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  /* One write where the system allows it: blocks of several processes never interleave. */
  for (size_t done = 0; done < size;) {
    ssize_t written = write(fd, block + done, size - done);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) break;
    done += (size_t)written;
  }
  close(fd);
}

void rprof_marker_report_load_failure_at_exit(const char* out_path, const char* why) {
  if (strlen(out_path) >= sizeof report_path) return; /* cannot be opened whole: say nothing */
  strcpy(report_path, out_path);
  snprintf(report_why, sizeof report_why, "%s", why);
  /* A field may hold no tab or line break (the format's rule for names). */
  for (char* c = report_why; *c != '\0'; ++c)
    if (*c == '\t' || *c == '\n' || *c == '\r') *c = ' ';
  armed = 1;
}
