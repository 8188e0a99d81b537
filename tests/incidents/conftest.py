from tests.incidents.helpers import accepted, analysed, media_root

__all__ = ["accepted", "analysed", "media_root"]
