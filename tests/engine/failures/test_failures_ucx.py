"""UCX's backtrace after `Caught signal N` belongs to that signal's event: its frames are kept
there and none is read as a line of its own (shapes of UCX's error handler output)."""

from __future__ import annotations

from failures_helpers import DATA

from engine.failures import normalise_text

_SEGV = (
    "[gpu-b07:41872:0:41990] Caught signal 11 (Segmentation fault: address not mapped to object "
    "at address 0x10)\n"
)
_FRAMES = (
    " 0 0x0000000000042520 __sigaction()  ???:0\n"
    " 1 0x00000000001f3a1c c10::OutOfMemoryError::OutOfMemoryError()  ???:0\n"
    " 2 0x000000000008170d ncclGroupEnd()  ???:0\n"
    " 3 0x0000000000094ac3 start_thread()  ???:0\n"
)


def _events(text: str) -> list[tuple[str, int, dict]]:
    return [(e.kind, e.line_no, e.detail) for e in normalise_text(text, source="r.log", year=2025)]


def test_the_backtrace_s_frames_are_the_signal_s_not_events_of_their_own() -> None:
    text = (
        _SEGV
        + "gpu-b07:41873:41991 [1] NCCL INFO Channel 21/0 : 1[101d0] -> 0[101c0] via P2P/IPC\n"
        + "==== backtrace (tid:  41990) ====\n"
        + _FRAMES
        + "=================================\n"
    )
    (signal,) = _events(text)  # no out-of-memory event from the OutOfMemoryError frame
    kind, line, detail = signal
    assert (kind, line, detail["signal"], detail["tid"]) == ("signal", 1, 11, 41990)
    assert detail["backtrace"][:2] == [
        "__sigaction()  ???:0",
        "c10::OutOfMemoryError::OutOfMemoryError()  ???:0",
    ]
    assert detail["backtrace_line"] == 3


def test_an_older_header_without_a_thread_and_lines_after_the_block_are_read_as_usual() -> None:
    frames = "    0  /opt/ucx/lib/libucs.so.0(+0x23e0e) [0x7f22d212ae0e]\n    1  [0x7f22d0adcfc9]\n"
    oom = "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    text = _SEGV + "==== backtrace ====\n" + frames + "===================\n" + oom
    found = _events(text)
    assert [(k, line) for k, line, _ in found] == [("signal", 1), ("oom", 6)]
    assert found[0][2]["backtrace"] == [
        "/opt/ucx/lib/libucs.so.0(+0x23e0e) [0x7f22d212ae0e]",
        "[0x7f22d0adcfc9]",
    ]


def test_each_process_s_backtrace_goes_to_its_own_thread_s_signal() -> None:
    text = (DATA / "shapes" / "ucx_sigbus_09677202c889.log").read_text()
    signals = [e for e in normalise_text(text, source="u.log", year=2025) if e.kind == "signal"]
    assert [(e.detail["tid"], e.detail.get("backtrace", [None])[0]) for e in signals] == [
        (5704, "killpg()  ???:0"),
        (5710, None),
    ]
