"""EvalAI evaluation script of a competition built by tools/make_bundle.py: the package at the
root of evaluation_script.zip, beside program/ (the scoring program: metadata, evaluate.py,
scoring/), run.py, uncertainty.py, phases.json and requirements.txt.

EvalAI's submission worker (scripts/workers/submission_worker.py, run_submission) imports
this package and calls evaluate() in its own process, with no time limit, with sys.stdout
and sys.stderr pointed at the files the participant reads (stdout always, stderr when the
submission fails, with the traceback of any exception evaluate() raises appended). So
evaluate() raises nothing: it runs the scoring program in a process of its own, exactly as
Codabench and Codalab run it (the phase's reference data unzipped into INPUT/ref, the
participant's zip into INPUT/res, `python3 program/evaluate.py INPUT OUTPUT`), stops it at
the phase's time limit, and turns what it wrote into what the worker reads:

  scored      {"result": [{split: {label: score}}], "error": [{split: {"error_<label>": +-}}],
              "submission_result": {...}}; the log and the scores go to stdout
  refused     {} (no result: the worker marks the submission failed without a traceback);
              the log and the scoring program's one-sentence refusal, last, go to stderr

The path of the test annotation file (the phase's reference data, which EvalAI stores
without access control) is never printed: run.py gets it as an argument and unzips it
without naming it.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "run.py")
UNCERTAINTY = os.path.join(HERE, "uncertainty.py")
PHASES = os.path.join(HERE, "phases.json")

# The scoring program's statuses (program/scoring/cli.py).
SCORED, REFUSED, ORGANIZER, BUG = 0, 1, 2, 3


def evaluate(test_annotation_file, user_submission_file, phase_codename, **kwargs):
    """What EvalAI's worker calls: see the module text. kwargs (submission_metadata) unused."""
    with open(PHASES, encoding="utf-8") as stream:
        challenge = json.load(stream)
    phase = challenge["phases"].get(phase_codename)
    if phase is None:
        return refuse([], "Organizer error: this evaluation script knows no phase %r (it knows %s); upload the "
                          "challenge's evaluation_script.zip again." % (phase_codename,
                                                                        ", ".join(sorted(challenge["phases"]))))
    deadline = time.time() + phase["time_limit"]
    work = tempfile.mkdtemp(prefix="scoring-")
    try:
        status, out, err = run([sys.executable, RUN, test_annotation_file, user_submission_file, work],
                               deadline, work)
        log = [line for line in err.splitlines() if line.strip()]
        if status is None:
            limit = phase["time_limit"]
            return refuse(log, "Submission error: The scoring run took longer than %d second%s, this phase's time "
                               "limit, and was stopped; if your files are as the Evaluation page describes, tell the "
                               "organizers." % (limit, "" if limit == 1 else "s"))
        if status == BUG or status not in (SCORED, REFUSED, ORGANIZER):
            sys.__stderr__.write(err)  # the traceback goes to the worker's own log, for EvalAI's hosts
            return refuse([], log[-1] if log else "Internal error in the scoring program (status %s)." % status)
        if status != SCORED:
            return refuse(log[:-1], log[-1])
        return scored(challenge, phase, os.path.join(work, "output"), log, deadline, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(argv, deadline, work):
    """(exit status or None if stopped at the deadline, stdout, stderr) of a command run in a
    session of its own, so that the whole group is stopped at the deadline."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONDONTWRITEBYTECODE="1")
    process = subprocess.Popen(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = process.communicate(timeout=max(0.0, deadline - time.time()))
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        process.communicate()
        return None, "", ""
    return process.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def refuse(log, sentence):
    """The participant's stderr: the log, then the sentence last, as the other platforms show it."""
    for line in list(log) + [sentence]:
        sys.stderr.write(line + "\n")
    return {}


def scored(challenge, phase, output, log, deadline, work):
    with open(os.path.join(output, "scores.json"), encoding="utf-8") as stream:
        scores = json.load(stream)
    missing = [key for key, _ in phase["labels"] if key not in scores]
    if missing:
        return refuse(log, "Internal error in the scoring program (not your submission's fault): it wrote no "
                           "score %s; please report it to the organizers." % missing[0])
    values = dict((label, scores[key]) for key, label in phase["labels"])
    plus_minus = uncertainty(challenge, phase, output, deadline, work, log)
    for line in log:
        sys.stdout.write(line + "\n")
    for key, label in phase["labels"]:
        shown = "%s: %s" % (label, scores[key])
        if plus_minus is not None:
            shown += " ± %.4g" % plus_minus[key]
        sys.stdout.write(shown + "\n")
    result = {"result": [{phase["split"]: values}], "submission_result": details(challenge, phase, output,
                                                                                 values, plus_minus)}
    if plus_minus is not None:
        sys.stdout.write(challenge["plus_minus"] + "\n")
        result["error"] = [{phase["split"]: dict(("error_" + label, plus_minus[key])
                                                 for key, label in phase["labels"])}]
    return result


def uncertainty(challenge, phase, output, deadline, work, log):
    """{key: +-} of every key, or None (and a line in the log) where it cannot be had: EvalAI
    needs an error for every label of an entry that has any."""
    status, out, err = run([sys.executable, UNCERTAINTY, output, str(challenge["resamples"]),
                            str(challenge["seed"])], deadline, work)
    if status is None:
        log.append("No error bars: the bootstrap did not finish within this phase's time limit.")
        return None
    found = json.loads(out) if status == 0 else {}
    if status != 0 or any(key not in found for key, _ in phase["labels"]):
        sys.__stderr__.write(err)
        log.append("No error bars: the uncertainty of every score could not be computed.")
        return None
    return found


def details(challenge, phase, output, values, plus_minus):
    """What the participant's Result file holds: EvalAI writes it as JSON
    (submission_result.json), so the detailed results page is its last field, to be saved as
    an .html file and opened in a browser."""
    with open(os.path.join(output, "detailed_results.html"), encoding="utf-8") as stream:
        page = stream.read()
    out = {"how to read": challenge["how_to_read"], "scores": values}
    if plus_minus is not None:
        out["plus_minus"] = dict((label, plus_minus[key]) for key, label in phase["labels"])
        out["plus_minus means"] = challenge["plus_minus"]
    out["detailed_results.html"] = page
    return out
