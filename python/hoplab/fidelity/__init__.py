"""`hoplab fidelity`: every model cross-checked against a reference.

A check runs hoplab on a scenario that a reference also ran (ns-2.35,
ns-2.29 with the public semi-TCP code, ns-3 3.44, or an analytic model) and
compares one number, averaged over the same seeds, with the reference's.
Each check states its tolerance up front (chosen before its result was
seen; the issue that asked for it, or the model's own accuracy); it holds
when |hoplab / reference - 1| is within it. The references are stored as
package data (`hoplab/data/references/*.json`, `hoplab/data/ns3_chain.json`)
with the command, simulator version and seeds that made them, and are made
again by the scripts that wrote them (`scripts/ns2/reference.py`,
`scripts/ns3_chain.py`): neither users nor CI need the reference
simulators. Where no simulator is a reference (a scheme that exists only
in its paper), a row says so and names what checks the model instead.

docs/fidelity.md is this module's output (`hoplab fidelity --doc
docs/fidelity.md`), with the experiments behind the rows that fail.
"""

from __future__ import annotations

from hoplab.fidelity.checks import CHECKS, Check, Row, run_checks

__all__ = ["CHECKS", "Check", "Row", "run_checks"]
