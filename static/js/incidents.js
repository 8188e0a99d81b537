// Failed-run and incident pages: poll the analysis state, tick the contract clocks.
(function () {
  "use strict";
  var state = document.querySelector("[data-poll]");
  if (state) {
    var url = state.getAttribute("data-poll");
    var tick = function () {
      fetch(url, { credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (doc) {
          if (doc.busy) { state.textContent = doc.label; setTimeout(tick, 1500); }
          else { window.location.reload(); }
        })
        .catch(function () { setTimeout(tick, 5000); });
    };
    setTimeout(tick, 1000);
  }
  var clocks = document.querySelectorAll("[data-live][data-due]");
  if (!clocks.length) { return; }
  // Mirrors core.formatting.countdown (tests/core/test_formatting.py): the server renders the first
  // text, this keeps it ticking in the same words.
  var fmt = function (ms) {
    var s = Math.floor(Math.abs(ms) / 1000), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    var text = h ? h + " h " + String(m).padStart(2, "0") + " min" : m + " min " + String(s % 60).padStart(2, "0") + " s";
    return ms >= 0 ? text : "BREACHED · " + text + " overdue";
  };
  var update = function () {
    clocks.forEach(function (el) {
      var left = Date.parse(el.getAttribute("data-due")) - Date.now();
      el.textContent = fmt(left);
      el.className = left >= 0 ? "clock-ok" : "breached";
    });
  };
  setInterval(update, 1000);
})();
