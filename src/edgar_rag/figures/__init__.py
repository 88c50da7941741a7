"""Figures: the metric library as data, formulas over line items, operands resolved against a
filing's reported facts, and the decimal calculator.

The answer path plans, this package computes; it knows nothing of prompts, models or stores (a
store fits ``resolve.FactLookup``). One question, end to end::

    plan = plan.plan_computation(text, library)          # ComputationPlan | FormulaDecline | None
    figures = resolve.load_figures(store, filing_id, meta)   # the asked filing first
    result = plan.compute_plan(plan, library, [figures], fiscal_year=asked)
    # Calculation (.text(), .as_json(), .operands[i].citation) | MissingFigure | CalculationDecline

Modules: ``library`` (metrics.toml read and checked), ``formula`` (the tree and its grammar),
``stated`` (a formula the question writes), ``plan``, ``resolve``, ``calculator``, ``check``
(what the verifier checks of a computed answer).
"""
