import pytest
from check_builders import make_spec


@pytest.fixture
def spec():
    return make_spec()
