from tests.acceptance.burnin.helpers import awarded, media_root

__all__ = ["awarded", "media_root"]
