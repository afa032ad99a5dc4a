#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The GPU lit tests (test/Integration/GPU) on a GPU machine without MLIR.

Those tests compile kernels with fgemmc and run them with fgemm-bench in one
lit run, which needs the compiler and a GPU on one machine; the lent GPU
machine has no MLIR. This splits each test in two:

  here:  scripts/gpu-lit.py prepare DIR [TEST ...]
         runs each test's setup and fgemmc lines (%t = DIR/TEST), copies
         fgemm-bench into DIR/bin and writes DIR/run.py with the rest;
  there: python3 DIR/run.py [TEST ...]
         runs the remaining lines (fgemm-bench, diff, grep) of every
         prepared test (or of the named ones: a call cut short can run
         the rest) from the repository root and checks their output
         against the test's PREFIX: / PREFIX-NOT: lines (the only
         FileCheck directives these tests use: in order, and none of the
         NOT patterns between the positive matches around it), printing
         a line per test and 'N passed, N failed' last.

DIR must lie inside the repository (the device call carries it by its path
relative to the root, e.g. .device/lit). TEST names a file of
test/Integration/GPU without '.test' (default: all of them).
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = ROOT / "test/Integration/GPU"


def run_lines(test):
    """The RUN lines of `test`, continuation lines joined."""
    lines, pending = [], ""
    for line in test.read_text().splitlines():
        m = re.match(r"\s*// RUN: ?(.*)", line)
        if not m:
            continue
        text = pending + m.group(1)
        if text.endswith("\\"):
            pending = text[:-1]
            continue
        pending = ""
        lines.append(text.strip())
    return lines


def checks(test):
    """{prefix: [(negated, pattern)]} from the test's check lines."""
    found = {}
    for line in test.read_text().splitlines():
        m = re.match(r"\s*// ([A-Z][A-Z0-9-]*?)(-NOT)?: (.*)", line)
        if m and m.group(1) not in ("RUN", "REQUIRES", "UNSUPPORTED"):
            found.setdefault(m.group(1), []).append((bool(m.group(2)), m.group(3)))
    return found


def prepare(out, names):
    out = out.resolve()
    try:
        rel = out.relative_to(ROOT)
    except ValueError:
        sys.exit(f"gpu-lit: {out} is not inside the repository {ROOT}: the device call "
                 "carries paths relative to its root")
    build = ROOT / "build/bin"
    for tool in ("fgemmc", "fgemm-bench"):
        if not (build / tool).exists():
            sys.exit(f"gpu-lit: no {build / tool} (scripts/build.sh builds it)")
    tests = [TESTS / f"{n}.test" for n in names] or sorted(TESTS.glob("*.test"))
    shutil.rmtree(out, ignore_errors=True)
    (out / "bin").mkdir(parents=True)
    shutil.copy2(build / "fgemm-bench", out / "bin")
    plan = []
    for test in tests:
        if not test.exists():
            sys.exit(f"gpu-lit: no test {test}")
        name = test.stem
        steps = []
        for line in run_lines(test):
            local = line.replace("%fgemm_src_root", str(ROOT)).replace("%t", str(out / name))
            if line.startswith(("rm ", "mkdir ")) or line.startswith("fgemmc "):
                if line.startswith("fgemmc "):
                    local = str(build / "fgemmc") + local[len("fgemmc"):]
                done = subprocess.run(local, shell=True, cwd=ROOT)
                if done.returncode:
                    sys.exit(f"gpu-lit: {name}: '{line}' failed here (exit {done.returncode})")
                continue
            # A device line: relative paths, the copied fgemm-bench, and the
            # FileCheck stage (if any) split off.
            device = line.replace("%t", f"{rel}/{name}")
            device = re.sub(r"(^|[|;&]\s*|not\s+)fgemm-bench\b",
                            lambda m: f"{m.group(1)}{rel}/bin/fgemm-bench", device)
            prefix = None
            m = re.search(r"\|\s*FileCheck %s(?:\s+--check-prefix=(\S+))?\s*$", device)
            if m:
                prefix = m.group(1) or "CHECK"
                device = device[:m.start()].rstrip()
            negate = device.startswith("not ")
            if negate:
                device = device[4:]
            steps.append({"command": device, "negate": negate, "prefix": prefix})
        plan.append({"test": name, "steps": steps, "checks": checks(test)})
    (out / "plan.json").write_text(json.dumps(plan, indent=1))
    shutil.copy2(pathlib.Path(__file__), out / "gpu-lit.py")
    (out / "run.py").write_text(
        "import pathlib, runpy, sys\n"
        "here = pathlib.Path(__file__).resolve().parent\n"
        "sys.argv = [str(here / 'gpu-lit.py'), 'run', str(here / 'plan.json')] + sys.argv[1:]\n"
        "runpy.run_path(str(here / 'gpu-lit.py'), run_name='__main__')\n")
    print(f"gpu-lit: {len(plan)} tests prepared in {rel}; there: python3 {rel}/run.py")


def pattern(text):
    """A check pattern as a regex: literal text, {{regex}} kept."""
    parts = re.split(r"\{\{(.*?)\}\}", text)
    return "".join(re.escape(p) if i % 2 == 0 else f"(?:{p})" for i, p in enumerate(parts))


def file_check(output, directives):
    """None if `output` satisfies the directives, else why not."""
    pos, pending_not = 0, []
    for negated, text in directives:
        if negated:
            pending_not.append(text)
            continue
        m = re.compile(pattern(text)).search(output, pos)
        if not m:
            return f"expected '{text}' not found"
        for bad in pending_not:
            if re.search(pattern(bad), output[pos:m.start()]):
                return f"'{bad}' found before '{text}'"
        pending_not, pos = [], m.end()
    for bad in pending_not:
        if re.search(pattern(bad), output[pos:]):
            return f"'{bad}' found"
    return None


def run(plan_file, only):
    plan = json.loads(pathlib.Path(plan_file).read_text())
    unknown = set(only) - {test["test"] for test in plan}
    if unknown:
        sys.exit(f"gpu-lit: not prepared here: {', '.join(sorted(unknown))}")
    plan = [test for test in plan if not only or test["test"] in only]
    passed = failed = 0
    for test in plan:
        problem = None
        for step in test["steps"]:
            done = subprocess.run(step["command"], shell=True, capture_output=True, text=True,
                                  timeout=600)
            output = done.stdout + done.stderr
            if (done.returncode != 0) != step["negate"]:
                problem = f"'{step['command']}' exited {done.returncode}"
            elif step["prefix"]:
                directives = test["checks"].get(step["prefix"])
                problem = (f"no {step['prefix']}: lines" if not directives
                           else file_check(output, directives))
            if problem:
                print(f"FAIL {test['test']}: {problem}\n" +
                      "\n".join("    " + l for l in output.splitlines()[-12:]))
                break
        if problem:
            failed += 1
        else:
            passed += 1
            print(f"PASS {test['test']} ({len(test['steps'])} steps)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "prepare":
        prepare(pathlib.Path(sys.argv[2]), sys.argv[3:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2], sys.argv[3:]))
    else:
        sys.exit(__doc__)
