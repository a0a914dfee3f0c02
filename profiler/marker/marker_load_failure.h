/* When rprof started the program but the backend cannot be loaded (marker_backend_loader.h): the
 * marker calls then do nothing, and at exit each process appends a block of the format
 * rprof/marker.h documents with only a problem line that says why, so rprof shows the cause with
 * the run rather than "no results". */
#ifndef RPROF_MARKER_MARKER_LOAD_FAILURE_H_
#define RPROF_MARKER_MARKER_LOAD_FAILURE_H_

/* Keeps copies of both strings (the reason cut to fit) for the writer, a destructor of this
 * library: it runs at exit() or the return from main, as the backend's writer would. */
void rprof_marker_report_load_failure_at_exit(const char* out_path, const char* why);

#endif /* RPROF_MARKER_MARKER_LOAD_FAILURE_H_ */
