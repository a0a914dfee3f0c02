/* A shared object that is not an rprof plugin: it exports a function, but not rprof_kernels. */
int not_rprof_kernels(void) { return 42; }
