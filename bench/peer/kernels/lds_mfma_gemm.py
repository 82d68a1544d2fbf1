"""examples/mfma_gemm.py's kernel (f16, gfx942: MFMA 16x16x16 with a K loop
staged through LDS), loaded from the example so both products compile the
example's own source."""

import importlib.util
from pathlib import Path

import torch

_path = Path(__file__).resolve().parents[3] / "examples" / "mfma_gemm.py"
_spec = importlib.util.spec_from_file_location("mfma_gemm_example", _path)
_example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_example)

JIT = _example.mfma_gemm


def compile_args():
    return (torch.zeros(256, 256, dtype=torch.float16), torch.zeros(256, 256, dtype=torch.float16),
            torch.zeros(256, 256))
