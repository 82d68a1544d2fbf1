"""The dialect modules of flydsl._mlir: `arith`, `vector`, `llvm` (with the
`llvm.intr.*` intrinsics), `rocdl`, `gpu`, `memref`, `math`, `scf`, `func`,
`builtin`, `fly` and `fly_rocdl`. Each imports its generated op classes and
builders (`_<dialect>_ops_gen.py`, made by mlir-tblgen at build time) and
enums (`_<dialect>_enum_gen.py`), and adds the conveniences MLIR's own
dialect modules have (`arith.constant`, `func.FuncOp.add_entry_block`,
`scf.ForOp`, ...)."""
