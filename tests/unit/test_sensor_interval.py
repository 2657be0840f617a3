"""How often the daemon's sensors look: one setting, refused with a clear error when it is not a whole number."""

import pytest

from sensors import INTERVAL_VARIABLE, tick_interval_s


def test_default_is_thirty_seconds(monkeypatch):
    monkeypatch.delenv(INTERVAL_VARIABLE, raising=False)
    assert tick_interval_s() == 30


def test_the_setting_is_read(monkeypatch):
    monkeypatch.setenv(INTERVAL_VARIABLE, " 5 ")
    assert tick_interval_s() == 5


@pytest.mark.parametrize("text, message", [("fast", "whole number"), ("2.5", "whole number"), ("0", "at least 1")])
def test_bad_values_are_refused(monkeypatch, text, message):
    monkeypatch.setenv(INTERVAL_VARIABLE, text)
    with pytest.raises(ValueError, match=message) as refused:
        tick_interval_s()
    assert INTERVAL_VARIABLE in str(refused.value)
