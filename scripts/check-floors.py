#!/usr/bin/env python3
"""Fails when a source file includes a header of a floor above its own.

The floors and what each may include are not written here: CMakeLists.txt declares them
(onnx_legalize_floor) and writes them to a table in the build folder, one floor a line:

    <floor> <paths it owns, comma-separated> <floors it may include, comma-separated or ->

A path ending in "/" owns a folder, any other a single file; both are spelled as #include lines spell
them (src/ and include/ are the roots). Every file under src/ and include/ must belong to a floor, and
every project header it includes must belong to itself or to a floor it may include.

Usage: check-floors.py TABLE SOURCE_DIR
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ROOTS = ("src", "include")


def read_table(path):
    owners, allowed = [], {}
    with open(path) as table:
        for line in table:
            if not line.strip():
                continue
            floor, paths, below = line.split()
            for owned in paths.split(","):
                owners.append((owned, floor))
            allowed[floor] = set() if below == "-" else set(below.split(","))
    # The longest path that matches decides, so that a file can be given to another floor than its folder.
    owners.sort(key=lambda owner: len(owner[0]), reverse=True)
    return owners, allowed


def floor_of(spelled, owners):
    for owned, floor in owners:
        if spelled == owned or (owned.endswith("/") and spelled.startswith(owned)):
            return floor
    return None


def main():
    table, source_dir = sys.argv[1], sys.argv[2]
    owners, allowed = read_table(table)
    problems = []
    for root in ROOTS:
        base = os.path.join(source_dir, root)
        for folder, _, names in os.walk(base):
            for name in sorted(names):
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.join(folder, name)
                spelled = os.path.relpath(path, base)
                floor = floor_of(spelled, owners)
                if floor is None:
                    problems.append(f"{root}/{spelled}: belongs to no floor (add it to one in CMakeLists.txt)")
                    continue
                with open(path, encoding="utf-8") as source:
                    text = source.read()
                for header in INCLUDE.findall(text):
                    if not any(os.path.exists(os.path.join(source_dir, r, header)) for r in ROOTS):
                        continue  # a dependency's header (absl, onnx, protobuf, Eigen)
                    target = floor_of(header, owners)
                    if target != floor and target not in allowed[floor]:
                        problems.append(f"{root}/{spelled} ({floor}) includes {header} ({target}), "
                                        f"which {floor} may not: it may include {sorted(allowed[floor]) or 'nothing'}")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} include(s) against the floors (docs/architecture.md, 'The floors')")
        return 1
    print("every include runs down the floors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
