/* String/memcpy-heavy mix: almost all instructions are glibc's memcpy/memset (rep movsb or
 * vector moves) over buffers that fit L2, plus a little integer bookkeeping.
 * Usage: memcpy_heavy [MIB_COPIED]   (default 2048: 2 GiB moved in 64 KiB blocks) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  long mib = argc > 1 ? atol(argv[1]) : 2048;
  enum { BLOCK = 64 * 1024, SLOTS = 8 };
  char *src = malloc((size_t)BLOCK * SLOTS), *dst = malloc((size_t)BLOCK * SLOTS);
  memset(src, 1, (size_t)BLOCK * SLOTS);
  unsigned long sum = 0;
  for (long i = 0; i < mib * 16; i++) {
    size_t len = BLOCK - (size_t)(i & 63) * 8;          /* varying lengths */
    memcpy(dst + (i % SLOTS) * BLOCK, src + ((i * 3) % SLOTS) * BLOCK, len);
    if ((i & 7) == 0) memset(src + (i % SLOTS) * BLOCK, (int)i, 4096);
    sum += (unsigned char)dst[(i * 7919) % ((size_t)BLOCK * SLOTS)];
  }
  printf("%lu\n", sum);
  return 0;
}
