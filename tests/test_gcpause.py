"""The structure stages pause the cyclic collector and always give it back."""

import gc

import pytest

from docintel.parsing import gcpause


def test_paused_disables_and_restores_the_collector():
    assert gc.isenabled()
    with gcpause.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_paused_restores_after_an_error_and_keeps_a_disabled_collector_disabled():
    with pytest.raises(ValueError), gcpause.paused():
        raise ValueError("stage failed")
    assert gc.isenabled()
    gc.disable()
    try:
        with gcpause.paused():
            pass
        assert not gc.isenabled()  # the caller's choice stays
    finally:
        gc.enable()
