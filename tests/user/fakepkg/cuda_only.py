"""A submodule whose import fails, as one needing a missing plugin does."""

raise ImportError("fakepkg.cuda_only needs the CUDA plugin")
