"""Pure computation in SI units, free of Jinja, MkDocs, Markdown and text formatting:
what the browser calculator mirrors."""
