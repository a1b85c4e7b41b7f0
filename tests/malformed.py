"""A corpus of malformed submissions, generated from the sample phase.

Each case copies one track of the sample phase (input/ref/<track>, input/res/<track>)
into a fresh phase, breaks the submission the way participants do, and says what the
scoring program must answer: the exit status and fragments of the last stderr line.
Cases with status 0 are mistakes the program tolerates (a BOM, CRLF, archive debris)
and must score exactly as the clean submission does.

Run as a script to write the corpus to a folder for inspection:
    python3 tests/malformed.py OUT_DIR
"""

import os
import shutil
import sys

from phases import sample_phase

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(os.path.dirname(HERE), "input")

CASES = []


def case(track, name, status, *fragments, **how):
    """Register a mutation of the sample submission of `track`.

    how: same=False for a tolerated change of content (scored, but not as the clean run).
    """

    def register(mutate):
        CASES.append(Case(track, name, status, fragments, mutate, how.get("same", True)))
        return mutate

    return register


class Case(object):
    def __init__(self, track, name, status, fragments, mutate, same):
        self.same = same
        self.track = track
        self.name = name
        self.status = status
        self.fragments = fragments
        self.mutate = mutate

    @property
    def id(self):
        return "%s-%s" % (self.track, self.name)

    def build(self, root):
        """A phase with this track alone in ref/<track>; returns its input directory."""
        phase = str(sample_phase(os.path.join(str(root), self.id), self.track))
        self.mutate(Phase(phase, self.track))
        return phase


class Phase(object):
    """Helpers for mutations: paths of the track's ref and res folders."""

    def __init__(self, root, track):
        self.root = root
        self.ref = os.path.join(root, "ref", track)
        self.res = os.path.join(root, "res", track)

    def path(self, name):
        return os.path.join(self.res, name)

    def read(self, name):
        with open(self.path(name), "rb") as stream:
            return stream.read()

    def write(self, name, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        target = self.path(name)
        if not os.path.isdir(os.path.dirname(target)):
            os.makedirs(os.path.dirname(target))
        with open(target, "wb") as stream:
            stream.write(data)

    def lines(self, name):
        return self.read(name).decode("utf-8").splitlines()

    def write_lines(self, name, lines, ending="\n"):
        self.write(name, ending.join(lines) + ending)

    def remove(self, name):
        target = self.path(name)
        if os.path.isdir(target):
            shutil.rmtree(target)
        else:
            os.remove(target)

    def move_res(self, *folders):
        """Push the whole submission down into nested folders."""
        holding = os.path.join(self.root, "holding")
        os.rename(os.path.join(self.root, "res"), holding)
        target = os.path.join(self.root, "res", *folders)
        os.makedirs(os.path.dirname(target))
        os.rename(holding, target)


# ------------------------------------------------------------------ any track


def _generic(track, probe):
    """Layout mistakes every track shares; `probe` is a file its submission must hold."""

    @case(track, "empty-zip", 1, "empty")
    def empty(phase):
        shutil.rmtree(os.path.join(phase.root, "res"))
        os.makedirs(os.path.join(phase.root, "res"))

    @case(track, "two-levels-of-folders", 1, "outer/inner/", "inside extra folders: move it to")
    def too_deep(phase):
        phase.move_res("outer", "inner")

    @case(track, "one-folder-zipped", 0)
    def one_folder(phase):
        phase.move_res("submission")

    @case(track, "macosx-debris", 0)
    def debris(phase):
        phase.write("__MACOSX/._" + probe, b"\x00\x05\x16\x07junk")
        phase.write(".DS_Store", b"\x00\x00\x00\x01Bud1")
        phase.write("._" + probe, b"\x00\x05\x16\x07")

    @case(track, "link-to-ground-truth", 1, "symbolic link")
    def link_ref(phase):
        os.symlink(os.path.join(phase.ref, "track.yaml"), phase.path("stolen.yaml"))

    @case(track, "link-to-etc-passwd", 1, "symbolic link")
    def link_etc(phase):
        phase.remove(probe)
        os.symlink("/etc/passwd", phase.path(probe))


# ------------------------------------------------------ authentication (FalsID)

A = "authentication"
_generic(A, "Pizan_labels.csv")


@case(A, "wrong-file-name", 1, "The submission has no authentication/Pizan_labels.csv; found "
      "authentication/Pizan-labels.csv, which differs only in its spaces, dashes, underscores or case: rename it "
      "Pizan_labels.csv.")
def wrong_name(phase):
    os.rename(phase.path("Pizan_labels.csv"), phase.path("Pizan-labels.csv"))


@case(A, "wrong-case", 1, "pizan_labels.csv", "case-sensitive")
def wrong_case(phase):
    os.rename(phase.path("Pizan_labels.csv"), phase.path("pizan_labels.csv"))


@case(A, "missing-labels", 1, "Yaqut_labels.csv")
def missing_labels(phase):
    phase.remove("Yaqut_labels.csv")


@case(A, "missing-distances", 1, "Yaqut_distances.csv")
def missing_distances(phase):
    phase.remove("Yaqut_distances.csv")


@case(A, "extra-files", 0)
def extra_files(phase):
    phase.write("notes.xlsx", b"PK\x03\x04")
    phase.write("model/weights.bin", b"\x00" * 16)


@case(A, "semicolons", 1, "Pizan_labels.csv", "semicolons")
def semicolons(phase):
    phase.write_lines("Pizan_labels.csv", [line.replace(",", ";") for line in phase.lines("Pizan_labels.csv")])


@case(A, "tabs", 1, "Pizan_labels.csv", "tabs")
def tabs(phase):
    phase.write_lines("Pizan_labels.csv", [line.replace(",", "\t") for line in phase.lines("Pizan_labels.csv")])


@case(A, "bom", 0)
def bom(phase):
    phase.write("Pizan_labels.csv", b"\xef\xbb\xbf" + phase.read("Pizan_labels.csv"))


@case(A, "crlf", 0)
def crlf(phase):
    phase.write_lines("Pizan_labels.csv", phase.lines("Pizan_labels.csv"), "\r\n")
    phase.write_lines("Pizan_distances.csv", phase.lines("Pizan_distances.csv"), "\r\n")


@case(A, "quoted-fields", 0)
def quoted(phase):
    lines = phase.lines("Pizan_labels.csv")
    phase.write_lines("Pizan_labels.csv", [lines[0]] + ['"%s","%s"' % tuple(line.split(",")) for line in lines[1:]])


@case(A, "header-missing", 1, "Pizan_labels.csv", "line 1", "header")
def no_header(phase):
    phase.write_lines("Pizan_labels.csv", phase.lines("Pizan_labels.csv")[1:])


@case(A, "header-repeated", 1, "Pizan_labels.csv", "repeats the header")
def header_twice(phase):
    lines = phase.lines("Pizan_labels.csv")
    phase.write_lines("Pizan_labels.csv", lines[:10] + [lines[0]] + lines[10:])


@case(A, "not-utf8", 1, "Pizan_labels.csv", "UTF-8")
def latin1(phase):
    phase.write("Pizan_labels.csv", phase.read("Pizan_labels.csv").replace(b"\n", "\xe9\n".encode("latin-1"), 3))


@case(A, "label-outside-set", 1, "Pizan_labels.csv", "maybe")
def bad_label(phase):
    lines = phase.lines("Pizan_labels.csv")
    lines[5] = lines[5].split(",")[0] + ",maybe"
    phase.write_lines("Pizan_labels.csv", lines)


@case(A, "duplicate-ids", 1, "Pizan_labels.csv", "repeats")
def duplicate(phase):
    lines = phase.lines("Pizan_labels.csv")
    phase.write_lines("Pizan_labels.csv", lines + [lines[3]])


@case(A, "empty-label-cell", 1, "Pizan_labels.csv", "label ''")
def empty_cell(phase):
    lines = phase.lines("Pizan_labels.csv")
    lines[4] = lines[4].split(",")[0] + ","
    phase.write_lines("Pizan_labels.csv", lines)


def _edit_cell(phase, line, column, value):
    lines = phase.lines("Pizan_distances.csv")
    cells = lines[line].split(",")
    cells[column] = value
    lines[line] = ",".join(cells)
    phase.write_lines("Pizan_distances.csv", lines)


@case(A, "nan-distance", 1, "Pizan_distances.csv", "line 4, column 7", "is nan; every distance must be a number")
def nan_cell(phase):
    _edit_cell(phase, 3, 6, "nan")


@case(A, "inf-distance", 0, same=False)  # inf: farther than every number
def inf_cell(phase):
    _edit_cell(phase, 8, 2, "inf")


@case(A, "quoted-distances", 0)  # as pandas' to_csv(quoting=csv.QUOTE_ALL) writes them
def quoted_cells(phase):
    lines = phase.lines("Pizan_distances.csv")
    phase.write_lines("Pizan_distances.csv", [lines[0]] + [
        line.split(",", 1)[0] + "," + ",".join('"%s"' % cell for cell in line.split(",")[1:]) for line in lines[1:]])


@case(A, "empty-distance", 1, "Pizan_distances.csv", "line 6, column 3", "expected a number")
def empty_distance(phase):
    _edit_cell(phase, 5, 2, "")


@case(A, "non-square-matrix", 1, "Pizan_distances.csv", "square")
def non_square(phase):
    phase.write_lines("Pizan_distances.csv", phase.lines("Pizan_distances.csv")[:-1])


@case(A, "ragged-matrix", 1, "Pizan_distances.csv", "line 9")
def ragged(phase):
    lines = phase.lines("Pizan_distances.csv")
    lines[8] = lines[8].rsplit(",", 1)[0]
    phase.write_lines("Pizan_distances.csv", lines)


@case(A, "one-by-one-matrix", 1, "Pizan_distances.csv", "lacks")
def one_by_one(phase):
    lines = phase.lines("Pizan_distances.csv")
    name = lines[1].split(",")[0]
    phase.write_lines("Pizan_distances.csv", [",%s" % name, "%s,0" % name])


@case(A, "numbers-without-names", 1, "Pizan_distances.csv", "header")
def bare_matrix(phase):
    phase.write_lines("Pizan_distances.csv", [line.split(",", 1)[1] for line in phase.lines("Pizan_distances.csv")[1:]])


@case(A, "distances-too-large-for-memory", 1, "Pizan_distances.csv", "GB", ".npz")
def huge_header(phase):
    names = ["IMG_%07d.jpg" % i for i in range(400000)]
    phase.write("Pizan_distances.csv", "," + ",".join(names) + "\n" + names[0] + ",0\n")


@case(A, "npz-not-a-zip", 1, "Tasso_distances.npz", "npz")
def npz_text(phase):
    phase.write("Tasso_distances.npz", "this is not an archive\n")


@case(A, "npz-object-arrays", 1, "Tasso_distances.npz")
def npz_objects(phase):
    import numpy as np

    with np.load(phase.path("Tasso_distances.npz")) as archive:
        names, distances = archive["names"], archive["distances"]
    np.savez(phase.path("Tasso_distances.npz"), names=names.astype(object), distances=distances)


# ------------------------------------------------------------- lines (FEST)

L = "lines"
PAGE = "Latin2/latin2_001.png"
_generic(L, PAGE)


def _image(phase, name):
    from PIL import Image

    return Image.open(phase.path(name))


def _save(phase, image, name, **options):
    image.save(phase.path(name), **options)


@case(L, "missing-page", 1, "Latin2/latin2_002.png")
def missing_page(phase):
    phase.remove("Latin2/latin2_002.png")


@case(L, "wrong-case-page", 1, "LATIN2_001.png", "case-sensitive")
def page_case(phase):
    os.rename(phase.path(PAGE), phase.path("Latin2/LATIN2_001.png"))


@case(L, "image-of-wrong-size", 1, PAGE, "pixels", "ground-truth page")
def wrong_size(phase):
    image = _image(phase, PAGE)
    _save(phase, image.resize((image.size[0] // 2, image.size[1] // 2)), PAGE)


@case(L, "truncated-png", 1, PAGE, "cannot be read")
def truncated(phase):
    data = phase.read(PAGE)
    phase.write(PAGE, data[: len(data) // 2])


@case(L, "jpeg-renamed-png", 1, PAGE, "JPEG")
def jpeg_inside(phase):
    image = _image(phase, PAGE).convert("RGB")
    _save(phase, image, PAGE, format="JPEG")


@case(L, "text-renamed-png", 1, PAGE, "cannot be read as an image")
def text_image(phase):
    phase.write(PAGE, "this is not an image\n")


@case(L, "decompression-bomb", 1, PAGE, "pixels")
def bomb(phase):
    """A PNG whose header claims 50,000 x 50,000 pixels, a few hundred bytes on disk."""
    import struct
    import zlib

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 50000, 50000, 8, 0, 0, 0, 0)
    rows = zlib.compress(b"\x00" * 50001 * 4)
    phase.write(PAGE, b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b""))


@case(L, "cmyk-image", 1, "latin2_001.tif", "image mode CMYK")
def cmyk(phase):
    _save(phase, _image(phase, PAGE).convert("RGB").convert("CMYK"), PAGE.replace(".png", ".tif"))
    phase.remove(PAGE)


# Legal forms of a prediction: scored, not refused (SPEC section 4 lists binary masks,
# grey label images and colour maps; a palette is a colour map stored compactly).


@case(L, "one-bit-image", 0, same=False)
def one_bit(phase):
    _save(phase, _image(phase, "Syriaque341/syriaque341_001.png").convert("1"), "Syriaque341/syriaque341_001.png")


@case(L, "paletted-image", 0)
def paletted(phase):
    image = _image(phase, "Latin14396/latin14396_001.png").convert("RGB")
    colours = len(image.getcolors(1 << 24))
    if colours <= 256:
        _save(phase, image.quantize(colors=colours, method=2), "Latin14396/latin14396_001.png")


@case(L, "seventy-thousand-colours", 0, same=False)
def many_colours(phase):
    """Every predicted pixel a colour of its own: scored (as 70,000 one-pixel lines)."""
    import numpy as np
    from PIL import Image

    image = np.asarray(_image(phase, PAGE).convert("RGB")).copy()
    height, width = image.shape[:2]
    ids = np.arange(1, height * width + 1, dtype=np.uint32).reshape(height, width) * 37 % 70001 + 1
    image[..., 0], image[..., 1], image[..., 2] = ids >> 16, (ids >> 8) & 255, ids & 255
    _save(phase, Image.fromarray(image), PAGE)


# ------------------------------------------------------------ events (ChaLearn)

E = "events"
_generic(E, "La_Tomatina.txt")


@case(E, "missing-category", 1, "La_Tomatina.txt")
def missing_category(phase):
    phase.remove("La_Tomatina.txt")


@case(E, "category-with-spaces", 1, "The submission has no events/La_Tomatina.txt; found events/La Tomatina.txt, "
      "which differs only in its spaces, dashes, underscores or case: rename it La_Tomatina.txt.")
def spaces(phase):
    os.rename(phase.path("La_Tomatina.txt"), phase.path("La Tomatina.txt"))


@case(E, "category-lower-case", 1, "The submission has no events/La_Tomatina.txt; found events/la_tomatina.txt, "
      "which differs only in case (names are case-sensitive): rename it La_Tomatina.txt.")
def lower(phase):
    os.rename(phase.path("La_Tomatina.txt"), phase.path("la_tomatina.txt"))


@case(E, "unknown-id", 1, "La_Tomatina.txt", "line 3", "not among")
def unknown_id(phase):
    lines = phase.lines("La_Tomatina.txt")
    lines[2] = "999999.jpg 0.5"
    phase.write_lines("La_Tomatina.txt", lines)


@case(E, "duplicate-id", 1, "La_Tomatina.txt")
def duplicate_id(phase):
    lines = phase.lines("La_Tomatina.txt")
    phase.write_lines("La_Tomatina.txt", lines + [lines[0]])


@case(E, "nan-confidence", 1, "La_Tomatina.txt", "line 5", "finite")
def nan_confidence(phase):
    lines = phase.lines("La_Tomatina.txt")
    lines[4] = lines[4].split()[0] + " nan"
    phase.write_lines("La_Tomatina.txt", lines)


@case(E, "text-confidence", 1, "La_Tomatina.txt", "line 6", "high")
def text_confidence(phase):
    lines = phase.lines("La_Tomatina.txt")
    lines[5] = lines[5].split()[0] + " high"
    phase.write_lines("La_Tomatina.txt", lines)


@case(E, "missing-confidence", 1, "La_Tomatina.txt", "line 7")
def missing_confidence(phase):
    lines = phase.lines("La_Tomatina.txt")
    lines[6] = lines[6].split()[0]
    phase.write_lines("La_Tomatina.txt", lines)


@case(E, "non-utf8", 1, "La_Tomatina.txt", "UTF-8")
def events_latin1(phase):
    phase.write("La_Tomatina.txt", phase.read("La_Tomatina.txt") + "caf\xe9.jpg 0.1\n".encode("latin-1"))


@case(E, "bom-crlf-tabs", 0)
def bom_crlf_tabs(phase):
    lines = [line.replace(" ", "\t") for line in phase.lines("La_Tomatina.txt")]
    phase.write("La_Tomatina.txt", b"\xef\xbb\xbf" + ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8"))

# ------------------------------------------------------------------ hints that point to the fix


@case(L, "pages-flattened", 1, "The submission has no lines/Latin2/latin2_001.png;",
      "(found lines/latin2_001.png: it belongs in the folder lines/Latin2/, as lines/Latin2/latin2_001.png).")
def pages_flattened(phase):
    for name in os.listdir(phase.path("Latin2")):
        os.rename(phase.path("Latin2/" + name), phase.path(name))
    os.rmdir(phase.path("Latin2"))


@case(L, "manuscript-folder-case", 1, "The submission has no folder lines/Latin2/; found lines/latin2/, which "
      "differs only in case (names are case-sensitive): rename it Latin2/ (one folder per manuscript: Latin14396/, "
      "Latin2/, Syriaque341/).")
def manuscript_folder_case(phase):
    os.rename(phase.path("Latin2"), phase.path("latin2"))


def renamed(track, name, old, new, *fragments):
    """A case whose submission has its file or folder `old` renamed `new`."""
    case(track, name, 1, *fragments)(lambda phase: os.rename(phase.path(old), phase.path(new)))


renamed(L, "manuscript-folder-misnamed", "Latin2", "Latin_2", "The submission has no folder lines/Latin2/; found "
        "lines/Latin_2/, a name close to it: rename it Latin2/ if it is meant for it (one folder per manuscript")
renamed(L, "manuscript-folder-renamed", "Latin2", "Manuscript", "The submission has no lines/Latin2/latin2_001.png; "
        "expected a folder Latin2/ with one prediction per page of manuscript Latin2 (found "
        "lines/Manuscript/latin2_001.png: rename the folder Manuscript/ to Latin2/).")
renamed(L, "page-with-a-suffix", PAGE, "Latin2/latin2_001_pred.png", "The submission has no "
        "lines/Latin2/latin2_001.png; found lines/Latin2/latin2_001_pred.png, a name close to it: rename it "
        "latin2_001.png if it is meant for it.")


@case(A, "one-file-of-another-name", 1, "The submission has no authentication/Pizan_labels.csv (all 3 are "
      "missing); expected one <Subset>_labels.csv per subset (Pizan_labels.csv, Tasso_labels.csv, "
      "Yaqut_labels.csv) or one labels.csv (authentication/ holds predictions.csv, a name the phase does not expect).")
def predictions_csv(phase):
    for name in os.listdir(phase.res):
        phase.remove(name)
    phase.write("predictions.csv", "filename,label\nPIZAN_000353.jpg,0\n")


@case(E, "one-file-of-another-name", 1, "The submission has no events/Ati_Atihan.txt (all 12 are missing); expected",
      "(events/ holds predictions.txt, a name the phase does not expect).")
def predictions_txt(phase):
    for name in os.listdir(phase.res):
        phase.remove(name)
    phase.write("predictions.txt", "002712.jpg 0.5\n")


@case(E, "ids-without-extension", 1, "La_Tomatina.txt line 1 names the image 002712, which is not among",
      "the test set has 002712.jpg, which differs in its extension: write each image id as the test set does, "
      "002712.jpg.")
def ids_without_extension(phase):
    lines = phase.lines("La_Tomatina.txt")
    phase.write_lines("La_Tomatina.txt", [line.replace(".jpg", "") for line in lines])


@case(A, "zip-inside-the-zip", 1, "The submission has no authentication/Pizan_labels.csv (all 3 are missing);",
      "or one labels.csv (the submission holds authentication/results.zip, a zip inside the zip: the platform "
      "unzips your upload once, so zip the result files themselves).")
def zip_inside(phase):
    import zipfile

    names = sorted(os.listdir(phase.res))
    with zipfile.ZipFile(os.path.join(phase.root, "results.zip"), "w") as archive:
        for name in names:
            archive.write(phase.path(name), name)
    for name in names:
        phase.remove(name)
    os.rename(os.path.join(phase.root, "results.zip"), phase.path("results.zip"))


def _other_track(phase, other):
    for name in os.listdir(phase.res):
        phase.remove(name)
    shutil.rmtree(phase.res)
    shutil.copytree(os.path.join(SAMPLE, "res", other), phase.res)


@case(A, "files-of-the-events-track", 1, "The submission has no authentication/Pizan_labels.csv (all 3 are "
      "missing);",
      "or one labels.csv (the submission holds files of the events track (one <Category>.txt of confidences per "
      "category), such as authentication/Ati_Atihan.txt: submit them to that track's phase).")
def events_files_for_authentication(phase):
    _other_track(phase, "events")


@case(E, "files-of-the-lines-track", 1, "The submission has no events/Ati_Atihan.txt (all 12 are missing);",
      "'<image id> <confidence>' (the submission holds files of the lines track (one image per page in manuscript "
      "folders), such as events/Latin14396/latin14396_001.png: submit them to that track's phase).")
def lines_files_for_events(phase):
    _other_track(phase, "lines")


def main(out):
    for item in CASES:
        item.build(out)
    print("%d cases written to %s" % (len(CASES), out))


if __name__ == "__main__":
    main(sys.argv[1])
