// Warn before leaving a page whose form holds typed changes that were not sent. A form posted
// (or reset) is no longer a reason to warn; a form marked data-unsaved="off" never is.
(function () {
  "use strict";
  var dirty = new Set();

  function watched(form) {
    return form && (form.method || "").toLowerCase() === "post" &&
      form.getAttribute("data-unsaved") !== "off";
  }

  function mark(event) {
    var field = event.target;
    if (field && field.form && watched(field.form) && field.type !== "hidden") {
      dirty.add(field.form);
    }
  }

  document.addEventListener("input", mark, true);
  document.addEventListener("change", mark, true);
  document.addEventListener("submit", function (event) {
    dirty.delete(event.target);
  }, true);
  document.addEventListener("reset", function (event) {
    dirty.delete(event.target);
  }, true);

  window.addEventListener("beforeunload", function (event) {
    var pending = Array.from(dirty).filter(function (form) { return form.isConnected; });
    if (pending.length === 0) {
      return undefined;
    }
    event.preventDefault();
    // Older browsers show the prompt only when returnValue is set; the text itself is ignored.
    event.returnValue = "You have unsaved changes on this page.";
    return event.returnValue;
  });
}());
