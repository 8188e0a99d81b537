// The incident ticket: copy the generated text to the clipboard (the textarea stays selectable
// where the clipboard is not available).
(function () {
  "use strict";
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    var target = document.getElementById(button.getAttribute("data-copy"));
    var status = document.getElementById(button.getAttribute("data-copy") + "-status");
    if (!target) { return; }
    button.addEventListener("click", function () {
      var done = function (text) { if (status) { status.textContent = text; } };
      target.select();
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(target.value).then(
          function () { done("Copied."); },
          function () { done("Selected: press Ctrl+C to copy."); }
        );
      } else {
        done("Selected: press Ctrl+C to copy.");
      }
    });
  });
})();
