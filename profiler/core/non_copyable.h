// The base of a class whose object stands for something only it may own or undo: the files it
// keeps open (FunctionNames, SourceLines, UnwindRanges, SimAnalyzer), the signal handlers it
// restores (InterruptionScope). A copy would share them, or undo them twice.
#ifndef RPROF_CORE_NON_COPYABLE_H_
#define RPROF_CORE_NON_COPYABLE_H_

namespace rprof {

// Deriving from it deletes the derived class's copy, and its move with it (NonCopyable declares a
// copy, so it has no move to lend): the object stays where it was made, and callers hold it by
// reference or in a std::unique_ptr.
class NonCopyable {
 public:
  NonCopyable(const NonCopyable&) = delete;
  NonCopyable& operator=(const NonCopyable&) = delete;

 protected:
  NonCopyable() = default;
  ~NonCopyable() = default;
};

}  // namespace rprof

#endif  // RPROF_CORE_NON_COPYABLE_H_
