"""tacmap opens no network connection: the command line and the window, watched from outside.

Every case runs the real ``tacmap`` in a child process under GUARD, a Python audit
hook (``sys.addaudithook``) installed before tacmap is imported. It records, then
refuses, everything Python can do towards a network: making a socket, connect,
bind, sendto/sendmsg, getaddrinfo and the other name look-ups, urllib, http.client
and friends, and opening a web browser. An audit hook sees these whichever module
asks and however it imported ``socket``; a monkeypatched ``socket.connect`` would
miss ``from socket import create_connection`` done before the patch.

Qt's C++ code does not pass through Python, so where ``strace`` works the same
runs are traced at the system-call level as well, and any AF_INET or AF_INET6
socket fails the test (AF_UNIX, the local X server and D-Bus, is not a network).

The control tests at the end show that both watchers do catch a connection.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "resources" / "demo.tacmap"
DEMO_SCRIPT = ROOT / "resources" / "demo-two-rounds.jsonl"
SPEED_DEMO = ROOT / "resources" / "speed_rank_demo.tacmap"
SPEED_SCRIPT = ROOT / "resources" / "speed_rank_demo-three-rounds.jsonl"

GUARD = textwrap.dedent("""
    import json, os, sys

    LOG = os.environ["TACMAP_NET_LOG"]
    WATCHED = ("socket.", "urllib.", "http.client.", "ftplib.", "smtplib.", "poplib.",
               "imaplib.", "nntplib.", "telnetlib.", "webbrowser.")
    LOCAL = {"socket.gethostname"}  # reads the machine's own name; no traffic

    def guard(event, args):
        if event in LOCAL or not event.startswith(WATCHED):
            return
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps({"event": event, "args": [repr(a) for a in args]}) + "\\n")
        raise PermissionError(f"network use refused by tests/test_network.py: {event}")

    sys.addaudithook(guard)
""")

#: ``window`` mode: ``tacmap`` with no arguments (the demo in the real window); once it
#: is up, the Help dialogs are opened from inside the running app, then it quits.
WINDOW = textwrap.dedent("""
    def run_window(argv):
        import threading, time
        from PySide6.QtCore import QObject, Signal
        from tacmap.cli import main
        from tacmap.ui.help import add_help_menu
        from tacmap.ui.qt import QApplication, QDialog, QMainWindow

        class Probe(QObject):
            due = Signal()

        def look():
            app = QApplication.instance()
            windows = [w for w in app.topLevelWidgets()
                       if isinstance(w, QMainWindow) and w.isVisible()]
            result = {"platform": app.platformName(),
                      "titles": [w.windowTitle() for w in windows]}
            if windows:
                window = windows[0]
                image = window.grab().toImage()
                result["size"] = [image.width(), image.height()]
                menu = add_help_menu(window)
                for action in menu.actions():
                    if not action.isSeparator():
                        action.trigger()
                app.processEvents()
                result["dialogs"] = sorted(d.objectName() for d in window.findChildren(QDialog)
                                           if d.isVisible())
            with open(os.environ["TACMAP_NET_RESULT"], "w", encoding="utf-8") as f:
                json.dump(result, f)
            app.quit()

        probe = Probe()
        probe.due.connect(look)  # emitted from the thread below, run in the GUI thread

        def wait():
            while QApplication.instance() is None:
                time.sleep(0.05)
            time.sleep(float(os.environ.get("TACMAP_NET_SECONDS", "1.5")))
            probe.due.emit()

        threading.Thread(target=wait, daemon=True).start()
        return main(argv)
""")

DISPATCH = textwrap.dedent("""
    mode, argv = sys.argv[1], sys.argv[2:]
    if mode == "cli":
        from tacmap.cli import main
        sys.exit(main(argv))
    elif mode == "window":
        sys.exit(run_window(argv))
    else:
        exec(argv[0])
""")
CHILD = GUARD + WINDOW + DISPATCH


def _strace_works() -> bool:
    if shutil.which("strace") is None:
        return False
    done = subprocess.run(["strace", "-f", "-qq", "-o", os.devnull, "true"],
                          capture_output=True, check=False)
    return done.returncode == 0


STRACE = _strace_works()
INET = re.compile(r"\bAF_INET6?\b")


class Run:
    """One watched child: what it printed and every network attempt either watcher saw."""

    def __init__(self, done: subprocess.CompletedProcess[str], python_log: Path,
                 trace: Path | None, result: Path) -> None:
        self.returncode = done.returncode
        self.stdout = done.stdout
        self.stderr = done.stderr
        self.python = ([json.loads(line) for line in python_log.read_text().splitlines()]
                       if python_log.exists() else [])
        self.syscalls = ([line for line in trace.read_text().splitlines() if INET.search(line)]
                         if trace is not None and trace.exists() else [])
        self.result = json.loads(result.read_text()) if result.exists() else None


def watched(tmp_path: Path, mode: str, *args: str, trace: bool = False,
            env: dict[str, str] | None = None, guard: bool = True) -> Run:
    """Run ``tacmap`` (or a snippet) in a child under the watchers."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    log, result = tmp_path / "python-net.jsonl", tmp_path / "window.json"
    strace_out = tmp_path / "strace.txt" if trace else None
    child_env = dict(os.environ, TACMAP_NET_LOG=str(log), TACMAP_NET_RESULT=str(result),
                     TACMAP_HOME=str(tmp_path / "home"), QT_QPA_PLATFORM="offscreen")
    child_env.pop("TACMAP_RULESETS", None)
    child_env.update(env or {})
    cmd = ([sys.executable, "-c", CHILD, mode, *args] if guard
           else [sys.executable, "-c", args[0]])
    if strace_out is not None:
        cmd = ["strace", "-f", "-qq", "-e", "trace=socket,connect,sendto,sendmsg",
               "-e", "signal=none", "-o", str(strace_out), *cmd]
    done = subprocess.run(cmd, cwd=tmp_path, env=child_env, capture_output=True, text=True,
                          timeout=180, check=False)
    return Run(done, log, strace_out, result)


CLI_CASES: dict[str, list[str]] = {
    "rulesets": ["rulesets"],
    "check": ["check", str(DEMO)],
    "measure": ["measure", "--ruleset", "action_pool", "0,0", "3,4", "5,4"],
    "new": ["new", "--ruleset", "speed_rank", "--seed", "1", "new.tacmap"],
    "render": ["render", str(DEMO), "map.png"],
    "render-player": ["render", "--player", str(SPEED_DEMO), "player.png"],
    "play": ["play", str(DEMO), "--script", str(DEMO_SCRIPT), "--seed", "7", "--out",
             "played.tacmap"],
    "play-speed-rank": ["play", str(SPEED_DEMO), "--script", str(SPEED_SCRIPT), "--seed", "3",
                        "--json"],
}
#: What each command leaves behind in its folder, to show it really ran.
WRITES = {"new": "new.tacmap", "render": "map.png", "render-player": "player.png",
          "play": "played.tacmap"}


def _check_cli(run: Run, name: str, folder: Path) -> None:
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.python == [], f"tacmap {name} tried the network: {run.python}"
    assert run.syscalls == [], f"tacmap {name} opened inet sockets: {run.syscalls[:5]}"
    if name in WRITES:
        assert (folder / WRITES[name]).stat().st_size > 0
    if name == "rulesets":
        assert {"action_pool", "speed_rank"} <= {ln.split("\t")[0] for ln in run.stdout.split("\n")}
    if name.startswith("play"):
        assert len(run.stdout.splitlines()) > 20  # two or three rounds of events


@pytest.mark.parametrize("name", list(CLI_CASES))
def test_command_line_uses_no_network(tmp_path: Path, name: str) -> None:
    run = watched(tmp_path, "cli", *CLI_CASES[name])
    _check_cli(run, name, tmp_path)


@pytest.mark.skipif(not STRACE, reason="strace is not installed or cannot trace here "
                                       "(apt-get install strace)")
def test_command_line_opens_no_inet_socket_at_the_system_call_level(tmp_path: Path) -> None:
    for name in ("render", "play", "rulesets"):
        run = watched(tmp_path / name, "cli", *CLI_CASES[name], trace=True)
        _check_cli(run, name, tmp_path / name)


def _check_window(run: Run) -> dict[str, object]:
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.python == [], f"the window tried the network: {run.python}"
    assert run.syscalls == [], f"the window opened inet sockets: {run.syscalls[:5]}"
    result = run.result
    assert isinstance(result, dict), f"the window never came up: {run.stderr[-2000:]}"
    titles = result["titles"]
    # The bundled demo opens untitled, so saving never overwrites the shipped file.
    assert isinstance(titles, list) and any(
        "Toll Gate" in t and "unsaved" in t for t in titles), result
    assert result["dialogs"] == ["help-about", "help-getting-started", "help-shortcuts",
                                 "trust-dialog"]
    return result


def test_the_window_uses_no_network(tmp_path: Path) -> None:
    run = watched(tmp_path, "window", trace=STRACE)
    result = _check_window(run)
    assert result["platform"] == "offscreen"


def test_the_real_xcb_window_uses_no_network(tmp_path: Path, xvfb: str) -> None:
    run = watched(tmp_path, "window", trace=STRACE,
                  env={"DISPLAY": xvfb, "QT_QPA_PLATFORM": "xcb"})
    result = _check_window(run)
    assert result["platform"] == "xcb"


# --- the watchers themselves ------------------------------------------------------------


def test_the_python_guard_catches_and_refuses_a_connection(tmp_path: Path) -> None:
    snippet = textwrap.dedent("""
        import socket, urllib.request
        from socket import create_connection
        for attempt in (lambda: create_connection(("192.0.2.1", 9), timeout=0.1),
                        lambda: urllib.request.urlopen("http://192.0.2.1/", timeout=0.1),
                        lambda: socket.socket().connect(("127.0.0.1", 9))):
            try:
                attempt()
            except PermissionError as err:
                print("refused:", err)
    """)
    run = watched(tmp_path, "exec", snippet)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("refused:") == 3
    events = [e["event"] for e in run.python]
    assert "socket.getaddrinfo" in events and "urllib.Request" in events
    assert "socket.__new__" in events


@pytest.mark.skipif(not STRACE, reason="strace is not installed or cannot trace here")
def test_the_system_call_trace_catches_an_inet_socket(tmp_path: Path) -> None:
    snippet = ("import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n"
               "s.connect_ex(('127.0.0.1', 9))\n")
    run = watched(tmp_path, "exec", snippet, trace=True, guard=False)
    assert run.returncode == 0, run.stderr
    assert any("connect(" in line and "127.0.0.1" in line for line in run.syscalls)
