// What every command uses to parse its own options with Boost.Program_options: CommandLine for
// the --help and --format they share, parse errors turned into usage errors (exit 2) that name
// the command's help, and the parsers of list and KEY=VALUE options.
#ifndef RPROF_CLI_OPTIONS_H_
#define RPROF_CLI_OPTIONS_H_

#include <boost/program_options.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/run.h"
#include "report/output_format.h"

namespace rprof {

namespace po = boost::program_options;

// What every command's own command line shares: --help, answered here, and --format where the
// command prints results. A command reads:
//   CommandLine cl("history", "[options]", "Lists stored runs, ...");
//   cl.Add("kernel,k", po::value(&filter.target), "only runs of this kernel");
//   if (!cl.Parse(args, err)) return false;
//   if (cl.help_shown()) return true;
//   std::cout << Render(report, cl.format(), cl.text_width());
class CommandLine {
 public:
  // kAcceptedUnlisted: --format is taken but the usage line does not end in it (run's usage
  // ends in the program's own arguments, where --format would be the program's).
  enum class Format { kNone, kAccepted, kAcceptedUnlisted };

  // `command` as users type it ("machine show"); `usage` and `description` for --help, where
  // the usage line ends in [--format ...] with every format's name.
  CommandLine(std::string command, std::string usage, std::string description,
              Format format = Format::kAccepted);

  // The command's own options, listed in --help between --help and --format, in this order.
  void Add(const char* name, const po::value_semantic* value, const char* description);
  void Add(const char* name, const char* description);  // a flag
  // An option also taken by position: the next `count` bare arguments (-1: all the rest).
  void AddPositional(const char* name, const po::value_semantic* value, const char* description,
                     int count = 1);

  // Every option the parser knows, --format included: for a command that must find where its
  // own arguments end before parsing (a program's arguments are its own: cli/run_arguments.h).
  const po::options_description& AllOptions();

  // Parses args; on --help prints the help and sets help_shown(). False with a kUsage error
  // that names `rprof help COMMAND` on a bad option, or on a --format that is not one.
  bool Parse(const std::vector<std::string>& args, Error* err);

  bool help_shown() const { return help_shown_; }
  OutputFormat format() const { return format_; }
  // The width the text for people on standard output is fitted to (report/terminal_width.h).
  size_t text_width() const;
  // Whether the option was given (or has a default).
  bool Has(const std::string& name) const { return vm_.count(name) > 0; }

 private:
  std::string command_, usage_, description_;
  Format accepts_format_;
  void AddFormatOnce();

  po::options_description options_;
  po::options_description all_;
  bool format_added_ = false;
  po::positional_options_description positional_;
  std::set<std::string> positional_names_;  // their own messages when empty
  po::variables_map vm_;
  std::string format_text_ = "table";
  OutputFormat format_ = OutputFormat::kTable;
  bool help_shown_ = false;
};

// Parses args into vm. False with a kUsage error ("rprof help CMD" named) on a bad option.
bool ParseCommandLine(const std::string& command, const std::vector<std::string>& args,
                      const po::options_description& options,
                      const po::positional_options_description& positional, po::variables_map* vm,
                      Error* err);

// Prints "usage: rprof CMD USAGE" and the options, for --help.
void PrintCommandHelp(const std::string& command, const std::string& usage,
                      const std::string& description, const po::options_description& options);

// "[--format table|csv|json]", for a usage line.
std::string FormatUsage();

// A --format value; kUsage naming the formats on any other. (CommandLine does this itself.)
bool ParseFormatOption(const std::string& text, OutputFormat* format, Error* err);

// "a,b,c" (--events, --group, --levels) into items. An empty list ("", ",,,"), an empty item
// ("a,,b") and an item named twice are usage errors (an event would be counted twice, or
// reported as a second, conflicting metric). Call it only for an option that was given.
bool SplitList(const std::string& option, const std::string& text, std::vector<std::string>* items,
               Error* err);

// "key=value" items (--tag) into pairs; kUsage on a malformed one or one that is not UTF-8.
bool ParseKeyValues(const std::string& option, const std::vector<std::string>& items,
                    KeyValues* out, Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_OPTIONS_H_
