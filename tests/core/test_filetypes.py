"""What a file is comes from its bytes: the name only has to agree with them."""

import pytest

from core.filetypes import JPEG, PDF, PNG, TEXT, UnsupportedFile, check_file, sniff
from tests.bids.attachment_helpers import JPEG_BYTES, PDF_BYTES, PNG_BYTES


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (PDF_BYTES, PDF),
        (PNG_BYTES, PNG),
        (JPEG_BYTES, JPEG),
        ("Tier III certificate — Frankfurt\n".encode(), TEXT),
    ],
)
def test_it_tells_each_accepted_kind_by_its_bytes(data, kind):
    assert sniff(data) == kind
    assert check_file("upload.bin", data).content_type == kind


def test_a_pdf_named_file_holding_text_is_refused_by_name():
    with pytest.raises(
        UnsupportedFile, match=r"cert\.pdf is named as a PDF but its content is plain"
    ):
        check_file("cert.pdf", b"just some words\n")


@pytest.mark.parametrize(
    "data", [b"MZ\x90\x00\x03\x00", b"text with a NUL\x00 in it", b"\xff\xfe latin-1 \xe9"]
)
def test_binary_or_non_utf8_content_is_refused_naming_the_file(data):
    with pytest.raises(UnsupportedFile, match=r"^tool\.txt is not a PDF, a PNG or JPEG image"):
        check_file("tool.txt", data)


def test_a_png_named_jpeg_is_refused():
    with pytest.raises(UnsupportedFile, match="named as a JPEG image but its content is a PNG"):
        check_file("rack.JPG", PNG_BYTES)
