"""`texflow coordinator` and `texflow worker` as a user runs them: what the coordinator prints,
the job it serves (with the arguments after --), and a clear error for each bad argument."""

import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest

from coord_helpers import in_own_thread
from texflow.cli import main

JOB = '''import sys
from pathlib import Path

import numpy as np

from texflow.distribute import collective

group = collective.connect(timeout=60)
total = group.all_reduce(np.float32(group.rank + 1))
word = (Path(__file__).parent / "data.txt").read_text().strip()
print(f"rank {group.rank} of {group.size} sum {total} argv {sys.argv[1:]} data {word}",
      flush=True)
group.close()
'''


def _lines(stream):
    """A queue that receives `stream`'s lines as they come (None at the end)."""
    lines = queue.Queue()

    def read():
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _sigint_default():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _texflow(*args, **options):
    return subprocess.Popen([sys.executable, "-m", "texflow.cli", *args], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **options)


def test_the_coordinator_prints_where_to_join_and_serves_its_job_with_its_arguments(tmp_path):
    folder = tmp_path / "job"
    folder.mkdir()
    (folder / "job.py").write_text(JOB)
    (folder / "data.txt").write_text("shipped\n")
    # Ctrl-C as a terminal sends it: a suite started in the background by a shell
    # without job control (`cmd &`) ignores SIGINT, and children inherit that
    coordinator = _texflow("coordinator", "--num-workers", "2", "--port", "0", "--script",
                           str(folder / "job.py"), "--", "a", "b c", preexec_fn=_sigint_default)
    workers = []
    try:
        lines, printed = _lines(coordinator.stdout), {}
        while "token" not in printed:
            line = lines.get(timeout=60)
            assert line is not None, f"the coordinator exited: {printed}"
            key, _, value = line.strip().partition(":  ")
            if value:
                printed[key] = value.strip()
        token = printed["token"]
        assert len(token) == 32 and int(token, 16) >= 0  # random, 128 bits
        origin, _, fragment = printed["join page"].partition("/#")
        assert origin.startswith("http://127.0.0.1:") and fragment == f"token={token}"
        port = origin.rsplit(":", 1)[1]
        assert printed["dashboard"] == f"{origin}/dashboard#token={token}"
        url = f"ws://127.0.0.1:{port}/ws"
        # with a job, the native line needs no script: the worker fetches the job
        assert printed["native"] == f"texflow worker --coordinator {url} --token {token}"
        page = urllib.request.urlopen(origin + "/", timeout=30).read().decode()
        assert "texflow worker" in page and "worker_page.js" in page
        with pytest.raises(urllib.error.HTTPError) as e:  # the job needs the token
            urllib.request.urlopen(origin + "/job/manifest.json", timeout=30)
        assert e.value.code == 401

        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        workers = [  # one runs the coordinator's job, one its own copy with its own args
            _texflow("worker", "--coordinator", url, "--token", token, cwd=elsewhere),
            _texflow("worker", "--coordinator", f"ws://127.0.0.1:{port}", "--token", token,
                     str(folder / "job.py"), "--", "x")]
        outputs = [w.communicate(timeout=120)[0] for w in workers]
        assert [w.returncode for w in workers] == [0, 0], outputs
        assert "argv ['a', 'b c'] data shipped" in outputs[0], outputs[0]
        assert "argv ['x'] data shipped" in outputs[1], outputs[1]
        ranks = sorted(out.split("rank ")[1][0] for out in outputs)
        assert ranks == ["0", "1"] and all("of 2 sum 3.0" in out for out in outputs), outputs
        coordinator.send_signal(signal.SIGINT)  # Ctrl-C stops it cleanly
        assert coordinator.wait(30) == 0
    finally:
        for proc in [coordinator, *workers]:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("args, why", [
    (["--num-workers", "0"], "--num-workers must be at least 1; received 0"),
    (["--num-workers", "2", "--shards", "0"], "--shards must be at least 1; received 0"),
    (["--num-workers", "2", "--port", "70000"], "--port must be at most 65535"),
    (["--num-workers", "2", "--heartbeat", "0"], "--heartbeat must be a positive number"),
    (["--num-workers", "2", "--max-workers", "4"], "--max-workers needs --elastic"),
    (["--num-workers", "3", "--elastic", "--max-workers", "2"],
     r"--max-workers \(2\) must be at least --num-workers \(3\)"),
    (["--num-workers", "2", "--", "60"], r"arguments after -- need --script; received \['60'\]"),
    (["--num-workers", "2", "--script", "no/such.py"], "no such script: no/such.py"),
])
def test_bad_coordinator_arguments_say_what_is_wrong(capsys, args, why):
    assert main(["coordinator", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("texflow coordinator: ") and "Traceback" not in err
    assert re.search(why, err), err


def test_a_taken_port_says_so(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = ["coordinator", "--num-workers", "1", "--port", str(port)]
        assert in_own_thread(main, argv) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}: " in err and "Traceback" not in err, err


def test_worker_errors_name_the_problem(make_coordinator, capsys, monkeypatch):
    monkeypatch.setenv("TEXFLOW_COORDINATOR", "")  # worker_command sets both: restored after
    monkeypatch.setenv("TEXFLOW_TOKEN", "")
    c = make_coordinator(1)
    cases = [
        (["--token", "wrong"], "HTTP 401: the job needs the coordinator's token"),
        (["--token", c.token], "HTTP 404: this coordinator runs no job (start it with "
                               "--script)"),
        (["--token", c.token, "--", "5"], "arguments after -- need FILE.py"),
    ]
    for args, why in cases:
        assert main(["worker", "--coordinator", c.url, *args]) == 2
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err, err
    with socket.socket() as s:  # nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["worker", "--coordinator", f"ws://127.0.0.1:{port}", "--token", "t"]) == 2
    assert f"cannot reach the coordinator at http://127.0.0.1:{port}" in capsys.readouterr().err


def test_every_coordinator_flag_reaches_the_coordinator(monkeypatch, capsys, tmp_path):
    import texflow.coordinator.server as server

    made = {}

    class Recorder:  # stands in for the server: records its arguments, then cannot listen
        def __init__(self, num_workers, **kwargs):
            made.update(kwargs, num_workers=num_workers)

        async def start(self):
            raise OSError(98, "recorded")

        async def close(self):
            pass

    monkeypatch.setattr(server, "Coordinator", Recorder)
    monkeypatch.delenv("TEXFLOW_TOKEN", raising=False)
    script = tmp_path / "job.py"
    script.write_text("print('hi')\n")
    assert in_own_thread(main, [
        "coordinator", "--num-workers", "3", "--host", "0.0.0.0", "--port", "9001",
        "--token", "t0k", "--allow-origin", "http://a.example:1", "--allow-origin",
        "http://b.example:2", "--checkpoint-dir", str(tmp_path), "--shards", "2",
        "--elastic", "--max-workers", "5", "--allow-nonfinite", "--heartbeat", "0.5",
        "--script", str(script), "--", "x", "--y"]) == 2
    job = made.pop("job")
    assert made == dict(num_workers=3, host="0.0.0.0", port=9001, token="t0k",
                        allow_origins=["http://a.example:1", "http://b.example:2"],
                        checkpoint_dir=str(tmp_path), shards=2, elastic=True, max_workers=5,
                        allow_nonfinite=True, heartbeat=0.5)
    assert job.manifest()["argv"] == ["job.py", "x", "--y"] and job.script == script
    assert "cannot listen on 0.0.0.0:9001: recorded" in capsys.readouterr().err
    monkeypatch.setenv("TEXFLOW_TOKEN", "from-env")  # the token's default
    assert in_own_thread(main, ["coordinator", "--num-workers", "1"]) == 2
    assert (made["token"], made["host"], made["port"], made["job"]) == \
        ("from-env", "127.0.0.1", 8470, None)


def test_worker_runs_a_file_with_its_arguments_environment_and_exit_code(monkeypatch, capsys,
                                                                         tmp_path):
    for name in ("TEXFLOW_COORDINATOR", "TEXFLOW_TOKEN", "TEXFLOW_TASK_ID"):
        monkeypatch.setenv(name, "")  # worker_command sets them: restored after the test
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    script = tmp_path / "w.py"
    script.write_text("import os, sys\n"
                      "print(sys.argv[1:], *(os.environ['TEXFLOW_' + k] for k in "
                      "('COORDINATOR', 'TOKEN', 'TASK_ID')))\n"
                      "sys.exit(int(sys.argv[1]))\n")
    assert main(["worker", "--coordinator", "ws://h:1", "--token", "t", "--task-id", "3",
                 str(script), "--", "7", "b"]) == 7
    assert capsys.readouterr().out == "['7', 'b'] ws://h:1 t 3\n"
    assert main(["worker", "--coordinator", "ws://h:1", "--token", "t", str(script), "--",
                 "0"]) == 0
