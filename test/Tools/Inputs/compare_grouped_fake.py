"""Runs scripts/compare_grouped.py's main() without a GPU: torch and fgemm
are stand-ins, DeepGEMM is absent, and each row's runner returns fixed times
that depend on its seed (test/Tools/compare-grouped-draws.test)."""
import sys
import types

sys.path.insert(0, sys.argv[1])
torch = types.ModuleType("torch")
torch.__version__ = "stand-in"
torch.cuda = types.SimpleNamespace(get_device_name=lambda: "stand-in")
sys.modules["torch"] = torch
sys.modules["fgemm"] = types.ModuleType("fgemm")
import compare_grouped  # noqa: E402


def masked(fgemm, dg, torch, shape, capacity, reps, seed):
    # Even draws hold few row tiles (DeepGEMM 48 us), odd ones more (69 us).
    return {"layout": "masked", "shape": list(shape), "capacity": capacity,
            "rows": [seed % 1000, seed // 1000], "flops": 1e9,
            "deepgemm_us": 48.0 if seed // 1000 % 2 == 0 else 69.0, "fgemm_us": 62.5}


compare_grouped.run_masked = masked
sys.argv = [sys.argv[0]]
compare_grouped.main()
