// The manual's topics: what is not a command (regions, json, the database, ...), one Markdown
// file each under profiler/manual/, compiled in. `rprof help TOPIC` prints one, the build
// turns each into rprof-TOPIC(7).
#ifndef RPROF_CLI_TOPICS_H_
#define RPROF_CLI_TOPICS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace rprof {

struct Topic {
  std::string name;     // "regions": the file name without .md
  std::string summary;  // the title line's text after "# NAME — "
  std::string text;     // the Markdown after the title line
};

// Every topic, by name.
const std::vector<Topic>& Topics();
const Topic* FindTopic(const std::string& name);
std::vector<std::string> TopicNames();

// A topic's text for people, fitted to `width` columns (0: no limit): its title, then its
// Markdown (cli/markdown_text.h), without the lines that are only an HTML comment (the
// illustrative marks the README-lines test reads).
std::string TopicForTerminal(const Topic& topic, size_t width);

// Whether a line is only an HTML comment (`<!-- illustrative: ... -->`).
bool IsCommentLine(const std::string& line);

}  // namespace rprof

#endif  // RPROF_CLI_TOPICS_H_
