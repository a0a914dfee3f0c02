// Sets or clears an environment variable for one scope, for tests of what reads the
// environment (the database path, the busy timeout, the recovery directory).
#ifndef RPROF_TESTS_UNIT_SCOPED_ENV_H_
#define RPROF_TESTS_UNIT_SCOPED_ENV_H_

#include <stdlib.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace rprof::testing_support {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace rprof::testing_support

#endif  // RPROF_TESTS_UNIT_SCOPED_ENV_H_
