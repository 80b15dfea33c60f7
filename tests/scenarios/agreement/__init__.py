"""The scenario-verdict agreement corpus (issue 24): cases by class, each labelled with the
verdict the specification calls for and why; ``harness`` scores them."""

from tests.scenarios.agreement.cases_derived import CASES as DERIVED
from tests.scenarios.agreement.cases_evidence import CASES as EVIDENCE
from tests.scenarios.agreement.cases_holdout import CASES as HOLDOUT
from tests.scenarios.agreement.cases_names import CASES as NAMES
from tests.scenarios.agreement.cases_paraphrase import CASES as PARAPHRASE
from tests.scenarios.agreement.cases_strict import CASES as STRICT
from tests.scenarios.agreement.cases_writes import CASES as WRITES

ALL_CASES = [*PARAPHRASE, *STRICT, *DERIVED, *WRITES, *NAMES, *EVIDENCE]
"""The corpus the rules were developed against."""
HOLDOUT_CASES = list(HOLDOUT)
"""Written after the rules were settled, in other domains; first run: 18/22 without a judge,
21/22 with the careful judge (one strict false fail, "the $312.50 chargeback", since fixed)."""
