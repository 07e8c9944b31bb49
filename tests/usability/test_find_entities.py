"""Finding entity paths without reading the source: reject's meaning, did-you-mean,
`cairn ls`, `cairn which`, and `cairn check` with no arguments (through the real CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from usability.helpers import cairn, flask_app, git, ok


@pytest.fixture
def app(tmp_path: Path) -> Path:
    root = flask_app(tmp_path / "app")
    git(root, "init", "-q", "-b", "main")
    ok(root, "init")
    return root


def test_reject_names_what_was_rejected_and_the_gate_blocks_exactly_that(app: Path) -> None:
    helptext = ok(app, "reject", "--help")
    assert "ENTITY is what was rejected" in " ".join(helptext.split())
    assert "cairn reject deps/celery" in helptext
    # --alternative is optional: "we rejected celery" is a whole decision.
    out = ok(app, "reject", "deps/celery", "-r", "we don't want to run a broker")
    assert out.startswith("logged reject on deps/celery")
    blocked = cairn(app, "check", "requirements.txt")
    assert blocked.returncode == 1
    assert "error: deps/celery was rejected" in blocked.stdout
    # Flask, which nobody rejected, passes.
    (app / "other.txt").write_text("")
    (app / "requirements-web.txt").write_text("flask==3.0\n")
    assert cairn(app, "check", "requirements-web.txt").returncode == 0


def test_unknown_paths_get_suggestions_from_the_log_and_the_code(app: Path) -> None:
    ok(app, "reject", "deps/celery", "-r", "no broker")
    for guess, expected in (
        ("celery", "deps/celery"),
        ("dep/celery", "deps/celery"),
        ("gift_wrap", "orders.gift_wrap"),  # only in the code, never logged
        ("route/GET /users/{id}", "route/GET /users/{user_id}"),
    ):
        proc = cairn(app, "status", guess)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith(f"{guess}  unknown  (0 decisions)")
        assert "did you mean" in proc.stderr and expected in proc.stderr, (guess, proc.stderr)
        as_json = cairn(app, "status", guess, "--json")
        assert expected in json.loads(as_json.stdout)["did_you_mean"]
    history = cairn(app, "history", "celery")
    assert history.returncode == 0 and "did you mean deps/celery?" in history.stderr
    known = cairn(app, "status", "deps/celery", "--json")
    assert json.loads(known.stdout)["did_you_mean"] == [] and known.stderr == ""


def test_ls_lists_entities_with_status_and_counts(app: Path) -> None:
    assert ok(app, "ls").strip() == "no entities with decisions"
    ok(app, "reject", "deps/celery", "-r", "no broker")
    ok(app, "log", "orders.gift_wrap", "add", "-r", "gift wrapping at checkout")
    ok(app, "revert", "orders.gift_wrap", "-r", "nobody used it")
    ok(app, "log", "orders.id", "add", "-r", "primary key")
    lines = ok(app, "ls").splitlines()
    assert lines[0].split() == ["deps/celery", "rejected", "1", "decision,", "1", "open", "verdict"]
    assert lines[1].split()[:4] == ["orders.gift_wrap", "reverted", "2", "decisions,"]
    assert lines[2].split() == ["orders.id", "active", "1", "decision"]
    assert lines[3] == "3 entities"
    assert [r["entity"] for r in json.loads(ok(app, "ls", "orders", "--json"))] == [
        "orders.gift_wrap",
        "orders.id",
    ]
    rows = json.loads(ok(app, "ls", "--status", "reverted", "--status", "rejected", "--json"))
    assert [(r["entity"], r["status"], r["events"]) for r in rows] == [
        ("deps/celery", "rejected", 1),
        ("orders.gift_wrap", "reverted", 2),
    ]
    bad = cairn(app, "ls", "--status", "sideways")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_which_prints_the_entity_the_language_server_sees(app: Path) -> None:
    ok(app, "reject", "deps/celery", "-r", "no broker")
    assert ok(app, "which", "requirements.txt:2").split() == [
        "deps/celery",
        "dependency",
        "introduce",
        "rejected",
    ]
    route = json.loads(ok(app, "which", "app/views.py:4", "--json"))
    assert [r["entity"] for r in route] == ["route/GET /users/{user_id}"]
    # Inside a function body: the enclosing function, as hover would show it.
    inner = json.loads(ok(app, "which", "app/views.py:6:12", "--json"))
    assert [(r["entity"], r["kind"]) for r in inner] == [("app/views.py::show", "function")]
    columns = ok(app, "which", "db/001_orders.sql:1")
    assert [line.split()[0] for line in columns.splitlines()] == [
        "orders",
        "orders.id",
        "orders.gift_wrap",
    ]
    for bad, message in (
        ("app/views.py", "expected PATH:LINE"),
        ("app/views.py:99", "past the end"),
        ("nope.py:1", "no such file"),
    ):
        proc = cairn(app, "which", bad)
        assert proc.returncode == 2 and message in proc.stderr, (bad, proc.stderr)


def test_output_is_indented_and_counted_right(app: Path) -> None:
    ok(app, "revert", "orders.gift_wrap", "-r", "nobody used it\nand it slowed checkout")
    status = ok(app, "status", "orders.gift_wrap")
    assert "(1 decision)" in status
    assert "nobody used it\n    and it slowed checkout" in status
    history = ok(app, "history", "orders.gift_wrap")
    assert "    nobody used it\n    and it slowed checkout" in history
    past = cairn(app, "log", "deps/flask", "add", "-r", "web", "--revisit-after", "2020-01-01")
    assert past.returncode == 0
    assert "already due" in past.stderr
    future = cairn(app, "log", "deps/flask", "modify", "-r", "web", "--revisit-after", "1y")
    assert "already due" not in future.stderr


def test_check_speaks_one_severity_vocabulary(app: Path) -> None:
    ok(app, "reject", "deps/celery", "-r", "no broker")
    text = cairn(app, "check", "requirements.txt")
    report = json.loads(cairn(app, "check", "requirements.txt", "--json").stdout)
    (finding,) = report["findings"]
    assert finding["severity"] == "error" and finding["blocking"] is True
    assert f": {finding['severity']}: " in text.stdout.splitlines()[0]
    assert "1 blocking finding in 1 file" in text.stdout


def test_listing_attempts_that_are_not_entities_point_at_ls(app: Path) -> None:
    for args in (("history", ".", "--children"), ("search", "*")):
        proc = cairn(app, *args)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, (args, proc.stderr)
        assert "`cairn ls`" in proc.stderr, args


def test_a_file_name_suggests_the_module_before_its_tests(app: Path) -> None:
    (app / "storage").mkdir()
    (app / "storage" / "s3.py").write_text("def upload(key):\n    return key\n")
    (app / "tests").mkdir(exist_ok=True)
    (app / "tests" / "test_s3.py").write_text(
        "from storage import s3\n\n\ndef test_s3_upload():\n    s3.upload('k')\n"
    )
    proc = cairn(app, "status", "s3.py", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["did_you_mean"] == ["storage/s3.py", "storage/s3.py::upload"]


def test_ls_without_a_trailing_slash_finds_the_folder(app: Path) -> None:
    ok(app, "log", "storage/s3.py::upload", "modify", "-r", "multipart above 8 MB")
    ok(app, "revert", "storage", "-r", "a table named like the folder")
    listed = [r["entity"] for r in json.loads(ok(app, "ls", "storage", "--json"))]
    assert listed == ["storage", "storage/s3.py::upload"]
    assert [r["entity"] for r in json.loads(ok(app, "ls", "storage/", "--json"))] == [
        "storage/s3.py::upload"
    ]
