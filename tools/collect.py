#!/usr/bin/env python3
"""Collect every submission of a phase from Codabench or EvalAI, for the competition's report.

    python3 tools/collect.py --platform codabench --url URL --phase PHASE_ID --out DIR [--which last|best|all]
    python3 tools/collect.py --platform evalai --url URL --challenge C --phase PHASE_ID --out DIR [--which ...]

The token is the organizer's (Codabench) or the host's (EvalAI): --token, or better the
environment variable CODABENCH_TOKEN / EVALAI_TOKEN (a command line is visible to every user
of the machine). It is sent to the platform's API only, never to the file storage the API
links to, and never printed or written.

DIR/manifest.csv has one row per submission of the phase: the team as the platform writes it,
its submission id, status and date, whether it was collected, its folder, the checksum of its
upload, the phase's primary column and score, and every leaderboard column. A collected
submission is DIR/<team folder>/<submission id>/ with submission.zip (the participant's
upload) and output/ (what the platform keeps of its scoring: Codabench's scoring output,
unzipped, with scores.json and private/views/ for compare.py --scored; EvalAI's result JSON).
Then: python3 program/compare.py --scored DIR, or --ref REF DIR (docs/organizers.md).

The platforms' APIs, as their code serves them:
- Codabench (codalab/codabench, src/apps/api): DRF's TokenAuthentication ("Authorization:
  Token <t>"; a wrong token answers 403, since the first authentication class, the session's,
  sends no WWW-Authenticate); GET /api/phases/<p>/ (PhaseSerializer: the leaderboard's id),
  GET /api/competitions/?mine=true and /api/competitions/<c>/ (the organizer's competitions,
  their phases and leaderboards with columns: key, sorting, index, primary_index),
  GET /api/submissions/?phase=<p> (SubmissionSerializer: owner, status, created_when, scores
  with column_key and the score as a decimal string; the organizer sees every submission of
  their phases), GET /api/submissions/<id>/get_details/ (SubmissionFilesSerializer: data_file
  and scoring_result, signed storage URLs). The leaderboard view (get_leaderboard) rounds to
  each column's precision and fails on usernames outside ASCII, so scores come from the
  submissions.
- EvalAI (Cloud-CV/EvalAI, apps/challenges and apps/jobs): simplejwt's JWTAuthentication
  ("Authorization: Bearer <t>", the profile page's token; a wrong one answers 401);
  GET /api/challenges/<c>/challenge_phase_split (each split's leaderboard schema: labels,
  default_order_by, metadata.sort_ascending), GET /api/challenges/<c>/challenge_phase/<p>/
  submissions?page=n (the host's ChallengeSubmissionManagementSerializer: participant_team
  name, status, submitted_at, input_file, submission_result_file; 150 a page). A user rate
  of 60 requests a minute answers 429 with Retry-After beyond it.

Exit status: 0 done, 2 a sentence on stderr (wrong URL or token, no such phase, not the
organizer's, a download that kept failing).
"""

import argparse
import csv
import hashlib
import http.client
import io
import json
import os
import re
import shutil
import socket
import sys
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from decimal import Decimal, InvalidOperation

WHICH = ("last", "best", "all")
TOKEN_VARIABLES = {"codabench": "CODABENCH_TOKEN", "evalai": "EVALAI_TOKEN"}
# The record of a complete submission folder: every file's size and SHA-256, written last.
RECORD = ".collected.json"
MANIFEST = "manifest.csv"
FIXED = ["team", "submission_id", "status", "date", "collected", "folder", "upload_bytes", "upload_sha256",
         "primary", "primary_score"]
# The most any one file or a scoring output unpacks to (a scoring output is a few megabytes).
MAX_UNPACKED = 8 * 1024 ** 3
CHUNK = 1 << 16


class CollectError(Exception):
    """A sentence for the organizer; exit status 2."""

    def __init__(self, sentence):
        Exception.__init__(self, sentence)
        self.sentence = sentence


class HttpStatus(Exception):
    """An answer other than 2xx, 429 and 5xx (those are tried again)."""

    def __init__(self, status, body, url):
        Exception.__init__(self, status)
        self.status, self.body, self.url = status, body, url

    def detail(self):
        """The platform's own message (DRF's {"detail": ...}, EvalAI's {"error": ...}), or ''."""
        try:
            data = json.loads(self.body.decode("utf-8"))
        except ValueError:
            return ""
        if isinstance(data, dict):
            for key in ("detail", "error", "error_msg"):
                if isinstance(data.get(key), str):
                    return data[key]
        return ""


def shown(text):
    """A name as a terminal may print it: control, format (bidi) characters escaped."""
    return "".join(c if unicodedata.category(c)[0] != "C" else "\\u%04x" % ord(c) for c in str(text))


class Client(object):
    """HTTP with retries: 429 and 5xx answers, dropped connections and truncated bodies are
    tried again after Retry-After or an exponential back-off (1, 2, 4 ... 60 s), up to
    `attempts` times. The token goes with API calls to `base` only."""

    def __init__(self, base, authorization, attempts=7, backoff=1.0, timeout=120, sleep=None, log=None):
        self.base = base.rstrip("/") + "/"
        self.authorization = authorization
        self.attempts = attempts
        self.backoff = backoff
        self.timeout = timeout
        self.sleep = sleep or time.sleep
        self.reached = False  # until the platform first answers, a refused connection means a wrong --url
        self.log = log or (lambda line: None)
        self.opener = urllib.request.build_opener(_NoRedirectWithToken(self))

    def api(self, path, query=None):
        url = urllib.parse.urljoin(self.base, path)
        if query:
            url += "?" + urllib.parse.urlencode(query)
        body = self._fetch(url, token=True, sink=None)
        try:
            return json.loads(body.decode("utf-8"))
        except ValueError:
            raise CollectError("%s answered %s with something that is not JSON (%s); is %s the platform's "
                               "address?" % (self.base, path, _start(body), self.base))

    def pages(self, path, query=None):
        """Every item of a list: a plain JSON list, or DRF's pages ({"results", "next"}), page by page."""
        query = dict(query or {})
        items, page = [], 1
        while True:
            data = self.api(path, dict(query, page=page) if page > 1 else query)
            if isinstance(data, list):
                return items + data
            if not isinstance(data, dict) or not isinstance(data.get("results"), list):
                raise CollectError("%s answered %s with %s, neither a list nor pages of results."
                                   % (self.base, path, _start(json.dumps(data).encode())))
            items += data["results"]
            if not data.get("next"):
                return items
            page += 1

    def download(self, url, destination):
        """(bytes, SHA-256) of url written to destination (through destination.part)."""
        part = destination + ".part"
        url = urllib.parse.urljoin(self.base, url)
        with open(part, "wb") as sink:
            self._fetch(url, token=False, sink=sink)
        size, digest = checksum(part)
        os.replace(part, destination)
        return size, digest

    def _fetch(self, url, token, sink):
        headers = {"Accept": "application/json"} if sink is None else {}
        if token:
            headers["Authorization"] = self.authorization
        problem = None
        for attempt in range(self.attempts):
            if attempt:
                wait = problem[1] if problem[1] is not None else min(60.0, self.backoff * 2 ** (attempt - 1))
                self.log("  %s; trying again in %.0f s (attempt %d of %d)" % (problem[0], wait, attempt + 1,
                                                                             self.attempts))
                self.sleep(wait)
            request = urllib.request.Request(url, headers=headers)
            try:
                with self.opener.open(request, timeout=self.timeout) as response:
                    body = _read(response, sink)
                    self.reached = True
                    return body
            except urllib.error.HTTPError as error:
                body = _safe_body(error)
                if error.code == 429 or error.code >= 500:
                    problem = ("%s answered %d" % (_where(url), error.code), _retry_after(error))
                    continue
                self.reached = True
                raise HttpStatus(error.code, body, url)
            except _Truncated as error:
                problem = ("%s sent %d of %d bytes" % (_where(url), error.got, error.expected), None)
            except (urllib.error.URLError, http.client.HTTPException, socket.timeout, ConnectionError) as error:
                reason = getattr(error, "reason", error)
                if not self.reached and isinstance(error, urllib.error.URLError):
                    raise CollectError("%s cannot be reached (%s); check --url." % (_where(url), reason))
                problem = ("%s: %s" % (_where(url), reason or type(error).__name__), None)
            if sink is not None:
                sink.seek(0)
                sink.truncate()
        raise CollectError("%s; gave up after %d attempts: try again later (a second run resumes where this one "
                           "stopped)." % (problem[0], self.attempts))


class _Truncated(Exception):
    def __init__(self, got, expected):
        Exception.__init__(self, got)
        self.got, self.expected = got, expected


class _NoRedirectWithToken(urllib.request.HTTPRedirectHandler):
    """Follow a redirect without the token when it leaves the platform's address."""

    def __init__(self, client):
        self.client = client

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = urllib.request.HTTPRedirectHandler.redirect_request(self, req, fp, code, msg, headers, newurl)
        if new is not None and _origin(newurl) != _origin(self.client.base):
            new.remove_header("Authorization")
        return new


def _origin(url):
    parts = urllib.parse.urlsplit(url)
    return parts.scheme, parts.netloc


def _where(url):
    parts = urllib.parse.urlsplit(url)
    return "%s://%s%s" % (parts.scheme, parts.netloc, parts.path)


def _read(response, sink):
    expected = response.headers.get("Content-Length")
    expected = int(expected) if expected and expected.isdigit() else None
    got, chunks = 0, []
    while True:
        try:
            chunk = response.read(CHUNK)
        except http.client.IncompleteRead as error:
            chunk = error.partial
            got += len(chunk)
            raise _Truncated(got, expected if expected is not None else got + 1)
        if not chunk:
            break
        got += len(chunk)
        if got > MAX_UNPACKED:
            raise CollectError("%s sends more than %d bytes; refused." % (_where(response.geturl()), MAX_UNPACKED))
        if sink is None:
            chunks.append(chunk)
        else:
            sink.write(chunk)
    if expected is not None and got != expected:
        raise _Truncated(got, expected)
    return b"".join(chunks)


def _safe_body(error):
    try:
        return error.read(1 << 16)
    except (OSError, http.client.HTTPException):
        return b""


def _retry_after(error):
    value = error.headers.get("Retry-After", "") if error.headers else ""
    return min(300.0, float(value)) if value.strip().isdigit() else None


def _start(body):
    text = body[:80].decode("utf-8", "replace").strip()
    return repr(text) if text else "an empty answer"


def checksum(path):
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(CHUNK), b""):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


class Submission(object):
    """One submission as the manifest lists it: team as written, scores as decimal strings."""

    def __init__(self, ident, team, status, date, finished, scores, note=""):
        self.ident, self.team, self.status, self.date = str(ident), team, status, date
        self.finished, self.scores, self.note = finished, scores, note
        self.files = {}  # name in the folder -> URL, filled for the kept ones
        self.result = None  # EvalAI's result JSON (bytes), where read


class Phase(object):
    """columns: [(key, descending)] in the leaderboard's order; primary: its primary key."""

    def __init__(self, columns, primary, submissions):
        self.columns, self.primary, self.submissions = columns, primary, submissions


def refused(error, platform, url, what):
    """The sentence for a 401/403/404 of the platform."""
    detail = error.detail()
    said = " (%s)" % shown(detail) if detail else ""
    if error.status in (401, 403) and _about_token(detail):
        return CollectError("%s refused the token (%d%s); give a current %s token with --token or %s."
                            % (url, error.status, ": " + shown(detail) if detail else "",
                               "organizer's" if platform == "codabench" else "host's", TOKEN_VARIABLES[platform]))
    return CollectError("%s answered %d for %s%s." % (url, error.status, what, said))


def _about_token(detail):
    text = detail.lower()
    return not text or any(word in text for word in ("token", "credential", "authenticat", "signature"))


def codabench_phase(client, phase_id, url):
    try:
        phase = client.api("api/phases/%s/" % phase_id)
    except HttpStatus as error:
        if error.status == 404:
            raise CollectError("%s has no phase %s; your phases' ids are the phases[].id of %s/api/competitions/"
                               "<competition id>/." % (url, phase_id, url.rstrip("/")))
        raise refused(error, "codabench", url, "phase %s" % phase_id)
    if not isinstance(phase, dict) or "leaderboard" not in phase:
        raise CollectError("%s answered api/phases/%s/ without a leaderboard; is %s a Codabench site?"
                           % (url, phase_id, url))
    competition = None
    try:
        for listed in client.pages("api/competitions/", {"mine": "true"}):
            detail = client.api("api/competitions/%s/" % listed["id"])
            if any(str(p.get("id")) == str(phase_id) for p in detail.get("phases", [])):
                competition = detail
                break
    except HttpStatus as error:
        raise refused(error, "codabench", url, "your competitions")
    if competition is None:
        raise CollectError("Phase %s (%s) of %s is not in a competition you organize; give the token of its "
                           "organizer or of a collaborator." % (phase_id, shown(phase.get("name", "")), url))
    boards = [b for b in competition.get("leaderboards", []) if b.get("id") == phase["leaderboard"]]
    columns, primary = [], None
    if boards:
        ordered = sorted(boards[0].get("columns", []), key=lambda c: c.get("index", 0))
        columns = [(c["key"], c.get("sorting", "desc") == "desc") for c in ordered]
        primary = next((c["key"] for c in ordered if c.get("index") == boards[0].get("primary_index")), None)
    try:
        listed = client.pages("api/submissions/", {"phase": phase_id})
    except HttpStatus as error:
        raise refused(error, "codabench", url, "the submissions of phase %s" % phase_id)
    subs = []
    for item in listed:
        if str(item.get("phase")) != str(phase_id):
            continue
        scores = dict((s["column_key"], str(s["score"])) for s in item.get("scores") or [])
        note = ("a task's run of submission %s" % item["parent"]) if item.get("parent") else ""
        sub = Submission(item["id"], item.get("owner") or "", item.get("status") or "", item.get("created_when") or "",
                         item.get("status") == "Finished" and not item.get("parent"), scores, note)
        subs.append(sub)
    return Phase(columns, primary, subs)


def codabench_files(client, sub):
    details = client.api("api/submissions/%s/get_details/" % sub.ident)
    files = {}
    if details.get("data_file"):
        files["submission.zip"] = details["data_file"]
    if details.get("scoring_result"):
        files["output"] = details["scoring_result"]
    return files


KEY_DESCRIPTION = re.compile(r"^key (\S+)$")


def evalai_phase(client, challenge, phase_id, url):
    try:
        splits = client.api("api/challenges/%s/challenge_phase_split" % challenge)
    except HttpStatus as error:
        if error.status in (404, 406):
            raise CollectError("%s has no challenge %s; the challenge's id is in its address (.../challenge/ID/...)."
                               % (url, challenge))
        raise refused(error, "evalai", url, "the phases of challenge %s" % challenge)
    splits = [s for s in (splits if isinstance(splits, list) else []) if str(s.get("challenge_phase")) == str(phase_id)]
    labels, primary = [], None
    if splits:
        schema = splits[0].get("leaderboard_schema") or {}
        metadata = schema.get("metadata") or {}
        for label in schema.get("labels", []):
            described = KEY_DESCRIPTION.match(str((metadata.get(label) or {}).get("description", "")))
            labels.append((label, described.group(1) if described else label,
                           not (metadata.get(label) or {}).get("sort_ascending", False)))
        primary = next((key for label, key, _ in labels if label == schema.get("default_order_by")), None)
    path = "api/challenges/%s/challenge_phase/%s/submissions" % (challenge, phase_id)
    try:
        listed = client.pages(path)
    except HttpStatus as error:
        if error.status == 404:
            raise CollectError("%s has no phase %s in challenge %s (%s)." % (url, phase_id, challenge,
                                                                              shown(error.detail())))
        if error.status == 400:
            raise CollectError("You are not a host of challenge %s on %s (%s); give a host's token."
                               % (challenge, url, shown(error.detail())))
        raise refused(error, "evalai", url, "the submissions of phase %s" % phase_id)
    if listed and "participant_team_members" not in listed[0]:
        raise CollectError("You take part in challenge %s on %s but do not host it: EvalAI lists only your own "
                           "team's submissions; give a host's token." % (challenge, url))
    by_label = dict((label, key) for label, key, _ in labels)
    subs = []
    for item in listed:
        sub = Submission(item["id"], item.get("participant_team") or "", item.get("status") or "",
                         item.get("submitted_at") or item.get("created_at") or "", item.get("status") == "finished",
                         {})
        sub.files = {"submission.zip": item.get("input_file")}
        if sub.finished and item.get("submission_result_file"):
            sub.files["output/submission_result.json"] = item["submission_result_file"]
        sub.by_label = by_label
        subs.append(sub)
    return Phase([(key, descending) for _, key, descending in labels], primary, subs)


def evalai_scores(sub, result):
    """The leaderboard values EvalAI's result JSON holds: the bundle's evaluation script writes
    {"scores": {label: value}} there (EvalAI keeps the split's result only in its database)."""
    try:
        data = json.loads(result.decode("utf-8"))
    except ValueError:
        return {}
    values = data.get("scores") if isinstance(data, dict) else None
    if not isinstance(values, dict):
        return {}
    return dict((sub.by_label.get(label, label), json.dumps(value)) for label, value in values.items()
                if isinstance(value, (int, float)) and not isinstance(value, bool))


def keep(phase, which):
    """The submissions to collect: every finished one, or each team's last or best."""
    finished = [s for s in phase.submissions if s.finished]
    if which == "all":
        return finished
    descending = dict(phase.columns).get(phase.primary, True)
    chosen = {}
    for sub in sorted(finished, key=lambda s: (s.date, _number(s.ident))):
        held = chosen.get(sub.team)
        if which == "last" or held is None:
            if which == "best" and _score(sub, phase.primary) is None:
                continue
            chosen[sub.team] = sub
            continue
        old, new = _score(held, phase.primary), _score(sub, phase.primary)
        if new is not None and (new > old if descending else new < old):
            chosen[sub.team] = sub
    return list(chosen.values())


def _score(sub, key):
    try:
        return Decimal(sub.scores[key])
    except (KeyError, InvalidOperation, TypeError):
        return None


def _number(text):
    return int(text) if str(text).isdigit() else 0


WINDOWS_RESERVED = {"con", "prn", "aux", "nul"} | set("com%d" % i for i in range(1, 10)) | set(
    "lpt%d" % i for i in range(1, 10))


def folder_names(teams):
    """team -> a folder name: the name in NFC with letters and digits of any script kept, every
    other character but - _ . and space made _, at most 60 characters, no leading dot, no
    Windows device name, unique even where the file system ignores case."""
    out, taken = {}, set()
    for team in teams:
        name = unicodedata.normalize("NFC", team)
        name = "".join(c if (unicodedata.category(c)[0] in "LNM" or c in "-_. ") else "_" for c in name)
        name = name.strip(" .")[:60].strip(" .") or "team"
        if name.split(".")[0].lower() in WINDOWS_RESERVED:
            name = "_" + name
        unique, n = name, 1
        while unique.casefold() in taken:
            n += 1
            unique = "%s-%d" % (name, n)
        taken.add(unique.casefold())
        out[team] = unique
    return out


def complete(folder):
    """True when the folder's record lists files that are all there with their size and SHA-256."""
    try:
        with open(os.path.join(folder, RECORD), encoding="utf-8") as stream:
            record = json.load(stream)
    except (OSError, ValueError):
        return False
    for name, (size, digest) in record.get("files", {}).items():
        path = os.path.join(folder, *name.split("/"))
        if not os.path.isfile(path) or os.path.getsize(path) != size or checksum(path) != (size, digest):
            return False
    return bool(record.get("files"))


def write_record(folder):
    files = {}
    for root, _, names in os.walk(folder):
        for name in names:
            if name == RECORD:
                continue
            path = os.path.join(root, name)
            files[os.path.relpath(path, folder).replace(os.sep, "/")] = list(checksum(path))
    _atomic(os.path.join(folder, RECORD), json.dumps({"files": dict(sorted(files.items()))}, indent=1) + "\n")


def unpack(zip_path, target):
    """Unzip the platform's scoring output: no member may leave target or be a link."""
    root = os.path.realpath(target)
    try:
        archive = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError) as error:
        raise CollectError("The scoring output %s is not a readable zip (%s)." % (zip_path, error))
    with archive:
        if sum(m.file_size for m in archive.infolist()) > MAX_UNPACKED:
            raise CollectError("The scoring output %s unpacks to more than %d bytes; refused." % (zip_path,
                                                                                                 MAX_UNPACKED))
        for member in archive.infolist():
            destination = os.path.realpath(os.path.join(root, member.filename))
            if destination == root and member.filename.endswith("/"):
                continue  # the folder itself ("./"), as some zippers write it
            if (member.external_attr >> 16) & 0o170000 == 0o120000 or not destination.startswith(root + os.sep):
                raise CollectError("The scoring output %s holds %s, a link or a path that leaves its folder; "
                                   "refused." % (zip_path, shown(member.filename)))
            if member.filename.endswith("/"):
                os.makedirs(destination, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(destination), exist_ok=True)
            try:
                with archive.open(member) as source, open(destination, "wb") as sink:
                    shutil.copyfileobj(source, sink)
            except (zipfile.BadZipFile, OSError, EOFError) as error:
                raise CollectError("The scoring output %s: its member %s cannot be read (%s)."
                                   % (zip_path, shown(member.filename), error))


def fetch(client, sub, folder):
    """Download a kept submission's files into folder, replacing whatever partial run was there."""
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    for name, link in sorted(sub.files.items()):
        if not link:
            continue
        if name == "output":
            scratch = os.path.join(folder, "output.zip")
            client.download(link, scratch)
            unpack(scratch, os.path.join(folder, "output"))
            os.remove(scratch)
            continue
        path = os.path.join(folder, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        client.download(link, path)
    write_record(folder)


def collect(args, token, progress):
    if args.platform == "codabench":
        client = Client(args.url, "Token " + token, attempts=args.attempts, log=progress)
        phase = codabench_phase(client, args.phase, args.url)
    else:
        if not args.challenge:
            raise CollectError("EvalAI needs --challenge, the id of the phase's challenge (in its address, "
                               ".../challenge/ID/...).")
        client = Client(args.url, "Bearer " + token, attempts=args.attempts, log=progress)
        phase = evalai_phase(client, args.challenge, args.phase, args.url)
    out = args.out
    os.makedirs(out, exist_ok=True)
    teams = []
    for sub in sorted(phase.submissions, key=lambda s: (_number(s.ident), s.ident)):
        if sub.team not in teams:
            teams.append(sub.team)
    folders = folder_names(teams)
    if args.platform == "evalai":
        _evalai_results(client, phase, folders, out, progress)
    if args.which == "best" and phase.primary is None:
        raise CollectError("Phase %s has no leaderboard with a primary column on %s, so no submission is a team's "
                           "best; use --which last or --which all." % (shown(args.phase), args.url))
    kept = keep(phase, args.which)
    kept_ids = set(s.ident for s in kept)
    for index, sub in enumerate(sorted(kept, key=lambda s: (s.team, _number(s.ident)))):
        folder = os.path.join(out, folders[sub.team], sub.ident)
        label = "[%d/%d] %s, submission %s" % (index + 1, len(kept), shown(sub.team), sub.ident)
        if complete(folder):
            progress("%s: already complete (sizes and checksums verified)" % label)
            continue
        if args.platform == "codabench":
            sub.files = codabench_files(client, sub)
        fetch(client, sub, folder)
        size = os.path.getsize(os.path.join(folder, "submission.zip")) if os.path.isfile(
            os.path.join(folder, "submission.zip")) else 0
        progress("%s: submission.zip %s%s" % (label, _bytes(size), ", output/" if os.path.isdir(
            os.path.join(folder, "output")) else ", no scoring output"))
    rows = []
    for sub in sorted(phase.submissions, key=lambda s: (_number(s.ident), s.ident)):
        rows.append(_row(sub, phase, folders, out, sub.ident in kept_ids, args.which))
    keys = [key for key, _ in phase.columns]
    for sub in phase.submissions:
        keys += [k for k in sub.scores if k not in keys]
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow([inert(cell) for cell in FIXED + keys + ["note"]])
    for row, sub in zip(rows, sorted(phase.submissions, key=lambda s: (_number(s.ident), s.ident))):
        writer.writerow([inert(cell) for cell in row + [sub.scores.get(k, "") for k in keys] + [sub.note]])
    _atomic(os.path.join(out, MANIFEST), text.getvalue())
    unfinished = sum(1 for sub in phase.submissions if not sub.finished)
    progress("Wrote %s: %d submissions of phase %s, %d collected, %d not finished on the platform (see their "
             "status in the manifest)." % (os.path.join(out, MANIFEST), len(rows), shown(args.phase), len(kept),
                                           unfinished))


def _evalai_results(client, phase, folders, out, progress):
    """Every finished submission's result JSON, for its scores (from the folder where complete)."""
    count = sum(1 for sub in phase.submissions if sub.files.get("output/submission_result.json"))
    progress("Reading the result files of %d finished submissions for their scores." % count)
    for sub in phase.submissions:
        link = sub.files.get("output/submission_result.json")
        if not link:
            continue
        folder = os.path.join(out, folders[sub.team], sub.ident)
        local = os.path.join(folder, "output", "submission_result.json")
        if complete(folder) and os.path.isfile(local):
            with open(local, "rb") as stream:
                sub.result = stream.read()
        else:
            sub.result = client._fetch(urllib.parse.urljoin(client.base, link), token=False, sink=None)
        sub.scores = evalai_scores(sub, sub.result)


#: A cell that a spreadsheet would run as a formula: text starting with =, +, -, @, a tab or a
#: carriage return (OWASP, "CSV Injection"), after any single quotes already there.
FORMULA = re.compile("'*[=+\\-@\t\r]")
DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")


def inert(cell):
    """A manifest cell that a spreadsheet shows as text: a text cell that would be a formula
    gets a single quote in front (a team named =1+cmd|' /C calc'!A0), as does one already
    starting with quotes and then such a character, so that compare.py takes exactly one
    quote off (scoring/metaeval/collected.py) and reads every name as written. A number (a
    score such as -0.25) stays a number."""
    cell = str(cell)
    return "'" + cell if FORMULA.match(cell) and not DECIMAL.match(cell) else cell


def _row(sub, phase, folders, out, kept, which):
    folder = "%s/%s" % (folders[sub.team], sub.ident)
    size, digest = "", ""
    if kept:
        upload = os.path.join(out, folders[sub.team], sub.ident, "submission.zip")
        if os.path.isfile(upload):
            size, digest = checksum(upload)
    if not kept and not sub.note:
        sub.note = ("not collected: %s on the platform" % sub.status.lower()) if not sub.finished else (
            "not collected: not the team's %s finished submission" % which)
    primary_score = sub.scores.get(phase.primary, "") if phase.primary else ""
    return [sub.team, sub.ident, sub.status, sub.date, "yes" if kept else "no", folder if kept else "",
            str(size), digest, phase.primary or "", primary_score]


def _bytes(size):
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return ("%d %s" % (size, unit)) if unit == "bytes" else ("%.1f %s" % (size, unit))
        size /= 1024.0


def _atomic(path, text):
    part = path + ".part"
    with open(part, "w", encoding="utf-8", newline="") as stream:
        stream.write(text)
    os.replace(part, path)


def parse(argv):
    parser = argparse.ArgumentParser(prog="collect.py", description="Collect every submission of a phase from "
                                     "Codabench or EvalAI with the organizer's token, for compare.py.")
    parser.add_argument("--platform", choices=sorted(TOKEN_VARIABLES), required=True)
    parser.add_argument("--url", required=True, help="the platform's address, e.g. https://www.codabench.org")
    parser.add_argument("--token", help="the organizer's (host's) API token; default: the environment variable "
                                        "CODABENCH_TOKEN or EVALAI_TOKEN")
    parser.add_argument("--phase", required=True, help="the phase's id")
    parser.add_argument("--challenge", help="EvalAI: the challenge's id")
    parser.add_argument("--out", required=True, help="the folder to collect into (resumed if it exists)")
    parser.add_argument("--which", choices=WHICH, default="last",
                        help="each team's last finished submission (default), its best by the phase's primary "
                             "column, or all finished submissions")
    parser.add_argument("--attempts", type=int, default=7, help="tries of each request (default 7)")
    return parser.parse_args(argv)


def main(argv=None, progress=None):
    args = parse(argv)
    progress = progress or (lambda line: (sys.stderr.write(line + "\n"), sys.stderr.flush()))
    token = args.token or os.environ.get(TOKEN_VARIABLES[args.platform], "")
    if not token.strip():
        sys.stderr.write("No token: give --token or set %s to the %s's API token.\n"
                         % (TOKEN_VARIABLES[args.platform], "organizer" if args.platform == "codabench" else "host"))
        return 2
    parts = urllib.parse.urlsplit(args.url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        sys.stderr.write("--url %s is not a web address; give the platform's, e.g. https://www.codabench.org.\n"
                         % shown(args.url))
        return 2
    try:
        collect(args, token.strip(), progress)
    except CollectError as error:
        sys.stderr.write(error.sentence.replace(token.strip(), "<token>") + "\n")
        return 2
    except HttpStatus as error:
        detail = error.detail()
        sys.stderr.write("%s answered %d%s; run the same command again to resume, or check that the submission "
                         "still exists.\n" % (_where(error.url), error.status,
                                              " (%s)" % shown(detail) if detail else ""))
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted; run the same command again to resume.\n")
        return 130
    except OSError as error:
        sys.stderr.write("Cannot write in %s (%s).\n" % (args.out, error.strerror or error))
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
