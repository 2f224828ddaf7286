"""``LlamaServer(api_key=...)`` checks its key as the OpenAI client does (issue 27, item 7): before, a key
with a newline inside made every start-up health check fail locally (the HTTP library refuses the header),
retried until the start-up timeout (180 s by default), the key in the HTTP library's error."""

from __future__ import annotations

import pytest

from textleak.llm.llamacpp_server import LlamaServer
from textleak.llm.openai_compat import APIKeyError

KEY = "sk-test-4f9c2a7e81d3b6"


@pytest.mark.parametrize("bad", [KEY[:9] + "\n" + KEY[9:], KEY[:9] + "\x00" + KEY[9:], KEY[:9] + " " + KEY[9:],
                                 KEY[:9] + "\u00e9" + KEY[9:]])
def test_a_key_with_whitespace_control_or_non_ascii_characters_inside_is_refused_at_once(bad):
    with pytest.raises(APIKeyError) as err:
        LlamaServer(api_key=bad, startup_timeout=1)
    message = str(err.value)
    assert "\n" not in message and "LlamaServer(api_key=...)" in message and "inside" in message
    assert not any(piece in message for piece in (KEY[:9], KEY[9:], bad, repr(bad)))


def test_surrounding_whitespace_is_stripped_as_the_client_strips_it():
    assert LlamaServer(api_key=f"  {KEY}\n").api_key == KEY
    assert LlamaServer(api_key=None).api_key is None and LlamaServer(api_key="").api_key is None
