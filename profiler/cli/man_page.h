// Man pages in troff (man(7) macros), written at build time from the command table, each
// command's options and the manual's topics: rprof(1), rprof-COMMAND(1), rprof-TOPIC(7).
#ifndef RPROF_CLI_MAN_PAGE_H_
#define RPROF_CLI_MAN_PAGE_H_

#include <string>
#include <vector>

#include "cli/command_help.h"
#include "cli/topics.h"

namespace rprof {

std::string RprofManPage(const std::vector<CommandDoc>& commands);
std::string CommandManPage(const CommandDoc& command);
std::string TopicManPage(const Topic& topic);

// Markdown as the manual's topics write it (headings, paragraphs, "- " lists, ``` blocks,
// | tables |, `code` and **bold**) in man(7) macros; lines that are only an HTML comment are
// left out.
std::string MarkdownToRoff(const std::string& markdown);

}  // namespace rprof

#endif  // RPROF_CLI_MAN_PAGE_H_
