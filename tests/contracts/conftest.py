from tests.acceptance.pages.conftest import fx

__all__ = ["fx"]
