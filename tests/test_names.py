"""Names as data (scoring/names.py): keys from names in any script, names as zip tools
write them, "did you mean", repeats. Expected values come from the definitions in the
module's docstrings and SPEC section 2, worked by hand (or by hashlib for the documented
digest of a name without a Latin reading)."""

import hashlib
import io
import re
import unicodedata
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import names
from scoring.errors import ReferenceDataError, SubmissionError


def digest(name):
    """The documented suffix of a name holding another script: 'u' and the first six hex
    digits of the SHA-1 of its NFC form in UTF-8."""
    return "u" + hashlib.sha1(unicodedata.normalize("NFC", name).encode("utf-8")).hexdigest()[:6]


@pytest.mark.parametrize("name,key", [
    ("Pizan", "pizan"),
    ("Victor Hugo", "victor_hugo"),
    ("S\u00e9vign\u00e9", "sevigne"),  # composed (NFC)
    ("Se\u0301vigne\u0301", "sevigne"),  # decomposed (NFD), as macOS writes it
    ("Carnaval_de_R\u00edo", "carnaval_de_rio"),
    ("F\u00eate des Lumi\u00e8res", "fete_des_lumieres"),
    ("Stra\u00dfe", "strasse"),
    ("\u00c6r\u00f8 \u0152uvre", "aero_oeuvre"),
    ("\u0141\u00f3d\u017a", "lodz"),
    ("Tasso-1", "tasso_1"),
    ("  --CSG   863--  ", "csg_863"),
    ("\ufb01n\u00b2", "fin2"),  # compatibility forms: the ligature fi, a superscript two
])
def test_keys_readable_from_latin_names(name, key):
    assert names.key_name(name) == key


@pytest.mark.parametrize("name,latin", [
    ("\u6771\u4eac", ""),  # 東京
    ("\u064a\u0627\u0642\u0648\u062a", ""),  # ياقوت
    ("Syriaque \u0710\u072a\u0721\u071d\u0710", "syriaque_"),
    ("Codex \u03a3\u03b1\u03c0\u03c6\u03ce 2", "codex_2_"),
    ("---", ""),  # nothing left: the digest alone
])
def test_keys_of_names_without_a_latin_reading(name, latin):
    assert names.key_name(name) == latin + digest(name)


def test_keys_of_one_name_in_both_unicode_forms_agree():
    name = "\u6771\u4eac \u00e9"
    assert names.key_name(unicodedata.normalize("NFD", name)) == names.key_name(name) == "e_" + digest(name)


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=30))
def test_every_key_is_machine_safe_and_stable_under_normalisation(name):
    key = names.key_name(name)
    assert re.match(r"^[0-9a-z]+(_[0-9a-z]+)*$", key), (name, key)
    for form in ("NFC", "NFD"):
        assert names.key_name(unicodedata.normalize(form, name)) == key


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[a-z0-9]+(_[a-z0-9]+)*", fullmatch=True))
def test_a_key_like_name_is_its_own_key(name):
    assert names.key_name(name) == name


def test_colliding_names_are_refused_naming_both():
    with pytest.raises(ReferenceDataError) as raised:
        names.name_keys(["Pizan", "Sevigne", "S\u00e9vign\u00e9"], "subset", lambda n: "ref/%s.csv" % n)
    assert raised.value.sentence == (
        "The subsets Sevigne and S\u00e9vign\u00e9 both give the key sevigne (keys are ASCII in lower case, accents "
        "dropped and other characters as '_'); rename one of ref/Sevigne.csv and ref/S\u00e9vign\u00e9.csv so that "
        "every key is distinct.")
    assert names.name_keys(["Victor Hugo", "S\u00e9vign\u00e9"], "subset", str) == {
        "Victor Hugo": "victor_hugo", "S\u00e9vign\u00e9": "sevigne"}


# ---------------------------------------------------------------- zip tools


def unpacked_names(raw_names):
    """The names Python's zipfile gives to members whose names are stored as these raw
    bytes without the UTF-8 flag (general purpose bit 11), as Info-ZIP's zip stores them."""
    buffer = io.BytesIO()
    placeholders = []
    with zipfile.ZipFile(buffer, "w") as archive:
        for i, raw in enumerate(raw_names):
            placeholder = ("%d" % i).rjust(len(raw), "x").encode("ascii")  # ASCII: no flag, same length
            placeholders.append(placeholder)
            archive.writestr(placeholder.decode("ascii"), b"data")
    data = buffer.getvalue()
    for placeholder, raw in zip(placeholders, raw_names):
        assert data.count(placeholder) == 2  # the local header and the central directory
        data = data.replace(placeholder, raw)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        found = archive.namelist()
        assert not any(info.flag_bits & 0x800 for info in archive.infolist())
    return found


def test_utf8_names_unpacked_as_cp437_are_repaired():
    written = ["S\u00e9vign\u00e9_labels.csv", "Carnaval_de_R\u00edo.txt", "\u6771\u4eac.txt",
               "Syriaque \u0710\u072a\u0721\u071d\u0710", "F\u00eate_des_Lumi\u00e8res.txt"]
    mangled = unpacked_names([name.encode("utf-8") for name in written])
    assert mangled[0] == "S\u251c\u2310vign\u251c\u2310_labels.csv"  # S├⌐vign├⌐, as the issue quotes it
    assert [names.cp437_repaired(name) for name in mangled] == written
    assert [names.meant(name) for name in mangled] == [([name], ["cp437"]) for name in written]


@pytest.mark.parametrize("name", ["Pizan_labels.csv", "\u00c7a va.txt", "\u00e9t\u00e9.txt", "\u2500\u2500.txt",
                                  "\u6771\u4eac.txt", ""])
def test_names_that_are_not_mangled_stay(name):
    """ASCII, names of cp437 characters whose bytes are no UTF-8 (Ça va: 0x80), and names
    outside cp437 are what they say."""
    assert names.cp437_repaired(name) is None
    assert names.meant(name)[0] == [name]


def test_backslashes_are_folders_and_nfd_is_noted():
    assert names.meant("authentication\\Alpha_labels.csv") == (["authentication", "Alpha_labels.csv"], ["backslash"])
    assert names.meant("\\lines\\\\CSG 863\\p1.png") == (["lines", "CSG 863", "p1.png"], ["backslash"])
    assert names.meant("Se\u0301vigne\u0301.csv") == (["Se\u0301vigne\u0301.csv"], ["nfd"])
    assert names.canonical("Se\u0301vigne\u0301.csv") == "S\u00e9vign\u00e9.csv"


def test_litter():
    for name in ("__MACOSX", ".DS_Store", "Thumbs.db", "desktop.ini", "._Alpha.csv"):
        assert names.is_litter(name)
    for name in ("Alpha.csv", "_Alpha.csv", ".hidden_but_mine", "MACOSX"):
        assert not names.is_litter(name)


# ---------------------------------------------------------------- did you mean, repeats


@pytest.mark.parametrize("expected,available,found", [
    ("Victor Hugo_labels.csv", ["Victor_Hugo_labels.csv", "notes.md"], "Victor_Hugo_labels.csv"),
    ("S\u00e9vign\u00e9_labels.csv", ["se\u0301vigne\u0301-labels.CSV"], "se\u0301vigne\u0301-labels.CSV"),
    ("La_Tomatina.txt", ["La_Tomatina"], "La_Tomatina"),
    ("page01.png", ["page01_pred.png"], "page01_pred.png"),
    ("Alpha_labels.csv", ["predictions.csv"], None),
])
def test_near_names(expected, available, found):
    assert names.near_name(expected, available) == found


def test_first_repeat_and_its_sentence():
    assert names.first_repeat(["a", "b", "c"]) is None
    assert names.first_repeat(["a", "b", "a", "b"]) == (0, 2)
    with pytest.raises(SubmissionError) as raised:
        names.refuse_repeats(["a", "b", "c", "b"], "x.csv", SubmissionError, [2, 3, 5, 9])
    assert raised.value.sentence == "x.csv line 9 repeats the image b (first on line 3); list each image once."


def test_shown_list_is_bounded():
    assert names.shown_list(["a", "b"]) == "a, b"
    assert names.shown_list(["n%d" % i for i in range(9)], 3) == "n0, n1, n2 and 6 more"
