"""Helpers for coordinator tests: a coordinator in a thread, workers in threads or processes."""

import logging

import pytest

from texflow.coordinator import CoordinatorThread


@pytest.fixture
def make_coordinator():
    """`make_coordinator(num_workers=2, **options)` -> a started CoordinatorThread."""
    started = []

    def make(num_workers=2, **options):
        options.setdefault("port", 0)
        c = CoordinatorThread(num_workers=num_workers, **options).start()
        started.append(c)
        return c

    yield make
    for c in started:
        c.stop()


@pytest.fixture(autouse=True)
def _quiet_websockets(log_levels):
    log_levels({"websockets": logging.WARNING})
