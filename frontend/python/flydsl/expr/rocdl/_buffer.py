"""buffer resources, tensors and pointers; BufferCopy*, BufferCopyLDS*, BufferAtomic*."""

__all__: list = []
