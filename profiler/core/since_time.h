// The moment a `--since TEXT` means, as the ISO 8601 UTC text runs are stored under
// ("2026-11-29T23:40:00.000Z"), so that the store compares it as text. Anything else is refused:
// a filter that silently matched nothing (`--since yesterday` compared as text) answered
// a question nobody asked.
#ifndef RPROF_CORE_SINCE_TIME_H_
#define RPROF_CORE_SINCE_TIME_H_

#include <ctime>
#include <string>

#include "core/error.h"

namespace rprof {

// Accepts an ISO 8601 date or date and time: 2026, 2026-11 (their first day, as a prefix of the
// stored text meant before), 2026-11-29, 2026-11-29T14:05, 2026-11-29 14:05:09,
// seconds with a fraction, ending in Z or an offset (+02:00, -0500) or, without one, UTC (as
// rprof shows and stores times); `today` and `yesterday`, from local midnight; a span back from
// `now`: 45s, 30m, 2h, 3d, 1w. False with *why (kUsage) for anything else, or a date or time
// that does not exist (2026-02-30, 25:00).
[[nodiscard]] bool ParseSinceTime(const std::string& text, std::time_t now, std::string* utc,
                                  Error* why);

}  // namespace rprof

#endif  // RPROF_CORE_SINCE_TIME_H_
