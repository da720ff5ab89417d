"""ICAT (Samarinas et al., 2025): factuality and aspect coverage of long-form answers.

``formulas`` — the equations (pure); ``claims``, ``aspects`` — parsing model output
(pure); ``pipeline`` — the stages that call models (grounding itself is
:mod:`benchmark.judging.grounding`, shared with other families); ``qrels`` — ICAT-M's
aspect-level judgements; ``trace`` — the per-query record; ``views`` — tables, plots,
drill-down; ``family`` — what the family is (its scores, settings, tables, judges).
"""
