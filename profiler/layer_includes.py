#!/usr/bin/env python3
"""Fails the build on an include from a lower folder of profiler/ into a higher one.

Each folder of profiler/ is a library that may use only the layers below it (DESIGN.md, "How the
code is cut"). The link check (layer_check in meson.build) catches a call the wrong way; an
include that uses only types, constants or inline functions links fine, and is caught here.

    layer_includes.py PROFILER_DIR STAMP

LAYERS lists what each folder may include besides itself, as meson.build links them. The public
headers (rprof/..., include/) and system headers (<...>, valgrind/...) are open to all.
"""

import os
import re
import sys

LAYERS = {
    "core": [],
    "process": ["core"],
    "machine": ["core", "process"],
    "functions": ["core"],
    "counters": ["core", "process", "machine", "functions"],
    # The marker library: the program's side of regions. rprof's targets name its files to the
    # programs they start (marker_backend_path.h), so it sits below them.
    "marker": ["core", "process", "machine", "functions", "counters"],
    "gbench": ["marker"],
    "targets": ["core", "process", "machine", "functions", "counters", "marker"],
    "store": ["core", "process", "machine"],
    "roofline": ["core", "process", "machine", "functions", "store"],
    "calibrate": ["core", "process", "machine", "functions", "counters", "targets", "store",
                  "roofline"],
    "report": ["core", "process", "machine", "functions", "store", "roofline"],
    "pipeline": ["core", "process", "machine", "functions", "counters", "marker", "targets",
                 "store", "roofline", "calibrate", "report"],
    "cli": ["core", "process", "machine", "functions", "counters", "marker", "targets", "store",
            "roofline", "calibrate", "report", "pipeline"],
}
OPEN_TO_ALL = {"rprof", "include", "valgrind"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/')
SOURCES = (".h", ".cc", ".c")


def wrong_way_includes(profiler):
    problems = []
    for folder in sorted(os.listdir(profiler)):
        top = os.path.join(profiler, folder)
        if not os.path.isdir(top) or folder in OPEN_TO_ALL:
            continue
        allowed = LAYERS.get(folder)
        for root, _, files in os.walk(top):
            for name in sorted(files):
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) == folder or m.group(1) in OPEN_TO_ALL:
                            continue
                        where = os.path.relpath(path, profiler) + ":" + str(number)
                        if allowed is None:
                            problems.append(f"{where}: folder {folder}/ has no layer "
                                            f"(add it to LAYERS in {__file__})")
                            break
                        if m.group(1) in LAYERS and m.group(1) not in allowed:
                            problems.append(f"{where}: {folder}/ includes {m.group(1)}/, a layer "
                                            f"{folder}/ may not use ({line.strip()})")
    return problems


def main():
    profiler, stamp = sys.argv[1], sys.argv[2]
    problems = wrong_way_includes(profiler)
    if problems:
        for p in problems:
            print("layer_includes: " + p, file=sys.stderr)
        return 1
    with open(stamp, "w") as f:
        f.write("no include goes the wrong way\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
