#include "cli/topics.h"

#include <sstream>

#include "cli/markdown_text.h"
#include "core/embedded_file.h"
#include "report/text_wrap.h"

namespace rprof {

extern const EmbeddedFile kManualFiles[];
extern const int kManualFiles_count;

namespace {

std::string Wrapped(const std::string& text, size_t width) {
  if (width == 0) return text + "\n";
  std::string out;
  for (const std::string& line : WrapText(text, width, width - 2))
    out += (out.empty() ? "" : "  ") + line + "\n";
  return out;
}

Topic ParseTopic(const EmbeddedFile& file) {
  Topic topic;
  topic.name = file.name;
  topic.name = topic.name.substr(0, topic.name.rfind(".md"));
  std::string text = file.text;
  size_t eol = text.find('\n');
  std::string title = text.substr(0, eol);
  // "# regions — marker regions: ..." (the dash is U+2014, three bytes).
  const std::string dash = " \u2014 ";
  size_t at = title.find(dash);
  topic.summary = at == std::string::npos ? title : title.substr(at + dash.size());
  topic.text = eol == std::string::npos ? "" : text.substr(eol + 1);
  while (!topic.text.empty() && topic.text.front() == '\n') topic.text.erase(0, 1);
  return topic;
}

}  // namespace

const std::vector<Topic>& Topics() {
  static const std::vector<Topic> topics = [] {
    std::vector<Topic> all;
    for (int i = 0; i < kManualFiles_count; ++i) all.push_back(ParseTopic(kManualFiles[i]));
    return all;
  }();
  return topics;
}

const Topic* FindTopic(const std::string& name) {
  for (const Topic& t : Topics())
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> TopicNames() {
  std::vector<std::string> names;
  for (const Topic& t : Topics()) names.push_back(t.name);
  return names;
}

bool IsCommentLine(const std::string& line) {
  size_t first = line.find_first_not_of(" \t");
  size_t last = line.find_last_not_of(" \t");
  return first != std::string::npos && line.compare(first, 4, "<!--") == 0 && last >= 2 &&
         line.compare(last - 2, 3, "-->") == 0;
}

std::string TopicForTerminal(const Topic& topic, size_t width) {
  return Wrapped("rprof help " + topic.name + ": " + topic.summary, width) + "\n" +
         MarkdownToText(topic.text, width);
}

}  // namespace rprof
