#!/usr/bin/env python3
# Checks the one-way dependency rule (ARCHITECTURE.md, "Dependencies point one way"): every
# #include in src/<lib>/ and runtime/ must follow the table below, the callprof_* link edges in the
# CMakeLists.txt files must be declared in it, and every include must be backed by a link edge.
import argparse
import os
import re
import sys
from pathlib import Path

# Library -> libraries it may include directly; transitive edges count. A library is a folder
# of src/, or runtime/; src/collect/ is five, one per CMake target. "*" = every other src/ library.
ALLOWED = {
    "util": [],
    "wire": [],                                   # header-only: the runtime <-> recorder protocol
    "runtime": ["wire"],                          # the in-process runtime: libc and src/wire only
    "model": ["util"],
    "trace": ["model", "util"],                   # ARCHITECTURE.md's profile_file
    "symbols": ["model", "util"],
    "target": ["model", "symbols", "util", "wire"],  # symbols: inject finds functions in the target's modules; wire: the attach frames
    # the exact-mode runtime's dumps, named through the recording's one function table (stacks)
    "collect/runtime": ["collect/stacks", "model", "symbols", "wire"],
    "collect/perf": ["util"],                     # perf_event sessions, rings, records
    # collect/stacks: unwinding, frame names, the stack engine, the one function table.
    "collect/stacks": ["collect/perf", "model", "symbols", "util"],
    # probe mode: sites by disassembly, hits paired into calls on the stack engine's paths
    "collect/probes": ["collect/stacks", "collect/perf", "model", "symbols"],
    "collect/syscalls": ["model", "symbols", "wire"],
    # record: one session per recording (sources, drain loop, snapshots, metadata, write).
    "record": ["collect/runtime", "collect/perf", "collect/stacks", "collect/probes", "collect/syscalls", "target", "trace",
               "model", "symbols", "util"],
    "graph": ["model"],
    "query": ["model", "graph"],
    "report": ["query", "graph"],
    "export": ["query", "graph"],                 # one writer per foreign format
    "render": ["query", "graph", "util"],         # call graph layout (libgvc) and SVG pictures
    "html": ["report", "render", "query", "util"],  # the self-contained web report
    "cli": ["*"],                                 # and nothing depends on cli
}

SOURCE_SUFFIXES = {".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".cxx", ".S", ".inc", ".ipp"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
CMAKE_RE = re.compile(r"\b(add_library|add_executable|target_link_libraries|target_sources)\s*\(([^)]*)\)")
CMAKE_KEYWORDS = {"STATIC", "SHARED", "OBJECT", "MODULE", "INTERFACE", "PUBLIC", "PRIVATE",
                  "EXCLUDE_FROM_ALL", "IMPORTED", "GLOBAL", "ALIAS", "WIN32", "MACOSX_BUNDLE"}


def folder(lib):
    return lib if lib == "runtime" else "src/" + lib


def library_of(rel):
    """The library owning a path relative to the root (the longest folder that holds it)."""
    for lib in sorted(ALLOWED, key=len, reverse=True):
        if rel.startswith(folder(lib) + "/"):
            return lib
    return None


def declared_closure():
    direct = {lib: [d for d in ALLOWED if d not in ("cli", "runtime")] if deps == ["*"] else deps
              for lib, deps in ALLOWED.items()}
    return direct, {lib: reachable(lib, direct) for lib in direct}


def reachable(start, edges):
    seen, todo = set(), list(edges.get(start, []))
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(edges.get(node, []))
    return seen


class CMakeModel:
    """callprof targets: their library (from their sources) and their callprof_* link edges."""

    def __init__(self, root):
        self.library = {}   # target -> library
        self.links = []     # (target, linked target, CMakeLists path, line)
        self.problems = []
        sources = {}
        files = sorted(root.glob("src/**/CMakeLists.txt")) + sorted(root.glob("runtime/**/CMakeLists.txt"))
        for path in files:
            rel = path.relative_to(root).as_posix()
            text = re.sub(r"#[^\n]*", "", path.read_text())
            for match in CMAKE_RE.finditer(text):
                command, args = match.group(1), match.group(2).split()
                line = text.count("\n", 0, match.start()) + 1
                if not args or "$" in args[0]:
                    continue
                target, rest = args[0], [a for a in args[1:] if a not in CMAKE_KEYWORDS]
                if command == "target_link_libraries":
                    self.links += [(target, dep, rel, line) for dep in rest if re.fullmatch(r"callprof[-_][\w-]+", dep)]
                else:
                    found = sources.setdefault(target, (rel, line, set()))[2]
                    found.update(library_of(os.path.relpath(os.path.normpath(path.parent / s), root))
                                 for s in rest if "$" not in s)
                    found.discard(None)
        for target, (rel, line, libs) in sources.items():
            if len(libs) > 1:
                self.problems.append(f"{rel}:{line}: target {target} spans libraries {', '.join(sorted(libs))}")
            elif libs:
                self.library[target] = libs.pop()
        self.links = [link for link in self.links if link[0] in self.library and link[1] in self.library]

    def targets_of(self, lib):
        return sorted(t for t, l in self.library.items() if l == lib)

    def reach(self, lib):
        """Libraries linked, directly or transitively, by any target of lib (static: all visibilities)."""
        edges = {}
        for target, dep, _, _ in self.links:
            edges.setdefault(target, []).append(dep)
        targets = set().union(*(reachable(t, edges) for t in self.targets_of(lib)))
        return {self.library[t] for t in targets}


def include_library(root, rel, lib, name):
    """The library an include names, None for a system or third-party header."""
    search = [(root / rel).parent] + ([root / "runtime"] if lib == "runtime" else []) + [root / "src"]
    for base in search:
        candidate = (base / name).resolve()
        if candidate.is_file() and candidate.is_relative_to(root):
            return library_of(candidate.relative_to(root).as_posix()) or "?"
    first = name.split("/")[0]
    if first == "runtime":
        return "runtime"
    if "/" not in name:
        return None
    # Not on disk: generated (e.g. "trace/profile.pb.h") or missing; its folder names the library.
    return library_of("src/" + name) or ("?" if (root / "src" / first).is_dir() else None)


def check(root):
    _, allowed = declared_closure()
    cmake = CMakeModel(root)
    problems = list(cmake.problems)
    for target, dep, rel, line in cmake.links:
        lib, dep_lib = cmake.library[target], cmake.library[dep]
        if dep_lib != lib and dep_lib not in allowed[lib]:
            problems.append(f"{rel}:{line}: {lib} may not link {dep} ({lib} -> {dep_lib} is not a declared edge)")
    reach = {lib: cmake.reach(lib) for lib in ALLOWED}
    undeclared = set()
    files = sorted(p for top in ("src", "runtime") for p in (root / top).rglob("*") if p.suffix in SOURCE_SUFFIXES)
    for path in files:
        rel = path.relative_to(root).as_posix()
        lib = library_of(rel)
        if lib is None:
            undeclared.add(str(Path(rel).parent))
            continue
        for number, text in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE_RE.match(text)
            dep = match and include_library(root, rel, lib, match.group(2))
            if not dep or dep == lib:
                continue
            where, name = f"{rel}:{number}", match.group(2)
            if dep == "?":
                problems.append(f'{where}: "{name}" belongs to no declared library')
            elif dep not in allowed[lib]:
                problems.append(f'{where}: {lib} may not include "{name}" ({lib} -> {dep} is not a declared edge)')
            elif cmake.targets_of(lib) and cmake.targets_of(dep) and dep not in reach[lib]:
                problems.append(f'{where}: {lib} includes "{name}" but CMake does not link {lib} to {dep} '
                                f"(allowed by the table; the build works only by accident)")
    problems += [f"{d}: not a declared library (add it to ALLOWED in scripts/check-deps.py)" for d in sorted(undeclared)]
    return problems


def print_list(root):
    direct, allowed = declared_closure()
    cmake = CMakeModel(root)
    print("Declared edges (direct -> ; transitive closure in brackets):")
    for lib in ALLOWED:
        print(f"  {lib:17} -> {' '.join(direct[lib]) or '-'}   [{' '.join(sorted(allowed[lib])) or '-'}]")
    print("CMake link edges (library [targets] -> libraries linked directly; reached in brackets):")
    for lib in ALLOWED:
        targets = cmake.targets_of(lib)
        linked = sorted({cmake.library[d] for t, d, _, _ in cmake.links if t in targets} - {lib})
        reached = sorted(cmake.reach(lib) - {lib})
        print(f"  {lib:17} [{' '.join(targets) or 'no target: header-only'}] -> "
              f"{' '.join(linked) or '-'}   [{' '.join(reached) or '-'}]")


def main():
    parser = argparse.ArgumentParser(description="Check includes and CMake link edges against the dependency table.")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="repository root (default: this script's parent folder)")
    parser.add_argument("--list", action="store_true", help="print the declared table and the CMake edges")
    options = parser.parse_args()
    root = options.root.resolve()
    if options.list:
        print_list(root)
        return 0
    problems = check(root)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
