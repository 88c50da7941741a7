"""Figures: the metric library as data, formulas over line items, operands resolved against a
filing's reported facts, and the decimal calculator.

The answer path plans (which metric, which fiscal year), this package computes; it knows nothing
of prompts, models or stores (a store fits ``resolve.FactLookup``).
"""
