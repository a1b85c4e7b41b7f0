"""The platforms a competition is written for: one description of the competition
(model.Competition: phases, tracks, keys, titles, pages, kits) and one writer per platform,
each a module with

    NAME, ZIP, FOLDER       its name, the zip the organizer uploads, the folder of the
                            demo's committed yaml (competition/<FOLDER>/<track>.yaml)
    texts(competition)      what the pages tell participants on that platform
    refusal(competition)    why the competition cannot be written for it, or None
    document(competition)   its competition yaml, as a mapping
    files(competition)      [(name, bytes)]: the zip and what goes beside it
    warnings(competition)   what the organizer should know before uploading
    manifest(competition)   its entry in manifest.json

in today's order: Codabench, EvalAI, then Codalab v1.5 for self-hosted servers. Adding a
platform is one more writer in WRITERS.
"""

from . import codabench, codalab, evalai

WRITERS = (codabench, evalai, codalab)
