"""Compiled page templates kept on disk (macros/site/build/jinja_cache.py): a template renders as Jinja's own
from_string renders it, the second build of the same text compiles nothing, and another text is compiled anew."""

from __future__ import annotations

import jinja2

from macros.site.build import jinja_cache


def test_a_cached_template_renders_as_jinja_s_own_and_is_compiled_once(tmp_path, monkeypatch):
    monkeypatch.setattr(jinja_cache, "CACHE_DIR", tmp_path)
    text = "{% set x = n * 2 %}{{ x }} tokens{% if n > 1 %}, plural{% endif %}"
    plain = jinja2.Environment().from_string(text).render(n=3)
    env = jinja2.Environment()
    compiled = []
    real = env.compile
    monkeypatch.setattr(env, "compile", lambda source, *a, **k: compiled.append(source) or real(source, *a, **k))
    jinja_cache.install(env)
    assert env.from_string(text).render(n=3) == plain == "6 tokens, plural"
    assert env.from_string(text).render(n=1) == "2 tokens"  # read back from the cache: nothing compiled
    assert compiled == [text] and len(list(tmp_path.glob("*.code"))) == 1
    assert env.from_string(text + "!").render(n=1) == "2 tokens!"  # another text: compiled anew
    assert len(compiled) == 2


def test_a_damaged_cache_file_is_compiled_again(tmp_path, monkeypatch):
    monkeypatch.setattr(jinja_cache, "CACHE_DIR", tmp_path)
    env = jinja2.Environment()
    jinja_cache.install(env)
    env.from_string("{{ 1 + 1 }}")
    (cached,) = tmp_path.glob("*.code")
    cached.write_bytes(b"not marshal data")
    assert env.from_string("{{ 1 + 1 }}").render() == "2"
