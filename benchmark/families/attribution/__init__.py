"""The attribution family: are an answer's citations right?"""

from benchmark.families.attribution.family import AttributionFamily

__all__ = ["AttributionFamily"]
