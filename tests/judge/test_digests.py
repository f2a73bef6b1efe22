"""The report's SHA-256s (meshspec/judge/values.py: Digests): a large source hashed early, in a
thread, gives the digest hashlib gives; an alias takes its source's digest."""

import hashlib

import numpy as np

from meshspec.judge import values as values_module
from meshspec.judge.values import Digests


def test_a_source_hashed_early_has_the_digest_of_its_bytes():
    src = np.arange(1 << 20, dtype=np.uint16)
    digests = Digests()
    digests.start(src)
    digests.start(src)  # once: a second start is no second thread
    assert len(digests._early) == 1
    assert digests.of(src) == hashlib.sha256(src.tobytes()).hexdigest()
    assert not digests._early


def test_an_alias_waits_for_its_sources_early_digest():
    src = np.arange(1000, dtype=np.int32)
    composed = src.copy()
    digests = Digests()
    digests.start(src)
    digests.alias = {id(composed): src}
    assert digests.of(composed) == hashlib.sha256(src.tobytes()).hexdigest()


def test_a_thread_that_failed_is_hashed_again_where_the_report_is_made(monkeypatch):
    calls = []

    def sha256(values):
        calls.append(values.size)
        if len(calls) == 1:
            raise MemoryError  # the thread's copy of a slice
        return "digest"

    monkeypatch.setattr(values_module, "sha256", sha256)
    src = np.zeros(10)
    digests = Digests()
    digests.start(src)
    assert digests.of(src) == "digest" and calls == [10, 10]
