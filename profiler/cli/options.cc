#include "cli/options.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <utility>

#include "cli/command_help.h"
#include "core/spelling.h"
#include "core/utf8.h"
#include "report/terminal_width.h"
#include "report/text_table.h"
#include "report/text_wrap.h"

namespace rprof {

namespace {

// "--repeat", ... for "did you mean": the options --help lists. Short names are left out: every
// one-letter option is one edit from any other, so a suggestion would be noise.
std::vector<std::string> LongOptionNames(const po::options_description& options) {
  std::vector<std::string> names;
  for (const auto& option : options.options())
    if (!option->long_name().empty() && !option->description().empty())
      names.push_back("--" + option->long_name());
  return names;
}

}  // namespace

bool ParseCommandLine(const std::string& command, const std::vector<std::string>& args,
                      const po::options_description& options,
                      const po::positional_options_description& positional, po::variables_map* vm,
                      Error* err) {
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), *vm);
    po::notify(*vm);
  } catch (const po::unknown_option& e) {
    // Boost names the option; rprof adds the one it most likely meant (`--repeats`).
    return Fail(err, ErrorKind::kUsage,
                command + ": unknown option '" + e.get_option_name() + "'" +
                    DidYouMean(e.get_option_name(), LongOptionNames(options)) + " (`rprof help " +
                    command + "` lists the options)");
  } catch (const po::error& e) {
    return Fail(err, ErrorKind::kUsage,
                command + ": " + e.what() + "; see `rprof help " + command + "`");
  }
  return true;
}

namespace {

// "-p [ --param ]" or "--param": Boost's display name, where the short name is.
OptionHelp ToOptionHelp(const po::option_description& option) {
  OptionHelp help;
  help.long_name = option.long_name();
  std::string shown = option.format_name();
  if (shown.size() > 1 && shown[0] == '-' && shown[1] != '-') help.short_name = shown[1];
  if (option.semantic()->max_tokens() > 0) help.argument = "arg";
  help.description = option.description();
  return help;
}

}  // namespace

void PrintCommandHelp(const std::string& command, const std::string& usage,
                      const std::string& description, const po::options_description& options) {
  if (std::vector<CommandHelp>* capture = HelpCapture()) {
    CommandHelp help{command, usage, description, {}};
    for (const auto& option : options.options()) help.options.push_back(ToOptionHelp(*option));
    capture->push_back(std::move(help));
    return;
  }
  // The options wrap themselves (Boost, at 80 columns); the description is prose.
  size_t width = TerminalWidth(STDOUT_FILENO);
  std::cout << WrapProse(
                   "usage: rprof " + command + " " + usage + "\n\n" + description + "\n\n",
                   width == kNoWidthLimit ? kNoWidthLimit : std::min(width, kDefaultTextWidth), 0)
            << options;
}

std::string FormatUsage() { return "[--format " + OutputFormatNames("|", "|") + "]"; }

CommandLine::CommandLine(std::string command, std::string usage, std::string description,
                         Format format)
    : command_(std::move(command)),
      usage_(format != Format::kAccepted ? usage
                                         : usage + (usage.empty() ? "" : " ") + FormatUsage()),
      description_(std::move(description)),
      accepts_format_(format),
      options_(command_ + " options") {
  options_.add_options()("help,h", "show this help");
}

void CommandLine::Add(const char* name, const po::value_semantic* value, const char* description) {
  options_.add_options()(name, value, description);
}

void CommandLine::Add(const char* name, const char* description) {
  options_.add_options()(name, description);
}

void CommandLine::AddPositional(const char* name, const po::value_semantic* value,
                                const char* description, int count) {
  Add(name, value, description);
  positional_.add(name, count);
  positional_names_.insert(name);
}

void CommandLine::AddFormatOnce() {
  // --format goes last, after the command's own options, in --help too.
  if (format_added_ || accepts_format_ == Format::kNone) return;
  options_.add_options()("format,f", po::value(&format_text_), OutputFormatNames().c_str());
  format_added_ = true;
}

const po::options_description& CommandLine::AllOptions() {
  AddFormatOnce();
  if (all_.options().empty()) all_.add(options_);
  return all_;
}

bool CommandLine::Parse(const std::vector<std::string>& args, Error* err) {
  if (!ParseCommandLine(command_, args, AllOptions(), positional_, &vm_, err)) return false;
  if (vm_.count("help")) {
    PrintCommandHelp(command_, usage_, description_, options_);
    help_shown_ = true;
    return true;
  }
  // An option given an empty value (--job "", --kernel "") is a mistake, never "all" or the
  // default: said, not guessed (issue 41). Positional arguments say their own.
  for (const auto& [name, value] : vm_) {
    if (value.defaulted() || positional_names_.count(name)) continue;
    // A flag (--quiet) takes no value: boost stores it as an empty string.
    const po::option_description* option = AllOptions().find_nothrow(name, false);
    if (option == nullptr || option->semantic()->max_tokens() == 0) continue;
    const auto* text = boost::any_cast<std::string>(&value.value());
    if (text != nullptr && text->empty())
      return Fail(err, ErrorKind::kUsage,
                  "--" + name + " \"\": empty; give it a value (rprof help " + command_ + ")");
  }
  return accepts_format_ == Format::kNone || ParseFormatOption(format_text_, &format_, err);
}

size_t CommandLine::text_width() const { return TerminalWidth(STDOUT_FILENO); }

bool ParseFormatOption(const std::string& text, OutputFormat* format, Error* err) {
  auto parsed = ParseOutputFormat(text);
  if (!parsed)
    return Fail(err, ErrorKind::kUsage,
                "--format " + text + ": unknown format; use " + OutputFormatNames());
  *format = *parsed;
  return true;
}

bool SplitList(const std::string& option, const std::string& text, std::vector<std::string>* items,
               Error* err) {
  // A list given empty (-e "", -e ,,,) or with a hole (a,,b) is a typo, never "the default".
  if (text.find_first_not_of(", \t") == std::string::npos)
    return Fail(
        err, ErrorKind::kUsage,
        option + " \"" + EscapeForTerminal(text) + "\": names nothing; give NAME[,NAME...]");
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty())
      return Fail(err, ErrorKind::kUsage,
                  option + " " + EscapeForTerminal(text) + ": an empty name between commas");
    if (std::find(items->begin(), items->end(), item) != items->end())
      return Fail(err, ErrorKind::kUsage, option + " names " + item + " twice");
    items->push_back(item);
  }
  return true;
}

bool ParseKeyValues(const std::string& option, const std::vector<std::string>& items,
                    KeyValues* out, Error* err) {
  for (const std::string& item : items) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return Fail(err, ErrorKind::kUsage,
                  option + " " + item + ": expected KEY=VALUE, e.g. " + option + " lab=00");
    // Tags are text that every format shows as given: bytes that are not UTF-8 (a Latin-1
    // shell, a stray byte) would come back as U+FFFD in JSON, so they are refused before
    // anything is stored.
    if (size_t bad = FirstInvalidUtf8(item); bad != std::string::npos)
      return Fail(err, ErrorKind::kUsage,
                  option + " " + EscapeForTerminal(item) + ": byte " + std::to_string(bad + 1) +
                      " is not UTF-8; give KEY=VALUE as UTF-8 text");
    std::string key = item.substr(0, eq);
    for (const auto& [k, v] : *out)
      if (k == key)
        return Fail(err, ErrorKind::kUsage,
                    option + " " + key + " given twice (" + v + ", " + item.substr(eq + 1) +
                        "); a key holds one value");
    out->emplace_back(std::move(key), item.substr(eq + 1));
  }
  return true;
}

}  // namespace rprof
