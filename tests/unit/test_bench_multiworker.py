"""`texflow bench --multiworker`'s tables from given figures (nothing is timed): the
ratios against one worker and TensorFlow, and whether each target is met."""

from texflow.bench import multiworker


def _run(ms, batch=64, workers=1, share=0.0):
    return {"step_ms": ms, "samples_per_s": batch * workers * 1e3 / ms, "comm_share": share,
            "backend": "numpy"}


def test_tables_give_ratios_against_one_worker_and_tensorflow_and_the_targets():
    native = {1: _run(100.0), 2: _run(110.0, workers=2, share=0.25),
              4: _run(400.0, workers=4, share=0.5)}
    tf = {1: _run(50.0), 2: _run(55.0, workers=2), 4: None}
    browser = (_run(800.0, workers=2, share=0.1) | {"backend": "webgl"}, "131.0")
    recovery = {"noticed_s": 0.01, "joined_s": 1.5, "synced_s": 1.6, "first_step_s": 1.9,
                "sync_ms": 12.0, "after_generation_s": 0.3}
    out = []
    multiworker.tables(native, browser, recovery, tf, out)
    rows = [line for line in out if line.startswith("| ")]
    assert rows[1] == "| 1 native (alone) | 100.0 | 640 | 1.00x | 0% | 50.0 | 1,280 | 2.00x |"
    assert rows[2] == "| 2 native | 110.0 | 1,164 | 1.82x | 25% | 55.0 | 2,327 | 2.00x |"
    assert rows[3] == "| 4 native | 400.0 | 640 | 1.00x | 50% | – | – | – |"
    assert rows[4] == "| 2 browser (webgl) | 800.0 | 160 | 0.25x | 10% | – | – | – |"
    assert "| 2 native vs 1, samples/s | 1.82x | >= 1.6x: met |" in out
    assert any(line.startswith("| recovery, restarted worker joined to the next step done "
                               "| 0.40 s | < 5 s: met |") for line in out)
    out = []
    native[1]["cpu_ms"], native[2]["cpu_ms"], native[2]["coordinator_cpu_ms"] = 90.0, 240, 30
    tf_config = {2: _run(100.0, workers=2, share=0.2) | {"cpu_ms": 200.0,
                                                        "coordinator_cpu_ms": None}}
    multiworker.tables(native, None, None, tf, out, tf_config, cores=2)
    assert "| 1 native (alone) | 90.0 | – | 1.00x | 1.00x |" in out
    assert "| 2 native | 240.0 | 30.0 | 1.33x | 1.50x |" in out
    assert "| 2 native, TF_CONFIG | 200.0 | (in the chief) | 1.11x | 1.80x |" in out
    assert ("| 2 native, TF_CONFIG (coordinator in the chief) | 100.0 | 1,280 | 2.00x | 20% | "
            "– | – | – |") in out
    assert "| 2 native with TF_CONFIG vs 1, samples/s | 2.00x | >= 1.6x: met |" in out
    out = []
    multiworker.tables({1: _run(100.0), 2: _run(150.0, workers=2)}, None, None, None, out)
    assert "| 2 native vs 1, samples/s | 1.33x | >= 1.6x: NOT met |" in out
    assert not any("browser" in line or "recovery" in line for line in out)
