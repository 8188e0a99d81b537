from tests.acceptance.burnin.helpers import media_root

__all__ = ["media_root"]
