"""The runtime the evidence shows against the fixture's: CUDA from the fixture output and from
nvidia-smi's header, the container image when the output carries it."""

import copy
import json

from check_builders import by_name, data_item, fixture_lines, item

from engine.evidence.checks import run_checks
from engine.evidence.checks.runtime import same_version

SMI_560 = "nvidia-smi-query/table_wide_8xh200_drv560.txt"  # its header: CUDA Version: 12.6


def runtime(spec, **values):
    spec = copy.deepcopy(spec)
    spec["runtime"].update(values)
    return spec


def checks(spec, name, *items):
    return by_name(run_checks(spec, list(items)), name)


def test_cuda_at_the_agreed_precision():
    assert same_version("12.4", "12.4.1") and same_version("12.4", "12.4")
    assert not same_version("12.4.1", "12.4") and not same_version("12.4", "12.6")


def test_the_fixture_ran_with_another_cuda(spec):
    (row,) = checks(spec, "fixture-result: CUDA version", item(fixture_lines(
        override={3: {"cuda_version": "12.1"}})))  # fmt: skip
    assert row.status == "fail" and "12.1, 12.6" in row.message and "12.6 agreed" in row.message


def test_cuda_not_agreed_is_said_with_what_ran(spec):
    spec = runtime(spec, cuda_version=None)
    (row,) = checks(spec, "fixture-result: CUDA version", item(fixture_lines()))
    assert row.status == "warn" and row.expected == "not agreed" and "12.6" in row.message


def test_cuda_neither_agreed_nor_printed_is_said_in_words(spec):
    spec = runtime(spec, cuda_version=None)
    unprinted = {rank: {"cuda_version": None} for rank in range(16)}
    (row,) = checks(spec, "fixture-result: CUDA version", item(fixture_lines(override=unprinted)))
    assert (row.status, row.measured) == ("warn", "not printed")
    assert row.message.startswith(
        "The fixture agrees no CUDA version; its output does not print one. Agree one"
    )


def _with_image(image: str) -> str:
    lines = [json.loads(x) for x in fixture_lines().splitlines()]
    return "\n".join(json.dumps({**r, "container_image": image}) for r in lines) + "\n"


AGREED = "nvcr.io/nvidia/pytorch@sha256:" + "a" * 64


def test_the_container_digest_is_compared_when_the_output_carries_it(spec):
    spec = runtime(spec, container_image=AGREED)
    (same,) = checks(spec, "fixture-result: container image", item(_with_image(
        "registry.local/pytorch@sha256:" + "a" * 64)))  # fmt: skip
    assert same.status == "pass"  # the same digest, mirrored under another name
    (other,) = checks(spec, "fixture-result: container image", item(_with_image(
        "nvcr.io/nvidia/pytorch@sha256:" + "b" * 64)))  # fmt: skip
    assert other.status == "fail" and AGREED in other.message
    (absent,) = checks(spec, "fixture-result: container image", item(fixture_lines()))
    assert absent.status == "warn" and "could not be compared" in absent.message


def test_a_driver_older_than_the_agreed_cuda_fails(spec):
    table = data_item(SMI_560, node="gpu-a01")
    (ok,) = checks(spec, "gpu-query: driver supports CUDA", table)
    assert ok.status == "pass" and ok.measured == "12.6"
    (old,) = checks(runtime(spec, cuda_version="12.8"), "gpu-query: driver supports CUDA", table)
    assert old.status == "fail" and "older than the agreed 12.8" in old.message


def test_no_cuda_agreed_adds_no_driver_row(spec):
    results = run_checks(runtime(spec, cuda_version=None), [data_item(SMI_560, node="gpu-a01")])
    assert not [r for r in results if r.name == "gpu-query: driver supports CUDA"]
