"""The package's pytest11 entry point: loaded by every pytest session of an
environment where flydsl is installed, it does nothing unless
FLYDSL_EMULATED_GPU is true, and then switches the emulated GPU plugin on."""

import os

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    if "FLYDSL_EMULATED_GPU" not in os.environ:
        return
    from ..compiler.env import _bool

    if _bool("FLYDSL_EMULATED_GPU", False):
        early_config.pluginmanager.import_plugin("flydsl.testing.emulated_gpu")
        from .emulated_gpu import activate

        activate()
