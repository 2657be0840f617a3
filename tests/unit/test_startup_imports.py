"""Every process that loads the code location (a test worker, the main job, a run the daemon launches, the UI's code
server) pays for what `definitions` imports. The slow libraries are imported where they are used: litellm by the LLM
back ends, great-expectations by the schema checks, scipy by the statistics and the fits (≈ 3, 3 and 0.7 s to
import: scipy.stats 0.4 s, then scipy.optimize, .sparse and .special 0.3 s). They are preloaded only into the
forkservers whose children run steps (definitions.PRELOADED; scipy.stats brings the rest of scipy they use)."""

import subprocess
import sys

from benchwright.paths import ROOT

SLOW = ["litellm", "great_expectations", "scipy"]


def test_loading_the_definitions_leaves_the_slow_libraries_to_their_users():
    code = "import sys, definitions\nprint(' '.join(name for name in sys.argv[1:] if name in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code, *SLOW], cwd=ROOT, capture_output=True, text=True,
                            check=True, timeout=300).stdout.split()
    assert loaded == []
    from definitions import PRELOADED

    assert all(any(module.split(".")[0] == name for module in PRELOADED) for name in SLOW)
