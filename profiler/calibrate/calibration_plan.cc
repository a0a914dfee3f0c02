#include "calibrate/calibration_plan.h"

#include <fstream>
#include <sstream>

#include "core/data_location.h"
#include "core/memory_level.h"

namespace rprof {

namespace {

bool IsLevel(const std::string& s) { return ParseMemoryLevel(s).has_value(); }

// "n=ws/24" → param "n", 24 bytes per unit.
bool ParseSize(const std::string& text, std::string* param, double* bytes_per_unit) {
  size_t eq = text.find("=ws/");
  if (eq == std::string::npos || eq == 0) return false;
  *param = text.substr(0, eq);
  std::string bytes = text.substr(eq + 4);
  size_t used = 0;
  try {
    *bytes_per_unit = std::stod(bytes, &used);
  } catch (...) {
    return false;
  }
  return used == bytes.size() && *bytes_per_unit > 0;
}

}  // namespace

bool ParseCalibrationPlan(std::string_view text, std::string_view origin,
                          std::vector<CalibrationCheck>* plan, Error* err) {
  std::istringstream in{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    if (f.empty()) continue;
    auto fail = [&](const std::string& why) {
      return Fail(err, ErrorKind::kEnvironment,
                  std::string(origin) + ":" + std::to_string(number) + ": " + why);
    };
    if (f.size() < 5) return fail("expected: kernel size metric expected levels...");
    std::string size_param;
    double bytes_per_unit = 0;
    if (!ParseSize(f[1], &size_param, &bytes_per_unit))
      return fail("size '" + f[1] + "' is not PARAM=ws/BYTES");
    Error why;
    std::optional<Formula> expected = Formula::Parse(f[3], &why);
    if (!expected) return fail("expected '" + f[3] + "': " + why.message);
    std::vector<std::string> levels;
    for (size_t i = 4; i < f.size(); ++i) {
      if (!IsLevel(f[i])) return fail("level '" + f[i] + "' is not l1, l2, l3 or dram");
      levels.push_back(f[i]);
    }
    CalibrationCheck check{
        f[0], size_param, bytes_per_unit, f[2], std::move(*expected), std::move(levels), number};
    plan->push_back(std::move(check));
  }
  if (plan->empty()) return Fail(err, ErrorKind::kEnvironment, std::string(origin) + ": no checks");
  return true;
}

bool LoadCalibrationPlan(std::vector<CalibrationCheck>* plan, Error* err) {
  std::string path = DataPath("calibration_plan.txt", "profiler/calibrate/calibration_plan.txt");
  std::ifstream in(path);
  if (!in)
    return Fail(err, ErrorKind::kEnvironment,
                path + ": cannot read the calibration plan; reinstall rprof");
  std::stringstream text;
  text << in.rdbuf();
  return ParseCalibrationPlan(text.str(), path, plan, err);
}

}  // namespace rprof
