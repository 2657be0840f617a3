"""Every process that loads the code location (a test worker, the main job, a run the daemon launches, the UI's code
server) pays for what `definitions` imports. The slow libraries are imported where they are used: litellm by the LLM
back ends, great-expectations by the schema checks, scipy.stats by the statistics (≈ 3, 3 and 0.4 s to import).
They are preloaded only into the forkservers whose children run steps (definitions.PRELOADED)."""

import subprocess
import sys

from benchwright.paths import ROOT

SLOW = ["litellm", "great_expectations", "scipy.stats"]


def test_loading_the_definitions_leaves_the_slow_libraries_to_their_users():
    code = "import sys, definitions\nprint(' '.join(name for name in sys.argv[1:] if name in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code, *SLOW], cwd=ROOT, capture_output=True, text=True,
                            check=True, timeout=300).stdout.split()
    assert loaded == []
    from definitions import PRELOADED

    assert set(SLOW) <= set(PRELOADED)
