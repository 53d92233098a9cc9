"""The MkDocs side of the site: code that shapes the built pages rather than computing figures."""
