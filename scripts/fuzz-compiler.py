#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Mutation fuzzer for fgemmc and fgemm-opt (Python standard library only).

Seeds: kernels/*.mlir and the lit inputs test/**/*.mlir, split at `// -----`
with every comment line dropped (RUN/CHECK/expected-*), plus the IR that
fgemm-opt prints after each pass of the pipeline on the DSL seeds (so that the
later passes see their own input format), plus the generic form of every seed
that fgemm-opt accepts.

Each mutant applies a few syntax-aware mutations (integers to boundary values,
line swap/duplicate/delete, SSA name swaps, keywords harvested from the corpus,
truncation, region duplication/deletion, splices from other seeds, brace and
punctuation edits, attribute deletion/duplication, rare raw character edits).
Mutant N of seed S is the same text as long as the seeds are (the files under
kernels/ and test/, and what the build prints for them): `--print-mutant N
--seed S` prints it. Every finding keeps its mutant anyway.

Targets per mutant (each under a wall timeout and an address-space limit):
  opt-parse    fgemm-opt F
  opt-to-nvvm  fgemm-opt F --convert-fgemm-to-nvvm
  opt-chain    fgemm-opt F --fgemm-specialize[=opts] --fgemm-schedule-tiles
               --fgemm-warp-specialize[=opts] --fgemm-pipeline-tma
               --convert-fgemm-to-nvvm
  opt-sm90     fgemm-opt F --fgemm-sm90-pipeline[=opts]
  opt-suffix   fgemm-opt F <the passes after a random one> (intermediate IR)
  fgemmc-ptx   fgemmc F --emit=ptx -o /dev/null [knobs]     (DSL-looking input)
  fgemmc-cubin fgemmc F --emit=cubin -o T.cubin [knobs]     (1 in 50, or 1 in 8
               after a mutated kernel compiled to PTX)
When `fgemm-opt F` rejects the input (exit 1), the pass targets are skipped
(fgemm-opt parses and verifies the whole file before it runs any pass) and
fgemmc, which parses the same way, runs 1 time in 10.
Mutants matching `array\\s*<\\s*index` are not given to fgemm-opt (MLIR 22.1.8
parser crash, llvm-project #179045; fgemmc guards it) and are counted.

Verdicts: exit 0, 1 or 2 is fine. A signal, an exit >= 128 (or any other
code), `LLVM ERROR:`, `Stack dump:`, `PLEASE submit a bug report`, an
assertion failure, ptxas rejecting fgemm's PTX, or a timeout that a rerun with
3x the timeout confirms (a hang) is a finding. Findings are deduplicated by
(target, kind, top stack frames or first error line); each unique one gets a
directory under OUT/findings/ with the mutant, a line-minimized copy, the
command (repro.sh) and the stderr tail. Exit status 1 if anything was found.

  scripts/fuzz-compiler.py --seconds 90 --jobs 2
  scripts/fuzz-compiler.py --seconds 3600 --seed 1      # the long run
  scripts/fuzz-compiler.py --print-mutant 123 --seed 1  # one mutant's text
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

BOUNDARY_INTS = [
    0, -1, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40, 63, 64, 65, 96,
    127, 128, 129, 160, 192, 200, 232, 240, 255, 256, 257, 512, 1024, 4096,
    65535, 65536, 227 * 1024, 232448, 2**31 - 1, -2**31, 2**31, 2**32 - 1,
    2**32, 2**63 - 1, -2**63, 2**64, 10**30,
]
EXTRA_TYPES = ["f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "bf16", "f16", "f32", "f64",
               "tf32", "i1", "i8", "i16", "i32", "i64", "index", "ui32", "none"]
EXTRA_WORDS = ["persistent", "plain", "a", "b", "c", "mn_major", "k_major", "dense",
               "grouped_masked", "grouped_contiguous", "x", "y", "z", "true", "false",
               "off", "deepgemm", "deepgemm-full", "every-n", "m", "n", "k", "bm", "bn",
               "bk", "unit", "init", "stage", "scales", "acc", "over", "producer",
               "consumer", "block", "attributes", "dims", "config", "grid", "plan"]
PUNCT = "{}(),<>[]:=%^@#!\""
DEFAULT_TIMEOUT = 10.0
DEFAULT_MEM = 4 * 10**9

SPLIT_RE = re.compile(r"^[ \t]*//[ \t]*-----[ \t]*$", re.M)
INLINE_DIRECTIVE_RE = re.compile(r"\s*//\s*(expected-|CHECK|RUN:).*$")
INT_RE = re.compile(r"(?<![\w.%#@^$-])-?\d+(?![\w.])")
SSA_RE = re.compile(r"%[A-Za-z0-9_$.-]+")
TOKEN_RE = re.compile(r"(?<![\w%@^$.\-])([#!]?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)")
TYPE_RE = re.compile(r"^(f8E\w+|bf16|tf32|f\d+|u?i\d+|si\d+|index|none)$")
ATTR_ENTRY_RE = re.compile(r",?\s*[a-z_][a-z0-9_]*\s*=\s*[^,>}{()\n]+")
INDEX_ARRAY_RE = re.compile(r"array\s*<\s*index")
FRAME_RE = re.compile(r"^\s*#(\d+)\s+0x[0-9a-fA-F]+\s+(.*)$")
SKIP_FRAMES = re.compile(
    r"PrintStackTrace|SignalHandler|RunSignalHandlers|__restore_rt|libc\.so|"
    r"\babort\b|\braise\b|pthread_kill|gsignal|report_fatal_error|reportFatal|"
    r"__assert_fail|__assert_perror|llvm_unreachable_internal|CrashRecoveryContext|"
    r"handleErrorImpl|report_bad_alloc|__libc_start|^_start$")

PROJECT_SOURCES = {p.stem for d in ("lib", "tools", "dialect") for p in (REPO / d).glob("**/*.cpp")}

OPT_CHAIN = ["--fgemm-specialize", "--fgemm-schedule-tiles", "--fgemm-warp-specialize",
             "--fgemm-pipeline-tma", "--convert-fgemm-to-nvvm"]
SPECIALIZE_OPTS = {
    "block-m": [64, 128, 0, -1, 192, 256, 2**31 - 1, -2**31, 2**63 - 1],
    "block-n": [8, 16, 96, 128, 192, 200, 256, 0, -8, 7, 2**31 - 1, -2**31, 2**63 - 1],
    "block-k": [128, 64, 0, -128, 2**31 - 1],
    "stages": [0, 1, 2, 4, 6, 8, 16, 17, -1, 2**31 - 1],
    "math-warpgroups": [0, 1, 2, 3, -1, 2**31 - 1],
    "cluster": [1, 2, 0, 4, -1, 2**31 - 1],
    "multicast": ["a", "b", "c"],
    "k-split": [1, 2, 4, 3, 0, -1, 2**31 - 1],
    "schedule": ["plain", "persistent", "diagonal"],
    "raster-group": [0, 1, 8, 16, -1, 2**31 - 1, 2**63 - 1],
    "fixed-n": [0, 8, 2112, 7168, 20, -1, 2**31 - 1, 2**63 - 1],
    "fixed-k": [0, 128, 7168, 100, -128, 2**31 - 1, 2**63 - 1],
    "overlap-promotion": ["true", "false"],
    "overlap-epilogue": ["true", "false"],
    "launch-raster": ["true", "false"],
    "prefetch-scales": ["true", "false"],
    "sass-policy": ["off", "deepgemm", "deepgemm-full", "every-n"],
    "sass-every-n": [0, 1, 4, -1, 2**31 - 1],
}
WARP_SPECIALIZE_OPTS = {
    "producer-regs": [24, 40, 0, 8, 256, -1, 2**31 - 1],
    "consumer-regs": [232, 240, 0, 256, 504, -1, 2**31 - 1],
}
# fgemmc's knobs: the pass options less the SASS ones, which only cubin uses.
FGEMMC_KNOBS = {k: v for k, v in SPECIALIZE_OPTS.items()
                if k not in ("sass-policy", "sass-every-n", "overlap-promotion",
                             "overlap-epilogue")}
DERIVE_CONFIGS = [None, "schedule=persistent raster-group=8 overlap-promotion=true",
                  "cluster=2 multicast=b", "block-m=64 block-n=96 stages=0 fixed-n=2112 fixed-k=7168",
                  "k-split=2 block-n=64", "schedule=persistent overlap-epilogue=true",
                  "schedule=persistent cluster=2 multicast=b raster-group=8 launch-raster=true"]


class Case:
    __slots__ = ("name", "text", "allow_unreg", "valid")

    def __init__(self, name, text, allow_unreg):
        self.name, self.text, self.allow_unreg = name, text, allow_unreg
        self.valid = False  # fgemm-opt accepts it unchanged


def is_dsl(text):
    return "fgemm.kernel" in text and "fgemm.tile_space" in text


# --------------------------------------------------------------------------
# Running a target


def _limits(mem):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run_cmd(argv, timeout, mem, stdout=None):
    """Returns (rc, timed_out, stderr_text, seconds); the stdout text into the
    list `stdout` when one is given."""
    for attempt in range(120):  # a binary being relinked by a concurrent build
        try:
            t0 = time.monotonic()
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL if stdout is None else subprocess.PIPE,
                                    stderr=subprocess.PIPE, preexec_fn=_limits(mem),
                                    start_new_session=True, env=_ENV)
            break
        except OSError:
            if attempt == 119:
                raise
            time.sleep(1)
    try:
        out, err = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # our own process group (ptxas too)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        timed_out = True
    if stdout is not None:
        stdout.append((out or b"").decode("utf-8", "replace"))
    return proc.returncode, timed_out, err.decode("utf-8", "replace"), time.monotonic() - t0


_ENV = dict(os.environ)
_ENV.setdefault("LLVM_SYMBOLIZER_PATH", shutil.which("llvm-symbolizer") or "")
if not _ENV["LLVM_SYMBOLIZER_PATH"]:
    del _ENV["LLVM_SYMBOLIZER_PATH"]


def normalize(line):
    line = re.sub(r"/\S*/", "", line)  # paths (the mutant's temp file)
    line = re.sub(r"0x[0-9a-fA-F]+", "0x", line)
    return re.sub(r"-?\d+", "N", line).strip()[:160]


def classify(rc, timed_out, err):
    """Returns None (fine) or (kind, signature)."""
    if timed_out:
        return ("hang", "")
    kind = None
    if rc < 0:
        try:
            kind = "signal " + signal.Signals(-rc).name
        except ValueError:
            kind = f"signal {-rc}"
    elif rc >= 128:
        kind = f"exit {rc}"
    elif rc not in (0, 1, 2):
        kind = f"unexpected exit {rc}"
    lines = err.splitlines()
    first = {}
    for line in lines:
        s = line.strip()
        for key, pat in (("llvm-error", "LLVM ERROR:"), ("assertion", "Assertion `"),
                         ("stack-dump", "Stack dump:"), ("bug-report", "PLEASE submit a bug report"),
                         ("bad-ptx", "ptxas rejected the PTX")):
            if key not in first and (s.startswith(pat) or (key in ("assertion", "bug-report", "bad-ptx") and pat in s)):
                first[key] = s
    if kind is None:
        for key in ("llvm-error", "assertion", "stack-dump", "bug-report", "bad-ptx"):
            if key in first:
                kind = key
                break
    if kind is None:
        return None
    frames, ours = [], None
    for line in lines:
        m = FRAME_RE.match(line)
        if not m:
            continue
        sym = re.sub(r"\s*\(/[^)]*\)\s*$", "", m.group(2))  # (module+offset)
        obj = re.search(r"\s(\w+)\.cpp\.o:\d+:\d+$", sym)
        sym = re.sub(r"\s+\S+:\d+(:\d+)?$", "", sym)  # file:line:col
        if not sym or sym.startswith("(") or SKIP_FRAMES.search(sym):
            continue
        sym = re.sub(r"\(.*\)", "()", sym)[:120]
        if len(frames) < 3:
            frames.append(sym)
        if ours is None and ("fgemm" in sym or (obj and obj.group(1) in PROJECT_SOURCES)):
            ours = sym
    if ours:  # the innermost frame of fgemm's own code names the bug best
        sig = "in " + ours
    elif frames:
        sig = " | ".join(frames)
    else:
        msg = first.get("llvm-error") or first.get("assertion") or first.get("bad-ptx")
        if not msg:
            msg = next((l for l in lines if l.strip() and not l.startswith(" ")), "")
        sig = normalize(msg)
    return (kind, sig)


# --------------------------------------------------------------------------
# Corpus


def load_corpus(repo):
    files = sorted(repo.glob("kernels/*.mlir")) + sorted(repo.glob("test/**/*.mlir"))
    cases = []
    for f in files:
        text = f.read_text(errors="replace")
        runs = [l for l in text.splitlines() if "RUN:" in l]
        allow = any("allow-unregistered-dialect" in l for l in runs)
        rel = f.relative_to(repo)
        for i, chunk in enumerate(SPLIT_RE.split(text)):
            lines = []
            for line in chunk.splitlines():
                if line.lstrip().startswith("//"):
                    continue
                lines.append(INLINE_DIRECTIVE_RE.sub("", line))
            body = "\n".join(lines).strip("\n")
            if body.strip():
                cases.append(Case(f"{rel}#{i}", body + "\n", allow))
    return cases


def derive_cases(cases, opt, tmpdir, mem):
    """IR after each pipeline pass on every DSL seed, for a few configurations."""
    out, seen = [], set()
    path = Path(tmpdir) / "derive.mlir"
    passes = OPT_CHAIN[:-1]
    for case in [c for c in cases if is_dsl(c.text)]:
        path.write_text(case.text)
        for cfg in DERIVE_CONFIGS:
            spec = passes[0] + (f"={cfg}" if cfg else "")
            for n in range(1, len(passes) + 1):
                argv = [opt, str(path), spec] + passes[1:n]
                if case.allow_unreg:
                    argv.append("--allow-unregistered-dialect")
                got = []
                rc, _, _, _ = run_cmd(argv, 60, mem, stdout=got)
                text = got[0]
                h = hashlib.sha1(text.encode()).hexdigest()
                if rc != 0 or h in seen or not text.strip():
                    continue
                seen.add(h)
                name = f"{case.name}@{passes[n - 1].lstrip('-')}" + (f"[{cfg}]" if cfg else "")
                out.append(Case(name, text, case.allow_unreg))
    return out


def generic_cases(cases, opt, tmpdir, mem):
    """The generic form of every valid seed: properties and operandSegmentSizes
    spelled out, which custom verifiers must not trust before ODS checks them."""
    out = []
    path = Path(tmpdir) / "generic.mlir"
    for case in cases:
        path.write_text(case.text)
        got = []
        argv = [opt, str(path), "--mlir-print-op-generic"]
        if case.allow_unreg:
            argv.append("--allow-unregistered-dialect")
        rc, _, _, _ = run_cmd(argv, 60, mem, stdout=got)
        if rc == 0 and got[0].strip():
            c = Case(case.name + "[generic]", got[0], case.allow_unreg)
            c.valid = True
            out.append(c)
    return out


def harvest(cases):
    vocab = defaultdict(set)
    for c in cases:
        for m in TOKEN_RE.finditer(c.text):
            tok = m.group(1)
            vocab[token_class(c.text, m)].add(tok)
    vocab["type"].update(EXTRA_TYPES)
    vocab["word"].update(EXTRA_WORDS)
    return {k: sorted(v) for k, v in vocab.items()}


def token_class(text, m):
    tok = m.group(1)
    if tok[0] in "#!":
        return "attrtype"
    if TYPE_RE.match(tok):
        return "type"
    if "." in tok:
        return "op"
    rest = text[m.end():m.end() + 3].lstrip()
    if rest.startswith("=") and not rest.startswith("=="):
        return "key"
    return "word"


# --------------------------------------------------------------------------
# Mutations: each takes (rng, text, ctx) and returns new text or None.


def _lines(text):
    return text.split("\n")


def m_int(rng, text, ctx):
    ms = list(INT_RE.finditer(text))
    if not ms:
        return None
    m = rng.choice(ms)
    old = int(m.group())
    r = rng.random()
    if r < 0.45:
        new = rng.choice(BOUNDARY_INTS)
    elif r < 0.7:  # a value some seed uses: more mutants pass the verifiers
        new = rng.choice(ctx["ints"])
    elif r < 0.83:
        new = old + rng.choice([-1, 1, -8, 8])
    elif r < 0.9:
        new = old * rng.choice([2, -1, 0, 1000])
    else:  # every occurrence of this value: consistent edits pass verifiers more often
        new = rng.choice(BOUNDARY_INTS)
        return re.sub(r"(?<![\w.%#@^$-])" + re.escape(m.group()) + r"(?![\w.])", str(new), text)
    return text[:m.start()] + str(new) + text[m.end():]


def m_swap_lines(rng, text, ctx):
    lines = _lines(text)
    if len(lines) < 2:
        return None
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def m_dup_line(rng, text, ctx):
    lines = _lines(text)
    i = rng.randrange(len(lines))
    n = rng.choice([1, 1, 1, 2, 3])
    chunk = lines[i:i + n]
    j = i + n if rng.random() < 0.6 else rng.randrange(len(lines) + 1)
    return "\n".join(lines[:j] + chunk + lines[j:])


def m_del_line(rng, text, ctx):
    lines = _lines(text)
    if len(lines) < 2:
        return None
    i = rng.randrange(len(lines))
    n = rng.choice([1, 1, 1, 2, 3])
    return "\n".join(lines[:i] + lines[i + n:])


def m_ssa(rng, text, ctx):
    ms = list(SSA_RE.finditer(text))
    if not ms:
        return None
    names = sorted({m.group() for m in ms})
    m = rng.choice(ms)
    if rng.random() < 0.1 or len(names) < 2:
        new = rng.choice(["%undefined", "%0", "%arg0", "%99", "%c1"])
    else:
        new = rng.choice([n for n in names if n != m.group()])
    if rng.random() < 0.15:  # rename every use: keeps dominance, changes types
        return re.sub(re.escape(m.group()) + r"(?![A-Za-z0-9_$.-])", new, text)
    return text[:m.start()] + new + text[m.end():]


def m_keyword(rng, text, ctx):
    vocab = ctx["vocab"]
    ms = list(TOKEN_RE.finditer(text))
    if not ms:
        return None
    m = rng.choice(ms)
    cls = token_class(text, m)
    if rng.random() < 0.8 and vocab.get(cls):
        new = rng.choice(vocab[cls])
    else:
        new = rng.choice(vocab[rng.choice(sorted(vocab))])
    return text[:m.start(1)] + new + text[m.end(1):]


def m_truncate(rng, text, ctx):
    if len(text) < 2:
        return None
    if rng.random() < 0.5:
        lines = _lines(text)
        return "\n".join(lines[:rng.randrange(len(lines))]) + "\n"
    return text[:rng.randrange(len(text))]


def _regions(text):
    spans, stack = [], []
    for i, ch in enumerate(text):
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            spans.append((stack.pop(), i))
    return spans


def m_region(rng, text, ctx):
    spans = [s for s in _regions(text) if "\n" in text[s[0]:s[1]]] or _regions(text)
    if not spans:
        return None
    a, b = rng.choice(spans)
    op_start = text.rfind("\n", 0, a) + 1
    op_end = text.find("\n", b)
    op_end = len(text) if op_end < 0 else op_end + 1
    mode = rng.choice(["dup-op", "dup-op", "del-op", "empty-body", "dup-body", "move-op"])
    if mode == "dup-op":
        return text[:op_end] + text[op_start:op_end] + text[op_end:]
    if mode == "del-op":
        return text[:op_start] + text[op_end:]
    if mode == "empty-body":
        return text[:a + 1] + "\n" + text[b:]
    if mode == "dup-body":
        return text[:b] + text[a + 1:b] + text[b:]
    op = text[op_start:op_end]
    rest = text[:op_start] + text[op_end:]
    lines = _lines(rest)
    j = rng.randrange(len(lines) + 1)
    return "\n".join(lines[:j]) + ("\n" if j else "") + op + "\n".join(lines[j:])


def m_splice(rng, text, ctx):
    other = rng.choice(ctx["cases"]).text
    if rng.random() < 0.5:
        spans = [s for s in _regions(other) if "\n" in other[s[0]:s[1]]]
        if spans:
            a, b = rng.choice(spans)
            s = other.rfind("\n", 0, a) + 1
            e = other.find("\n", b)
            chunk = _lines(other[s:len(other) if e < 0 else e])
        else:
            chunk = []
    else:
        olines = _lines(other)
        i = rng.randrange(len(olines))
        chunk = olines[i:i + rng.choice([1, 1, 2, 3, 6])]
    if not chunk:
        return None
    lines = _lines(text)
    j = rng.randrange(len(lines) + 1)
    return "\n".join(lines[:j] + chunk + lines[j:])


def m_punct(rng, text, ctx):
    if rng.random() < 0.55:
        pos = [i for i, ch in enumerate(text) if ch in PUNCT]
        if not pos:
            return None
        i = rng.choice(pos)
        if rng.random() < 0.8:
            return text[:i] + text[i + 1:]
        return text[:i] + rng.choice(PUNCT) + text[i + 1:]
    ch = rng.choice("}}{{,,>><<)(][:=")
    i = rng.randrange(len(text) + 1)
    return text[:i] + ch + text[i:]


def m_attr(rng, text, ctx):
    ms = list(ATTR_ENTRY_RE.finditer(text))
    if not ms:
        return None
    m = rng.choice(ms)
    if rng.random() < 0.6:
        return text[:m.start()] + text[m.end():]
    entry = m.group()
    if not entry.lstrip().startswith(","):
        entry = ", " + entry.lstrip()
    return text[:m.end()] + entry + text[m.end():]


def m_chars(rng, text, ctx):
    i = rng.randrange(len(text) + 1)
    new = rng.choice(["\x00", "\xff", "\t", "\"", "\\", "'", "-", ".", "0", "e", "$", "`",
                      "\u00e9", "\n", "x", "?", "*", "/", "//", "/*"])
    if rng.random() < 0.5 and i < len(text):
        return text[:i] + new + text[i + 1:]
    return text[:i] + new + text[i:]


MUTATIONS = [  # (name, function, weight)
    ("int", m_int, 30), ("keyword", m_keyword, 14), ("ssa", m_ssa, 8),
    ("swap-lines", m_swap_lines, 5), ("dup-line", m_dup_line, 5), ("del-line", m_del_line, 6),
    ("region", m_region, 6), ("splice", m_splice, 6), ("punct", m_punct, 8),
    ("attr", m_attr, 7), ("truncate", m_truncate, 2), ("chars", m_chars, 2),
]
_WEIGHTS = [w for _, _, w in MUTATIONS]


def make_mutant(seed, index, ctx):
    """Mutant `index` of `seed`: (case, text, [mutation names], rng)."""
    rng = random.Random(f"fgemm-fuzz:{seed}:{index}")
    # Mostly seeds that fgemm-opt accepts: the passes only see mutants that verify.
    pool = ctx["valid_cases"] if ctx["valid_cases"] and rng.random() < 0.75 else ctx["cases"]
    case = rng.choice(pool)
    text = case.text
    applied = []
    if rng.random() >= 0.04:  # else the seed unchanged (knob and pass-option fuzzing)
        want = rng.choice([1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 4, 6])
        tries = 0
        while len(applied) < want and tries < want * 4:
            tries += 1
            name, fn, _ = rng.choices(MUTATIONS, weights=_WEIGHTS)[0]
            new = fn(rng, text, ctx)
            if new is None or new == text:
                continue
            text = new[:400_000]
            applied.append(name)
    return case, text, applied, rng


# --------------------------------------------------------------------------
# One mutant against the targets (runs in a worker)

_W = {}


def init_worker(state):
    _W.clear()
    _W.update(state)
    _W["tmp"] = tempfile.mkdtemp(prefix=f"w{os.getpid()}-", dir=state["tmproot"])


def _pass_options(rng, table, n):
    keys = rng.sample(sorted(table), min(n, len(table)))
    return " ".join(f"{k}={rng.choice(table[k])}" for k in keys)


def plan_opt_targets(rng, path, allow_unreg):
    opt = _W["opt"]
    extra = ["--allow-unregistered-dialect"] if allow_unreg else []
    chain = list(OPT_CHAIN)
    if rng.random() < 0.3:
        chain[0] += "=" + _pass_options(rng, SPECIALIZE_OPTS, rng.randint(1, 3))
    if rng.random() < 0.1:
        chain[2] += "=" + _pass_options(rng, WARP_SPECIALIZE_OPTS, rng.randint(1, 2))
    sm90 = "--fgemm-sm90-pipeline"
    if rng.random() < 0.3:
        sm90 += "=" + _pass_options(rng, SPECIALIZE_OPTS, rng.randint(1, 3))
    start = rng.randint(1, 3)
    return [
        ("opt-to-nvvm", [opt, path, "--convert-fgemm-to-nvvm"] + extra),
        ("opt-chain", [opt, path] + chain + extra),
        ("opt-sm90", [opt, path, sm90] + extra),
        ("opt-suffix", [opt, path] + OPT_CHAIN[start:] + extra),
    ]


def fgemmc_argv(rng, path, cubin):
    argv = [_W["fgemmc"], path]
    if cubin:
        argv += ["--emit=cubin", "-o", os.path.join(_W["tmp"], "out.cubin")]
        if rng.random() < 0.3:
            argv.append("--sass-policy=" + rng.choice(SPECIALIZE_OPTS["sass-policy"]))
    else:
        argv += ["--emit=ptx", "-o", "/dev/null"]
    if rng.random() < 0.35:
        for k in rng.sample(sorted(FGEMMC_KNOBS), rng.randint(1, 3)):
            argv.append(f"--{k}={rng.choice(FGEMMC_KNOBS[k])}")
        if rng.random() < 0.2:
            argv.append("--overlap-promotion")
        if rng.random() < 0.2:
            argv.append("--overlap-epilogue")
        if rng.random() < 0.2:
            argv.append("--launch-raster")
    return argv


def clip(err):
    return err if len(err) <= 16000 else err[:4000] + "\n[... stderr clipped ...]\n" + err[-12000:]


def fuzz_one(index):
    ctx = _W
    case, text, applied, rng = make_mutant(ctx["seed"], index, ctx)
    path = os.path.join(ctx["tmp"], "mutant.mlir")
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    timeout, mem = ctx["timeout"], ctx["mem"]
    results = []  # (target, argv, rc, timed_out, verdict, err_tail, seconds)
    stats = Counter()

    def run(target, argv):
        rc, to, err, dt = run_cmd(argv, timeout, mem)
        if to:  # confirm a hang with a longer timeout (load on the machine)
            rc2, to2, err2, dt2 = run_cmd(argv, timeout * 3, mem)
            if not to2:
                stats[f"slow {target}"] += 1
                rc, to, err, dt = rc2, to2, err2, dt2
                results.append((target, argv, rc, False, ("slow", f"{dt:.1f}s"), clip(err), dt))
        verdict = classify(rc, to, err)
        if verdict is not None or rc not in (0, 1, 2) or to:
            results.append((target, argv, rc, to, verdict, clip(err), dt))
        stats[f"runs"] += 1
        stats[f"{target} exit {rc if not to else 'timeout'}"] += 1
        return rc

    opt_ok = None  # not run
    if INDEX_ARRAY_RE.search(text):
        stats["skipped array<index> (fgemm-opt)"] += 1
    else:
        extra = ["--allow-unregistered-dialect"] if case.allow_unreg or rng.random() < 0.05 else []
        rc = run("opt-parse", [ctx["opt"], path] + extra)
        opt_ok = rc == 0
        if opt_ok:
            for target, argv in plan_opt_targets(rng, path, bool(extra)):
                run(target, argv)
        else:
            stats["pass targets skipped (parse/verify failed)"] += 1
    # fgemmc parses like fgemm-opt: what fgemm-opt rejects only reaches it 1 in 10.
    if is_dsl(text) and (opt_ok is not False or rng.random() < 0.1):
        cubin = rng.random() < 0.02
        rc = run("fgemmc-cubin" if cubin else "fgemmc-ptx", fgemmc_argv(rng, path, cubin))
        if rc == 0 and not cubin and applied and rng.random() < 0.125:
            run("fgemmc-cubin", fgemmc_argv(rng, path, True))
    interesting = any(r[4] is not None for r in results)
    return {
        "index": index, "case": case.name, "mutations": applied, "stats": stats,
        "results": results, "text": text if interesting else None,
        "allow_unreg": case.allow_unreg,
    }


# --------------------------------------------------------------------------
# Findings


def minimize(text, argv, target_kind, sig, ctx, budget_s):
    """Line-level delta debugging: smallest text that still gives (kind, sig)."""
    deadline = time.monotonic() + budget_s
    tmp = os.path.join(ctx["tmproot"], "minimize.mlir")
    file_idx = argv.index(ctx["file_placeholder"]) if ctx["file_placeholder"] in argv else None

    def interesting(lines):
        if time.monotonic() > deadline:
            return False
        with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("\n".join(lines) + "\n")
        a = list(argv)
        a[file_idx] = tmp
        rc, to, err, _ = run_cmd(a, ctx["timeout"], ctx["mem"])
        v = classify(rc, to, err)
        return v is not None and v[0] == target_kind and (v[1] == sig or target_kind == "hang")

    lines = text.split("\n")
    if file_idx is None or not interesting(lines):
        return None
    n = 2
    while len(lines) >= 2 and time.monotonic() < deadline:
        chunk = max(1, len(lines) // n)
        reduced = False
        for i in range(0, len(lines), chunk):
            cand = lines[:i] + lines[i + chunk:]
            if cand and interesting(cand):
                lines = cand
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(n * 2, len(lines))
    # Then strip leading indentation-free noise: try removing trailing tokens per line.
    return "\n".join(lines) + "\n"


class Findings:
    def __init__(self, out, bin_dir, ctx):
        self.out = out
        self.dir = out / "findings"
        self.bin_dir = bin_dir
        self.ctx = ctx
        self.unique = {}  # key -> dict
        self.by_kind = Counter()
        self.slow = 0

    def add(self, res, target, argv, rc, to, verdict, err):
        kind, sig = verdict
        if kind == "slow":
            self.slow += 1
            return
        key = (target, kind, sig)
        self.by_kind[kind] += 1
        if key in self.unique:
            u = self.unique[key]
            u["count"] += 1
            if len(u["examples"]) < 3:
                u["examples"].append(self._save(u["dir"], len(u["examples"]), res, argv, rc, to, err))
            return
        fid = f"{len(self.unique) + 1:03d}-{target}-{re.sub(r'[^a-z0-9]+', '-', kind.lower())}"
        d = self.dir / fid
        d.mkdir(parents=True, exist_ok=True)
        self.unique[key] = u = {"id": fid, "dir": d, "target": target, "kind": kind, "sig": sig,
                                "count": 1, "examples": []}
        u["examples"].append(self._save(d, 0, res, argv, rc, to, err))
        u["argv"] = argv
        u["text"] = res["text"]

    def _save(self, d, n, res, argv, rc, to, err):
        sub = d if n == 0 else d / f"example-{n + 1}"
        sub.mkdir(parents=True, exist_ok=True)
        mutant = sub / "mutant.mlir"
        mutant.write_text(res["text"], encoding="utf-8", errors="surrogateescape")
        cmd = self.command(argv, mutant)
        (sub / "repro.sh").write_text("#!/bin/sh\n" + cmd + "\n")
        (sub / "stderr.txt").write_text(err, encoding="utf-8", errors="replace")
        (sub / "info.json").write_text(json.dumps({
            "seed": self.ctx["seed"], "mutant": res["index"], "case": res["case"],
            "mutations": res["mutations"], "exit": rc, "timed_out": to,
            "argv": [str(mutant) if a == self.ctx["file_placeholder"] else a for a in argv],
            "replay": f"scripts/fuzz-compiler.py --seed {self.ctx['seed']} --print-mutant {res['index']}",
        }, indent=2) + "\n")
        return str(sub)

    def command(self, argv, path):
        a = [str(path) if x == self.ctx["file_placeholder"] else x for x in argv]
        a = ["/tmp/fgemm-fuzz-repro.cubin" if x.endswith("/out.cubin") else x for x in a]
        return (f"ulimit -v {self.ctx['mem'] // 1000}; timeout {int(self.ctx['timeout'])} "
                + " ".join(shlex.quote(x) for x in a))

    def minimize_all(self, budget_s):
        deadline = time.monotonic() + budget_s
        for u in self.unique.values():
            left = deadline - time.monotonic()
            if left <= 1:
                break
            per = min(left, max(20.0, budget_s / max(1, len(self.unique))))
            small = minimize(u["text"], u["argv"], u["kind"], u["sig"], self.ctx, per)
            if small is not None:
                p = u["dir"] / "min.mlir"
                p.write_text(small, encoding="utf-8", errors="surrogateescape")
                (u["dir"] / "repro-min.sh").write_text("#!/bin/sh\n" + self.command(u["argv"], p) + "\n")
                u["min"] = p


def excerpt(err, n=12):
    """The error lines and the top stack frames, else the tail."""
    lines = err.strip().splitlines()
    if any(FRAME_RE.match(l) for l in lines):
        head = [l for l in lines if not FRAME_RE.match(l) and not l.startswith(" ")][:4]
        def useful(l):
            sym = re.sub(r"\s*\(/[^)]*\)\s*$", "", FRAME_RE.match(l).group(2))
            return sym and not SKIP_FRAMES.search(sym)
        frames = [l for l in lines if FRAME_RE.match(l) and useful(l)]
        return head + frames[:n - len(head)]
    return lines[-n:]


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--seconds", type=float, default=60, help="stop starting mutants after N s (default 60)")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: time-based, printed)")
    ap.add_argument("--jobs", type=int, default=1, help="parallel worker processes (default 1)")
    ap.add_argument("--bin", type=Path, default=Path(os.environ.get("FGEMM_BUILD_DIR", REPO / "build")) / "bin",
                    help="directory with fgemm-opt and fgemmc (default build/bin)")
    ap.add_argument("--out", type=Path, default=REPO / "build-fuzz-compiler",
                    help="artifacts directory (default build-fuzz-compiler/)")
    ap.add_argument("--max-mutants", type=int, default=0, help="stop after N mutants (0 = no limit)")
    ap.add_argument("--start", type=int, default=0, help="first mutant index (default 0)")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per run before a hang (10)")
    ap.add_argument("--mem-mb", type=int, default=DEFAULT_MEM // 10**6, help="RLIMIT_AS per run in MB (4000)")
    ap.add_argument("--minimize-seconds", type=float, default=60,
                    help="total time to line-minimize the unique findings (default 60)")
    ap.add_argument("--no-derive", action="store_true", help="seeds only from the files (no per-pass IR, no generic forms)")
    ap.add_argument("--print-mutant", type=int, default=None, metavar="N",
                    help="print mutant N of --seed (and its seed case and mutations on stderr) and exit")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args()

    seed = args.seed if args.seed is not None else int(time.time()) % 1000000
    bin_dir = args.bin.resolve()
    opt, fgemmc = bin_dir / "fgemm-opt", bin_dir / "fgemmc"
    for tool in (opt, fgemmc):
        if not os.access(tool, os.X_OK):
            print(f"fuzz-compiler: {tool} not found (build first: scripts/build.sh)", file=sys.stderr)
            return 2
    out = args.out.resolve()
    if args.print_mutant is None:
        if (out / "findings").exists():  # keep the previous run's findings once
            shutil.rmtree(out / "findings.prev", ignore_errors=True)
            (out / "findings").rename(out / "findings.prev")
        out.mkdir(parents=True, exist_ok=True)
    tmproot = Path(tempfile.mkdtemp(prefix="fgemm-fuzz-" if args.print_mutant is not None else "tmp-",
                                    dir=None if args.print_mutant is not None else out))
    try:
        return fuzz(args, seed, bin_dir, opt, fgemmc, out, tmproot)
    finally:
        shutil.rmtree(tmproot, ignore_errors=True)


def fuzz(args, seed, bin_dir, opt, fgemmc, out, tmproot):
    mem = args.mem_mb * 10**6

    t_prep = time.monotonic()
    cases = load_corpus(REPO)
    n_base = len(cases)
    if not args.no_derive:
        cases += derive_cases(cases, str(opt), tmproot, mem)
    check = tmproot / "seed.mlir"
    for c in cases:
        if INDEX_ARRAY_RE.search(c.text):
            continue
        check.write_text(c.text)
        rc, to, err, _ = run_cmd([str(opt), str(check)] + (["--allow-unregistered-dialect"] if c.allow_unreg else []),
                                 60, mem)
        c.valid = rc == 0
        if classify(rc, to, err):
            print(f"fuzz-compiler: warning: seed {c.name} itself fails fgemm-opt: {classify(rc, to, err)}")
    if not args.no_derive:
        cases += generic_cases([c for c in cases if c.valid], str(opt), tmproot, mem)
    ints = sorted({int(m.group()) for c in cases for m in INT_RE.finditer(c.text)})
    ctx = {"cases": cases, "valid_cases": [c for c in cases if c.valid], "vocab": harvest(cases),
           "ints": ints, "seed": seed, "opt": str(opt), "fgemmc": str(fgemmc), "timeout": args.timeout,
           "mem": mem, "tmproot": str(tmproot)}

    if args.print_mutant is not None:
        case, text, applied, _ = make_mutant(seed, args.print_mutant, ctx)
        print(f"// seed {seed} mutant {args.print_mutant}: {case.name}, {', '.join(applied) or 'unchanged'}",
              file=sys.stderr)
        sys.stdout.write(text)
        return 0

    print(f"fuzz-compiler: seed {seed}, {len(cases)} seed cases ({n_base} from kernels/ and test/, "
          f"{len(cases) - n_base} derived: per-pass IR and generic forms; {len(ctx['valid_cases'])} valid), "
          f"prepared in {time.monotonic() - t_prep:.0f}s, {args.jobs} job(s), {args.seconds:g}s, "
          f"timeout {args.timeout:g}s, RLIMIT_AS {args.mem_mb} MB, bin {bin_dir}", flush=True)

    findings = Findings(out, bin_dir, ctx)
    totals = Counter()
    mutations = Counter()
    t0 = time.monotonic()
    deadline = t0 + args.seconds
    next_index = args.start
    done = 0
    last_report = t0

    # The worker writes the mutant to <tmp>/mutant.mlir; findings name the file by
    # this placeholder so that commands can be rewritten to the saved copy.
    def collect(res):
        nonlocal done, last_report
        done += 1
        totals.update(res["stats"])
        mutations.update(res["mutations"])
        for target, argv, rc, to, verdict, err, _ in res["results"]:
            if verdict is None:
                continue
            tmp_path = next((a for a in argv if a.endswith("/mutant.mlir")), None)
            if tmp_path:
                err = err.replace(tmp_path, "mutant.mlir")
            argv = [ctx["file_placeholder"] if a.endswith("/mutant.mlir") else a for a in argv]
            findings.add(res, target, argv, rc, to, verdict, err)
            if verdict[0] != "slow":
                print(f"fuzz-compiler: FINDING mutant {res['index']} ({res['case']}): {target}: "
                      f"{verdict[0]}: {verdict[1]}", flush=True)
        now = time.monotonic()
        if not args.quiet and now - last_report >= 30:
            last_report = now
            print(f"fuzz-compiler: {now - t0:.0f}s {done} mutants {totals['runs']} runs "
                  f"({totals['runs'] / (now - t0):.1f}/s), {sum(findings.by_kind.values())} findings "
                  f"({len(findings.unique)} unique)", flush=True)

    ctx["file_placeholder"] = "@MUTANT@"

    def more():
        return time.monotonic() < deadline and (not args.max_mutants or next_index - args.start < args.max_mutants)

    interrupted = False
    try:
        if args.jobs <= 1:
            init_worker(ctx)
            while more():
                collect(fuzz_one(next_index))
                next_index += 1
        else:
            with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs, initializer=init_worker,
                                                        initargs=(ctx,)) as pool:
                pending = set()
                while True:
                    while more() and len(pending) < args.jobs * 2:
                        pending.add(pool.submit(fuzz_one, next_index))
                        next_index += 1
                    if not pending:
                        break
                    finished, pending = concurrent.futures.wait(
                        pending, return_when=concurrent.futures.FIRST_COMPLETED)
                    for f in finished:
                        collect(f.result())
    except KeyboardInterrupt:
        interrupted = True
        print("fuzz-compiler: interrupted", flush=True)
    elapsed = time.monotonic() - t0

    if findings.unique and args.minimize_seconds > 0:
        print(f"fuzz-compiler: minimizing {len(findings.unique)} unique finding(s) "
              f"(at most {args.minimize_seconds:g}s)", flush=True)
        findings.minimize_all(args.minimize_seconds)

    runs = totals["runs"]
    print(f"fuzz-compiler: seed {seed}: {done} mutants (indices {args.start}..{next_index - 1}), {runs} runs "
          f"in {elapsed:.0f}s: {runs / max(elapsed, 1e-9):.1f} runs/s, {done / max(elapsed, 1e-9):.1f} mutants/s")
    per_target = defaultdict(Counter)
    for k, v in totals.items():
        m = re.match(r"^(\S+) exit (\S+)$", k)
        if m:
            per_target[m.group(1)][m.group(2)] += v
    for t in sorted(per_target):
        c = per_target[t]
        print(f"  {t:13s} {sum(c.values()):7d} runs: " + ", ".join(
            f"exit {k}: {v}" for k, v in sorted(c.items(), key=lambda kv: str(kv[0]))))
    for k in ("pass targets skipped (parse/verify failed)", "skipped array<index> (fgemm-opt)"):
        print(f"  mutants with {k}: {totals[k]}")
    print("  mutations: " + ", ".join(f"{k} {v}" for k, v in mutations.most_common()))
    if findings.slow:
        print(f"  slow runs (over {args.timeout:g}s, finished within {3 * args.timeout:g}s): {findings.slow}")
    summary = {"seed": seed, "mutants": done, "first": args.start, "last": next_index - 1, "runs": runs,
               "seconds": round(elapsed, 1), "runs_per_s": round(runs / max(elapsed, 1e-9), 2),
               "jobs": args.jobs, "counts": dict(totals), "mutations": dict(mutations),
               "findings_by_kind": dict(findings.by_kind), "slow": findings.slow,
               "unique": [{k: (str(v) if isinstance(v, Path) else v) for k, v in u.items()
                           if k not in ("text", "argv")} for u in findings.unique.values()]}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")

    if not findings.unique:
        print(f"fuzz-compiler: no crash or hang (summary: {out / 'summary.json'})")
        return 130 if interrupted else 0
    print(f"fuzz-compiler: {sum(findings.by_kind.values())} finding(s), {len(findings.unique)} unique: "
          + ", ".join(f"{k} {v}" for k, v in findings.by_kind.most_common()))
    for u in findings.unique.values():
        print(f"  [{u['id']}] {u['target']}: {u['kind']}: {u['sig']} ({u['count']}x)")
        repro = u["dir"] / ("min.mlir" if "min" in u else "mutant.mlir")
        print(f"    reproducer: {repro}")
        print(f"    command:    {findings.command(u['argv'], repro)}")
        if u["kind"] == "hang":
            print(f"      | (killed after {args.timeout:g}s, and again after {3 * args.timeout:g}s)")
        for line in excerpt((u["dir"] / "stderr.txt").read_text(errors="replace")):
            print(f"      | {line[:200]}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
