"""MLIR's PassManager on the compiler: `PassManager.parse("builtin.module(
fly-layout-lowering,canonicalize)").run(module.operation)` runs any pass
fly-opt knows (upstream's and this product's) on a standalone module, which
then holds the result."""

from __future__ import annotations

from .. import _fly
from ._context import fail
from ._operations import Module, _OperationBase, text_error


class PassManager:
    """A textual pass pipeline anchored on builtin.module."""

    def __init__(self, anchor_op: str = "builtin.module", context=None):
        self._anchor = anchor_op
        self._passes: list[str] = []

    @staticmethod
    def parse(pipeline: str, context=None) -> "PassManager":
        """The pipeline written `anchor(pass1,pass2{option=1},...)`."""
        text = pipeline.strip()
        anchor, paren, rest = text.partition("(")
        if not paren or not rest.endswith(")") or not anchor:
            raise fail(f"invalid pass pipeline {pipeline!r}: write it as "
                       "builtin.module(pass1,pass2,...)")
        manager = PassManager(anchor.strip(), context)
        if rest[:-1].strip():
            manager._passes.append(rest[:-1].strip())
        return manager

    def add(self, pipeline: str) -> None:
        """Appends passes (`canonicalize`, `cse,fly-canonicalize`)."""
        self._passes.append(pipeline)

    @property
    def pipeline(self) -> str:
        return f"{self._anchor}(" + ",".join(self._passes) + ")"

    def __str__(self) -> str:
        return self.pipeline

    def enable_verifier(self, enable: bool) -> None:
        pass  # the compiler verifies the module before the pipeline

    def enable_ir_printing(self, *args, **kwargs) -> None:
        raise fail("PassManager.enable_ir_printing: dump the stages of a compile with "
                   "FLYDSL_DUMP_IR=1 instead, or print the module after run()")

    def run(self, operation) -> None:
        """Runs the pipeline on a standalone module (`module.operation`);
        the module holds the result. Errors are MLIRErrors at the failing
        op's line."""
        op = operation.operation if isinstance(operation, (_OperationBase, Module)) else None
        if op is None or op._name != "builtin.module" or op._root() is not op \
                or op._anchor is not None:
            raise fail("PassManager.run: give it a standalone module's operation "
                       "(ir.Module.create() or ir.Module.parse(...), then module.operation)")
        text = op._standalone_text()
        try:
            result = _fly.run_pipeline(text, self.pipeline)
        except _fly.Error as err:
            raise text_error(err, op, text, f"pass pipeline {self.pipeline}") from None
        Module(op)._replace(result, verify=False)
