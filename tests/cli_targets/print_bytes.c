/* print_bytes N: writes N bytes to stdout, the letters a..z repeated ("abc...zab..."), in
 * chunks of odd sizes, then exits 0. The test counts and checks them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  long total = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
  static char buffer[65537];
  for (size_t i = 0; i < sizeof buffer; ++i) buffer[i] = (char)('a' + i % 26);
  long written = 0;
  size_t chunk = 4093;
  while (written < total) {
    size_t n = chunk;
    if ((long)n > total - written) n = (size_t)(total - written);
    /* Continue the pattern where the last chunk stopped. */
    size_t offset = (size_t)(written % 26);
    if (fwrite(buffer + offset, 1, n, stdout) != n) return 1;
    written += (long)n;
    chunk = chunk * 7 % 65521 + 1;
    if (chunk + 26 > sizeof buffer) chunk = sizeof buffer - 26;
  }
  return fflush(stdout) == 0 ? 0 : 1;
}
