/* rprof marker API: named regions in your own code, measured when the program runs under rprof.
 *
 *     #include <rprof/marker.h>          (pkg-config --cflags --libs rprof-marker)
 *                                        (or rprof-marker-static: no shared library, below)
 *
 *     rprof_region_declare("triad", 2.0 * n, 24.0 * n);   // optional: the model work of one pass
 *     rprof_region_begin("triad");
 *     for (i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
 *     rprof_region_end("triad");
 *
 * `rprof ./prog` then reports, per region, the calls, the time spent inside, the counter totals
 * and, when declared (or counted with --counters sim), the FLOPs and bytes (declared per pass x
 * calls) with the region's place on the roofline, as for the whole run.
 * Outside rprof every call returns at once: the program needs no other build to run without it.
 *
 * Two libraries. What a program links, librprof-marker.so.1, is plain C on libc alone (no
 * libstdc++, no PAPI): outside rprof its first call reads one environment variable and that is
 * all it ever does. Under rprof that first call loads librprof-marker-backend.so (C++ and PAPI:
 * the regions, the counters, the results file) with dlopen, from rprof/ in the folder the
 * library was loaded from ($libdir/rprof/ once installed), else from that folder itself (the
 * build tree), else from the private folder configured at build time; every call then goes to
 * it. When it cannot be loaded, regions are not measured and rprof says why with the run.
 * The same library as a static archive, librprof-marker.a (pkg-config rprof-marker-static), is
 * linked into the program: no shared library more than libc. Having no folder of its own, it
 * loads the backend rprof names in RPROF_MARKER_BACKEND, else the one in the private folder
 * configured at build time. A program should link one of the two, never both.
 *
 * CONTRACT
 *
 * Names. A region is identified by its name, a NUL-terminated string compared by content: each
 * thread finds it by the string's address first (string literals: no search) and confirms by
 * comparing the text, so a buffer reused for other names is safe too. The library keeps its own
 * copy. A NULL or empty name is ignored and reported.
 *
 * Regions. begin/end pairs are counted per thread: a region begun in one thread must end in that
 * thread. Regions with different names may nest and overlap freely; each measures its own span.
 * A region's calls and counter totals are summed over calls and threads. Time is wall time
 * (CLOCK_MONOTONIC) between begin and end, summed over calls per thread; the region's time is
 * the most any one thread spent inside it (its wall time when its threads run it side by side),
 * and the sum over threads is kept beside it. Counters count the calling thread only (threads
 * the region starts are measured by their own regions).
 *
 * Misuse never crashes the program and the library never prints while the program runs. These
 * are reported to rprof, which shows them with the run:
 *   - end without a matching begin in that thread: ignored;
 *   - the same name begun again while it is open in the same thread (recursion): the inner
 *     begin/end pairs are not counted separately; the call spans the outer begin to the outer end;
 *   - a region still open when its thread ends or the process exits: that call is not counted;
 *   - a region declared twice with different values: the first declaration is kept.
 *
 * Thread safety. All functions may be called from any thread at any time, including from
 * threads created before the first call. A process that forks reports its own block for each
 * process that exits normally (exit() or return from main; _exit() and fatal signals write
 * nothing); the child does not repeat the parent's calls from before the fork.
 *
 * Cost. Linking the library: what the dynamic loader spends on one more small shared library at
 * program start (17,000 instructions under valgrind with glibc 2.36, most of which, 10,000 to
 * 13,000, loading any shared library costs, even one with a single empty function), then one
 * getenv() at the first call. Linking the static archive: 1,300 instructions in all, 1 % of an
 * empty program. Outside rprof: one load and one predictable branch per call (a few ns). Under
 * rprof: two clock reads per begin/end pair (tens of ns) plus, when events are counted, one counter
 * read at begin and one at end (PAPI_read of the thread's event set: one read() system call, about
 * 0.3 us on bare metal, 1.2 us in a KVM guest), and at each the thread's and the process's CPU
 * clocks (two more system calls) under a per-region lock, for the region's span record. The first
 * call of a region in a thread allocates its slot; later calls do not allocate. The first call in
 * the process reads the environment, loads the backend and, with events, starts PAPI (tens of ms,
 * once, before that region's clock starts); the first call in each thread starts that thread's
 * counters.
 *
 * PROTOCOL WITH RPROF (version 4)
 *
 * rprof sets these environment variables on the program it starts; a program can set them itself
 * before its first marker call (the library reads them once, at that call):
 *   RPROF_MARKER_OUT=/path/file   markers are active; the results are appended to this file at
 *                                 process exit. Unset or empty: every call is a no-op, and no
 *                                 other variable is read.
 *   RPROF_MARKER_SIM=1            with RPROF_MARKER_OUT set: the program runs under rprof's sim
 *                                 source, in valgrind's callgrind. The calls then only dump
 *                                 callgrind's counts at region boundaries (as "rprof-outside"
 *                                 when the first region opens, "rprof-region:<name>" when one
 *                                 ends); no backend is loaded, nothing is written to the file
 *                                 and declarations are ignored (rprof has them from the native
 *                                 run), so the counts of the whole program are its own.
 *   RPROF_MARKER_BACKEND=/path/librprof-marker-backend.so
 *                                 the backend of this rprof, loaded by the static archive
 *                                 (the shared library loads the one beside itself). Unset or
 *                                 empty: the one in the folder configured at build time.
 *   RPROF_MARKER_EVENTS=e1,e2,... PAPI events (presets or libpfm4 names) counted per region, at
 *                                 most RPROF_MARKER_MAX_EVENTS. Unset or empty: time only. An
 *                                 event that cannot be counted here is reported missing, with
 *                                 PAPI's reason, and the others are still counted.
 *
 * At exit each process appends one block with a single write() where the system allows it
 * (O_APPEND), so blocks of a parent and its children never interleave. The block is text, one
 * record a line, fields separated by one tab; names have tabs, CR and LF replaced by spaces;
 * "-" stands for a value that is absent:
 *
 *   rprof-markers <TAB> 4 <TAB> <pid>
 *   event   <TAB> <index> <TAB> <name> <TAB> ok|missing <TAB> <reason, empty when ok>
 *   region  <TAB> <name> <TAB> <calls> <TAB> <seconds, total> <TAB> <seconds, most in one thread>
 *           <TAB> <threads> <TAB> <declared FLOPs per call|-> <TAB> <declared bytes per call|->
 *           <TAB> <declared precision: fp64|fp32|->
 *           <TAB> <event 0 total|-> <TAB> <event 1 total|-> ...
 *   span    <TAB> <name> <TAB> <CPU seconds of the process while the region was open>
 *           <TAB> <CPU seconds of the threads inside it, in their calls>
 *           <TAB> <CPU seconds of those threads outside their calls while it was open>
 *   problem <TAB> <region name, or * for the library> <TAB> <what happened>
 *
 * The header comes first; events follow in index order (0, 1, ...), one per distinct name asked
 * for; every region line has one count column per event line, "-" for a missing event or when
 * some calls ran without counters (a problem line says why). Totals are summed over calls and
 * threads; <threads> is how many threads completed a call of the region. Version 1 had no
 * <seconds, most in one thread> and <threads> columns; rprof still reads it (the region's time
 * is then the sum over threads, and says so). Version 2 had no <declared precision> column;
 * rprof still reads it (no precision declared). Version 4 added the span records, written for
 * the regions whose calls ran with counters: "open" is the CPU time every thread of the process
 * spent while the region was open in at least one thread (the union of its threads' spans),
 * "inside" that of the threads in their own calls, "outside" that of the same threads while it
 * was open but they were not in a call (waiting for the others); what remains of "open" is the
 * work of threads that never entered it, which the region's counters, counting their own thread
 * only, did not see. Versions 1 to 3 have none.
 * Numbers do not depend on the locale: integers in decimal; seconds with a '.' and 9 decimals;
 * declared values in the shortest form that reads back exactly ("2e+06", "0.25").
 * Regions that never completed a call have no region line. rprof refuses other versions.
 */
#ifndef RPROF_MARKER_H_
#define RPROF_MARKER_H_

#ifdef __cplusplus
extern "C" {
#if __cplusplus >= 201103L
#define RPROF_MARKER_NOEXCEPT noexcept
#else
#define RPROF_MARKER_NOEXCEPT throw()
#endif
#else
#define RPROF_MARKER_NOEXCEPT
#endif

#if defined(__GNUC__)
#define RPROF_MARKER_API __attribute__((visibility("default")))
#else
#define RPROF_MARKER_API
#endif

/* The version in the header line of each results block: the library writes it, rprof refuses
 * any other but versions 1 to 3 (above). Raise it with any change to the format above. */
#define RPROF_MARKER_FORMAT_VERSION 4
#define RPROF_MARKER_MAX_EVENTS 16

/* Starts region `name` in the calling thread. */
RPROF_MARKER_API void rprof_region_begin(const char* name) RPROF_MARKER_NOEXCEPT;

/* Ends region `name` in the calling thread and adds the call to its totals. */
RPROF_MARKER_API void rprof_region_end(const char* name) RPROF_MARKER_NOEXCEPT;

/* Declares the model work of ONE pass through region `name`: `flops` floating-point operations
 * and `bytes` moved to or from memory (the compulsory traffic: each input read once, each output
 * written once). rprof multiplies them by the region's calls. A negative value leaves that part
 * undeclared; NaN or infinity is ignored and reported. May be called before or after the region
 * runs, from any thread; the declaration holds for the whole process. */
RPROF_MARKER_API void rprof_region_declare(const char* name, double flops,
                                           double bytes) RPROF_MARKER_NOEXCEPT;

/* As rprof_region_declare, and the FLOPs are double (fp64) or single (fp32) precision: the
 * region is placed against that precision's roofs (without it, a region whose FLOPs are not
 * counted by precision is placed against the best of both, fp32's). Declaring a region again
 * with another precision is a conflict like other differing values: the first is kept. Since
 * librprof-marker.so.1 symbol version RPROF_MARKER_2; programs built against the older library
 * keep working unchanged. */
RPROF_MARKER_API void rprof_region_declare_fp64(const char* name, double flops,
                                                double bytes) RPROF_MARKER_NOEXCEPT;
RPROF_MARKER_API void rprof_region_declare_fp32(const char* name, double flops,
                                                double bytes) RPROF_MARKER_NOEXCEPT;

/* 1 when markers are active (the program runs under rprof), else 0. Useful to skip expensive
 * setup that only serves measurement. The first call may read the environment. */
RPROF_MARKER_API int rprof_markers_active(void) RPROF_MARKER_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* RPROF_MARKER_H_ */
