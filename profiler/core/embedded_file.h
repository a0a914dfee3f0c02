// A text file compiled into the binary (see profiler/embed_files.py).
#ifndef RPROF_CORE_EMBEDDED_FILE_H_
#define RPROF_CORE_EMBEDDED_FILE_H_

namespace rprof {

struct EmbeddedFile {
  const char* name;  // file name without directory, e.g. "001_initial.sql"
  const char* text;
};

}  // namespace rprof

#endif  // RPROF_CORE_EMBEDDED_FILE_H_
