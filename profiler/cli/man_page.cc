#include "cli/man_page.h"

#include <cctype>
#include <cstdio>
#include <sstream>

#include "cli/help.h"
#include "cli/markdown_text.h"
#include "rprof_config.h"

namespace rprof {

namespace {

// Text as troff prints it: backslashes and hyphens escaped (so `--db` stays two ASCII hyphens
// to copy), and a line that starts with a control character protected.
std::string Escape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if (c >= 0x80) {
      // Non-ASCII as groff's \[uXXXX], so the page renders without preconv too. The topics
      // are UTF-8 (the README-lines and manual tests read them as such).
      int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
      unsigned code = c & (0x3F >> extra);
      for (int k = 0; k < extra && i + 1 < text.size(); ++k)
        code = (code << 6) | (static_cast<unsigned char>(text[++i]) & 0x3F);
      char hex[16];
      std::snprintf(hex, sizeof hex, "\\[u%04X]", code);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string ProtectLineStart(const std::string& line) {
  if (!line.empty() && (line[0] == '.' || line[0] == '\'')) return "\\&" + line;
  return line;
}

// `code` in bold, **bold** in bold, the rest escaped.
std::string Inline(const std::string& text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '`') {
      size_t end = text.find('`', i + 1);
      if (end != std::string::npos) {
        out += "\\fB" + Escape(text.substr(i + 1, end - i - 1)) + "\\fR";
        i = end + 1;
        continue;
      }
    }
    if (text.compare(i, 2, "**") == 0) {
      size_t end = text.find("**", i + 2);
      if (end != std::string::npos) {
        out += "\\fB" + Inline(text.substr(i + 2, end - i - 2)) + "\\fR";
        i = end + 2;
        continue;
      }
    }
    size_t next = text.find_first_of("`*", i + 1);
    if (next == std::string::npos) next = text.size();
    out += Escape(text.substr(i, next - i));
    i = next;
  }
  return out;
}

std::string Trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

bool IsSeparatorRow(const std::string& row) {
  return Trim(row).find_first_not_of("|-: ") == std::string::npos;
}

std::string Header(const std::string& name, int section, const std::string& title) {
  std::string upper;
  for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return ".TH \"" + Escape(upper) + "\" " + std::to_string(section) + " \"\" \"rprof " +
         RPROF_VERSION + "\" \"rprof manual\"\n.nh\n.ad l\n.SH NAME\n" + Escape(name) + " \\- " +
         Inline(title) + "\n";
}

std::string Paragraphs(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (Trim(line).empty()) continue;
    out += ".PP\n" + ProtectLineStart(Inline(line)) + "\n";
  }
  return out;
}

std::string OptionEntry(const OptionHelp& option) {
  std::string tag;
  if (option.short_name) tag += "\\fB\\-" + std::string(1, option.short_name) + "\\fR, ";
  tag += "\\fB\\-\\-" + Escape(option.long_name) + "\\fR";
  if (!option.argument.empty()) tag += " \\fI" + Escape(option.argument) + "\\fR";
  return ".TP\n" + tag + "\n" + ProtectLineStart(Inline(option.description)) + "\n";
}

std::string SeeAlso(const std::string& self) {
  std::string out = ".SH SEE ALSO\n";
  std::vector<std::string> refs;
  if (self != "rprof") refs.push_back("\\fBrprof\\fR(1)");
  for (const Topic& t : Topics())
    if ("rprof-" + t.name != self) refs.push_back("\\fBrprof\\-" + Escape(t.name) + "\\fR(7)");
  for (size_t i = 0; i < refs.size(); ++i) out += refs[i] + (i + 1 < refs.size() ? ",\n" : "\n");
  return out;
}

}  // namespace

std::string MarkdownToRoff(const std::string& markdown) {
  std::string out;
  std::istringstream in(markdown);
  std::string line;
  bool in_code = false, in_item = false, new_paragraph = true;
  std::vector<std::string> table_header;
  while (std::getline(in, line)) {
    if (IsCommentLine(line)) continue;
    std::string trimmed = Trim(line);
    if (trimmed.rfind("```", 0) == 0) {
      out += in_code ? ".fi\n.RE\n" : ".PP\n.RS 4\n.nf\n";
      in_code = !in_code;
      in_item = false;
      new_paragraph = true;
      continue;
    }
    if (in_code) {
      out += "\\&" + Escape(line) + "\n";
      continue;
    }
    if (trimmed.empty()) {
      in_item = false;
      new_paragraph = true;
      table_header.clear();
      continue;
    }
    if (trimmed.rfind("#", 0) == 0) {
      size_t level = trimmed.find_first_not_of('#');
      std::string title = Trim(trimmed.substr(level));
      std::string upper;
      for (char c : title) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      out += (level <= 2 ? ".SH \"" + Inline(upper) : ".SS \"" + Inline(title)) + "\"\n";
      in_item = false;
      new_paragraph = false;
      continue;
    }
    if (trimmed.front() == '|') {
      std::vector<std::string> cells = MarkdownTableCells(trimmed);
      if (IsSeparatorRow(trimmed)) continue;
      if (table_header.empty()) {
        table_header = cells;  // the column titles: named in each row of more than two
        continue;
      }
      std::string body;
      if (cells.size() == 2) {
        body = Inline(cells[1]);
      } else {
        for (size_t i = 1; i < cells.size(); ++i)
          body += (i > 1 ? "; " : "") +
                  Inline((i < table_header.size() ? table_header[i] + ": " : "") + cells[i]);
      }
      out += ".TP\n" + ProtectLineStart(Inline(cells[0])) + "\n" + ProtectLineStart(body) + "\n";
      continue;
    }
    if (trimmed.rfind("- ", 0) == 0 && line.rfind("- ", 0) == 0) {
      out += ".IP \\(bu 2\n" + ProtectLineStart(Inline(trimmed.substr(2))) + "\n";
      in_item = true;
      continue;
    }
    // A paragraph's first line starts one; the lines after it (or an item's) continue it.
    if (new_paragraph && !in_item) out += ".PP\n";
    new_paragraph = false;
    out += ProtectLineStart(Inline(trimmed)) + "\n";
  }
  if (in_code) out += ".fi\n.RE\n";
  return out;
}

std::string RprofManPage(const std::vector<CommandDoc>& commands) {
  std::string out = Header("rprof", 1, "the roofline profiler");
  out +=
      ".SH SYNOPSIS\n.B rprof\n[\\-\\-db \\fIPATH\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR...]\n.br\n"
      ".B rprof\n[\\-\\-db \\fIPATH\\fR] [\\fIrun options\\fR] [\\-\\-] "
      "\\fIKERNEL\\fR|\\fIPLUGIN.so\\fR|\\fIPROGRAM\\fR [\\fIPROGRAM ARGS\\fR...]\n";
  out +=
      ".SH DESCRIPTION\n"
      "rprof measures code against this machine's roofline: time, FLOPs and bytes moved, "
      "with every value labelled by its source (clock, pmu, sim, model), and stores every "
      "run in SQLite.\n.PP\n"
      "\\fBrprof\\fR [\\fIrun options\\fR] \\fITARGET\\fR is \\fBrprof run\\fR "
      "[\\fIrun options\\fR] \\fITARGET\\fR: rprof's options come before the program, "
      "everything after it is the program's.\n";
  out += ".SH COMMANDS\n";
  for (const CommandDoc& doc : commands) {
    std::string needs = NeedsLabel(*doc.command);
    out += ".TP\n\\fBrprof\\-" + Escape(doc.command->name) + "\\fR(1)\n" +
           ProtectLineStart(Inline(doc.command->summary)) +
           (needs.empty() ? "" : " [needs: " + needs + "]") + "\n";
  }
  out += ".SH TOPICS\n";
  for (const Topic& t : Topics())
    out += ".TP\n\\fBrprof\\-" + Escape(t.name) + "\\fR(7)\n" +
           ProtectLineStart(Inline(t.summary)) + "\n.br\nAlso: \\fBrprof help " + Escape(t.name) +
           "\\fR\n";
  out += ".SH GLOBAL OPTIONS\n";
  for (const GlobalOptionHelp& option : GlobalOptionHelps())
    out += ".TP\n\\fB" + Escape(option.name) + "\\fR" +
           (*option.argument ? std::string(" \\fI") + Escape(option.argument) + "\\fR" : "") +
           "\n" + ProtectLineStart(Inline(option.description)) + "\n";
  out +=
      ".SH EXIT STATUS\n0 ok, 1 the target failed, 2 usage error, 3 environment (counters, "
      "database, output); \\fBrprof help output\\fR says more.\n";
  out += SeeAlso("rprof");
  return out;
}

std::string CommandManPage(const CommandDoc& doc) {
  std::string name = std::string("rprof-") + doc.command->name;
  std::string out = Header(name, 1, doc.command->summary);
  out += ".SH SYNOPSIS\n";
  for (size_t i = 0; i < doc.helps.size(); ++i)
    out += (i ? ".br\n" : "") + std::string(".B rprof ") + Escape(doc.helps[i].command) + "\n" +
           ProtectLineStart(Escape(doc.helps[i].usage)) + "\n";
  out += ".SH DESCRIPTION\n";
  std::string needs = NeedsLabel(*doc.command);
  if (doc.helps.size() == 1) {
    out += Paragraphs(doc.helps[0].description);
  } else {
    // The overview that `rprof help COMMAND` prints after its usage lines.
    std::string overview = doc.overview;
    size_t blank = overview.find("\n\n");
    out += ".nf\n";
    std::istringstream in(blank == std::string::npos ? overview : overview.substr(blank + 2));
    std::string line;
    while (std::getline(in, line)) out += "\\&" + Escape(line) + "\n";
    out += ".fi\n";
  }
  if (!needs.empty()) out += ".PP\nNeeds: " + needs + ".\n";
  out += ".SH OPTIONS\n";
  for (const CommandHelp& help : doc.helps) {
    if (doc.helps.size() > 1) {
      out += ".SS \"rprof " + Escape(help.command) + "\"\n" + Paragraphs(help.description);
    }
    for (const OptionHelp& option : help.options) out += OptionEntry(option);
  }
  out += SeeAlso(name);
  return out;
}

std::string TopicManPage(const Topic& topic) {
  return Header("rprof-" + topic.name, 7, topic.summary) + ".SH DESCRIPTION\n" +
         "Also printed by \\fBrprof help " + Escape(topic.name) + "\\fR.\n.PP\n" +
         MarkdownToRoff(topic.text) + SeeAlso("rprof-" + topic.name);
}

}  // namespace rprof
