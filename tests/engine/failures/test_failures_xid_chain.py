"""An Xid 109 (CTX SWITCH TIMEOUT) right after an Xid 13 on the same GPU is the 13's consequence."""

from __future__ import annotations

import pytest

from engine.failures import Analysis, SourceFile, analyse

_XID13 = ("NVRM: Xid (PCI:0000:2a:00): 13, pid=1202, name=python3, Graphics SM Warp Exception on "
          "(GPC 0, TPC 0, SM 0): Out Of Range Address")  # fmt: skip
_XID109 = ("NVRM: Xid (PCI:0000:{bus}:00): 109, pid=1202, name=python3, Ch 00000008, "
           "errorString CTX SWITCH TIMEOUT, Info 0x2c02c")  # fmt: skip


def _kernel(*lines: str) -> Analysis:
    text = "".join(f"{line}\n" for line in lines)
    return analyse([SourceFile("kernel/node-1/dmesg.log", text.encode())], year=2024)


def _at(second: int, message: str) -> str:
    return f"2024-05-01T12:00:{second:02d},000000+00:00 node-1 kernel: {message}"


def test_a_ctx_switch_timeout_seconds_after_a_graphics_exception_is_its_consequence() -> None:
    a = _kernel(_at(1, _XID13), _at(4, _XID109.format(bus="2a")))
    first = a.first_failure
    assert first is not None and first.detail["xid"] == 13
    assert a.suggested_owner == "undetermined", a.owner_reasons
    reason = a.owner_reasons[0]
    assert reason.startswith("Xid 13 is usually raised by the job's own kernels")
    assert "Xid 109 (CTX SWITCH TIMEOUT) 3 s later on the same GPU (PCI 2a:00)" in reason
    later = next(e for e in a.timeline if e.detail.get("xid") == 109)
    assert later.secondary and later.detail["after_xid"] == 13
    assert "category" not in later.detail  # not "an Xid on the GPU": the 13 decides the side


def test_raw_dmesg_uptimes_and_the_newer_driver_s_wording_chain_too() -> None:
    newer = ("NVRM: Xid (PCI:0000:2a:00): 109, pid=1202, name=python3, channel 0x00000008, "
             "CTX SWITCH TIMEOUT, Info 0x14c011")  # fmt: skip
    a = _kernel(f"[6781741.548779] {_XID13}", f"[6781743.901002] {newer}")
    assert a.suggested_owner == "undetermined", a.owner_reasons
    assert "Xid 109 (CTX SWITCH TIMEOUT) 2 s later" in a.owner_reasons[0]


@pytest.mark.parametrize(
    ("second", "bus"),
    [(40, "2a"), (4, "3b")],
    ids=["long after the 13", "on another GPU"],
)
def test_a_ctx_switch_timeout_not_right_after_a_13_on_its_gpu_stays_the_provider_s(
    second: int, bus: str
) -> None:
    a = _kernel(_at(1, _XID13), _at(second, _XID109.format(bus=bus)))
    assert a.suggested_owner == "provider", a.owner_reasons
    assert a.owner_reasons[0].startswith("Xid 109 on node-1")
