#include "functions/function_json.h"

namespace rprof {

void WriteFunctionSource(const std::vector<const Metric*>& metrics, JsonWriter* w) {
  const Metric* first = nullptr;
  const Metric* last = nullptr;
  for (const Metric* m : metrics) {
    if (m->name == "line_first" && m->value) first = m;
    if (m->name == "line_last" && m->value) last = m;
  }
  if (!first || !last) return;
  w->Key("source").BeginObject();
  w->Key("file").String(first->note);
  w->Key("lines").BeginArray().Number(*first->value).Number(*last->value).EndArray();
  w->EndObject();
}

}  // namespace rprof
