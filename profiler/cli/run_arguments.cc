#include "cli/run_arguments.h"

namespace rprof {

namespace po = boost::program_options;

namespace {

// The option Boost would take `name` for ("repeat" for --rep, as its guessing does), or
// nullptr: unknown or ambiguous, which Boost itself reports when it parses.
const po::option_description* Find(const po::options_description& options, const std::string& name,
                                   bool guess) {
  try {
    return options.find_nothrow(name, guess);
  } catch (const po::error&) {
    return nullptr;
  }
}

bool TakesValue(const po::option_description* option) {
  return option && option->semantic()->max_tokens() > 0;
}

// Whether the option word `word` takes the next word as its value, the way Boost reads it:
// `--min-time 2` does, `--min-time=2` and `--quiet` do not; `-r 3` does, `-r3` does not, and
// in `-qr 3` the flags come first and the last letter takes the value.
bool TakesNextWord(const std::string& word, const po::options_description& options) {
  if (word.rfind("--", 0) == 0) {
    if (word.find('=') != std::string::npos) return false;
    return TakesValue(Find(options, word.substr(2), true));
  }
  for (size_t i = 1; i < word.size(); ++i) {
    const po::option_description* option = Find(options, std::string("-") + word[i], false);
    if (!option) return false;
    if (TakesValue(option)) return i + 1 == word.size();  // else its value is the rest
  }
  return false;
}

// The index in args, from `from` on, of the first word that is neither an option nor an
// option's value (the word after `--` when that comes first, with *dashes set); args.size()
// when there is none.
size_t FirstOperand(const std::vector<std::string>& args, size_t from,
                    const po::options_description& options, bool* dashes) {
  for (size_t i = from; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") {
      *dashes = true;
      return i + 1;
    }
    if (word.size() < 2 || word[0] != '-') return i;  // "-" alone is an operand, as for cat
    if (TakesNextWord(word, options)) ++i;
  }
  return args.size();
}

}  // namespace

RunArguments SplitRunArguments(const std::vector<std::string>& args,
                               const po::options_description& options,
                               const std::function<bool(const std::string&)>& is_program) {
  RunArguments out;
  size_t at = FirstOperand(args, 0, options, &out.after_dashes);
  out.options.assign(args.begin(), args.begin() + static_cast<long>(at));
  if (out.after_dashes) out.options.pop_back();  // the "--"
  if (at >= args.size()) return out;
  out.target = args[at];
  std::vector<std::string> rest(args.begin() + static_cast<long>(at) + 1, args.end());
  if (is_program(out.target)) {
    out.program_args = std::move(rest);
    return out;
  }
  // A kernel or plugin: what follows is rprof's, except `--` and bare words (after `--`, every
  // word), which a kernel cannot take.
  if (out.after_dashes) {
    out.stray = std::move(rest);
    return out;
  }
  for (size_t i = 0; i < rest.size();) {
    bool dashes = false;
    size_t next = FirstOperand(rest, i, options, &dashes);
    out.options.insert(
        out.options.end(), rest.begin() + static_cast<long>(i),
        rest.begin() + static_cast<long>(std::min(next, rest.size())) - (dashes ? 1 : 0));
    if (dashes) out.stray.push_back("--");
    if (next >= rest.size()) break;
    out.stray.push_back(rest[next]);
    i = next + 1;
  }
  return out;
}

}  // namespace rprof
