"""The attribution family: are an answer's citations right?"""
