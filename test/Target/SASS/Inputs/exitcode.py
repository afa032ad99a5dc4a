#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Run a command and print its exit status, so lit tests can check the exact code
(`not` only checks for non-zero). stdout/stderr pass through, merged on stdout."""

import subprocess
import sys

proc = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
sys.stdout.write(proc.stdout)
print(f"exit code: {proc.returncode}")
