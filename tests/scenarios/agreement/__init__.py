"""The scenario-verdict agreement corpus (issue 24): cases by class, each labelled with the
verdict the specification calls for and why; ``harness`` scores them."""

from tests.scenarios.agreement.cases_derived import CASES as DERIVED
from tests.scenarios.agreement.cases_evidence import CASES as EVIDENCE
from tests.scenarios.agreement.cases_names import CASES as NAMES
from tests.scenarios.agreement.cases_paraphrase import CASES as PARAPHRASE
from tests.scenarios.agreement.cases_strict import CASES as STRICT
from tests.scenarios.agreement.cases_writes import CASES as WRITES

ALL_CASES = [*PARAPHRASE, *STRICT, *DERIVED, *WRITES, *NAMES, *EVIDENCE]
