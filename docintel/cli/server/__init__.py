"""A per-user resident process that answers ``docintel ask`` with its imports already paid.

``wire`` holds what the client and the server share (the private socket folder, the code
fingerprint, the message framing), ``client`` the forwarding a CLI ``ask`` does (standard
library only: socket, json, os, hashlib), ``daemon`` the server loop. The server runs a request
with a handler it is given (``docintel.cli.run``), so this package imports only the standard
library and ``docintel.__version__``. Start, stop and status are the ``docintel serve`` verb (``docintel/cli/serve.py``).
"""
