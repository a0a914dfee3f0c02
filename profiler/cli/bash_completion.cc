#include "cli/bash_completion.h"

#include "cli/help.h"
#include "cli/topics.h"

namespace rprof {

namespace {

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// "--param -p --kernel -k ..." of one usage.
std::string OptionWords(const CommandHelp& help) {
  std::vector<std::string> words;
  for (const OptionHelp& option : help.options) {
    words.push_back("--" + option.long_name);
    if (option.short_name) words.push_back(std::string("-") + option.short_name);
  }
  return Join(words);
}

// "--param|-p|..." for a case pattern: the options that take a value, whose next word is theirs.
std::string ValueOptions(const std::vector<CommandDoc>& commands) {
  std::vector<std::string> words = {"--db"};
  for (const CommandDoc& doc : commands)
    for (const CommandHelp& help : doc.helps)
      for (const OptionHelp& option : help.options)
        if (!option.argument.empty()) {
          std::vector<std::string> names = {"--" + option.long_name};
          if (option.short_name) names.push_back(std::string("-") + option.short_name);
          for (const std::string& word : names) {
            bool seen = false;
            for (const std::string& w : words) seen = seen || w == word;
            if (!seen) words.push_back(word);
          }
        }
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : "|") + w;
  return out;
}

}  // namespace

std::string BashCompletion(const std::vector<CommandDoc>& commands,
                           const std::vector<std::string>& kernels) {
  std::vector<std::string> command_names = {"help"};
  std::string run_options;
  for (const CommandDoc& doc : commands) {
    command_names.push_back(doc.command->name);
    if (std::string(doc.command->name) == "run") run_options = OptionWords(doc.helps[0]);
  }
  std::vector<std::string> globals;
  for (const GlobalOptionHelp& option : GlobalOptionHelps()) {
    std::string name = option.name;
    if (name.rfind("-h, ", 0) == 0) name = name.substr(4);
    if (run_options.find(name + " ") == std::string::npos) globals.push_back(name);
  }

  std::string out =
      "# bash completion for rprof: written by `rprof --write-manual` from its command table\n"
      "# (profiler/cli/commands.cc) and each command's options. Do not edit.\n"
      "_rprof() {\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
      "  local cmd=\"\" sub=\"\" i w\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    w=\"${COMP_WORDS[i]}\"\n"
      "    case \"$w\" in\n"
      "      " +
      ValueOptions(commands) +
      ") ((i++)) ;;\n"
      "      -*) ;;\n"
      "      *) if [[ -z $cmd ]]; then cmd=\"$w\"; elif [[ -z $sub ]]; then sub=\"$w\"; fi ;;\n"
      "    esac\n"
      "  done\n"
      "  case \"$prev\" in\n"
      "    --db|-o|--output|--gnuplot) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
      "    --counters|-c) COMPREPLY=($(compgen -W \"auto pmu sim model\" -- \"$cur\")); return ;;\n"
      "    --format|-f) COMPREPLY=($(compgen -W \"table csv json\" -- \"$cur\")); return ;;\n"
      "  esac\n"
      "  local words=\"\" options=\"\"\n"
      "  case \"$cmd\" in\n"
      "    \"\") words=\"" +
      Join(command_names) + " " + Join(kernels) +
      "\"\n"
      "        options=\"" +
      Join(globals) + " " + run_options +
      "\" ;;\n"
      "    help) [[ -z $sub ]] && words=\"" +
      Join(command_names) + " " + Join(TopicNames()) + "\" ;;\n";
  for (const CommandDoc& doc : commands) {
    std::string name = doc.command->name;
    if (doc.command->subcommands.empty()) {
      out += "    " + name + ") options=\"" + OptionWords(doc.helps[0]) + "\"";
      if (name == "run") out += "\n        [[ -z $sub ]] && words=\"" + Join(kernels) + "\"";
      out += " ;;\n";
      continue;
    }
    out += "    " + name + ")\n      case \"$sub\" in\n";
    for (size_t i = 0; i < doc.command->subcommands.size(); ++i) {
      // Each subcommand's help, found by its name ("machine measure").
      const std::string& sub = doc.command->subcommands[i];
      for (const CommandHelp& help : doc.helps)
        if (help.command == name + " " + sub)
          out += "        " + sub + ") options=\"" + OptionWords(help) + "\" ;;\n";
    }
    out += "        *) words=\"" + Join(doc.command->subcommands) + "\" ;;\n      esac ;;\n";
  }
  // Anything else is a target: `rprof triad -<TAB>` is `rprof run triad -<TAB>`.
  out += "    *) options=\"" + run_options + "\" ;;\n";
  out +=
      "  esac\n"
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
      "  elif [[ -n $words ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "  fi\n"
      "}\n"
      "complete -o default -o bashdefault -F _rprof rprof\n";
  return out;
}

}  // namespace rprof
