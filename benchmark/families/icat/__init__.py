"""ICAT (Samarinas et al., 2025): factuality and aspect coverage of long-form answers."""
