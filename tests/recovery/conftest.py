"""Recovery tests run coordinators and killed workers: their expected disconnects would
fill the captured logs, so the coordinator logs errors only, for each test alone."""

import logging

import pytest


@pytest.fixture(autouse=True)
def _quiet(log_levels):
    log_levels({"websockets": logging.WARNING, "texflow.coordinator": logging.ERROR})
