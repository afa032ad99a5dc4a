# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""python -m fgemm.bench: the parts that run without a GPU (shapes, byte and
FLOP accounting, the table, argument errors). The timed run needs an sm_90
GPU with torch (docs/PERF.md records one)."""

import contextlib
import io
import unittest

from fgemm import bench


class Shapes(unittest.TestCase):
    def test_named_lists(self):
        dense = bench.parse_shapes("dense")
        self.assertEqual(len(dense), 18)
        self.assertIn((128, 4096, 7168), dense)
        self.assertIn((4096, 32768, 512), dense)
        self.assertEqual(bench.parse_shapes("quick")[0], (64, 2112, 7168))

    def test_explicit(self):
        self.assertEqual(bench.parse_shapes("1,8,16; 300,1000,2064;"), [(1, 8, 16), (300, 1000, 2064)])

    def test_bad_shapes_say_why(self):
        for text, words in (("64,2112", "is not M,N,K"), ("64,100,7168", "N a multiple of 8"),
                            ("64,2112,100", "K a multiple of 16"), ("0,8,16", "M >= 1"),
                            ("a,b,c", "is not M,N,K"), (";", "no shapes")):
            with self.assertRaises(ValueError) as cm:
                bench.parse_shapes(text)
            self.assertIn(words, str(cm.exception))


class Accounting(unittest.TestCase):
    def test_bytes(self):
        # A 128x256 + B 256x256 e4m3, SFA 128 rows x 2 K blocks, SFB 2x2 f32, D bf16 128x256.
        self.assertEqual(bench.traffic_bytes(128, 256, 256), 128 * 256 + 256 * 256 + 4 * 128 * 2 + 4 * 4 + 2 * 128 * 256)

    def test_rates(self):
        tflops, gbps = bench.rates(4096, 7168, 16384, 700.0)
        self.assertAlmostEqual(tflops, 2 * 4096 * 7168 * 16384 / 700e-6 / 1e12, places=6)
        self.assertAlmostEqual(gbps, bench.traffic_bytes(4096, 7168, 16384) / 700e-6 / 1e9, places=6)
        self.assertEqual(bench.rates(1, 8, 16, None), (None, None))


class Table(unittest.TestCase):
    def test_ratio_and_geomean(self):
        rows = [{"m": 64, "n": 2112, "k": 7168,
                 "libs": {"fgemm": {"us": 10.0, "tflops": 200.0, "gbps": 1500.0},
                          "deepgemm": {"us": 11.0, "tflops": 180.0, "gbps": 1400.0}}},
                {"m": 128, "n": 2112, "k": 7168,
                 "libs": {"fgemm": {"us": 20.0, "tflops": 100.0, "gbps": 800.0},
                          "deepgemm": {"error": "RuntimeError: no"}}}]
        text = bench.markdown(rows, ["fgemm", "deepgemm"])
        self.assertIn("| 64 | 2112 | 7168 | 10.0 | 200 | 1500 | 11.0 | 180 | 1400 | 1.100 |", text)
        self.assertIn("| 128 | 2112 | 7168 | 20.0 | 100 | 800 | - | - | - | - |", text)
        self.assertIn("geometric mean of fgemm's speed / deepgemm's: 1.100 over 1 shapes", text)


class Arguments(unittest.TestCase):
    def run_main(self, *argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as cm:
            bench.main(list(argv))
        return cm.exception.code, err.getvalue()

    def test_errors_before_any_gpu_work(self):
        code, err = self.run_main("--libs", "fgemm,cutlass")
        self.assertEqual(code, 2)
        self.assertIn("allowed: fgemm, fgemm_rowsfa, deepgemm, cublas", err)
        code, err = self.run_main("--libs", "deepgemm")
        self.assertIn("fgemm included", err)
        code, err = self.run_main("--shapes", "64,100,7168")
        self.assertIn("N a multiple of 8", err)
        code, err = self.run_main("--reps", "0")
        self.assertIn("--reps must be >= 1", err)


if __name__ == "__main__":
    unittest.main()
