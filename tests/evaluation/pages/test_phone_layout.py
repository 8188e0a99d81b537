"""On a 390 px phone (Chromium's viewport), the request, comparison and bid pages fit the width:
wide tables scroll inside their own box, the page itself never scrolls sideways."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.evaluation.pages.conftest import add_bids, score

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('body *')].filter(el => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= width + 1) return false;
    for (let p = el.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (['auto', 'scroll', 'hidden'].includes(s.overflowX) && p !== document.body
          && p !== document.documentElement) return false;
    }
    return true;
  });
  return {scroll: document.documentElement.scrollWidth, width,
          wide: wide.slice(0, 5).map(el => el.tagName + '.' + el.className + '#' + el.id)};
}"""


def _fits(page, url=None):
    if url is not None:
        page.goto(url)
        page.wait_for_load_state("networkidle")
    seen = page.evaluate(OVERFLOW)
    assert seen["scroll"] <= seen["width"] and not seen["wide"], (url or page.url, seen)


def test_the_pages_fit_a_390_px_phone(live_server, new_page, login_as, world, buyer, provider):
    add_bids(world.request, 1)  # three bids: the third must stay reachable
    assert score(world.request).status == "done"
    phone = {"viewport": PHONE, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}
    page = login_as(new_page(**phone), "alice")
    _fits(page, live_server.url + reverse("bids:request-detail", args=[world.request.pk]))
    _fits(page, live_server.url + reverse("evaluation:request-compare", args=[world.request.pk]))
    # An explanation opened in the matrix stays within the screen.
    page.locator(".matrix details summary").first.click()
    opened = page.locator(".matrix details[open]").first.bounding_box()
    assert opened is not None and opened["width"] <= PHONE["width"] * 0.8 + 1
    _fits(page)
    _fits(page, live_server.url + reverse("bids:request-list"))
    page = login_as(new_page(**phone), "nora")
    _fits(page, live_server.url + reverse("bids:bid-detail", args=[world.bid.pk]))
    _fits(page, live_server.url + reverse("bids:bid-edit", args=[world.bid.pk]))
