// This page answered a POST and shows something once: make its history entry a plain GET, so
// a reload or Back shows the fresh list instead of offering to send the form again.
if (window.history && window.history.replaceState) {
  window.history.replaceState(null, "", window.location.href);
}
