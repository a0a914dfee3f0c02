#!/usr/bin/env python3
"""Writes a C++ source that holds text files as strings, so the binary carries the data it was
built with (schema migrations, derived-metric formulas) and needs no install step to find it.

usage: embed_files.py OUTPUT.cc NAMESPACE_SYMBOL FILE...
Defines `const rprof::EmbeddedFile SYMBOL[]` ({file name, text}) and `SYMBOL_count`,
in file-name order.
"""
import os
import sys


def main():
    out, symbol, files = sys.argv[1], sys.argv[2], sorted(sys.argv[3:], key=os.path.basename)
    lines = ['#include "core/embedded_file.h"', "", "namespace rprof {", "",
             f"extern const EmbeddedFile {symbol}[] = {{"]
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        delim = "rprof_embed"
        assert f"){delim}\"" not in text, f"{path} holds the raw-string delimiter"
        lines.append(f'  {{"{os.path.basename(path)}", R"{delim}({text}){delim}"}},')
    lines += ["};", f"extern const int {symbol}_count = {len(files)};", "", "}  // namespace rprof", ""]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
