"""``python -m fcm_emu ...`` runs the bundled fcm-emu binary, as the ``fcm-emu`` command does."""

from ._cli import main

main()
