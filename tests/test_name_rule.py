"""meshspec/names.py: the one rule for names, and the one way any text becomes a name or a file
name (issue 34: record, import and hunt write only what the loader takes; no text reaches a file
name as it is)."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from meshspec.names import MAX_NAME, NAME, as_name, file_slug, is_name

ANY_TEXT = st.text(alphabet=st.characters(blacklist_categories=()), max_size=300)


@settings(max_examples=400, deadline=None)
@given(ANY_TEXT)
def test_as_name_makes_a_name_of_any_text_and_keeps_a_name_as_it_is(text):
    name = as_name(text)
    assert is_name(name) and re.fullmatch(NAME, name) and len(name) <= MAX_NAME
    assert as_name(text) == name  # the same text, the same name (a recording's uses follow its steps)
    assert (name == text) == is_name(text)


@settings(max_examples=400, deadline=None)
@given(ANY_TEXT, ANY_TEXT)
def test_two_texts_that_are_not_names_keep_two_names(a, b):
    """A changed text carries a hash of the original: 'dst_é' and 'dst_è' are two names."""
    if a != b and not is_name(a) and not is_name(b):
        assert as_name(a) != as_name(b)


@settings(max_examples=400, deadline=None)
@given(ANY_TEXT, st.integers(min_value=12, max_value=120))
def test_a_file_slug_is_a_plain_short_file_name_part(text, limit):
    slug = file_slug(text, limit)
    assert re.fullmatch(r"[A-Za-z0-9_-]+", slug) and len(slug) <= limit
    assert not slug.startswith(("-", ".")) and slug != ".."


def test_path_characters_and_length_never_reach_a_file_name():
    """hunt's --profile "x/../../escaped" wrote into the parent of --out; 240 characters ended in
    File name too long after the whole search."""
    assert "/" not in file_slug("x/../../escaped") and ".." not in file_slug("x/../../escaped")
    assert file_slug("x/../../escaped") != file_slug("x-escaped")
    assert len(file_slug("p" * 240)) == 48 and file_slug("p" * 240) != file_slug("p" * 241)
