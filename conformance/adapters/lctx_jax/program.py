"""Generated programs (conformance/sweep/PROGRAMS.md) in JAX: what the
exporter and the tests use, from the modules that do each job
(program_text.py says how they fit together)."""

from .program_ops import OPS
from .program_repro import main, repro_source
from .program_source import Built, build, to_source
from .program_text import FORMAT_VERSION, Program, ProgramError, parse

__all__ = ["OPS", "main", "repro_source", "Built", "build", "to_source",
           "FORMAT_VERSION", "Program", "ProgramError", "parse"]
