"""The tracing core, below `flydsl.expr`: the module under construction
(ir, trace), the AST rewriter and the runtime of rewritten control flow
(ast_rewriter, control_flow, tracer), the parameters of traced functions
(signature) and the errors that name the user's line (errors).

It imports nothing of `expr` or of the launch layer (`flydsl.compiler`):
what the tracer needs of traced values, `expr` registers with it
(tracer.VALUES)."""
