"""The build pipeline, apart from the page models (macros/site/pages/) and what pages call (macros/site/registry.py):
MkDocs' hooks (`hooks`, named in mkdocs.yml) and what they run over the files and pages: the drawings and their
placing (`drawings`, `figures`), the math typeset by KaTeX (`katex_html`), the inlined critical CSS
(`critical_css`), search's text and terms (`search_text`, `search_terms`), no-break spaces (`nobreak`), the
browser's engine and practice bundles (`browser_engine`, `practice_assets`), the page-error lines
(`build_errors`) and the template cache (`jinja_cache`)."""
