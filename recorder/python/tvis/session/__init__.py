"""The recording session: what every run records, and the runner that starts it.

``session.Session`` installs the hooks, ``runner`` runs the script under it,
``context.CaptureContext`` is the view of the session that captures get.
"""
