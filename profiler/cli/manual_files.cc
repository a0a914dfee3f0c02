#include "cli/manual_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cli/bash_completion.h"
#include "cli/command_help.h"
#include "cli/man_page.h"
#include "cli/topics.h"
#include "core/json.h"
#include "targets/kernel_catalog.h"

namespace rprof {

namespace {

std::string OptionsJson(const std::vector<CommandDoc>& docs) {
  JsonWriter json;
  json.BeginArray();
  for (const CommandDoc& doc : docs)
    for (const CommandHelp& help : doc.helps) {
      json.BeginObject().Key("command").String(help.command).Key("options").BeginArray();
      for (const OptionHelp& option : help.options) {
        json.BeginObject()
            .Key("long")
            .String(option.long_name)
            .Key("short")
            .String(option.short_name ? std::string(1, option.short_name) : "")
            .Key("argument")
            .String(option.argument)
            .Key("description")
            .String(option.description)
            .EndObject();
      }
      json.EndArray().EndObject();
    }
  json.EndArray();
  return json.str() + "\n";
}

}  // namespace

bool WriteManualFiles(const std::vector<std::string>& paths, Error* err) {
  std::vector<CommandDoc> docs;
  if (!DocumentCommands(&docs, err)) return false;

  // What the manual is: every name must be asked for, and nothing else.
  std::map<std::string, std::string> pages;
  pages["rprof.1"] = RprofManPage(docs);
  for (const CommandDoc& doc : docs)
    pages[std::string("rprof-") + doc.command->name + ".1"] = CommandManPage(doc);
  for (const Topic& topic : Topics()) pages["rprof-" + topic.name + ".7"] = TopicManPage(topic);
  pages["rprof"] = BashCompletion(docs, BuiltinCatalog().Names());

  std::set<std::string> asked;
  for (const std::string& path : paths) {
    std::string name = std::filesystem::path(path).filename();
    asked.insert(name);
    std::string text;
    if (name == "options.json") {
      text = OptionsJson(docs);
    } else if (auto it = pages.find(name); it != pages.end()) {
      text = it->second;
    } else {
      return Fail(err, ErrorKind::kUsage,
                  "--write-manual: no manual page or file " + name +
                      " (a command or topic that no longer exists: remove it from "
                      "profiler/manual/meson.build)");
    }
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush())
      return Fail(err, ErrorKind::kEnvironment, "--write-manual: cannot write " + path);
  }
  // options.json alone: a test reading the options, not the build writing the manual.
  if (asked == std::set<std::string>{"options.json"}) return true;
  std::string missing;
  for (const auto& [name, text] : pages)
    if (!asked.count(name)) missing += " " + name;
  if (!missing.empty())
    return Fail(err, ErrorKind::kUsage,
                "--write-manual: not asked for:" + missing +
                    " (a command or topic without its line in profiler/manual/meson.build)");
  return true;
}

}  // namespace rprof
