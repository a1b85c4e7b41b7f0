"""tools/collect.py against a local server that answers as Codabench and EvalAI do, and
misbehaves (429 with Retry-After, 500, bodies shorter than their Content-Length, wrong
tokens, an interruption); then compare.py on the collected folder.

The answers are shaped field by field after the platforms' serializers, read at the commits
the project ran (docs/organizers.md, "The platforms"):
- Codabench, codalab/codabench c7dbc756, src/apps/api/: serializers/competitions.py
  (PhaseSerializer, CompetitionSerializerSimple, CompetitionDetailSerializer with
  PhaseDetailSerializer), serializers/leaderboards.py (LeaderboardSerializer,
  ColumnSerializer), serializers/submissions.py (SubmissionSerializer with
  SubmissionScoreSerializer: the score a DecimalField(max_digits=20, decimal_places=10), so a
  string of ten decimals; SubmissionFilesSerializer for get_details), views/submissions.py (no
  pagination class: a plain list), settings' TokenAuthentication after SessionAuthentication
  (a wrong token: 403 {"detail": "Invalid token."}).
- EvalAI, Cloud-CV/EvalAI 0f04039: apps/challenges/serializers.py
  (ChallengePhaseSplitSerializer), apps/jobs/serializers.py
  (ChallengeSubmissionManagementSerializer), apps/challenges/views.py
  (get_all_submissions_of_challenge: PageNumberPagination, {"count", "next", "previous",
  "results"}; 404 {"error": "Challenge Phase P does not exist"}), simplejwt's 401 for a wrong
  Bearer token.
And test_codabench_recorded_answers and test_evalai_recorded_answers serve the answers
recorded from the platforms' own sites running at those commits
(tests/platform_responses/; how they ran: docs/organizers.md, "After the competition").
"""

import csv
import hashlib
import http.server
import io
import json
import os
import subprocess
import sys
import threading
import zipfile
from decimal import ROUND_HALF_UP, Decimal

import hypothesis
import numpy as np
import pytest
from conftest import ROOT, run_compare, run_scorer

import collect
import compare_scenario

TOKEN = "0123456789abcdef0123456789abcdef01234567"
TEAMS = ["Ana Núñez", "Ελένη & co", "ミカ/研究室"]
COLLECT = os.path.join(ROOT, "tools", "collect.py")


def zipped(folder):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for root, _, files in os.walk(folder):
            for name in sorted(files):
                path = os.path.join(root, name)
                archive.write(path, os.path.relpath(path, folder))
    return out.getvalue()


@pytest.fixture(scope="module")
def phase(tmp_path_factory):
    """A phase of one authentication track and four scored submissions (error rates 5 to 20%):
    (ref, [(upload zip bytes, scoring output zip bytes, scores.json)])."""
    base = str(tmp_path_factory.mktemp("phase"))
    ref = os.path.join(base, "ref")
    rates = [0.05, 0.1, 0.15, 0.2]
    dirs = [os.path.join(base, "res%d" % i) for i in range(len(rates))]
    compare_scenario.make_authentication(ref, dirs, rates, np.random.RandomState(3))
    scored = []
    for i, res in enumerate(dirs):
        work = os.path.join(base, "input%d" % i)
        os.makedirs(work)
        os.symlink(ref, os.path.join(work, "ref"))
        os.symlink(res, os.path.join(work, "res"))
        output = os.path.join(base, "output%d" % i)
        run = run_scorer(work, output)
        assert run.status == 0, run.stderr
        with open(os.path.join(output, "scores.json"), encoding="utf-8") as stream:
            scores = json.load(stream)
        scored.append((zipped(res), zipped(output), scores))
    return ref, scored


def ten_decimals(value):
    """A score as Codabench stores and serves it: numeric(20, 10), a string."""
    return str(Decimal(repr(value)).quantize(Decimal("1e-10"), rounding=ROUND_HALF_UP))


class Platform(object):
    """A local server: routes path?query -> (status, headers, body); faults per path, in order."""

    def __init__(self):
        self.routes, self.faults, self.requests = {}, {}, []
        self.hold = None  # (path, event): that download waits for the event
        self.reached = threading.Event()
        platform = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                platform.requests.append((self.path, self.headers.get("Authorization")))
                fault = platform.faults.get(self.path, [])
                if platform.hold and self.path == platform.hold[0]:
                    platform.reached.set()
                    platform.hold[1].wait(30)
                if fault:
                    kind = fault.pop(0)
                    if kind == "429":
                        return self.answer(429, b'{"detail": "Request was throttled."}', {"Retry-After": "3"})
                    if kind == "500":
                        return self.answer(500, b"<h1>Server Error (500)</h1>", {})
                    if kind == "truncate":
                        status, headers, body = platform.routes[self.path]
                        self.send_response(status)
                        self.send_header("Content-Length", str(len(body)))
                        self.send_header("Connection", "close")
                        self.end_headers()
                        self.wfile.write(body[:len(body) // 2])
                        self.close_connection = True
                        return
                if self.path not in platform.routes:
                    return self.answer(404, b'{"detail": "Not found."}', {})
                status, headers, body = platform.routes[self.path]
                if self.path.startswith("/api/") and self.headers.get("Authorization") != platform.auth:
                    return self.answer(*platform.wrong_token)
                self.answer(status, body, headers)

            def answer(self, status, body, headers):
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def json(self, path, data, status=200):
        self.routes[path] = (status, {"Content-Type": "application/json"}, json.dumps(data).encode("utf-8"))

    def file(self, path, body):
        self.routes[path] = (200, {"Content-Type": "application/zip"}, body)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


# (team index, submission id, status, upload index, date): team 0 submits twice, its
# earlier submission the better (error rate 5% then 15%); team 1 has a failed one too.
SUBMISSIONS = [(0, 101, "Finished", 0, "2026-11-20T09:00:00.000000Z"),
               (1, 102, "Failed", 1, "2026-11-20T10:00:00.000000Z"),
               (1, 103, "Finished", 1, "2026-11-21T10:00:00.000000Z"),
               (2, 104, "Finished", 3, "2026-11-22T10:00:00.000000Z"),
               (0, 105, "Finished", 2, "2026-11-23T09:00:00.000000Z"),
               (2, 106, "Cancelled", 3, "2026-11-24T09:00:00.000000Z")]
KEYS = ["uar", "balanced_accuracy", "top1"]


def codabench(phase, names=TEAMS):
    """The organizer's view of competition 3, phase 7 (leaderboard 11) on Codabench."""
    _, scored = phase
    site = Platform()
    site.auth = "Token " + TOKEN
    site.wrong_token = (403, b'{"detail": "Invalid token."}', {"Content-Type": "application/json"})
    site.json("/api/phases/7/", {
        "id": 7, "index": 1, "start": "2026-11-01T00:00:00Z", "end": "2026-11-25T00:00:00Z", "name": "Final",
        "description": "", "status": "Previous", "execution_time_limit": 600, "tasks": ["0f3c"],
        "has_max_submissions": True, "max_submissions_per_day": 5, "max_submissions_per_person": 100,
        "auto_migrate_to_this_phase": False, "hide_output": False, "hide_prediction_output": True,
        "hide_score_output": False, "leaderboard": 11, "public_data": None, "starting_kit": None,
        "is_final_phase": True})
    site.json("/api/competitions/?mine=true", [
        {"id": 2, "title": "Another", "created_by": "org", "owner_display_name": "org", "published": False},
        {"id": 3, "title": "FalsID", "created_by": "org", "owner_display_name": "org", "published": True}])
    columns = [{"id": 30 + i, "computation": None, "computation_indexes": None, "title": key.upper(), "key": key,
                "sorting": "desc", "index": i, "hidden": False, "precision": 4} for i, key in enumerate(KEYS)]
    board = {"id": 11, "primary_index": 0, "title": "Results", "key": "main", "columns": columns, "hidden": False,
             "submission_rule": "Add_And_Delete"}
    site.json("/api/competitions/2/", {"id": 2, "title": "Another", "phases": [{"id": 5, "name": "Dev"}],
                                       "leaderboards": []})
    site.json("/api/competitions/3/", {"id": 3, "title": "FalsID", "phases": [{"id": 6, "name": "Development"},
                                                                               {"id": 7, "name": "Final"}],
                                       "leaderboards": [dict(board, id=10), board]})
    listed = []
    for team, ident, status, upload, date in SUBMISSIONS:
        scores = scored[upload][2] if status == "Finished" else {}
        listed.append({
            "phase_name": "Final", "name": "", "filename": "sub.zip", "description": "", "created_when": date,
            "is_public": False, "is_specific_task_re_run": False, "status": status, "status_details": None,
            "owner": names[team], "has_children": False, "parent": None, "children": [], "pk": ident, "id": ident,
            "phase": 7, "scores": [{"id": 900 + 10 * ident + i, "index": i, "score": ten_decimals(scores[key]),
                                     "column_key": key} for i, key in enumerate(KEYS) if key in scores],
            "fact_sheet_answers": None, "leaderboard": 11 if status == "Finished" else None,
            "on_leaderboard": status == "Finished", "task": {"id": 1, "name": "t", "key": "0f3c"}, "auto_run": True,
            "can_make_submissions_public": False, "is_soft_deleted": False})
        upload_path = "/storage/dataset/%d.zip?X-Amz-Signature=%d" % (ident, ident)
        result_path = "/storage/scoring_result/%d.zip?X-Amz-Signature=%d" % (ident, ident)
        site.file(upload_path, scored[upload][0])
        finished = status == "Finished"
        if finished:
            site.file(result_path, scored[upload][1])
        site.json("/api/submissions/%d/get_details/" % ident, {
            "logs": [], "data_file": site.url + upload_path, "prediction_result": None,
            "detailed_result": site.url + "/storage/detailed_result/%d.html" % ident,
            "scoring_result": site.url + result_path if finished else None,
            "leaderboards": [board] if finished else None, "fact_sheet_answers": None})
    site.json("/api/submissions/?phase=7", listed[::-1])  # the viewset orders by -pk
    return site


def evalai(phase, names=TEAMS, page_size=2):
    """The host's view of challenge 5, phase 9 on EvalAI: the result JSON is the bundle's."""
    _, scored = phase
    site = Platform()
    site.auth = "Bearer " + TOKEN
    site.wrong_token = (401, json.dumps({"detail": "Given token not valid for any token type",
                                         "code": "token_not_valid"}).encode(), {"WWW-Authenticate": "Bearer"})
    labels = [("UAR", "uar"), ("Balanced accuracy", "balanced_accuracy"), ("Top-1", "top1")]
    schema = {"labels": [label for label, _ in labels], "default_order_by": "UAR",
              "metadata": dict((label, {"sort_ascending": False, "description": "key %s" % key})
                               for label, key in labels)}
    site.json("/api/challenges/5/challenge_phase_split", [
        {"id": 40, "dataset_split": 1, "challenge_phase": 8, "challenge_phase_name": "Development",
         "dataset_split_name": "test", "visibility": 3, "show_leaderboard_by_latest_submission": False,
         "show_execution_time": False, "show_scores_on_leaderboard": True, "leaderboard_schema": schema,
         "is_multi_metric_leaderboard": True},
        {"id": 41, "dataset_split": 1, "challenge_phase": 9, "challenge_phase_name": "Final",
         "dataset_split_name": "test", "visibility": 3, "show_leaderboard_by_latest_submission": False,
         "show_execution_time": False, "show_scores_on_leaderboard": True, "leaderboard_schema": schema,
         "is_multi_metric_leaderboard": True}])
    results = []
    for number, (team, ident, status, upload, date) in enumerate(SUBMISSIONS):
        status = status.lower()
        input_path = "/media/submission_files/submission_%d/%s.zip" % (ident, "a1b2c3")
        site.file(input_path, scored[upload][0])
        result = None
        if status == "finished":
            result = "/media/submission_files/submission_%d/result.json" % ident
            values = dict((label, scored[upload][2][key]) for label, key in labels)
            site.routes[result] = (200, {"Content-Type": "application/json"}, json.dumps(
                {"how to read": "...", "scores": values, "detailed_results.html": "<html></html>"}).encode())
        results.append({
            "id": ident, "participant_team": names[team], "challenge_phase": "Final", "created_by": "user%d" % team,
            "status": status, "is_public": True, "is_flagged": False, "submission_number": number + 1,
            "submitted_at": date, "rerun_resumed_at": None, "execution_time": 1.2,
            "input_file": site.url + input_path, "submission_input_file": None,
            "stdout_file": site.url + "/media/stdout_%d.txt" % ident, "stderr_file": None,
            "environment_log_file": None, "submission_result_file": site.url + result if result else None,
            "submission_metadata_file": None, "participant_team_members_email_ids": ["u@example.org"],
            "participant_team_members_affiliations": [""], "created_at": date, "method_name": "",
            "participant_team_members": [{"username": "user%d" % team, "email": "u@example.org"}],
            "submission_metadata": None, "method_description": "", "publication_url": "", "project_url": "",
            "is_verified_by_host": False})
    path = "/api/challenges/5/challenge_phase/9/submissions"
    pages = [results[i:i + page_size] for i in range(0, len(results), page_size)]
    for n, page in enumerate(pages, 1):
        following = site.url + path + "?page=%d" % (n + 1) if n < len(pages) else None
        site.json(path + ("?page=%d" % n if n > 1 else ""),
                  {"count": len(results), "next": following, "previous": None, "results": page})
    return site


def run_collect(site, out, *extra, token=TOKEN, platform="codabench", phase="7"):
    lines = []
    argv = ["--platform", platform, "--url", site.url, "--phase", phase, "--out", str(out)] + list(extra)
    if platform == "evalai" and "--challenge" not in extra:
        argv += ["--challenge", "5"]
    if token is not None:
        argv += ["--token", token]
    stderr = io.StringIO()
    saved, sys.stderr = sys.stderr, stderr
    try:
        status = collect.main(argv, progress=lines.append)
    finally:
        sys.stderr = saved
    return status, lines, stderr.getvalue()


def manifest(out):
    with open(os.path.join(str(out), "manifest.csv"), encoding="utf-8", newline="") as stream:
        return list(csv.DictReader(stream))


def tree(out):
    """{relative path: SHA-256} of every file under out."""
    found = {}
    for root, _, files in os.walk(str(out)):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as stream:
                found[os.path.relpath(path, str(out))] = hashlib.sha256(stream.read()).hexdigest()
    return found


@pytest.fixture
def no_sleep(monkeypatch):
    slept = []
    monkeypatch.setattr(collect.time, "sleep", slept.append)
    return slept


def test_codabench_last_submissions_manifest_and_folders(phase, tmp_path, no_sleep):
    site = codabench(phase)
    try:
        status, lines, err = run_collect(site, tmp_path / "c")
    finally:
        site.close()
    assert status == 0, err
    rows = manifest(tmp_path / "c")
    # One row per submission, in id order, teams as written; the last finished of each team kept.
    assert [r["submission_id"] for r in rows] == ["101", "102", "103", "104", "105", "106"]
    assert [r["team"] for r in rows] == [TEAMS[t] for t, _, _, _, _ in SUBMISSIONS]
    assert [r["collected"] for r in rows] == ["no", "no", "yes", "yes", "yes", "no"]
    assert rows[1]["note"] == "not collected: failed on the platform"
    assert rows[5]["note"] == "not collected: cancelled on the platform"
    assert rows[0]["note"] == "not collected: not the team's last finished submission"
    # Scores as the platform serves them (ten decimals), the primary column named.
    _, scored = phase
    assert rows[2]["primary"] == "uar" and rows[2]["primary_score"] == ten_decimals(scored[1][2]["uar"])
    assert rows[4]["top1"] == ten_decimals(scored[2][2]["top1"])
    # Folders: safe names (the slash of a name is no folder), the mapping in the manifest.
    assert [r["folder"] for r in rows if r["collected"] == "yes"] == [
        "Ελένη _ co/103", "ミカ_研究室/104", "Ana Núñez/105"]
    for row, upload in zip([rows[2], rows[3], rows[4]], [1, 3, 2]):
        folder = tmp_path / "c" / row["folder"]
        assert (folder / "submission.zip").read_bytes() == scored[upload][0]
        assert json.loads((folder / "output" / "scores.json").read_text()) == scored[upload][2]
        assert (folder / "output" / "private" / "views").is_dir()
        assert row["upload_sha256"] == hashlib.sha256(scored[upload][0]).hexdigest()
        assert row["upload_bytes"] == str(len(scored[upload][0]))
    # The token went to the API only, never to the storage; nothing written holds it.
    assert all(auth == "Token " + TOKEN for path, auth in site.requests if path.startswith("/api/"))
    assert all(auth is None for path, auth in site.requests if path.startswith("/storage/"))
    assert not any(TOKEN.encode() in open(os.path.join(tmp_path / "c", p), "rb").read() for p in tree(tmp_path / "c"))
    assert not any(TOKEN in line for line in lines)
    assert len([line for line in lines if line.startswith("[")]) == 3
    assert not no_sleep


def test_which_best_and_all(phase, tmp_path, no_sleep):
    site = codabench(phase)
    try:
        assert run_collect(site, tmp_path / "best", "--which", "best")[0] == 0
        assert run_collect(site, tmp_path / "all", "--which", "all")[0] == 0
    finally:
        site.close()
    best = manifest(tmp_path / "best")
    # Team 0's first submission (5% errors) beats its later one (15%).
    assert [r["submission_id"] for r in best if r["collected"] == "yes"] == ["101", "103", "104"]
    every = manifest(tmp_path / "all")
    assert [r["submission_id"] for r in every if r["collected"] == "yes"] == ["101", "103", "104", "105"]


def test_retries_429_500_and_truncated_bodies(phase, tmp_path, no_sleep):
    site = codabench(phase)
    site.faults["/api/submissions/?phase=7"] = ["429", "500"]
    upload = "/storage/dataset/103.zip?X-Amz-Signature=103"
    site.faults[upload] = ["truncate", "500", "truncate"]
    try:
        status, lines, err = run_collect(site, tmp_path / "r")
    finally:
        site.close()
    assert status == 0, err
    # Retry-After is waited for; otherwise 1, 2, 4 s.
    assert no_sleep == [3.0, 2.0, 1.0, 2.0, 4.0]
    assert sum("trying again" in line for line in lines) == 5
    _, scored = phase
    assert (tmp_path / "r" / "Ελένη _ co" / "103" / "submission.zip").read_bytes() == scored[1][0]
    assert not [p for p in tree(tmp_path / "r") if p.endswith(".part")]


def test_a_download_that_keeps_failing_is_one_sentence(phase, tmp_path, no_sleep):
    site = codabench(phase)
    site.faults["/storage/dataset/103.zip?X-Amz-Signature=103"] = ["truncate"] * 3
    try:
        status, lines, err = run_collect(site, tmp_path / "f", "--attempts", "3")
    finally:
        site.close()
    assert status == 2 and err.count("\n") == 1
    assert "sent" in err and "gave up after 3 attempts" in err and "resumes" in err


@pytest.mark.parametrize("platform", ["codabench", "evalai"])
def test_wrong_token(phase, tmp_path, no_sleep, platform):
    site = codabench(phase) if platform == "codabench" else evalai(phase)
    wrong = "f" * 40
    try:
        status, lines, err = run_collect(site, tmp_path / "w", token=wrong, platform=platform,
                                         phase="7" if platform == "codabench" else "9")
    finally:
        site.close()
    assert status == 2 and err.count("\n") == 1, err
    assert "refused the token (%d: " % (403 if platform == "codabench" else 401) in err
    assert wrong not in err and TOKEN not in err and "Traceback" not in err


def test_no_token_and_token_from_the_environment(phase, tmp_path, no_sleep, monkeypatch):
    site = codabench(phase)
    try:
        monkeypatch.delenv("CODABENCH_TOKEN", raising=False)
        status, _, err = run_collect(site, tmp_path / "n", token=None)
        assert status == 2 and "CODABENCH_TOKEN" in err
        monkeypatch.setenv("CODABENCH_TOKEN", TOKEN)
        status, _, err = run_collect(site, tmp_path / "n", token=None)
        assert status == 0, err
    finally:
        site.close()


def test_phase_not_found_not_the_organizers_and_wrong_url(phase, tmp_path, no_sleep):
    site = codabench(phase)
    try:
        status, _, err = run_collect(site, tmp_path / "x", phase="70")
        assert status == 2 and "has no phase 70" in err
        site.json("/api/phases/4/", {"id": 4, "name": "Dev", "leaderboard": 4})
        status, _, err = run_collect(site, tmp_path / "x", phase="4")
        assert status == 2 and "Phase 4 (Dev)" in err and "not in a competition you organize" in err
        site.routes["/api/phases/7/"] = (200, {"Content-Type": "text/html"}, b"<html>Welcome to nginx</html>")
        status, _, err = run_collect(site, tmp_path / "x")
        assert status == 2 and "not JSON" in err and "nginx" in err
    finally:
        site.close()
    # A closed port: one sentence at once, no retries.
    status, _, err = run_collect(site, tmp_path / "x")
    assert status == 2 and "cannot be reached" in err and "--url" in err and not no_sleep


def test_evalai_pages_results_and_errors(phase, tmp_path, no_sleep):
    site = evalai(phase)
    try:
        status, lines, err = run_collect(site, tmp_path / "e", platform="evalai", phase="9")
        assert status == 0, err
        site.json("/api/challenges/5/challenge_phase/99/submissions", {"error": "Challenge Phase 99 does not exist"},
                  status=404)
        status, _, err = run_collect(site, tmp_path / "x", platform="evalai", phase="99")
        assert status == 2 and "has no phase 99 in challenge 5" in err
        # A participant's token lists its own team's submissions with another serializer.
        site.json("/api/challenges/5/challenge_phase/9/submissions",
                  {"count": 1, "next": None, "previous": None,
                   "results": [{"id": 101, "participant_team": 3, "participant_team_name": "Ana Núñez"}]})
        status, _, err = run_collect(site, tmp_path / "x", platform="evalai", phase="9")
        assert status == 2 and "do not host it" in err
    finally:
        site.close()
    rows = manifest(tmp_path / "e")
    _, scored = phase
    assert [r["collected"] for r in rows] == ["no", "no", "yes", "yes", "yes", "no"]
    assert rows[4]["primary"] == "uar" and float(rows[4]["uar"]) == scored[2][2]["uar"]
    folder = tmp_path / "e" / rows[4]["folder"]
    assert (folder / "submission.zip").read_bytes() == scored[2][0]
    assert json.loads((folder / "output" / "submission_result.json").read_text())["scores"]["UAR"] == \
        scored[2][2]["uar"]
    assert all(auth == "Bearer " + TOKEN for path, auth in site.requests if path.startswith("/api/"))


def test_second_run_downloads_nothing_and_a_changed_file_is_fetched_again(phase, tmp_path, no_sleep):
    site = codabench(phase)
    try:
        assert run_collect(site, tmp_path / "s")[0] == 0
        before = tree(tmp_path / "s")
        site.requests[:] = []
        status, lines, _ = run_collect(site, tmp_path / "s")
        assert status == 0 and not [p for p, _ in site.requests if p.startswith("/storage/")]
        assert sum("already complete" in line for line in lines) == 3
        assert tree(tmp_path / "s") == before
        # The same size, one byte changed: the checksum catches it.
        upload = tmp_path / "s" / "Ana Núñez" / "105" / "submission.zip"
        data = bytearray(upload.read_bytes())
        data[10] ^= 1
        upload.write_bytes(bytes(data))
        site.requests[:] = []
        assert run_collect(site, tmp_path / "s")[0] == 0
        assert sorted(p for p, _ in site.requests if p.startswith("/storage/")) == [
            "/storage/dataset/105.zip?X-Amz-Signature=105", "/storage/scoring_result/105.zip?X-Amz-Signature=105"]
        assert tree(tmp_path / "s") == before
    finally:
        site.close()


def test_interrupted_then_restarted_ends_with_the_same_files(phase, tmp_path, no_sleep):
    site = codabench(phase)
    try:
        assert run_collect(site, tmp_path / "whole")[0] == 0
        # Killed while downloading the third submission's upload, then run again.
        release = threading.Event()
        site.hold = ("/storage/dataset/104.zip?X-Amz-Signature=104", release)
        env = dict(os.environ, CODABENCH_TOKEN=TOKEN)
        child = subprocess.Popen([sys.executable, COLLECT, "--platform", "codabench", "--url", site.url, "--phase",
                                  "7", "--out", str(tmp_path / "cut")], env=env, stderr=subprocess.PIPE)
        assert site.reached.wait(60)
        child.kill()
        child.wait()
        release.set()
        site.hold = None
        assert not (tmp_path / "cut" / "manifest.csv").exists()
        assert (tmp_path / "cut" / "Ana Núñez" / "105" / collect.RECORD).exists()
        site.requests[:] = []
        status, lines, err = run_collect(site, tmp_path / "cut")
        assert status == 0, err
        assert "/storage/dataset/105.zip?X-Amz-Signature=105" not in [p for p, _ in site.requests]
    finally:
        site.close()
    assert tree(tmp_path / "cut") == tree(tmp_path / "whole")


def test_compare_takes_the_collected_folder(phase, tmp_path, no_sleep):
    ref, scored = phase
    site = codabench(phase)
    try:
        assert run_collect(site, tmp_path / "c", "--which", "all")[0] == 0
    finally:
        site.close()
    # Ana Núñez has two collected submissions: each is named with its id.
    names = {"Ana Núñez (101)": 0, "Ελένη & co": 1, "ミカ/研究室": 3, "Ana Núñez (105)": 2}
    for mode in (["--scored"], ["--ref", ref]):
        out = tmp_path / ("out" + mode[0])
        run = run_compare(*(mode + [tmp_path / "c", "--out", out, "--resamples", 100, "--permutations", 200]))
        assert run.returncode == 0, run.stderr
        with open(str(out / "ranking.csv"), encoding="utf-8") as stream:
            ranking = [r for r in csv.DictReader(stream)]
        # The order of the error rates; each score the submission's own scores.json.
        ranked = sorted(ranking, key=lambda r: int(r["rank"]))
        assert [r["submission"] for r in ranked] == ["Ana Núñez (101)", "Ελένη & co", "Ana Núñez (105)", "ミカ/研究室"]
        for row in ranking:
            assert float(row["score"]) == pytest.approx(scored[names[row["submission"]]][2]["uar"], abs=1e-9)
        (ranking,) = (out / "latex").glob("*-ranking.tex")  # named after the track's title
        latex = ranking.read_text(encoding="utf-8")
        assert "Ελένη \\& co" in latex and "ミカ/研究室" in latex and "Ana Núñez (105)" in latex
        page = (out / "report.html").read_text(encoding="utf-8")
        assert "Ελένη &amp; co" in page and "ミカ/研究室" in page
        assert "Leaderboard check: 12 of 12 scores of the manifest agree with compare.py's own" in run.stderr
    # A manifest score that is not the submission's: reported by name, not trusted.
    path = tmp_path / "c" / "manifest.csv"
    text = path.read_text(encoding="utf-8")
    rows = manifest(tmp_path / "c")
    wrong = rows[2]["primary_score"]
    path.write_text(text.replace(wrong, "0.5000000000"), encoding="utf-8")
    run = run_compare("--scored", tmp_path / "c", "--out", tmp_path / "o2", "--resamples", 100,
                      "--permutations", 200)
    assert run.returncode == 0, run.stderr
    assert "Leaderboard check: 11 of 12 scores" in run.stderr
    assert "Leaderboard check: Ελένη & co (submission 103): uar is 0.5000000000 on the platform" in run.stderr
    with open(str(tmp_path / "o2" / "leaderboard_check.csv"), encoding="utf-8") as stream:
        disagreeing = [r for r in csv.DictReader(stream) if r["agrees"] == "no"]
    assert [(r["team"], r["column"]) for r in disagreeing] == [("Ελένη & co", "uar")]
    run = run_compare("--scored", tmp_path / "c", "--names", "a,b,c,d")
    assert run.returncode == 2 and "--names cannot be given" in run.stderr


def test_compare_ref_on_an_evalai_folder_and_scored_refused(phase, tmp_path, no_sleep):
    ref, scored = phase
    site = evalai(phase)
    try:
        assert run_collect(site, tmp_path / "e", platform="evalai", phase="9")[0] == 0
    finally:
        site.close()
    run = run_compare("--scored", tmp_path / "e", "--out", tmp_path / "o")
    assert run.returncode == 2 and "EvalAI keeps no scoring output" in run.stderr and "--ref" in run.stderr
    run = run_compare("--ref", ref, tmp_path / "e", "--out", tmp_path / "o", "--resamples", 100,
                      "--permutations", 200)
    assert run.returncode == 0, run.stderr
    # EvalAI's values are scores.json's (ten decimals): compare.py's rounded to them.
    assert "Leaderboard check: 9 of 9 scores of the manifest agree" in run.stderr
    with open(str(tmp_path / "o" / "leaderboard_check.csv"), encoding="utf-8") as stream:
        checked = list(csv.DictReader(stream))
    assert len(checked) == 9 and all(float(r["platform"]) == round(float(r["compare"]), 10) for r in checked)


def test_folder_names_are_safe_and_unique():
    names = collect.folder_names(["Équipe", "équipe", "CON", ".hidden", "a\u202eb", "../x", "", "Team"])
    assert names["Équipe"] == "Équipe" and names["équipe"] == "équipe-2"
    assert names["CON"] == "_CON" and names[".hidden"] == "hidden" and names["a\u202eb"] == "a_b"
    assert names["../x"] == "_x" and names[""] == "team" and names["Team"] == "Team-2"
    # NFD and NFC spellings of one name are one folder name, different teams two folders.
    nfd = "E\u0301quipe"
    assert collect.folder_names([nfd, "Équipe"]) == {nfd: "Équipe", "Équipe": "Équipe-2"}


RECORDED = os.path.join(ROOT, "tests", "platform_responses", "codabench_c7dbc756.json")


def recorded_site(path, scheme, wrong_headers):
    """(a local server answering each recorded path with its recorded answer, its storage and
    site addresses made the server's, and a wrong token as recorded; the recording)."""
    with open(path, encoding="utf-8") as stream:
        recorded = json.load(stream)
    site = Platform()
    site.auth = scheme + " " + TOKEN
    site.wrong_token = (recorded["wrong_token"]["status"], json.dumps(recorded["wrong_token"]["body"]).encode(),
                        wrong_headers)
    for route, answer in recorded["answers"].items():
        text = json.dumps(answer["body"], ensure_ascii=False).replace("{storage}", site.url + "/s3").replace(
            "{site}", site.url)
        site.routes[route] = (answer["status"], {"Content-Type": "application/json"}, text.encode("utf-8"))
    return site, recorded


def recorded_codabench():
    """A server answering with the responses recorded from Codabench's own site (c7dbc756),
    and serving each signed storage address it names: the upload a zip naming its
    submission, the scoring output a zip holding the submission's scores.json."""
    site, recorded = recorded_site(RECORDED, "Token", {"Content-Type": "application/json"})
    served = {}
    for path in recorded["answers"]:
        text = site.routes[path][2].decode("utf-8")
        if "/get_details/" not in path:
            continue
        ident = path.split("/")[3]
        details = json.loads(text)
        for field in ("data_file", "scoring_result"):
            if details.get(field):
                out = io.BytesIO()
                with zipfile.ZipFile(out, "w") as archive:
                    archive.writestr("scores.json" if field == "scoring_result" else "submission.txt", ident)
                local = details[field][len(site.url):]
                site.file(local, out.getvalue())
                served[(ident, field)] = out.getvalue()
    return site, recorded, served


def test_codabench_recorded_answers(tmp_path, no_sleep):
    site, recorded, served = recorded_codabench()
    try:
        status, lines, err = run_collect(site, tmp_path / "c", phase="2")
        assert status == 0, err
        wrong = run_collect(site, tmp_path / "w", phase="2", token="0" * 40)
        missing = run_collect(site, tmp_path / "m", phase="99")
    finally:
        site.close()
    listed = recorded["answers"]["/api/submissions/?phase=2"]["body"]
    rows = manifest(tmp_path / "c")
    assert [(r["team"], r["submission_id"], r["status"]) for r in rows] == sorted(
        ((s["owner"], str(s["id"]), s["status"]) for s in listed), key=lambda t: int(t[1]))
    assert {r["team"] for r in rows} == {"ana", "Ελένη", "ミカ", "ben"}
    # Each team's last finished submission; the failed one noted.
    assert [r["submission_id"] for r in rows if r["collected"] == "yes"] == ["3", "5", "6", "7"]
    assert [r["note"] for r in rows if r["status"] == "Failed"] == ["not collected: failed on the platform"]
    # The leaderboard's primary column (index primary_index) and every score as served.
    for row, sub in zip(rows, sorted(listed, key=lambda s: s["id"])):
        assert row["primary"] == "uar"
        assert all(row[score["column_key"]] == score["score"] for score in sub["scores"])
    for row in rows:
        if row["collected"] == "yes":
            folder = tmp_path / "c" / row["folder"]
            assert (folder / "submission.zip").read_bytes() == served[(row["submission_id"], "data_file")]
            assert (folder / "output" / "scores.json").read_text() == row["submission_id"]
    assert wrong[0] == 2 and "refused the token (403: Invalid token.)" in wrong[2]
    assert missing[0] == 2 and "has no phase 99" in missing[2]


def recorded_evalai():
    """A server answering with the responses recorded from EvalAI's own site (0f04039), serving
    each upload it names (a zip naming its submission) and each result file (the recorded scores)."""
    site, recorded = recorded_site(os.path.join(ROOT, "tests", "platform_responses", "evalai_0f04039.json"), "Bearer",
                                   {"WWW-Authenticate": "Bearer"})
    served = {}
    listing = json.loads(site.routes["/api/challenges/1/challenge_phase/2/submissions"][2].decode("utf-8"))
    for item in listing["results"]:
        ident = str(item["id"])
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as archive:
            archive.writestr("submission.txt", ident)
        site.file(item["input_file"][len(site.url):], out.getvalue())
        served[ident] = out.getvalue()
        if item["submission_result_file"]:
            site.json(item["submission_result_file"][len(site.url):], {"scores": recorded["result_scores"][ident]})
    return site, recorded, served


def test_evalai_recorded_answers(tmp_path, no_sleep):
    site, recorded, served = recorded_evalai()
    try:
        status, lines, err = run_collect(site, tmp_path / "e", "--which", "best", "--challenge", "1",
                                         platform="evalai", phase="2")
        assert status == 0, err
        wrong = run_collect(site, tmp_path / "w", "--challenge", "1", platform="evalai", phase="2", token="0" * 40)
        missing = run_collect(site, tmp_path / "m", "--challenge", "1", platform="evalai", phase="99")
        participant = recorded["participant"]["body"]
        site.json("/api/challenges/1/challenge_phase/2/submissions",
                  json.loads(json.dumps(participant).replace("{site}", site.url)))
        taking_part = run_collect(site, tmp_path / "p", "--challenge", "1", platform="evalai", phase="2")
    finally:
        site.close()
    listed = recorded["answers"]["/api/challenges/1/challenge_phase/2/submissions"]["body"]["results"]
    rows = manifest(tmp_path / "e")
    assert [(r["team"], r["submission_id"], r["status"]) for r in rows] == sorted(
        ((s["participant_team"], str(s["id"]), s["status"]) for s in listed), key=lambda t: int(t[1]))
    # Each team's best by the schema's default_order_by label (UAR, the key uar): EvalAI's own
    # leaderboard of the run ranked Ana Núñez 0.9472 (submission 1), Ελένη & co, ミカ/研究室, ben.
    assert [r["submission_id"] for r in rows if r["collected"] == "yes"] == ["1", "5", "6", "7"]
    assert all(r["primary"] == "uar" for r in rows)
    for row in rows:
        scores = recorded["result_scores"].get(row["submission_id"])
        if scores:
            assert float(row["uar"]) == scores["UAR (mean accuracy)"]
        if row["collected"] == "yes":
            assert (tmp_path / "e" / row["folder"] / "submission.zip").read_bytes() == served[row["submission_id"]]
    assert wrong[0] == 2 and "refused the token (401: Given token not valid for any token type)" in wrong[2]
    assert missing[0] == 2 and "no phase 99 in challenge 1 (Challenge Phase 99 does not exist)" in missing[2]
    assert taking_part[0] == 2 and "do not host it" in taking_part[2]


def test_scoring_output_unpacked_inside_its_folder_only(tmp_path):
    good, bad = tmp_path / "good.zip", tmp_path / "bad.zip"
    with zipfile.ZipFile(str(good), "w") as archive:
        archive.writestr("./", "")
        archive.writestr("scores.json", "{}")
        archive.writestr("private/views/a.json", "{}")
    collect.unpack(str(good), str(tmp_path / "out"))
    assert sorted(tree(tmp_path / "out")) == [os.path.join("private", "views", "a.json"), "scores.json"]
    with zipfile.ZipFile(str(bad), "w") as archive:
        archive.writestr("../escaped.txt", "x")
    with pytest.raises(collect.CollectError, match="a path that leaves its folder"):
        collect.unpack(str(bad), str(tmp_path / "out2"))
    assert not (tmp_path / "escaped.txt").exists()


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(hypothesis.strategies.text(alphabet="'=+-@\t\r0123456789.e xA", max_size=8))
def test_a_manifest_cell_is_inert_and_read_back_as_written(name):
    """A cell a spreadsheet would run as a formula is written with a quote in front (OWASP);
    compare.py takes exactly that quote off, so every name is read as the platform wrote it."""
    import collect
    from scoring.metaeval import collected
    written = collect.inert(name)
    assert collected._as_written(written) == name
    if written and written[0] in "=+-@\t\r":
        assert collect.DECIMAL.match(written)  # only a decimal number may start so
