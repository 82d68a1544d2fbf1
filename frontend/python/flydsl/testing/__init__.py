"""Testing GPU kernels without a GPU.

`emulated_gpu` is a pytest plugin that runs test suites written for torch's
"cuda" device, unmodified, on the FlyDSL emulator (`pytest -p
flydsl.testing.emulated_gpu`, or FLYDSL_EMULATED_GPU=1 where the package is
installed); `torch_cuda` is the stand-in for torch's GPU that it installs.
"""
