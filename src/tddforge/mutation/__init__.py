"""The mutation engine: mutants of one module, scored against its tests, verdicts cached.

``operators`` (the operator table, exact spans) and ``generate`` make
``mutant.Mutant``s; ``engine`` runs ``worker.py`` (a copied file, run by the
project's interpreter) in the sandbox to score them; ``cache`` and
``fingerprints`` decide which prior verdicts still hold; ``report`` sums up.
"""
