"""groundcover's version, recorded in every result (its own module, so that recording it
never imports the package root, which re-exports the whole API)."""

__version__ = "0.1.0"
