# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""run-concurrently.py N -- COMMAND...: starts N copies of COMMAND at once,
waits for all, prints their outputs one after the other; exit 1 if any
failed."""
import subprocess
import sys

count = int(sys.argv[1])
command = sys.argv[sys.argv.index("--") + 1:]
processes = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
             for _ in range(count)]
failed = 0
for process in processes:
    output, _ = process.communicate()
    sys.stdout.write(output.decode())
    failed += process.returncode != 0
sys.exit(1 if failed else 0)
