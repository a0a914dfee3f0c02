#include "cli/markdown_text.h"

#include <sstream>
#include <vector>

#include "cli/topics.h"
#include "report/text_wrap.h"

namespace rprof {

namespace {

std::string Trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

// `text` wrapped to `width` with `first` before its first line and `rest` before the others.
std::string Wrapped(const std::string& text, size_t width, const std::string& first,
                    const std::string& rest) {
  if (width == 0 || width <= rest.size() + 20) return first + text + "\n";
  std::string out;
  std::vector<std::string> lines = WrapText(text, width - first.size(), width - rest.size());
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? rest : first) + lines[i] + "\n";
  return out;
}

}  // namespace

std::string MarkdownToText(const std::string& markdown, size_t width) {
  std::string out, paragraph;
  bool in_code = false, item = false;
  std::vector<std::string> header;
  auto flush = [&] {
    if (!paragraph.empty())
      out += item ? Wrapped(paragraph, width, "- ", "  ") : Wrapped(paragraph, width, "", "");
    paragraph.clear();
    item = false;
  };
  std::istringstream in(markdown);
  std::string line;
  while (std::getline(in, line)) {
    if (IsCommentLine(line)) continue;
    std::string trimmed = Trim(line);
    if (trimmed.rfind("```", 0) == 0) {
      flush();
      in_code = !in_code;
      continue;
    }
    if (in_code) {
      out += "  " + line + "\n";
      continue;
    }
    if (trimmed.empty()) {
      flush();
      header.clear();
      if (!out.empty() && out.compare(out.size() - 2, 2, "\n\n") != 0) out += "\n";
      continue;
    }
    if (trimmed.front() == '#') {
      flush();
      out += trimmed + "\n";
      continue;
    }
    if (trimmed.front() == '|') {
      flush();
      std::vector<std::string> cells = MarkdownTableCells(trimmed);
      if (trimmed.find_first_not_of("|-: ") == std::string::npos) continue;
      if (header.empty()) {
        header = cells;
        continue;
      }
      std::string body;
      for (size_t i = 1; i < cells.size(); ++i)
        body += (i > 1 ? "; " : "") +
                (cells.size() > 2 && i < header.size() ? header[i] + ": " : "") + cells[i];
      out += Wrapped(cells[0], width, "", "  ") + Wrapped(body, width, "    ", "    ");
      continue;
    }
    if (line.rfind("- ", 0) == 0) {
      flush();
      paragraph = trimmed.substr(2);
      item = true;
      continue;
    }
    paragraph += (paragraph.empty() ? "" : " ") + trimmed;
  }
  flush();
  return out;
}

std::vector<std::string> MarkdownTableCells(const std::string& row) {
  std::vector<std::string> cells;
  std::string body = Trim(row), cell;
  if (!body.empty() && body.front() == '|') body.erase(0, 1);
  if (!body.empty() && body.back() == '|') body.pop_back();
  bool in_code = false;
  for (char c : body) {
    if (c == '`') in_code = !in_code;
    if (c == '|' && !in_code) {
      cells.push_back(Trim(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(Trim(cell));
  return cells;
}

}  // namespace rprof
