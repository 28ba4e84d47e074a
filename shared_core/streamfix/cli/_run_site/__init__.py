"""The directory ``streamfix run`` puts first on ``PYTHONPATH`` (holds ``sitecustomize``)."""
