/* Executes one AVX-512 instruction (EVEX-encoded VADDPD zmm). valgrind 3.19 cannot execute
 * AVX-512, so under callgrind this program stops with SIGILL and the runner must explain that sim
 * runs need the AVX2 build. On a CPU without AVX-512 it also dies of SIGILL natively; that is
 * fine: it exists only to be run under valgrind. Written as inline assembly so it builds with any
 * compiler flags. Usage: avx512_probe */
#include <stdio.h>

int main(void) {
  double x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  __asm__ volatile(
      "vmovupd (%0), %%zmm0\n\t"
      "vaddpd %%zmm0, %%zmm0, %%zmm0\n\t"
      "vmovupd %%zmm0, (%0)\n\t"
      "vzeroupper"
      :
      : "r"(x)
      : "memory", "xmm0");
  printf("avx512_probe: %.1f\n", x[7]);
  return 0;
}
