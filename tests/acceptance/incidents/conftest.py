from tests.acceptance.incidents.helpers import accepted, media_root

__all__ = ["accepted", "media_root"]
