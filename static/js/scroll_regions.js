// A box that scrolls sideways (a wide table on a phone, a matrix) must be reachable from the
// keyboard, or only mouse and touch users can read its hidden columns: each one that
// overflows gets tabindex="0" and, unless it is a table (which has its own role), a region
// name taken from its caption, its aria-label or the nearest heading before it.
(function () {
  "use strict";
  var BOXES = "table, .table, .matrix-scroll, .table-scroll, pre, .evidence-lines";

  function heading(el) {
    var caption = el.querySelector("caption");
    if (caption) return caption.textContent.trim();
    for (var node = el; node && node !== document.body; node = node.parentElement) {
      for (var prev = node.previousElementSibling; prev; prev = prev.previousElementSibling) {
        if (/^H[1-6]$/.test(prev.tagName)) return prev.textContent.trim();
      }
    }
    return "Scrollable content";
  }

  function scrolls(el) {
    var style = getComputedStyle(el);
    var sideways = /(auto|scroll)/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1;
    var down = /(auto|scroll)/.test(style.overflowY) && el.scrollHeight > el.clientHeight + 1;
    return sideways || down;
  }

  function mark() {
    document.querySelectorAll(BOXES).forEach(function (el) {
      if (el.hasAttribute("data-scroll-marked") || !scrolls(el)) return;
      el.setAttribute("data-scroll-marked", "");
      if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
      if (el.tagName !== "TABLE" && !el.hasAttribute("role")) {
        el.setAttribute("role", "region");
        if (!el.hasAttribute("aria-label")) el.setAttribute("aria-label", heading(el));
      }
    });
  }

  document.addEventListener("DOMContentLoaded", mark);
  window.addEventListener("resize", mark);
})();
