# Tests scripts/check-deps.py on a small fake tree built in a temporary folder: an allowed
# include, a forbidden one, one allowed by the table but not linked in CMake, and a link edge
# the table does not declare.
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

CHECKER = Path(__file__).resolve().parents[2] / "scripts" / "check-deps.py"


class CheckDepsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        self.write("src/util/CMakeLists.txt", "add_library(callprof_util STATIC escape.cpp)\n")
        self.write("src/util/result.h", "#pragma once\n")
        self.write("src/util/escape.cpp", '#include "util/result.h"\n')
        self.write("src/model/CMakeLists.txt",
                   "add_library(callprof_model STATIC\n  profile.cpp)\n"
                   "target_link_libraries(callprof_model PUBLIC callprof_util)\n")
        self.write("src/model/profile.h", '#pragma once\n#include "util/result.h"\n')
        self.write("src/model/profile.cpp", '#include "model/profile.h"\n#include <vector>\n')
        self.write("src/symbols/CMakeLists.txt",
                   "add_library(callprof_symbols STATIC symbolizer.cpp)\n"
                   "target_link_libraries(callprof_symbols PUBLIC callprof_util)\n")
        self.write("src/symbols/symbolizer.cpp", '#include "util/result.h"\n')
        # report -> query -> graph -> model -> util: util is allowed transitively, and linked.
        self.write("src/report/CMakeLists.txt",
                   "add_library(callprof_report STATIC view.cpp)\n"
                   "target_link_libraries(callprof_report PUBLIC callprof_model fmt::fmt)\n")
        self.write("src/report/view.cpp", '#include "report/view.h"\n#include "util/result.h"\n')
        self.write("src/report/view.h", "#pragma once\n")
        self.write("src/cli/commands.h", "#pragma once\n")
        self.write("runtime/CMakeLists.txt", "add_library(callprof-rt SHARED hooks.cpp)\n")
        self.write("runtime/hooks.cpp", '#include "process.h"\n#include "wire/raw_dump.h"\n')
        self.write("runtime/process.h", "#pragma once\n")
        self.write("src/wire/raw_dump.h", "#pragma once\n")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def append(self, rel, text):
        with open(self.root / rel, "a") as f:
            f.write(text)

    def run_checker(self, *args):
        done = subprocess.run([sys.executable, str(CHECKER), "--root", str(self.root), *args],
                              capture_output=True, text=True)
        return done.returncode, done.stdout.splitlines()

    def test_allowed_includes_pass_silently(self):
        self.assertEqual(self.run_checker(), (0, []))

    def test_forbidden_include_is_reported(self):
        self.append("src/report/view.cpp", '#include "cli/commands.h"\n')
        self.assertEqual(self.run_checker(), (1, [
            'src/report/view.cpp:3: report may not include "cli/commands.h" '
            "(report -> cli is not a declared edge)"]))

    def test_include_allowed_by_table_but_not_linked_is_reported(self):
        self.append("src/symbols/symbolizer.cpp", '#include "model/profile.h"\n')
        self.assertEqual(self.run_checker(), (1, [
            'src/symbols/symbolizer.cpp:2: symbols includes "model/profile.h" but CMake does not '
            "link symbols to model (allowed by the table; the build works only by accident)"]))

    def test_generated_header_belongs_to_its_folder(self):
        self.append("src/model/profile.cpp", '#include "trace/profile.pb.h"\n')
        self.assertEqual(self.run_checker(), (1, [
            'src/model/profile.cpp:3: model may not include "trace/profile.pb.h" '
            "(model -> trace is not a declared edge)"]))

    def test_runtime_may_not_reach_host_libraries(self):
        self.append("runtime/hooks.cpp", '#include "../src/util/result.h"\n')
        code, lines = self.run_checker()
        self.assertEqual(code, 1)
        self.assertEqual(lines, ['runtime/hooks.cpp:3: runtime may not include "../src/util/result.h" '
                                 "(runtime -> util is not a declared edge)"])

    def test_undeclared_link_edge_is_reported(self):
        self.write("src/util/CMakeLists.txt", "add_library(callprof_util STATIC escape.cpp)\n"
                   "target_link_libraries(callprof_util PRIVATE callprof_report)\n")
        self.assertEqual(self.run_checker(), (1, [
            "src/util/CMakeLists.txt:2: util may not link callprof_report "
            "(util -> report is not a declared edge)"]))

    def test_list_prints_table_and_cmake_edges(self):
        code, lines = self.run_checker("--list")
        self.assertEqual(code, 0)
        self.assertIn("  report            -> query graph   [graph model query util]", lines)
        self.assertIn("  report            [callprof_report] -> model   [model util]", lines)


if __name__ == "__main__":
    unittest.main()
