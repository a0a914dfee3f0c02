// The manual's Markdown as text for a terminal (`rprof help TOPIC`): paragraphs and list items
// wrapped to the width, code blocks as written (indented), tables as a name line and its
// wrapped text, and lines that are only an HTML comment left out. Inline markup (`code`,
// **bold**) stays as written: it reads as such in plain text.
#ifndef RPROF_CLI_MARKDOWN_TEXT_H_
#define RPROF_CLI_MARKDOWN_TEXT_H_

#include <string>
#include <vector>

namespace rprof {

// width 0: no wrapping (COLUMNS=0), every paragraph on one line.
std::string MarkdownToText(const std::string& markdown, size_t width);

// The cells of a Markdown table row ("| a | `b|c` |" -> {"a", "`b|c`"}): a '|' inside `code`
// is text, not a border. The terminal's text and the man pages read tables alike.
std::vector<std::string> MarkdownTableCells(const std::string& row);

}  // namespace rprof

#endif  // RPROF_CLI_MARKDOWN_TEXT_H_
