#include "cli/command_help.h"

#include <iostream>
#include <sstream>

#include "cli/command_context.h"

namespace rprof {

namespace {
std::vector<CommandHelp>* capture_ = nullptr;

// Sets the capture and sends std::cout into `text` for as long as it lives.
class CapturedHelp {
 public:
  CapturedHelp(std::vector<CommandHelp>* helps) : old_(std::cout.rdbuf(text_.rdbuf())) {
    SetHelpCapture(helps);
  }
  ~CapturedHelp() {
    SetHelpCapture(nullptr);
    std::cout.rdbuf(old_);
  }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* old_;
};

}  // namespace

void SetHelpCapture(std::vector<CommandHelp>* capture) { capture_ = capture; }
std::vector<CommandHelp>* HelpCapture() { return capture_; }

bool DocumentCommands(std::vector<CommandDoc>* docs, Error* err) {
  GlobalOptions global;
  for (const Command& c : Commands()) {
    // --help opens no database, so no path is needed.
    CommandContext context(global, DatabasePath{}, c);
    CommandDoc doc;
    doc.command = &c;
    {
      CapturedHelp captured(&doc.helps);
      if (!c.run(context, {"--help"}, err)) return false;
      doc.overview = captured.text();
    }
    for (const std::string& sub : c.subcommands) {
      CapturedHelp captured(&doc.helps);
      if (!c.run(context, {sub, "--help"}, err)) return false;
    }
    if (doc.helps.empty())
      return Fail(err, ErrorKind::kEnvironment,
                  std::string("manual: `rprof ") + c.name + " --help` printed no options");
    docs->push_back(std::move(doc));
  }
  return true;
}

}  // namespace rprof
